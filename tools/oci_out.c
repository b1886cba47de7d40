/* secfilter compile --format=oci: a policy as an OCI seccomp profile that
 * means exactly what the policy means, for runc with libseccomp, or an
 * error that says which rule cannot be written and why.
 *
 * libseccomp compares whole 64-bit registers with ==, !=, <, <=, >, >=
 * and masked equality, ANDs the conditions of a rule (one per argument,
 * or runc ORs them), ORs the rules of one action, and cannot say NOT.  A
 * syscall's filters are a decision list, so each action's calls are
 * written as a union of conjunctions (a DNF, with the negations pushed
 * down to the predicates) over conditions of that kind:
 *  - a 32- or 16-bit argument (its register cut to its width, the upper
 *    bits ignored) compares as masked equalities on the low bits only: an
 *    interval of values is a union of aligned blocks, each one `x & mask
 *    == prefix`; `!=` is the union of the blocks around the value;
 *  - a signed order is an unsigned one on the values with the sign bit
 *    flipped: one or two intervals;
 *  - `x & m` (some bit of m) is the union of `x & b == b`; `x in m` is
 *    `x & ~m == 0`;
 *  - two conditions on one argument in one conjunction are intersected
 *    into one, or into a union of blocks.
 * Every condition is a masked equality (SCMP_CMP_MASKED_EQ, or EQ when
 * the mask is whole): libseccomp 2.5 builds a tree of its rules' nodes,
 * and with ordered comparisons (<, >=) shared by rules of several actions
 * on several arguments its program can decide otherwise than the rules
 * say (tests/unit/test_oci_diff.c found such a pair); with equalities
 * alone a rule is a path of true edges, which it keeps apart.  Calls of
 * different actions are disjoint sets, so libseccomp never has to choose
 * between two actions, and the default action needs no rule.  The
 * profile names no architecture: runc then puts no ENOSYS stub in front
 * (an architecture list would make it return ENOSYS above the highest
 * number named, which the policy does not say). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf.h"
#include "eval.h"
#include "internal.h"
#include "oci_out.h"

#define MAX_TERMS 4096     /* rules of one syscall's action */
#define MAX_RULES 65536    /* rules of the profile */

/* A condition on one register: x & m == d (CUBE), or none. */
enum { C_NONE, C_CUBE };

struct cnd {
	uint8_t kind;
	uint64_t m, d;
};

/* A conjunction: one condition per argument. */
struct term {
	struct cnd c[SF_MAX_ARGS];
};

struct terms {
	struct term *t;
	size_t n, cap;
};

struct writer {
	const struct sf_policy *p;
	unsigned nr;
	int too_big;
	char *why;
	size_t whycap;
};

static void tpush(struct writer *w, struct terms *ts, const struct term *t)
{
	if (ts->n >= MAX_TERMS) {
		w->too_big = 1;
		return;
	}
	if (ts->n == ts->cap) {
		ts->cap = ts->cap ? ts->cap * 2 : 8;
		ts->t = realloc(ts->t, ts->cap * sizeof(*ts->t));
		if (!ts->t) {
			perror("secfilter: compile");
			exit(125);
		}
	}
	ts->t[ts->n++] = *t;
}

static void tfree(struct terms *ts)
{
	free(ts->t);
	memset(ts, 0, sizeof(*ts));
}

/* ---- one register's conditions ---- */

static struct cnd cube(uint64_t m, uint64_t d)
{
	struct cnd c = { C_CUBE, m, d & m };
	return c;
}

static uint64_t low_bits(unsigned bits)
{
	return bits >= 64 ? UINT64_MAX : (1ull << bits) - 1;
}

/* The aligned blocks of [lo, hi] within the low bits `width` (2^k - 1) of
 * a register, the bits above free: each block of 2^b values starting at a
 * multiple of 2^b is one cube, its low b bits free. */
static void blocks(struct writer *w, uint64_t lo, uint64_t hi, uint64_t width, struct cnd *out,
		   unsigned *n, unsigned cap)
{
	unsigned maxbits = 0;

	while (maxbits < 64 && (width >> maxbits & 1))
		maxbits++;
	for (;;) {
		unsigned bits = 0;

		while (bits < maxbits && (lo & low_bits(bits + 1)) == 0 &&
		       low_bits(bits + 1) <= hi - lo)
			bits++;
		if (*n >= cap) {
			w->too_big = 1;
			return;
		}
		out[(*n)++] = cube(width & ~low_bits(bits), lo);
		if (low_bits(bits) >= hi - lo)
			return;
		lo += low_bits(bits) + 1;
	}
}

