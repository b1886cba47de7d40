/* Applying a parsed policy on top of the current one (SPEC §2 "Meaning",
 * with the actions of language v2), then freezing the result into one
 * immutable block.
 *
 * The work happens on a scratch copy of the state (S, F, pending); the old
 * block is never touched, so a failing rule changes nothing: whole or not
 * at all.  Once the current policy is enforcing, a rule that would add to S
 * fails with EPERM. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "eval.h"
#include "internal.h"
#include "mem.h"
#include "uring.h"

/* A filter in the scratch state: its tree lives in the old block or in the
 * ast being applied. */
struct scratch_filter {
	const struct sf_node *nodes; /* the array root indexes into */
	uint32_t root, line;
	const char *source;
	uint16_t fail;
	const char *text; /* the expression as written, text_len bytes; or NULL */
	uint32_t text_len;
};

struct scratch {
	uint8_t pending;
	uint8_t uring_named; /* a rule named io_uring_setup (see ring_check) */
	uint8_t uring_waived; /* see ring_check */
	uint8_t rets; /* ret[] may hold a nonzero: set by every store of one,
		       * cleared only when ret[] is cleared whole */
	uint16_t dflt;
	uint8_t allowed[SF_NR_COUNT] __attribute__((aligned(8))); /* read by words */
	uint16_t ret[SF_NR_COUNT] __attribute__((aligned(8)));
	/* F[nr] in order, struct scratch_filter each: SF_NR_COUNT vectors
	 * once a syscall has a filter, NULL until then.  Most policies have
	 * none (`*: 1` and what it removes), and 8 KiB of vectors cleared
	 * and walked was a good part of every filtered start. */
	struct sf_vec *filters;
	struct sf_ll_scratch ll; /* the fs./net. rules' layers */
};

static const struct sf_vec no_filters;

/* ---- Eight numbers at a time ----
 * A number the table lacks is never allowed and never has a return
 * (rules name only the table's syscalls: check_rule), so after `*: 1`
 * allowed[] is sf_syscall_listed and ret[] is zero.  The passes that look
 * for an exception to that (every exec'd image's start makes them, on the
 * short form) compare words first and walk the numbers only when one
 * differs. */
typedef uint64_t __attribute__((may_alias)) word;

static int words_zero(const void *p, size_t n)
{
	const word *w = p;
	uint64_t any = 0;
	size_t i;

	for (i = 0; i < n / sizeof *w; i++)
		any |= w[i];
	return any == 0;
}

/* No number with a return: most policies never store one, and 1 KiB
 * of returns read a word at a time was 1k instructions of every start. */
static int rets_zero(const struct scratch *s)
{
	return !s->rets || words_zero(s->ret, sizeof s->ret);
}

/* Every number of the table simply allowed, none with a filter. */
static int all_simply_allowed(const struct scratch *s)
{
	const word *a = (const word *)s->allowed, *l = (const word *)sf_syscall_listed;
	unsigned i;

	if (s->filters)
		return 0; /* rare: the exact walk decides */
	for (i = 0; i < SF_NR_COUNT / sizeof *a; i++)
		if (a[i] != l[i])
			return 0;
	return rets_zero(s);
}

static const struct sf_vec *fv(const struct scratch *s, unsigned nr)
{
	return s->filters ? &s->filters[nr] : &no_filters;
}

static void scratch_free(struct scratch *s)
{
	unsigned nr;

	sf_ll_scratch_free(&s->ll);
	if (!s->filters)
		return;
	for (nr = 0; nr < SF_NR_COUNT; nr++)
		if (s->filters[nr].data)
			sf_vec_free(&s->filters[nr], sizeof(struct scratch_filter));
	sf_mem_free(s->filters, SF_NR_COUNT * sizeof(*s->filters));
	s->filters = NULL;
}

static int add_filter(struct scratch *s, unsigned nr, struct scratch_filter f)
{
	struct scratch_filter *slot;

	if (!s->filters && !(s->filters = sf_mem_alloc(SF_NR_COUNT * sizeof(*s->filters))))
		return -ENOMEM;
	slot = sf_vec_push(&s->filters[nr], sizeof(f), UINT16_MAX);

	if (!slot)
		return s->filters[nr].n >= UINT16_MAX ? -E2BIG : -ENOMEM;
	*slot = f;
	return 0;
}

/* s: fresh from sf_mem_alloc, so zeroed already (an empty S, no
 * returns, no filters: what a start without a policy in force loads). */
static int scratch_load(struct scratch *s, const struct sf_policy *cur)
{
	unsigned nr, i;
	uint16_t rets = 0;
	int rc;

	s->dflt = SF_ACTION_KILL;
	if (!cur)
		return 0;
	s->pending = cur->pending;
	s->uring_named = cur->uring_named;
	s->uring_waived = cur->uring_waived;
	s->dflt = cur->dflt;
	for (nr = 0; nr < SF_NR_COUNT; nr++) {
		const struct sf_sysrule *r = &cur->sys[nr];
		s->allowed[nr] = r->allowed;
		s->ret[nr] = r->ret;
		rets |= r->ret;
		for (i = 0; i < r->nfilters; i++) {
			const struct sf_filter *f = &cur->filters[sf_rule_first(cur, r) + i];
			const char *text = sf_filter_text(cur, f);
			struct scratch_filter sf = {
				cur->nodes, f->root, f->line, cur->strings + f->source, f->fail,
				text, text ? (uint32_t)strlen(text) : 0,
			};
			if ((rc = add_filter(s, nr, sf)))
				return rc;
		}
	}
	s->rets = rets != 0;
	return 0;
}

struct applying {
	int enforcing;
	const struct sf_ast *ast;
	struct sf_error *err;
};

/* ---- Narrowing: what "only reduce access" means with actions ----
 * Once enforcing, every call must get an outcome at least as strict as
 * before, in the order seccomp itself gives its actions when filters are
 * stacked: running < log (runs, reported) < errno (never runs; which
 * errno does not matter) < trap < kill.  An errno action never runs the
 * call, but turning a kill into an errno is still widening: the program
 * lives on where it died, and can try another call, and another. */
enum { L_RUN, L_LOG, L_ERRNO, L_TRAP, L_KILL };

static int level(unsigned action)
{
	switch (action) {
	case SF_ACTION_RUN: return L_RUN;
	case SF_ACTION_LOG: return L_LOG;
	case SF_ACTION_TRAP: return L_TRAP;
	case SF_ACTION_KILL: return L_KILL;
	default: return L_ERRNO;
	}
}

/* "kill", "return EPERM", ... */
static const char *action_text(unsigned action, char *buf, size_t cap)
{
	struct sf_out o = { buf, cap, 0 };

	sf_print_action(&o, action);
	sf_out_end(&o);
	return buf;
}

/* What happens to a call at a level, for messages: "fail with an errno". */
static const char *outcome(int l, int form)
{
	static const char *const text[][3] = {
		/* would ..., instead of ..., calls that now ... */
		[L_RUN] = { "run", "running", "run" },
		[L_LOG] = { "run, logged", "running, logged", "run, logged" },
		[L_ERRNO] = { "fail with an errno", "failing with an errno", "fail with an errno" },
		[L_TRAP] = { "get SIGSYS", "getting SIGSYS", "get SIGSYS" },
		[L_KILL] = { "be killed", "being killed", "are killed" },
	};
	return text[l][form];
}

static int widening(const struct applying *a, const struct sf_rule *r,
		    const char *what)
{
	sf_error_src(a->err, -EPERM, a->ast, r->src, r->line, r->col, r->len,
		     "%s: the running policy can only be narrowed", what);
	return -EPERM;
}

static const char *sc_name(unsigned nr)
{
	const struct sf_syscall *sc = sf_syscall_by_nr(nr);

	return sc ? sc->name : "?";
}

/* The strictest outcome a call of nr in S can have: what its filters'
 * else actions give, and what the calls that pass them get. */
static int filters_level(const struct scratch *s, unsigned nr)
{
	const struct sf_vec *v = fv(s, nr);
	const struct scratch_filter *f = v->data;
	int l = level(s->ret[nr]);
	uint32_t i;

	for (i = 0; i < v->n; i++) {
		int fl = level(f[i].fail ? f[i].fail : s->dflt);
		l = fl > l ? fl : l;
	}
	return l;
}

/* Checks, while enforcing, that a rule on nr narrows; what the call would
 * get afterwards is `after` for the calls the rule decides. */
static int narrows(const struct scratch *s, const struct applying *a,
		   const struct sf_rule *r, unsigned nr)
{
	char what[192], buf[32];
	int before, after;

	if (!a->enforcing)
		return 0;
	if (!s->allowed[nr]) {
		/* not in S: every call gets the default action */
		before = level(s->dflt);
		after = r->rhs == SF_RHS_RETURN ? level(r->action)
			: r->rhs == SF_RHS_REMOVE ? before : L_RUN;
		if (after >= before)
			return 0;
		snprintf(what, sizeof(what), "sys_%s is not in the allowed set%s%s%s", sc_name(nr),
			 r->rhs == SF_RHS_RETURN ? ", and " : "",
			 r->rhs == SF_RHS_RETURN ? action_text(r->action, buf, sizeof(buf)) : "",
			 r->rhs == SF_RHS_RETURN ? " is weaker than the default action" : "");
		return widening(a, r, what);
	}
	switch (r->rhs) {
	case SF_RHS_ALLOW: case SF_RHS_EXPR:
		/* the calls that pass its filters run */
		if (!s->ret[nr])
			return 0;
		if (level(s->ret[nr]) == L_ERRNO)
			snprintf(what, sizeof(what), "sys_%s returns an error in the running policy; "
				 "its calls would run", sc_name(nr));
		else
			snprintf(what, sizeof(what), "every call of sys_%s gets %s in the running "
				 "policy; its calls would run", sc_name(nr),
				 action_text(s->ret[nr], buf, sizeof(buf)));
		return widening(a, r, what);
	case SF_RHS_RETURN:
		/* every call gets the action: its filters are dropped */
		before = filters_level(s, nr);
		after = level(r->action);
		if (after >= before)
			return 0;
		snprintf(what, sizeof(what), "calls of sys_%s that its filters deny would %s "
			 "instead of %s", sc_name(nr), outcome(after, 0), outcome(before, 1));
		return widening(a, r, what);
	default: /* SF_RHS_REMOVE: every call gets the default action */
		before = filters_level(s, nr);
		after = level(s->dflt);
		if (after >= before)
			return 0;
		snprintf(what, sizeof(what), "sys_%s: 0 would give the default action, %s, to "
			 "calls that now %s", sc_name(nr), action_text(s->dflt, buf, sizeof(buf)),
			 outcome(before, 2));
		return widening(a, r, what);
	}
}

/* The rules without an expression (1, 0, ACTION), read once: what
 * apply_one does once narrows has agreed, and what `*` does to every
 * syscall of a start.  A byte store may alias anything, so a loop that
 * read the rule at each number reread it 512 times (6.5k of a filtered
 * start's 47k instructions in the library). */
struct plain {
	uint8_t allowed;
	uint16_t ret;
	int keep_filters; /* `1` leaves F[nr]; 0 and an ACTION drop it */
};

static struct plain plain_of(const struct sf_rule *r)
{
	return (struct plain){ r->rhs != SF_RHS_REMOVE,
			       r->rhs == SF_RHS_RETURN ? r->action : 0,
			       r->rhs == SF_RHS_ALLOW };
}

static void set_plain(struct scratch *s, struct plain pl, unsigned nr)
{
	s->allowed[nr] = pl.allowed;
	s->ret[nr] = pl.ret;
	s->rets |= pl.ret != 0;
	if (s->filters && !pl.keep_filters)
		s->filters[nr].n = 0;
}

static void all_plain(struct scratch *s, const struct sf_rule *r)
{
	const struct plain pl = plain_of(r);
	uint8_t *al = s->allowed;
	uint16_t *rt = s->ret;
	unsigned nr;

	if (!pl.ret) { /* outside the table: already 0 and 0 */
		if (pl.allowed)
			memcpy(al, sf_syscall_listed, SF_NR_COUNT);
		else
			memset(al, 0, SF_NR_COUNT);
		if (s->rets)
			memset(rt, 0, SF_NR_COUNT * sizeof *rt);
		s->rets = 0;
	} else {
		s->rets = 1;
		for (nr = 0; nr < SF_NR_COUNT; nr++)
			if (sf_syscall_row[nr] != SF_NO_ROW) {
				al[nr] = pl.allowed;
				rt[nr] = pl.ret;
			}
	}
	/* apart: most policies have no filter vectors at all */
	for (nr = 0; s->filters && !pl.keep_filters && nr < SF_NR_COUNT; nr++)
		if (sf_syscall_row[nr] != SF_NO_ROW)
			s->filters[nr].n = 0;
}

/* One rule on one syscall (SPEC §2 "Meaning", with actions):
 *   1           in S, its calls run when they pass F[nr]
 *   expr        the same, and expr appended to F[nr] (with its else)
 *   ACTION      in S, every call gets ACTION (return E, kill, trap, log):
 *               F[nr] dropped
 *   0           out of S, F[nr] dropped */
static int apply_one(struct scratch *s, const struct applying *a, const struct sf_rule *r,
		     unsigned nr)
{
	int rc = narrows(s, a, r, nr);

	if (rc)
		return rc;
	switch (r->rhs) {
	case SF_RHS_EXPR: {
		const struct sf_src *src = &SF_VEC_AT(&a->ast->srcs, struct sf_src, r->src);
		struct scratch_filter f = {
			a->ast->nodes.data, r->root, r->line, src->name, r->action,
			r->span_len && src->text && r->span + (size_t)r->span_len <= src->len
				? src->text + r->span : NULL,
			r->span_len,
		};
		if ((rc = add_filter(s, nr, f))) {
			sf_error_src(a->err, rc, a->ast, r->src, r->line, r->col, r->len, "%s",
				     rc == -E2BIG ? "too many filters for one syscall"
						  : "out of memory");
			return rc;
		}
		s->allowed[nr] = 1;
		s->ret[nr] = 0;
		return 0;
	}
	default:
		set_plain(s, plain_of(r), nr);
		return 0;
	}
}

static unsigned ring_setup_nr(void)
{
	return sf_uring_setup_nr < SF_NR_COUNT ? sf_uring_setup_nr : SF_NR_COUNT;
}

static int apply_rule(struct scratch *s, const struct applying *a,
		      const struct sf_rule *r)
{
	const struct sf_group *g;
	unsigned i, nr;
	int rc;

	switch (r->what) {
	case SF_R_FS: case SF_R_NET: case SF_R_LAYER:
		return 0; /* apply_landlock's */
	case SF_R_ON_NEXT:
		if (r->rhs == SF_RHS_ALLOW && !s->pending && a->enforcing)
			return widening(a, r, "on_next_syscall: 1 would lift the running policy");
		s->pending = r->rhs == SF_RHS_ALLOW;
		return 0;
	case SF_R_DEFAULT:
		if (a->enforcing && level(r->action) < level(s->dflt)) {
			char what[128], b1[32], b2[32];
			snprintf(what, sizeof(what), "default: %s is weaker than the running "
				 "default, %s", action_text(r->action, b1, sizeof(b1)),
				 action_text(s->dflt, b2, sizeof(b2)));
			return widening(a, r, what);
		}
		s->dflt = r->action;
		return 0;
	case SF_R_ALL:
		/* not enforcing, nothing narrows: the stores alone (`*: 1` is
		 * most policies' first line, applied at every start) */
		if (!a->enforcing) {
			all_plain(s, r);
			return 0;
		}
		for (nr = 0; nr < SF_NR_COUNT; nr++)
			if (sf_syscall_row[nr] != SF_NO_ROW && (rc = apply_one(s, a, r, nr)))
				return rc;
		return 0;
	case SF_R_GROUP:
		g = &sf_groups[r->nr < sf_group_count ? r->nr : 0];
		for (i = 0; r->nr < sf_group_count && i < g->count; i++)
			if ((rc = apply_one(s, a, r, g->nrs[i])))
				return rc;
		return 0;
	default:
		if (r->nr == ring_setup_nr())
			s->uring_named = 1;
		return apply_one(s, a, r, r->nr);
	}
}