/* A single libseccomp comparison, or a union of them. */
#define MAX_UNION 160

struct cunion {
	unsigned n;
	int all;                /* no condition at all */
	struct cnd c[MAX_UNION];
};

/* An unsigned interval of the values the register's low `width` bits
 * take, as blocks. */
static void add_range(struct writer *w, struct cunion *u, uint64_t lo, uint64_t hi,
		      uint64_t width)
{
	if (lo > hi)
		return;
	if (lo == 0 && hi == width) {
		u->all = 1;
		return;
	}
	blocks(w, lo, hi, width, u->c, &u->n, MAX_UNION);
}

/* x has some bit of m: for each bit b of m, "b set, the bits of m above b
 * clear" -- disjoint cubes, so that intersecting them with others makes
 * few new ones. */
static void some_bit(struct cunion *u, uint64_t m)
{
	uint64_t b;

	for (b = 1; b; b <<= 1)
		if (m & b) {
			uint64_t above = m & ~(b | (b - 1));
			u->c[u->n++] = cube(above | b, b);
		}
}

/* The registers a predicate (or its negation) is true of, as disjoint
 * cubes. */
static void pred_union(struct writer *w, const struct sf_node *n, int neg, struct cunion *u)
{
	const uint64_t width = n->type == SF_T_U16 ? 0xffff
			       : n->type == SF_T_S32 || n->type == SF_T_U32 ? 0xffffffffull
			       : UINT64_MAX;
	const uint64_t flip = n->type == SF_T_S32 ? 1ull << 31 : n->type == SF_T_S64 ? 1ull << 63 : 0;
	const uint64_t v = n->value & width, key = v ^ flip;
	uint64_t lo = 0, hi = width, b;
	int op = n->op;

	memset(u, 0, sizeof(*u));
	if (neg) {
		static const int opposite[] = {
			[SF_OP_EQ] = SF_OP_NE, [SF_OP_NE] = SF_OP_EQ, [SF_OP_LT] = SF_OP_GE,
			[SF_OP_LE] = SF_OP_GT, [SF_OP_GT] = SF_OP_LE, [SF_OP_GE] = SF_OP_LT,
		};
		if (op == SF_OP_BITS || op == SF_OP_IN) {
			/* !(x & m): x & m == 0; !(x in m): some bit outside m */
			uint64_t m = op == SF_OP_BITS ? v : ~n->value & width;
			if (op == SF_OP_BITS) {
				if (m == 0)
					u->all = 1;
				else
					u->c[u->n++] = cube(m, 0);
				return;
			}
			some_bit(u, m);
			return;
		}
		op = opposite[op];
	}
	switch (op) {
	case SF_OP_EQ:
		u->c[u->n++] = cube(width, v);
		return;
	case SF_OP_NE:
		/* the blocks around v: for each bit, the values that agree
		 * with v above it and differ there */
		for (b = 1; b && (b & width); b <<= 1) {
			uint64_t above = width & ~(b | (b - 1));
			u->c[u->n++] = cube(above | b, (v & above) | (~v & b));
		}
		return;
	case SF_OP_BITS:
		some_bit(u, v);
		return;
	case SF_OP_IN:
		if ((~n->value & width) == 0)
			u->all = 1;
		else
			u->c[u->n++] = cube(~n->value & width, 0);
		return;
	case SF_OP_LT:
		if (key == 0)
			return;
		hi = key - 1;
		break;
	case SF_OP_LE:
		hi = key;
		break;
	case SF_OP_GT:
		if (key == width)
			return;
		lo = key + 1;
		break;
	default: /* SF_OP_GE */
		lo = key;
	}
	/* [lo, hi] of keys: back to values, split where the flip wraps */
	if (!flip) {
		add_range(w, u, lo, hi, width);
	} else if (hi < flip) {
		add_range(w, u, lo | flip, hi | flip, width);
	} else if (lo >= flip) {
		add_range(w, u, lo & ~flip, hi & ~flip, width);
	} else {
		add_range(w, u, lo | flip, width, width);
		add_range(w, u, 0, hi & ~flip, width);
	}
}

/* x in a and x in b, as a union of conditions (empty: none). */
static void meet(const struct cnd *a, const struct cnd *b, struct cunion *u)
{
	memset(u, 0, sizeof(*u));
	if (a->kind == C_NONE || b->kind == C_NONE)
		u->c[u->n++] = a->kind == C_NONE ? *b : *a;
	else if (((a->d ^ b->d) & a->m & b->m) == 0)
		u->c[u->n++] = cube(a->m | b->m, a->d | b->d);
}