/* ---- io_uring (uring.h) ----
 * A ring does the work of openat, connect, unlinkat... without those
 * calls: with io_uring_setup allowed, restricting one of them restricts
 * nothing.  Refused, unless a rule names io_uring_setup itself (`*` and
 * groups do not): then the author has said what rings may do.  A call is
 * restricted when it does not simply run: not in S (the default action),
 * an errno, or filters.
 *
 * That refusal is our language's.  A minijail or OCI policy decides
 * exactly as minijail and Docker decide it, rings and all: it is taken,
 * marked (uring_waived, kept by later narrowings), and the tools warn
 * (sf_policy_uring_warning). */
static int restricted(const struct scratch *s, unsigned nr)
{
	return sf_syscall_row[nr] != SF_NO_ROW && (!s->allowed[nr] || s->ret[nr] || fv(s, nr)->n);
}

static int in_group(unsigned g, unsigned nr)
{
	unsigned i;

	for (i = 0; g < sf_group_count && i < sf_groups[g].count; i++)
		if (sf_groups[g].nrs[i] == nr)
			return 1;
	return 0;
}

/* The rule of this text that last restricted nr, NULL if none did. */
static const struct sf_rule *restricting_rule(const struct sf_ast *ast, unsigned nr)
{
	uint32_t i = ast->rules.n;

	while (i-- > 0) {
		const struct sf_rule *r = &SF_VEC_AT(&ast->rules, struct sf_rule, i);
		if (r->rhs == SF_RHS_ALLOW || r->rhs == SF_RHS_ACTION)
			continue;
		if ((r->what == SF_R_SYSCALL && r->nr == nr) ||
		    (r->what == SF_R_ALL && r->rhs != SF_RHS_EXPR) ||
		    (r->what == SF_R_GROUP && in_group(r->nr, nr)))
			return r;
	}
	return NULL;
}

static int ring_check(struct scratch *s, const struct applying *a)
{
	unsigned setup = ring_setup_nr(), nr, i, k;
	const struct sf_uring_op *op = NULL;
	const struct sf_rule *r;
	const char *name;

	if (setup >= SF_NR_COUNT || !s->allowed[setup] || s->ret[setup] || s->uring_named ||
	    s->uring_waived)
		return 0;
	/* nothing restricted (`*: 1`): the operations' table stays untouched */
	if (all_simply_allowed(s))
		return 0;
	for (nr = 0; nr < SF_NR_COUNT && !restricted(s, nr); nr++)
		;
	if (nr == SF_NR_COUNT)
		return 0;
	/* the lowest restricted number a ring operation also does: the
	 * operations' calls are a few dozen, the numbers 512 */
	nr = SF_NR_COUNT;
	for (i = 0; i < sf_uring_op_count; i++)
		for (k = 0; k < sf_uring_ops[i].ncalls; k++) {
			unsigned c = sf_uring_ops[i].calls[k];
			if (c < nr && restricted(s, c))
				nr = c;
		}
	if (nr == SF_NR_COUNT)
		return 0;
	op = sf_uring_op_for(nr);
	if (a->ast->foreign) {
		s->uring_waived = 1;
		return 0;
	}
	r = restricting_rule(a->ast, nr);
	name = sc_name(nr);
	sf_error_src(a->err, -EINVAL, a->ast, r ? r->src : 0, r ? r->line : 0, r ? r->col : 0,
		     r ? r->len : 0,
		     "sys_%s is restricted, but io_uring_setup is allowed without a rule "
		     "of its own: a ring's IORING_OP_%s does what %s does, unchecked; "
		     "add 'io_uring_setup: 0', or 'io_uring_setup: 1' to accept that",
		     name, op->name, name);
	return -EINVAL;
}

int sf_policy_uring_warning(const struct sf_policy *p, enum sf_syntax syntax, char *buf,
			    size_t cap)
{
	unsigned setup = ring_setup_nr(), nr;
	const struct sf_uring_op *op = NULL;

	if (!p->uring_waived || p->uring_named || setup >= SF_NR_COUNT ||
	    !p->sys[setup].allowed || p->sys[setup].ret)
		return 0;
	for (nr = 0; nr < SF_NR_COUNT; nr++) {
		const struct sf_sysrule *r = &p->sys[nr];
		if (sf_syscall_by_nr(nr) && (!r->allowed || r->ret || r->nfilters) &&
		    (op = sf_uring_op_for(nr)))
			break;
	}
	if (!op)
		return 0;
	snprintf(buf, cap,
		 "io_uring_setup is allowed, so a ring can do what the policy denies: "
		 "IORING_OP_%s does what %s does, unchecked (taken as %s takes it; "
		 "secfilter's own syntax refuses this); to deny rings, add %s",
		 op->name, sc_name(nr), syntax == SF_SYNTAX_OCI ? "Docker" : "minijail",
		 syntax == SF_SYNTAX_OCI
			 ? "{\"names\": [\"io_uring_setup\"], \"action\": \"SCMP_ACT_ERRNO\", "
			   "\"errnoRet\": 38}"
			 : "'io_uring_setup: return ENOSYS'");
	return 1;
}

/* ---- freezing ---- */

struct sizes {
	uint32_t filters, nodes, preds, strings, texts;
};

static uint32_t tree_size(const struct sf_node *nodes, uint32_t i, uint32_t *preds)
{
	const struct sf_node *n = &nodes[i];

	switch (n->kind) {
	case SF_N_PRED: ++*preds; return 1;
	case SF_N_NOT: return 1 + tree_size(nodes, n->left, preds);
	default:
		return 1 + tree_size(nodes, n->left, preds) +
		       tree_size(nodes, n->right, preds);
	}
}

/* Sources are few (one per apply that added filters): keep each once. */
static uint32_t intern(char *strings, uint32_t *used, const char *s)
{
	uint32_t off = 0;
	size_t len = strlen(s);

	while (off < *used) {
		if (strcmp(strings + off, s) == 0)
			return off;
		off += (uint32_t)strlen(strings + off) + 1;
	}
	memcpy(strings + off, s, len + 1);
	*used += (uint32_t)len + 1;
	return off;
}

static void measure(const struct scratch *s, struct sizes *z)
{
	unsigned nr, i;
	uint32_t preds = 0; /* a local: z's stores would reread s */

	memset(z, 0, sizeof(*z));
	if (!rets_zero(s))
		for (nr = 0; nr < SF_NR_COUNT; nr++)
			preds += s->allowed[nr] && s->ret[nr]; /* its one test (eval.h) */
	z->preds = preds;
	for (nr = 0; nr < SF_NR_COUNT && s->filters; nr++) {
		const struct sf_vec *v = fv(s, nr);
		const struct scratch_filter *f = v->data;
		for (i = 0; i < v->n; i++) {
			z->filters++;
			z->nodes += tree_size(f[i].nodes, f[i].root, &z->preds);
			z->strings += (uint32_t)strlen(f[i].source) + 1;
			if (f[i].text)
				z->texts += f[i].text_len + 1;
		}
	}
}

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* Copies a tree into the block, children first; returns the new root. */
static uint32_t copy_tree(struct sf_node *dst, uint32_t *n,
			  const struct sf_node *src, uint32_t i)
{
	struct sf_node node = src[i];

	if (node.kind != SF_N_PRED)
		node.left = copy_tree(dst, n, src, node.left);
	if (node.kind == SF_N_AND || node.kind == SF_N_OR)
		node.right = copy_tree(dst, n, src, node.right);
	dst[*n] = node;
	return (*n)++;
}

/* The evaluator's form of one predicate (struct sf_test): an interval
 * [first, first+span] of the compared domain, where a signed value is
 * offset by the sign bit so that signed order becomes unsigned order.
 * Complements of intervals wrap around and are intervals too, except the
 * complement of the whole domain; that and the bit test swap their exits
 * instead. */
static void lower_pred(const struct sf_node *n, struct sf_test *t,
		       int32_t yes, int32_t no)
{
	const uint64_t width = n->type == SF_T_S32 || n->type == SF_T_U32 ? UINT32_MAX :
			       n->type == SF_T_U16 ? UINT16_MAX : UINT64_MAX;
	const uint64_t flip = n->type == SF_T_S32 ? 1ull << 31 :
			      n->type == SF_T_S64 ? 1ull << 63 : 0;
	const uint64_t v = (n->value ^ flip) & width; /* in the compared domain */
	uint64_t first = 0, span = width;
	int swap = 0;

	switch (n->op) {
	case SF_OP_EQ: first = v; span = 0; break;
	case SF_OP_NE: first = v + 1; span = width - 1; break;
	case SF_OP_GE: first = v; span = width - v; break;
	case SF_OP_LE: span = v; break;
	case SF_OP_LT:
		if (v == 0)
			swap = 1; /* never: the whole domain, negated */
		else
			span = v - 1;
		break;
	case SF_OP_GT:
		if (v == width)
			swap = 1;
		else
			first = v + 1, span = width - v - 1;
		break;
	case SF_OP_BITS:
	case SF_OP_IN:
		/* x & m is true when ((x - 0) & m) <= 0 is false; x in m when
		 * (x & ~m) == 0.  For a signed 32-bit x the low word decides:
		 * its high half copies bit 31, which ~m & width tests. */
		t->arg = n->arg;
		t->lo = 0;
		t->mask = (n->op == SF_OP_IN ? ~n->value : n->value) & width;
		t->span = 0;
		t->next[1] = n->op == SF_OP_IN ? yes : no;
		t->next[0] = n->op == SF_OP_IN ? no : yes;
		return;
	}
	t->arg = n->arg;
	t->lo = (first - flip) & width;
	t->mask = width;
	t->span = span;
	t->next[1] = swap ? no : yes;
	t->next[0] = swap ? yes : no;
}

/* ---- conjunctions of ranges ----
 * `count > 0 && count <= 4096` is two tests on one register whose
 * intersection is one interval.  The operands of a chain of && are
 * collected; a predicate whose interval does not wrap (lo + span within
 * the mask) is intersected with an earlier such one on the same argument
 * and width, and the pair becomes one test.  An empty intersection is left
 * as it is (two tests, never both true). */
#define CONJ_MAX 16 /* longer chains are lowered unmerged; this lives on
			 the stack of whoever applies a policy, per level */

struct conj_item {
	uint32_t node;
	uint8_t merged;      /* folded into an earlier item */
	uint8_t range;       /* a plain interval, not wrapping in the compared
				domain (signed order): t is it */
	uint64_t flip;       /* t->lo + flip is its first value in that domain */
	struct sf_test t;
};

static uint64_t sign_flip(const struct sf_node *n)
{
	return n->type == SF_T_S32 ? 1ull << 31 : n->type == SF_T_S64 ? 1ull << 63 : 0;
}

/* The operands of the && tree at i, in order; -1 if more than CONJ_MAX. */
static int collect_and(const struct sf_node *nodes, uint32_t i,
		       struct conj_item *out, int n)
{
	if (nodes[i].kind == SF_N_AND) {
		n = collect_and(nodes, nodes[i].left, out, n);
		return n < 0 ? n : collect_and(nodes, nodes[i].right, out, n);
	}
	if (n >= CONJ_MAX)
		return -1;
	out[n].node = i;
	out[n].merged = out[n].range = 0;
	if (nodes[i].kind == SF_N_PRED) {
		struct sf_test *t = &out[n].t;
		uint64_t first;

		lower_pred(&nodes[i], t, 1, 0);
		out[n].flip = sign_flip(&nodes[i]);
		first = (t->lo + out[n].flip) & t->mask;
		/* true must lead on (not a swapped or bit test), the whole
		 * width compared (not `in`, whose mask is the bits it
		 * forbids), and no wrap past the domain's top */
		out[n].range = t->next[1] == 1 && nodes[i].op != SF_OP_IN &&
			       t->span <= t->mask - first;
	}
	return n + 1;
}

static void merge_ranges(struct conj_item *it, int n)
{
	int a, b;

	for (b = 1; b < n; b++) {
		if (!it[b].range)
			continue;
		for (a = 0; a < b; a++) {
			struct sf_test *x = &it[a].t, *y = &it[b].t;
			uint64_t f = it[b].flip, xl, yl, lo, hi;

			/* one register read as one type (a cast may read it
			 * otherwise): one mask and one flip */
			if (!it[a].range || it[a].merged || x->arg != y->arg ||
			    x->mask != y->mask || it[a].flip != f)
				continue;
			xl = (x->lo + f) & x->mask;
			yl = (y->lo + f) & y->mask;
			lo = xl > yl ? xl : yl;
			hi = xl + x->span < yl + y->span ? xl + x->span : yl + y->span;
			if (lo > hi)
				continue;
			x->lo = (lo - f) & x->mask;
			x->span = hi - lo;
			it[b].merged = 1;
			break;
		}
	}
}

static int32_t lower(const struct sf_node *nodes, uint32_t i,
		     struct sf_test *tests, uint32_t *nt, int32_t yes, int32_t no);

/* A && chain, right to left: each operand's success is the next one. */
static int32_t lower_and(const struct sf_node *nodes, uint32_t i,
			 struct sf_test *tests, uint32_t *nt, int32_t yes, int32_t no)
{
	struct conj_item it[CONJ_MAX];
	int n = collect_and(nodes, i, it, 0), k;
	int32_t exit = yes;

	if (n < 0) { /* long: no merging, plain recursion */
		exit = lower(nodes, nodes[i].right, tests, nt, yes, no);
		return lower(nodes, nodes[i].left, tests, nt, exit, no);
	}
	merge_ranges(it, n);
	for (k = n - 1; k >= 0; k--) {
		if (it[k].merged)
			continue;
		if (!it[k].range) {
			exit = lower(nodes, it[k].node, tests, nt, exit, no);
			continue;
		}
		tests[*nt] = it[k].t;
		tests[*nt].next[1] = exit;
		tests[*nt].next[0] = no;
		exit = (int32_t)(*nt)++;
	}
	return exit;
}

/* Short-circuit lowering: the tests of a tree with its exits yes/no. */
static int32_t lower(const struct sf_node *nodes, uint32_t i,
		     struct sf_test *tests, uint32_t *nt, int32_t yes, int32_t no)
{
	const struct sf_node *n = &nodes[i];
	int32_t right;

	switch (n->kind) {
	case SF_N_PRED:
		lower_pred(n, &tests[*nt], yes, no);
		return (int32_t)(*nt)++;
	case SF_N_NOT:
		return lower(nodes, n->left, tests, nt, no, yes);
	case SF_N_AND:
		return lower_and(nodes, i, tests, nt, yes, no);
	default: /* SF_N_OR */
		right = lower(nodes, n->right, tests, nt, yes, no);
		return lower(nodes, n->left, tests, nt, yes, right);
	}
}