/* ---- DNF ---- */

/* out := a AND b */
static void and_terms(struct writer *w, const struct terms *a, const struct terms *b,
		      struct terms *out)
{
	size_t i, j;
	unsigned k;

	for (i = 0; i < a->n && !w->too_big; i++)
		for (j = 0; j < b->n && !w->too_big; j++) {
			/* expand argument by argument: a meet may split */
			struct terms cur = { 0 }, next = { 0 };
			tpush(w, &cur, &a->t[i]);
			for (k = 0; k < SF_MAX_ARGS && cur.n && !w->too_big; k++) {
				size_t x;
				if (b->t[j].c[k].kind == C_NONE)
					continue;
				next.n = 0;
				for (x = 0; x < cur.n; x++) {
					struct cunion u;
					unsigned y;
					meet(&cur.t[x].c[k], &b->t[j].c[k], &u);
					for (y = 0; y < u.n; y++) {
						struct term t = cur.t[x];
						t.c[k] = u.c[y];
						tpush(w, &next, &t);
					}
				}
				{
					struct terms tmp = cur;
					cur = next;
					next = tmp;
				}
			}
			for (k = 0; k < cur.n; k++)
				tpush(w, out, &cur.t[k]);
			tfree(&cur);
			tfree(&next);
		}
}

/* The terms of node i (its negation when neg). */
static void dnf(struct writer *w, const struct sf_node *nodes, uint32_t i, int neg,
		struct terms *out)
{
	const struct sf_node *n = &nodes[i];
	struct terms l = { 0 }, r = { 0 };
	size_t k;

	if (w->too_big)
		return;
	switch (n->kind) {
	case SF_N_PRED: {
		struct cunion u;
		unsigned j;
		pred_union(w, n, neg, &u);
		if (u.all) {
			struct term t;
			memset(&t, 0, sizeof(t));
			tpush(w, out, &t);
			return;
		}
		for (j = 0; j < u.n; j++) {
			struct term t;
			memset(&t, 0, sizeof(t));
			t.c[n->arg] = u.c[j];
			tpush(w, out, &t);
		}
		return;
	}
	case SF_N_NOT:
		dnf(w, nodes, n->left, !neg, out);
		return;
	default:
		dnf(w, nodes, n->left, neg, &l);
		dnf(w, nodes, n->right, neg, &r);
		/* OR, or AND negated (De Morgan): the union */
		if ((n->kind == SF_N_OR) != neg) {
			for (k = 0; k < r.n; k++)
				tpush(w, &l, &r.t[k]);
			for (k = 0; k < l.n; k++)
				tpush(w, out, &l.t[k]);
		} else {
			and_terms(w, &l, &r, out);
		}
		tfree(&l);
		tfree(&r);
	}
}

/* ---- the profile ---- */

struct buf {
	char *s;
	size_t n, cap;
};

static void put(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int k;

	for (;;) {
		va_start(ap, fmt);
		k = vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
		va_end(ap);
		if (k >= 0 && (size_t)k < b->cap - b->n) {
			b->n += (size_t)k;
			return;
		}
		b->cap = b->cap * 2 + (size_t)k + 64;
		b->s = realloc(b->s, b->cap);
		if (!b->s) {
			perror("secfilter: compile");
			exit(125);
		}
	}
}

static void put_action(struct buf *b, unsigned a)
{
	switch (a) {
	case SF_ACTION_RUN: put(b, "\"SCMP_ACT_ALLOW\""); break;
	case SF_ACTION_KILL: put(b, "\"SCMP_ACT_KILL_PROCESS\""); break;
	case SF_ACTION_TRAP: put(b, "\"SCMP_ACT_TRAP\""); break;
	case SF_ACTION_LOG: put(b, "\"SCMP_ACT_LOG\""); break;
	default: put(b, "\"SCMP_ACT_ERRNO\", \"errnoRet\": %u", a);
	}
}

static void put_cond(struct buf *b, unsigned arg, const struct cnd *c)
{
	if (c->m == UINT64_MAX)
		put(b, "{ \"index\": %u, \"value\": %llu, \"op\": \"SCMP_CMP_EQ\" }", arg,
		    (unsigned long long)c->d);
	else
		put(b, "{ \"index\": %u, \"value\": %llu, \"valueTwo\": %llu, "
		    "\"op\": \"SCMP_CMP_MASKED_EQ\" }", arg, (unsigned long long)c->m,
		    (unsigned long long)c->d);
}