/* Tests are made back to front (an exit must exist before the test that
 * jumps to it); reversed, they lie in evaluation order, so that the
 * exit that continues the evaluation is most often simply the next test
 * ("fall"), which the evaluator follows without waiting for a load. */
static int32_t reversed(int32_t i, uint32_t from, uint32_t to)
{
	return i < 0 ? i : (int32_t)(to - 1 - ((uint32_t)i - from));
}

static void reverse_tests(struct sf_test *tests, uint32_t from, uint32_t to)
{
	uint32_t a, b;

	for (a = from; a < to; a++) {
		tests[a].next[0] = reversed(tests[a].next[0], from, to);
		tests[a].next[1] = reversed(tests[a].next[1], from, to);
	}
	for (a = from, b = to; a + 1 < b; a++, b--) {
		struct sf_test t = tests[a];
		tests[a] = tests[b - 1];
		tests[b - 1] = t;
	}
	for (a = from; a < to; a++)
		tests[a].fall = tests[a].next[1] == (int32_t)a + 1 ? 1 :
				tests[a].next[0] == (int32_t)a + 1 ? 0 : 2;
}

/* Whether tests[from, to) are a plain conjunction: each one, when true,
 * goes on to the following test (the last one: to SF_ALLOW), and names
 * a filter when false.  Then eval.h can run them all without following
 * exits. */
static uint8_t conjunction(struct sf_test *tests, uint32_t from, uint32_t to)
{
	uint32_t a;

	if (to - from > UINT8_MAX)
		return 0;
	for (a = from; a < to; a++) {
		struct sf_test *t = &tests[a];
		int32_t on = a + 1 < to ? (int32_t)a + 1 : SF_ALLOW;
		if (t->next[1] != on || t->next[0] > SF_FILTER_EXIT(0))
			return 0;
	}
	return (uint8_t)(to - from);
}

/* The filters of one syscall as one chain: each one's success leads to the
 * next, the last to SF_ALLOW; a failure names its filter (-(4+k)).  A
 * syscall with `return E` has no filters: its chain is one test that is
 * always true (mask 0) and exits to SF_RETURN. */
static void lower_syscall(struct sf_policy *p, struct sf_filter *filters,
			  struct sf_node *nodes, struct sf_test *tests,
			  struct sf_sysrule *r, struct sf_sysidx *ix)
{
	int32_t yes = SF_ALLOW;
	uint32_t from = p->ntests, nt = p->ntests;
	int k;

	if (r->allowed && r->ret) {
		tests[nt] = (struct sf_test){ .next = { SF_RETURN, SF_RETURN }, .fall = 2 };
		ix->test = nt;
		r->chain = 1;
		p->ntests = nt + 1;
		return;
	}
	r->chain = r->allowed && r->nfilters;
	for (k = r->nfilters - 1; k >= 0; k--) {
		struct sf_filter *f = &filters[ix->first + (uint32_t)k];
		int32_t no = SF_FILTER_EXIT(ix->first + (uint32_t)k);
		f->test = (uint32_t)lower(nodes, f->root, tests, &nt, yes, no);
		yes = (int32_t)f->test;
	}
	reverse_tests(tests, from, nt);
	r->conj = conjunction(tests, from, nt);
	ix->test = from;
	for (k = 0; k < r->nfilters; k++) {
		struct sf_filter *f = &filters[ix->first + (uint32_t)k];
		f->test = (uint32_t)reversed((int32_t)f->test, from, nt);
	}
	p->ntests = nt;
}

/* The block being frozen: its arrays, and where the texts go. */
struct block {
	struct sf_policy *p;
	struct sf_sysidx *idx; /* NULL when no syscall has filters or a return */
	struct sf_filter *filters;
	struct sf_node *nodes;
	struct sf_test *tests;
	char *strings;
	uint32_t texts; /* the first free byte of the texts, after the sources */
};

/* F[nr] into the block (a start's `*: 1` has none: freeze skips this). */
static void copy_filters(struct block *b, const struct sf_vec *v, struct sf_sysrule *r)
{
	const struct scratch_filter *f = v->data;
	struct sf_policy *p = b->p;
	uint32_t i;

	r->nfilters = (uint16_t)v->n;
	for (i = 0; i < v->n; i++) {
		struct sf_filter *nf = &b->filters[p->nfilters++];
		nf->root = copy_tree(b->nodes, &p->nnodes, f[i].nodes, f[i].root);
		nf->line = f[i].line;
		nf->fail = f[i].fail;
		nf->source = intern(b->strings, &p->nstrings, f[i].source);
		nf->text = SF_NO_TEXT;
		if (f[i].text) { /* after the sources: many, not searched */
			nf->text = b->texts;
			memcpy(b->strings + nf->text, f[i].text, f[i].text_len);
			b->strings[nf->text + f[i].text_len] = '\0';
			b->texts += f[i].text_len + 1;
		}
	}
}

/* sys[nr].allowed = allowed[nr] for every nr, eight a word: a byte
 * loop was 3.5k instructions of every start. */
static void spread_allowed(struct sf_sysrule *sys, const uint8_t *allowed)
{
	const word *a = (const word *)allowed;
	struct sf_sysrule *r;
	unsigned i;

	for (i = 0; i < SF_NR_COUNT / sizeof *a; i++) {
		uint64_t w = a[i];
		/* its nonzero bytes: the rest stay zero */
		for (r = sys + i * 8; w; w >>= 8, r++)
			r->allowed = (uint8_t)w;
	}
}

static int freeze(const struct scratch *s, struct sf_policy **out)
{
	struct sizes z;
	size_t off_idx, off_filters, off_nodes, off_tests, off_strings, size;
	struct sf_policy *p;
	struct block b;
	unsigned nr;

	measure(s, &z);
	off_idx = align8(sizeof(*p));
	off_filters = off_idx + (z.filters || z.preds ? SF_NR_COUNT * sizeof(*b.idx) : 0);
	off_nodes = align8(off_filters + (size_t)z.filters * sizeof(*b.filters));
	off_tests = align8(off_nodes + (size_t)z.nodes * sizeof(*b.nodes));
	off_strings = off_tests + (size_t)z.preds * sizeof(*b.tests);
	size = off_strings + z.strings + z.texts + 1;
	p = sf_mem_alloc(size);
	if (!p)
		return -ENOMEM;
	b = (struct block){
		p, off_filters > off_idx ? (struct sf_sysidx *)((char *)p + off_idx) : NULL,
		(struct sf_filter *)((char *)p + off_filters),
		(struct sf_node *)((char *)p + off_nodes), (struct sf_test *)((char *)p + off_tests),
		(char *)p + off_strings, z.strings,
	};
	p->size = size;
	p->pending = s->pending;
	p->uring_named = s->uring_named;
	p->uring_waived = s->uring_waived;
	p->dflt = s->dflt;
	/* No filter and no return anywhere (`*: 1` and what it removes): each
	 * rule is its allowed byte, the rest stays as sf_mem_alloc zeroed it
	 * (first and test are 0 too). */
	if (!b.idx)
		spread_allowed(p->sys, s->allowed);
	for (nr = 0; b.idx && nr < SF_NR_COUNT; nr++) {
		struct sf_sysrule *r = &p->sys[nr];

		r->allowed = s->allowed[nr];
		r->ret = s->allowed[nr] ? s->ret[nr] : 0;
		r->nfilters = 0;
		b.idx[nr].first = p->nfilters;
		if (s->filters && s->filters[nr].n)
			copy_filters(&b, &s->filters[nr], r);
		if (r->nfilters || r->ret)
			lower_syscall(p, b.filters, b.nodes, b.tests, r, &b.idx[nr]);
		else
			b.idx[nr].test = p->ntests; /* as lower_syscall leaves it */
	}
	p->idx = b.idx;
	p->filters = b.filters;
	p->nodes = b.nodes;
	p->tests = b.tests;
	p->strings = b.strings;
	*out = p;
	return 0;
}

/* ---- A tree from a front end is checked before it is used ----
 * The parser cannot make a bad tree, but a front end for another syntax
 * builds its own (build.c): every index in range, every node's children
 * made before it (so no cycle), a depth every consumer can recurse over,
 * actions each rule can have.  A bad tree is -EINVAL, never a crash. */
#define MAX_TREE_DEPTH 4096 /* the parser's trees stay under 64 * 23 */

static int bad_tree(const struct sf_ast *ast, struct sf_error *err, uint32_t src,
		    unsigned line, const char *why)
{
	sf_error_src(err, -EINVAL, ast, src < ast->srcs.n ? src : 0, line, 0, 0,
		     "internal error: malformed policy tree: %s", why);
	return -EINVAL;
}

static int check_nodes(const struct sf_ast *ast, struct sf_error *err)
{
	const struct sf_node *nodes = ast->nodes.data;
	uint16_t *depth = ast->nodes.n ? sf_mem_alloc(ast->nodes.n * sizeof(*depth)) : NULL;
	const char *why = NULL;
	uint32_t i;

	if (ast->nodes.n && !depth)
		return -ENOMEM;
	for (i = 0; i < ast->nodes.n && !why; i++) {
		const struct sf_node *n = &nodes[i];
		unsigned d = 0;
		switch (n->kind) {
		case SF_N_PRED:
			if (n->arg >= SF_MAX_ARGS || n->type > SF_T_PTR || n->op > SF_OP_IN ||
			    sf_normalize(n->value, (enum sf_type)n->type) != n->value)
				why = "a bad predicate";
			break;
		case SF_N_NOT:
			if (n->left >= i)
				why = "a child made after its parent";
			else
				d = depth[n->left];
			break;
		case SF_N_AND: case SF_N_OR:
			if (n->left >= i || n->right >= i)
				why = "a child made after its parent";
			else
				d = depth[n->left] > depth[n->right] ? depth[n->left] : depth[n->right];
			break;
		default:
			why = "a bad node";
		}
		if (!why && d + 1 > MAX_TREE_DEPTH)
			why = "an expression too deep (build chains with sf_ast_chain)";
		if (!why)
			depth[i] = (uint16_t)(d + 1);
	}
	if (depth)
		sf_mem_free(depth, ast->nodes.n * sizeof(*depth));
	return why ? bad_tree(ast, err, 0, 0, why) : 0;
}

static int is_action(unsigned a)
{
	return (a >= 1 && a <= SF_ERRNO_MAX) ||
	       a == SF_ACTION_KILL || a == SF_ACTION_TRAP || a == SF_ACTION_LOG;
}

/* The argument whose name the kernel gave as argN, N the register reg
 * past sc's arguments; -1 when none did. */
static int name_taken(const struct sf_syscall *sc, unsigned reg)
{
	const char name[4] = { 'a', 'r', 'g', (char)('0' + reg) };

	return reg >= sc->nargs ? sf_syscall_arg(sc, name, 4) : -1;
}

/* A register past a syscall's arguments is named argN in text, except
 * where the kernel's names take argN for another argument (prctl, keyctl
 * and arch_prctl: option, arg2, ...; secfilter(7)).  Such a register has
 * no name, so a tree of another syntax (minijail's arg2, OCI's index 2)
 * that tests it would print as a policy testing another argument: the
 * register, or -1 when the tree has none. */
static int unnamed_register(const struct sf_node *nodes, uint32_t i, const struct sf_syscall *sc)
{
	const struct sf_node *n = &nodes[i];
	int a;

	switch (n->kind) {
	case SF_N_PRED:
		return name_taken(sc, n->arg) >= 0 ? n->arg : -1;
	case SF_N_NOT:
		return unnamed_register(nodes, n->left, sc);
	default: /* depth checked by check_nodes */
		a = unnamed_register(nodes, n->left, sc);
		return a >= 0 ? a : unnamed_register(nodes, n->right, sc);
	}
}

static int check_rule(const struct sf_ast *ast, const struct sf_rule *r, struct sf_error *err)
{
	const char *why = NULL;

	if (r->src >= ast->srcs.n)
		why = "a rule without a source";
	else if (r->what > SF_R_LAYER || r->rhs > SF_RHS_ACTION)
		why = "a bad rule"; /* fs./net.: apply_landlock checks the rest */
	else if (r->what == SF_R_SYSCALL && !sf_syscall_by_nr(r->nr))
		why = "a syscall number the table does not have";
	else if (r->what == SF_R_GROUP && r->nr >= sf_group_count)
		why = "no such group";
	else if (r->what == SF_R_DEFAULT ? r->rhs != SF_RHS_ACTION || !is_action(r->action)
		 : r->what == SF_R_ON_NEXT ? r->rhs > SF_RHS_REMOVE
		 : r->rhs == SF_RHS_ACTION)
		why = "a right-hand side the directive cannot have";
	else if (r->rhs == SF_RHS_RETURN && !is_action(r->action))
		why = "an action is kill, trap, log or an errno from 1 to 4095";
	else if (r->rhs == SF_RHS_EXPR && r->action && !is_action(r->action))
		why = "else takes kill, trap, log or an errno from 1 to 4095";
	else if (r->rhs == SF_RHS_EXPR && (r->what != SF_R_SYSCALL || r->root >= ast->nodes.n))
		why = "a bad expression";
	if (why)
		return bad_tree(ast, err, r->src, r->line, why);
	if (r->rhs == SF_RHS_EXPR) {
		const struct sf_syscall *sc = sf_syscall_by_nr(r->nr);
		int a = unnamed_register(ast->nodes.data, r->root, sc);
		if (a >= 0) {
			sf_error_src(err, -EINVAL, ast, r->src, r->line, 0, 0,
				     "sys_%s takes %u arguments, and its register %d cannot be "
				     "tested: arg%d is what the kernel calls its argument %d",
				     sc->name, sc->nargs, a, a, name_taken(sc, (unsigned)a));
			return -EINVAL;
		}
	}
	return 0;
}

/* The fs./net. rules on top of cur's layers.  They touch nothing else
 * (apply_rule passes them by), so they go in one pass of their own, out
 * of line: sf_policy_apply_ast is the library's hot text (Makefile,
 * hot.ld), and most policies have none. */
static __attribute__((noinline)) int apply_landlock(struct scratch *s, const struct applying *a,
						   const struct sf_policy *cur)
{
	uint32_t i;
	int rc = sf_ll_load(&s->ll, cur ? cur->landlock : NULL);

	for (i = 0; !rc && i < a->ast->rules.n; i++) {
		const struct sf_rule *r = &SF_VEC_AT(&a->ast->rules, struct sf_rule, i);
		const char *why = r->what < SF_R_FS ? NULL
				  : r->rhs != SF_RHS_ALLOW ? "a bad file or port rule"
				  : sf_ll_check_rule(a->ast, r);
		if (why)
			rc = bad_tree(a->ast, a->err, r->src, r->line, why);
	}
	sf_ll_begin(&s->ll, a->enforcing);
	for (i = 0; !rc && i < a->ast->rules.n; i++) {
		const struct sf_rule *r = &SF_VEC_AT(&a->ast->rules, struct sf_rule, i);
		if (r->what >= SF_R_FS)
			rc = sf_ll_apply(&s->ll, a->ast, r, a->err);
	}
	return rc;
}

/* The fs./net. rules' block, hung on the policy's (which owns it); on
 * failure the policy goes too. */
static __attribute__((noinline)) int freeze_landlock(const struct scratch *s,
						     struct sf_policy **out)
{
	struct sf_landlock *ll;
	int rc = sf_ll_freeze(&s->ll, &ll);