/* Every call a matches, b does (a is then not needed beside b). */
static int within(const struct term *a, const struct term *b)
{
	unsigned k;

	for (k = 0; k < SF_MAX_ARGS; k++) {
		const struct cnd *x = &a->c[k], *y = &b->c[k];
		if (y->kind == C_NONE)
			continue;
		if (x->kind == C_NONE || (y->m & ~x->m) || ((x->d ^ y->d) & y->m))
			return 0;
	}
	return 1;
}

static void put_rules(struct buf *b, unsigned nr, unsigned action, struct terms *ts,
		      size_t *count, size_t *conds, int *first)
{
	size_t i, j;
	unsigned k;

	for (i = 0; i < ts->n; i++) {
		int dup = 0, any = 0;
		/* a term within another (an equal one: within the first) */
		for (j = 0; j < ts->n && !dup; j++)
			dup = j != i && within(&ts->t[i], &ts->t[j]) &&
			      (j < i || !within(&ts->t[j], &ts->t[i]));
		if (dup)
			continue;
		put(b, "%s\n    { \"names\": [\"%s\"], \"action\": ", *first ? "" : ",",
		    sf_syscall_by_nr(nr)->name);
		*first = 0;
		put_action(b, action);
		put(b, ", \"args\": [");
		for (k = 0; k < SF_MAX_ARGS; k++) {
			if (ts->t[i].c[k].kind == C_NONE)
				continue;
			put(b, "%s", any ? ", " : "");
			put_cond(b, k, &ts->t[i].c[k]);
			any = 1;
			/* libseccomp compares each half of the register the
			 * mask keeps with a jump of its own */
			*conds += !!(ts->t[i].c[k].m >> 32) + !!(uint32_t)ts->t[i].c[k].m;
		}
		put(b, "] }");
		++*count;
	}
}

/* "the running policy's sys_X filter at FILE:LINE" */
static int too_big(struct writer *w, const struct sf_policy *p, unsigned nr)
{
	const struct sf_sysrule *r = &p->sys[nr];
	const struct sf_filter *f = r->nfilters ? &p->filters[sf_rule_first(p, r)] : NULL;

	snprintf(w->why, w->whycap, "sys_%s%s%s%s%u%s: its filters need more than %d rules "
		 "as an OCI profile (libseccomp has no NOT and one comparison per argument in "
		 "a rule, so they are written as a union of conjunctions)",
		 sf_syscall_by_nr(nr)->name, f ? " (" : "", f ? sf_filter_source(p, f) : "",
		 f ? ":" : "", f ? f->line : 0, f ? ")" : "", MAX_TERMS);
	return -1;
}

/* libseccomp takes errno numbers 0 to 4094 (and runc refuses a profile
 * with another): `return 4095` cannot be written. */
static int errno_4095(const struct sf_policy *p, char *why, size_t whycap)
{
	static const char tail[] = "return 4095 cannot be written: libseccomp takes errno "
				   "numbers below 4095";
	unsigned nr, i;

	if (p->dflt == SF_ERRNO_MAX) {
		snprintf(why, whycap, "default: %s", tail);
		return 1;
	}
	for (nr = 0; nr < SF_NR_COUNT; nr++) {
		const struct sf_sysrule *r = &p->sys[nr];
		if (!r->allowed)
			continue;
		if (r->ret == SF_ERRNO_MAX) {
			snprintf(why, whycap, "sys_%s: %s", sf_syscall_by_nr(nr)->name, tail);
			return 1;
		}
		for (i = 0; i < r->nfilters; i++) {
			const struct sf_filter *f = &p->filters[sf_rule_first(p, r) + i];
			if (f->fail == SF_ERRNO_MAX) {
				snprintf(why, whycap, "sys_%s (%s:%u): else %s", sf_syscall_by_nr(nr)->name,
					 sf_filter_source(p, f), f->line, tail);
				return 1;
			}
		}
	}
	return 0;
}