	(*out)->landlock = ll;
	if (rc) {
		sf_policy_free(*out);
		*out = NULL;
	}
	return rc;
}

int sf_policy_apply_ast(const struct sf_policy *cur, const struct sf_ast *ast,
			struct sf_policy **out, struct sf_error *err)
{
	struct scratch *s = sf_mem_alloc(sizeof(*s));
	struct applying a = { .ast = ast, .err = err, .enforcing = cur && !cur->pending };
	uint32_t i;
	int rc = s ? 0 : -ENOMEM;

	*out = NULL;
	if (!rc)
		rc = check_nodes(ast, err);
	for (i = 0; !rc && i < ast->rules.n; i++)
		rc = check_rule(ast, &SF_VEC_AT(&ast->rules, struct sf_rule, i), err);
	if (!rc)
		rc = scratch_load(s, cur);
	if (!rc)
		rc = apply_landlock(s, &a, cur);
	for (i = 0; !rc && i < ast->rules.n; i++)
		rc = apply_rule(s, &a, &SF_VEC_AT(&ast->rules, struct sf_rule, i));
	if (!rc)
		rc = ring_check(s, &a);
	if (!rc)
		rc = freeze(s, out);
	if (!rc)
		rc = freeze_landlock(s, out);
	if (rc == -ENOMEM && !err->code)
		sf_error_src(err, rc, ast, 0, 0, 0, 0, "out of memory");
	if (s) {
		scratch_free(s);
		sf_mem_free(s, sizeof(*s));
	}
	return rc;
}

enum sf_syntax sf_syntax_of(const char *path)
{
	size_t n = strlen(path);

	if (n > 7 && strcmp(path + n - 7, ".policy") == 0)
		return SF_SYNTAX_MINIJAIL;
	if (n > 5 && strcmp(path + n - 5, ".json") == 0)
		return SF_SYNTAX_OCI;
	return SF_SYNTAX_SECFILTER;
}

/* What a call of nr gets when it has no argument to look at: 0 runs
 * (or has filters), else its action. */
static unsigned fixed_action(const struct sf_policy *p, unsigned nr)
{
	const struct sf_sysrule *r = &p->sys[nr];

	if (!r->allowed)
		return p->dflt;
	return r->nfilters ? 0 : r->ret;
}

/* Whether a call of the syscall called name would run (or be logged and
 * run): a filter may let it. */
static int may_run(const struct sf_policy *p, const char *name)
{
	const struct sf_syscall *sc = sf_syscall_lookup(name, strlen(name));
	unsigned a = sc ? fixed_action(p, (unsigned)sc->nr) : 0;

	return a == 0 || a == SF_ACTION_LOG;
}

/* A path of an fs. rule that lets the program open device files it may
 * not ioctl (fs.read_file or fs.write_file without fs.ioctl_dev): "/",
 * "/dev" or beneath it, but for the devices that take no ring command. */
static const char *device_opened_unchecked(const struct sf_landlock *ll)
{
	static const char *const plain[] = { "/dev/null", "/dev/zero", "/dev/full",
					     "/dev/random", "/dev/urandom", "/dev/tty",
					     "/dev/ptmx", "/dev/pts", "/dev/shm", "/dev/fd",
					     "/dev/stdin", "/dev/stdout", "/dev/stderr" };
	uint32_t i;
	unsigned k;

	for (i = 0; ll && i < ll->nrules; i++) {
		const struct sf_ll_rule *r = &ll->rules[i];
		const char *path = ll->strings + r->path;
		int is_plain = 0;
		if (r->net || !(r->access & (SF_FS_READ_FILE | SF_FS_WRITE_FILE)) ||
		    (r->access & SF_FS_IOCTL_DEV))
			continue;
		for (k = 0; k < sizeof plain / sizeof plain[0]; k++)
			is_plain |= !strcmp(path, plain[k]) ||
				    (!strncmp(path, plain[k], strlen(plain[k])) &&
				     path[strlen(plain[k])] == '/');
		if (!strcmp(path, "/") || (!is_plain && (!strcmp(path, "/dev") ||
							 !strncmp(path, "/dev/", 5))))
			return path;
	}
	return NULL;
}

/* A policy that parses but stops the program from ending: one that
 * allows nothing (an empty file, comments only), or denies exit_group --
 * glibc's _exit calls it, then exit, then crashes, so the program is
 * killed however it meant to end.  exit alone (a thread's end) is not
 * warned about: a learned policy of a program with one thread has none. */
static void lint(const struct sf_policy *p, const struct sf_ast *ast, struct sf_diag *d)
{
	unsigned nr, allowed = 0;
	const char *dev;

	for (nr = 0; nr < SF_NR_COUNT && !allowed; nr++) /* whether any */
		allowed = p->sys[nr].allowed;
	if (!allowed && p->dflt != SF_ACTION_LOG)
		sf_diag_warning(d, ast, 0, 0, 0, 0,
				"%s: every call is denied, exit_group too, so the program is "
				"stopped at its first syscall (allow what it needs, or at least "
				"'exit_group: 1')",
				ast->rules.n || ast->ll.n ? "the policy allows no syscall"
					     : "the policy is empty (no rules, only comments or "
					       "blank lines)");
	else if (!may_run(p, "exit_group"))
		sf_diag_warning(d, ast, 0, 0, 0, 0,
				"exit_group is not allowed%s: the program cannot exit and is "
				"killed when it tries (add 'exit_group: 1')",
				may_run(p, "exit") ? "" : ", nor exit");
	/* Landlock checks a ring's operations as it checks the system
	 * calls (doc/security.md), but for one: IORING_OP_URING_CMD sends a
	 * device its commands with no fs.ioctl_dev check */
	if ((dev = device_opened_unchecked(p->landlock)) && !p->uring_named &&
	    ring_setup_nr() < SF_NR_COUNT && p->sys[ring_setup_nr()].allowed &&
	    !p->sys[ring_setup_nr()].ret)
		sf_diag_warning(d, ast, 0, 0, 0, 0,
				"fs. rules let the program open device files at or beneath '%s' "
				"without fs.ioctl_dev, and io_uring_setup is allowed: a ring's "
				"IORING_OP_URING_CMD sends a device commands that Landlock does "
				"not check as it checks ioctl; add 'io_uring_setup: 0' to close "
				"that, or 'io_uring_setup: 1' to accept it",
				dev);
}

int sf_policy_apply_diag(const struct sf_policy *cur, const char *source, int how,
			 enum sf_syntax syntax, const char *text, size_t len,
			 struct sf_policy **out, struct sf_error *err, struct sf_diag *d)
{
	struct sf_ast ast;
	char release[128];
	uint32_t src;
	int rc;

	*out = NULL;
	err->code = 0;
	err->text[0] = '\0';
	sf_ast_init(&ast);
	rc = sf_ast_src(&ast, source, text, len, &src);
	if (rc) {
		sf_error_at(err, rc, source, text, len, 0, 0, 0, "out of memory");
	} else if (syntax == SF_SYNTAX_MINIJAIL) {
		rc = sf_minijail_parse(&ast, src, how, err);
	} else if (syntax == SF_SYNTAX_OCI) {
		rc = sf_kernel_release(release, sizeof(release));
		if (rc)
			sf_error_at(err, rc, source, NULL, 0, 0, 0, 0,
				    "cannot tell the kernel's release (uname) for minKernel");
		else
			rc = sf_oci_parse(&ast, src, release, err);
	} else {
		rc = sf_parse_diag(&ast, src, how, err, d);
	}
	if (!rc)
		rc = sf_policy_apply_ast(cur, &ast, out, err);
	if (d && rc && !d->nerrors) {
		/* one error, from a front end or from applying: emitted too */
		d->nerrors = 1;
		if (d->emit)
			d->emit(d->ctx, 0, err);
	}
	if (d && !rc)
		lint(*out, &ast, d);
	sf_ast_free(&ast);
	return rc;
}

int sf_policy_apply_syntax(const struct sf_policy *cur, const char *source, int how,
			   enum sf_syntax syntax, const char *text, size_t len,
			   struct sf_policy **out, struct sf_error *err)
{
	return sf_policy_apply_diag(cur, source, how, syntax, text, len, out, err, NULL);
}

int sf_policy_apply_src(const struct sf_policy *cur, const char *source, int how,
			const char *text, size_t len, struct sf_policy **out,
			struct sf_error *err)
{
	return sf_policy_apply_syntax(cur, source, how, SF_SYNTAX_SECFILTER, text, len, out, err);
}

int sf_policy_apply(const struct sf_policy *cur, const char *source,
		    const char *text, size_t len, struct sf_policy **out,
		    struct sf_error *err)
{
	return sf_policy_apply_src(cur, source, SF_SRC_TEXT, text, len, out, err);
}

/* ---- origins (sf_policy_set_origins) ---- */

struct origin {
	uint32_t line;
	const char *src, *text; /* src NULL: the previous entry's; text NULL: none */
	size_t src_len, text_len;
};

static int read_num(const char **s, uint64_t *v)
{
	const char *p = *s;

	*v = 0;
	for (; *p >= '0' && *p <= '9' && *v <= UINT32_MAX; p++)
		*v = *v * 10 + (uint64_t)(*p - '0');
	if (p == *s || *v > UINT32_MAX)
		return -1;
	*s = p;
	return 0;
}

/* LEN:BYTES, none of them NUL. */
static int read_counted(const char **s, const char **str, size_t *len)
{
	uint64_t n, i;

	if (read_num(s, &n) < 0 || **s != ':')
		return -1;
	for (i = 0; i < n; i++)
		if ((*s)[1 + i] == '\0')
			return -1;
	*str = *s + 1;
	*len = (size_t)n;
	*s += 1 + n;
	return 0;
}

static int read_origin(const char **s, struct origin *o)
{
	uint64_t line;

	o->src = o->text = NULL;
	o->src_len = o->text_len = 0;
	if (read_num(s, &line) < 0)
		return -1;
	o->line = (uint32_t)line;
	if (**s == '@' && (++*s, read_counted(s, &o->src, &o->src_len) < 0))
		return -1;
	if (**s == '-') {
		++*s;
		return 0;
	}
	if (**s != '=')
		return -1;
	++*s;
	return read_counted(s, &o->text, &o->text_len);
}

/* What a map gives a policy: the bytes its strings take in the filters'
 * block and in the Landlock block.  Sources carry over from entry to
 * entry, also from the last filter to the first Landlock rule, whose
 * block then takes that source once more. */
struct origins_size {
	size_t filters, landlock;
};

/* 0, or -1 when the map is not one entry per filter of p, then one per
 * rule of its Landlock block (with no text: a report names the rule's
 * right). */
static int origins_size(const struct sf_policy *p, const char *map, struct origins_size *sz)
{
	uint64_t n = 0, nll = p->landlock ? p->landlock->nrules : 0;
	size_t src_len = 0;
	struct origin o;

	sz->filters = sz->landlock = 0;
	while (*map) {
		if (read_origin(&map, &o) < 0 || (n == 0 && !o.src) || ++n > p->nfilters + nll)
			return -1;
		if (o.src)
			src_len = o.src_len;
		if (n <= p->nfilters) {
			sz->filters += (o.src ? o.src_len + 1 : 0) + (o.text ? o.text_len + 1 : 0);
		} else {
			if (o.text)
				return -1;
			if (o.src || n == p->nfilters + 1u)
				sz->landlock += src_len + 1;
		}
	}
	return n == p->nfilters + nll ? 0 : -1;
}

static uint32_t put_string(char *strings, uint32_t *end, const char *s, size_t len)
{
	uint32_t at = *end;

	memcpy(strings + at, s, len);
	strings[at + len] = '\0';
	*end += (uint32_t)len + 1;
	return at;
}

/* A block's arrays are at the same offsets in its copy. */
#define REBASE(np, p, field) \
	((np)->field = (p)->field ? (void *)((char *)(np) + ((const char *)(p)->field - (const char *)(p))) : NULL)

/* A copy of a block of size bytes, extra bytes longer (for strings);
 * NULL when out of memory.  The caller rebases its pointers and size. */
static void *copy_block(const void *b, size_t size, size_t extra)
{
	void *nb = sf_mem_alloc(size + extra);

	if (nb)
		memcpy(nb, b, size);
	return nb;
}

/* A copy of p's block, extra bytes longer for strings, or NULL. */
static struct sf_policy *copy_policy(const struct sf_policy *p, size_t extra)
{
	struct sf_policy *np = copy_block(p, p->size, extra);

	if (!np)
		return NULL;
	np->size = p->size + extra;
	REBASE(np, p, idx);
	REBASE(np, p, filters);
	REBASE(np, p, nodes);
	REBASE(np, p, tests);
	REBASE(np, p, strings);
	return np;
}

/* The same for a Landlock block (one allocation, its strings last). */
static struct sf_landlock *copy_landlock(const struct sf_landlock *ll, size_t extra)
{
	struct sf_landlock *nll = copy_block(ll, ll->size, extra);

	if (!nll)
		return NULL;
	nll->size = ll->size + extra;
	REBASE(nll, ll, rules);
	REBASE(nll, ll, strings);
	return nll;
}

/* Where a block's strings end: new ones go there. */
static uint32_t strings_end(const void *block, size_t size, const char *strings)
{
	return (uint32_t)(size - (size_t)(strings - (const char *)block));
}

int sf_policy_set_origins(struct sf_policy **pp, const char *map)
{
	struct sf_policy *p = *pp, *np = p;
	const struct sf_landlock *ll = p->landlock;
	struct sf_landlock *nll = NULL;
	struct origins_size sz;
	uint32_t end, src = 0, k;
	const char *src_text = NULL;
	size_t src_len = 0;
	struct origin o;

	if (origins_size(p, map, &sz) < 0)
		return -EINVAL;
	if (p->nfilters && !(np = copy_policy(p, sz.filters)))
		return -ENOMEM;
	if (ll && ll->nrules && !(nll = copy_landlock(ll, sz.landlock))) {
		if (np != p)
			sf_mem_free(np, np->size);
		return -ENOMEM;
	}
	/* in the map's order: freeze stores them so */
	end = strings_end(np, p->size, np->strings);
	for (k = 0; k < np->nfilters; k++) {
		struct sf_filter *f = (struct sf_filter *)&np->filters[k];
		read_origin(&map, &o); /* checked by origins_size */
		if (o.src)
			src = put_string((char *)np->strings, &end, src_text = o.src, src_len = o.src_len);
		f->line = o.line;
		f->source = src;
		f->text = o.text ? put_string((char *)np->strings, &end, o.text, o.text_len) : SF_NO_TEXT;
	}
	if (nll) {
		end = strings_end(nll, ll->size, nll->strings);
		for (k = 0; k < nll->nrules; k++) {
			struct sf_ll_rule *r = (struct sf_ll_rule *)&nll->rules[k];
			read_origin(&map, &o);
			if (o.src)
				src_text = o.src, src_len = o.src_len;
			if (o.src || k == 0)
				src = put_string((char *)nll->strings, &end, src_text, src_len);
			r->line = o.line;
			r->source = src;
		}
		sf_mem_free((void *)ll, ll->size);
		np->landlock = nll;
	}
	if (np != p) {
		p->landlock = NULL; /* np's now */
		sf_policy_free(p);
		*pp = np;
	}
	return 0;
}

void sf_policy_free(struct sf_policy *p)
{
	if (!p)
		return;
	if (p->landlock)
		sf_mem_free((void *)p->landlock, p->landlock->size);
	sf_mem_free(p, p->size);
}