int oci_profile(const struct sf_policy *p, char **out, size_t *len, char *why, size_t whycap)
{
	struct writer w = { p, 0, 0, why, whycap };
	struct buf b = { NULL, 0, 0 };
	size_t count = 0, conds = 0, nsys = 0;
	int first = 1;
	unsigned nr, i, a;

	if (p->pending) {
		snprintf(why, whycap, "on_next_syscall: 1 cannot be written: a profile applies "
			 "from the container's first instruction");
		return -1;
	}
	if (errno_4095(p, why, whycap))
		return -1;
	put(&b, "{\n  \"defaultAction\": ");
	if (p->dflt >= 1 && p->dflt <= SF_ERRNO_MAX)
		put(&b, "\"SCMP_ACT_ERRNO\",\n  \"defaultErrnoRet\": %u", p->dflt);
	else
		put_action(&b, p->dflt);
	put(&b, ",\n  \"syscalls\": [");
	/* syscalls whose calls all get one action, by action */
	for (a = 0; a <= SF_ACTION_LOG; a = a == SF_ERRNO_MAX ? SF_ACTION_KILL : a + 1) {
		int any = 0;
		if (a == p->dflt)
			continue;
		for (nr = 0; nr < SF_NR_COUNT; nr++) {
			const struct sf_sysrule *r = &p->sys[nr];
			unsigned whole = !r->allowed ? p->dflt : r->ret ? r->ret
					 : !r->nfilters ? SF_ACTION_RUN : UINT16_MAX;
			if (whole != a || !sf_syscall_by_nr(nr))
				continue;
			nsys++;
			if (!any) {
				put(&b, "%s\n    { \"names\": [", first ? "" : ",");
				first = 0;
			}
			put(&b, "%s\"%s\"", any ? ", " : "", sf_syscall_by_nr(nr)->name);
			any = 1;
		}
		if (any) {
			put(&b, "], \"action\": ");
			put_action(&b, a);
			put(&b, " }");
			count++;
		}
	}
	/* syscalls with filters: the calls of each action but the default */
	for (nr = 0; nr < SF_NR_COUNT; nr++) {
		const struct sf_sysrule *r = &p->sys[nr];
		struct terms prefix = { 0 }, run = { 0 };
		struct terms *by = NULL;
		unsigned *acts = NULL, nacts = 0, k;
		struct term all;

		if (!r->allowed || r->ret || !r->nfilters || !sf_syscall_by_nr(nr))
			continue;
		nsys++;
		memset(&all, 0, sizeof(all));
		tpush(&w, &prefix, &all);
		by = calloc(r->nfilters + 1u, sizeof(*by));
		acts = calloc(r->nfilters + 1u, sizeof(*acts));
		if (!by || !acts) {
			perror("secfilter: compile");
			exit(125);
		}
		for (i = 0; i < r->nfilters && !w.too_big; i++) {
			const struct sf_filter *f = &p->filters[sf_rule_first(p, r) + i];
			unsigned fa = f->fail ? f->fail : p->dflt;
			struct terms notf = { 0 }, yes = { 0 }, next = { 0 };

			/* the calls filter i stops: prefix and not f */
			if (fa != p->dflt) {
				for (k = 0; k < nacts && acts[k] != fa; k++)
					;
				if (k == nacts)
					acts[nacts++] = fa;
				dnf(&w, p->nodes, f->root, 1, &notf);
				and_terms(&w, &prefix, &notf, &by[k]);
			}
			/* the calls that go on: prefix and f */
			dnf(&w, p->nodes, f->root, 0, &yes);
			and_terms(&w, &prefix, &yes, &next);
			tfree(&prefix);
			prefix = next;
			tfree(&notf);
			tfree(&yes);
		}
		run = prefix;
		for (k = 0; k <= nacts && !w.too_big; k++) {
			struct terms *ts = k < nacts ? &by[k] : &run;
			unsigned act = k < nacts ? acts[k] : SF_ACTION_RUN;
			if (act == p->dflt)
				continue;
			put_rules(&b, nr, act, ts, &count, &conds, &first);
		}
		for (k = 0; k < nacts; k++)
			tfree(&by[k]);
		tfree(&run);
		free(by);
		free(acts);
		if (w.too_big || count > MAX_RULES) {
			free(b.s);
			return too_big(&w, p, nr);
		}
	}
	/* libseccomp needs a jump at least for each condition and each
	 * syscall: past the kernel's 4096 instructions, runc could not load
	 * the profile */
	if (conds + nsys > SF_BPF_MAX) {
		free(b.s);
		snprintf(why, whycap, "the profile needs %zu comparisons in %zu rules, over the "
			 "4096 instructions of a kernel filter once libseccomp compiles it (it has "
			 "no NOT and one masked comparison per argument in a rule: ranges, != and "
			 "'&' become unions of masked equalities)", conds, count);
		return -1;
	}
	put(&b, "\n  ]\n}\n");
	*out = b.s;
	*len = b.n;
	return 0;
}
