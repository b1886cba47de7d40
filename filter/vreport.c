/* Violation reports (vreport.h), shared by the library and run. */
#include <sys/uio.h>

#include "eval.h"
#include "internal.h"
#include "vreport.h"

#define STRING_MAX 256   /* bytes of a string shown */
#define SOCKADDR_MAX 128 /* sizeof(struct sockaddr_storage) */

/* The x86-64 table's entry for c, none for a 32-bit call (its number
 * means another call there). */
static const struct sf_syscall *entry_of(const struct sf_vcall *c)
{
	return c->decision == SF_DENY_I386 ? NULL : sf_syscall_by_nr(c->nr);
}

void sf_vreport_head(struct sf_out *o, const struct sf_vcall *c)
{
	const struct sf_syscall *sc = entry_of(c);

	sf_out_str(o, c->comm ? c->comm : "?");
	sf_out_str(o, "[");
	sf_out_s64(o, c->pid);
	sf_out_str(o, "]: system call ");
	sf_out_s64(o, c->nr);
	/* a number the table does not name is, in the kernel's own table,
	 * an entry of sys_ni_syscall */
	sf_out_str(o, " (");
	sf_out_str(o, sc ? sc->entry : c->decision == SF_DENY_I386 ? "i386, int $0x80" : "sys_ni_syscall");
	sf_out_str(o, c->logged ? ") let through at ip:" : ") blocked at ip:");
	{
		/* sf_out_u64's hex has a 0x; the patch's format has none */
		char h[16];
		int i = sizeof h;
		uint64_t v = c->ip;
		do {
			h[--i] = "0123456789abcdef"[v & 15];
			v >>= 4;
		} while (v);
		sf_out_mem(o, h + i, sizeof h - (size_t)i);
	}
	sf_out_str(o, "\n");
}

static void put_pointed(struct sf_out *o, const struct sf_vcall *c, const struct sf_argdesc *d,
			uint64_t ptr)
{
	unsigned char buf[STRING_MAX + 1];
	size_t n, len;
	int64_t want;

	if (!c->read || !ptr)
		return;
	if (d->kind == SF_AK_SOCKADDR) {
		want = (int64_t)(int32_t)c->a[d->aux];
		if (want <= 0)
			return;
		if (want > SOCKADDR_MAX)
			want = SOCKADDR_MAX;
		n = c->read(c->ctx, ptr, buf, (size_t)want);
		if (!n)
			return;
		sf_decode_sockaddr(o, buf, n);
		sf_out_str(o, " ");
		return;
	}
	n = c->read(c->ctx, ptr, buf, sizeof buf);
	if (!n)
		return;
	for (len = 0; len < n && buf[len]; len++)
		;
	/* cut at STRING_MAX, or where the readable memory ended */
	sf_decode_string(o, (const char *)buf, len > STRING_MAX ? STRING_MAX : len, len >= n);
	sf_out_str(o, " ");
}

/* Argument i's value: symbolic, or what it points to and the pointer
 * (the value a filter would compare); brief: what it points to alone,
 * when there is something. */
static void put_arg(struct sf_out *o, const struct sf_vcall *c, const struct sf_syscall *sc,
		    unsigned i, int brief)
{
	const struct sf_argdesc *d = sc ? sf_argdesc(c->nr, i) : NULL;
	char shown[4 * STRING_MAX + 16];
	struct sf_out so = { shown, sizeof shown, 0 };

	if (!sc) {
		sf_out_u64(o, c->a[i], 16);
		return;
	}
	if (!d || (d->kind != SF_AK_PATH && d->kind != SF_AK_STR && d->kind != SF_AK_SOCKADDR)) {
		sf_decode_arg(o, c->nr, i, c->a);
		return;
	}
	put_pointed(&so, c, d, c->a[i]);
	sf_out_end(&so);
	if (brief && so.len) { /* put_pointed ends with a space */
		sf_out_mem(o, shown, so.len - 1);
		return;
	}
	sf_out_str(o, shown);
	if (so.len)
		sf_out_str(o, "(");
	sf_out_u64(o, c->a[i], 16);
	if (so.len)
		sf_out_str(o, ")");
}

static const char *const anon_arg[6] = { "arg0", "arg1", "arg2", "arg3", "arg4", "arg5" };

void sf_vreport_args(struct sf_out *o, const struct sf_vcall *c)
{
	const struct sf_syscall *sc = entry_of(c);
	unsigned i, n = sc ? sc->nargs : 6;

	for (i = 0; i < n; i++) {
		sf_out_str(o, "    ");
		sf_out_str(o, sc ? sc->args[i].name : anon_arg[i]);
		sf_out_str(o, " = ");
		put_arg(o, c, sc, i, 0);
		sf_out_str(o, "\n");
	}
}

/* A filter's expression as its source wrote it, or canonical. */
static void put_filter(struct sf_out *o, const struct sf_policy *p, long nr,
		       const struct sf_filter *f)
{
	const char *t = sf_filter_text(p, f);

	if (t)
		sf_out_str(o, t);
	else
		sf_print_expr(o, p->nodes, f->root, sf_syscall_by_nr(nr));
}

/* The rule line's text, after "rule: "; -1, with nothing written, for a
 * decision it does not know. */
static int put_rule(struct sf_out *o, const struct sf_vcall *c)
{
	const struct sf_syscall *sc = sf_syscall_by_nr(c->nr);
	const struct sf_filter *f;

	if (c->decision == SF_NOT_IN_SET) {
		sf_out_str(o, "not in the allowed set");
		return 0;
	}
	if (c->decision == SF_DENY_I386) { /* no rule can allow it: no add: line */
		sf_out_str(o, "a 32-bit system call (int $0x80, i386 number ");
		sf_out_s64(o, c->nr);
		sf_out_str(o, "): the policy names x86-64 calls only");
		return 0;
	}
	if (c->decision == SF_RETURN && c->p && sc && (uint64_t)c->nr < SF_NR_COUNT &&
	    c->p->sys[c->nr].ret) {
		/* X: kill, X: trap, X: log */
		sf_out_str(o, "sys_");
		sf_out_str(o, sc->name);
		sf_out_str(o, ": ");
		sf_print_action(o, c->p->sys[c->nr].ret);
		return 0;
	}
	if (c->decision < 0 || !c->p || (uint32_t)c->decision >= c->p->nfilters || !sc)
		return -1;
	f = &c->p->filters[c->decision];
	sf_out_str(o, "sys_");
	sf_out_str(o, sc->name);
	sf_out_str(o, ": ");
	put_filter(o, c->p, c->nr, f);
	sf_out_str(o, " (");
	sf_out_str(o, sf_filter_source(c->p, f));
	sf_out_str(o, ":");
	sf_out_u64(o, f->line, 10);
	sf_out_str(o, ")");
	return 0;
}

int sf_vreport_rule(struct sf_out *o, const struct sf_vcall *c)
{
	size_t at = o->len;

	sf_out_str(o, "    rule: ");
	if (put_rule(o, c) < 0) {
		o->len = at;
		return -1;
	}
	sf_out_str(o, "\n");
	return 0;
}

/* ---- one filter's truth, straight from its tree ---- */

static int pred_true(const struct sf_node *n, const uint64_t a[6])
{
	uint64_t v = sf_normalize(a[n->arg], (enum sf_type)n->type), k = n->value;
	int s = sf_type_signed((enum sf_type)n->type);

	switch (n->op) {
	case SF_OP_EQ: return v == k;
	case SF_OP_NE: return v != k;
	case SF_OP_LT: return s ? (int64_t)v < (int64_t)k : v < k;
	case SF_OP_LE: return s ? (int64_t)v <= (int64_t)k : v <= k;
	case SF_OP_GT: return s ? (int64_t)v > (int64_t)k : v > k;
	case SF_OP_GE: return s ? (int64_t)v >= (int64_t)k : v >= k;
	case SF_OP_BITS: return (v & k) != 0;
	default: return (v & ~k) == 0; /* SF_OP_IN */
	}
}

static int node_true(const struct sf_node *nodes, uint32_t i, const uint64_t a[6])
{
	const struct sf_node *n = &nodes[i];

	switch (n->kind) {
	case SF_N_PRED: return pred_true(n, a);
	case SF_N_NOT: return !node_true(nodes, n->left, a);
	case SF_N_AND: return node_true(nodes, n->left, a) && node_true(nodes, n->right, a);
	default: return node_true(nodes, n->left, a) || node_true(nodes, n->right, a);
	}
}

int sf_filter_holds(const struct sf_policy *p, const struct sf_filter *f, const uint64_t a[6])
{
	return node_true(p->nodes, f->root, a);
}

/* ---- the rule to add ---- */

static void put_action(struct sf_out *o, unsigned a)
{
	sf_out_str(o, " else ");
	sf_print_action(o, a);
}

void sf_vreport_fix(struct sf_out *o, const struct sf_policy *p, long nr, int d,
		    const struct sf_obs *obs, const uint64_t *call)
{
	const struct sf_syscall *sc = sf_syscall_by_nr(nr);
	const struct sf_sysrule *r;
	char need[1024];
	struct sf_out no = { need, sizeof need, 0 };
	int widens;
	unsigned k;

	if (!sc || !p ||
	    (d != SF_NOT_IN_SET && d != SF_RETURN && (d < 0 || (uint32_t)d >= p->nfilters)))
		return;
	widens = sf_suggest(&no, nr, obs, SF_ARGS_AUTO);
	sf_out_end(&no);
	r = &p->sys[nr];
	sf_out_str(o, "sys_");
	sf_out_str(o, sc->name);
	sf_out_str(o, ": ");
	/* X: kill (trap, log): a rule for X after it sets that aside */
	if (d == SF_NOT_IN_SET || d == SF_RETURN || !r->allowed || !r->nfilters) {
		sf_out_str(o, need);
		return;
	}
	/* F[X] is a conjunction: appending cannot widen it, so the line
	 * drops X and allows it again, each filter as written and or'ed,
	 * where the calls failed it, with what they need */
	sf_out_str(o, "0");
	for (k = 0; k < r->nfilters; k++) {
		const struct sf_filter *f = &p->filters[sf_rule_first(p, r) + k];
		int failed = call ? !sf_filter_holds(p, f, call) : sf_rule_first(p, r) + k >= (uint32_t)d;
		sf_out_str(o, "; sys_");
		sf_out_str(o, sc->name);
		sf_out_str(o, ": ");
		if (!failed) {
			put_filter(o, p, nr, f);
		} else if (!widens) {
			sf_out_str(o, "1");
			continue; /* no else: the filter is gone */
		} else {
			sf_out_str(o, "(");
			put_filter(o, p, nr, f);
			sf_out_str(o, ") || ");
			sf_out_str(o, need);
		}
		if (f->fail)
			put_action(o, f->fail);
	}
}

/* The rule to add for c into fix (cap bytes): its length, 0 when there
 * is none or it would not fit (a line cut short would not parse). */
static size_t put_fix(char *fix, size_t cap, const struct sf_vcall *c)
{
	struct sf_obs obs;
	struct sf_out fo = { fix, cap, 0 };

	sf_obs_init(&obs);
	sf_obs_add(&obs, c->nr, c->a);
	sf_vreport_fix(&fo, c->p, c->nr, c->decision, &obs, c->a);
	if (!fo.len || sf_out_end(&fo) >= cap)
		return 0;
	return fo.len;
}

void sf_vreport_add(struct sf_out *o, const struct sf_vcall *c)
{
	char fix[2048];

	if (!put_fix(fix, sizeof fix, c))
		return;
	sf_out_str(o, "    add: ");
	sf_out_str(o, fix);
	sf_out_str(o, "\n");
}

void sf_vreport(struct sf_out *o, const struct sf_vcall *c, const char *other_rule)
{
	sf_vreport_head(o, c);
	sf_vreport_args(o, c);
	if (sf_vreport_rule(o, c) < 0) {
		sf_out_str(o, "    rule: ");
		sf_out_str(o, other_rule);
		sf_out_str(o, "\n");
	}
	sf_vreport_add(o, c);
}

void sf_vreport_line(struct sf_out *o, const struct sf_vcall *c, const char *other_rule)
{
	const struct sf_syscall *sc = entry_of(c);
	unsigned i, n = sc ? sc->nargs : 6;
	char fix[2048];

	sf_out_str(o, "LOG ");
	sf_out_str(o, c->comm ? c->comm : "?");
	sf_out_str(o, "[");
	sf_out_s64(o, c->pid);
	sf_out_str(o, "]: ");
	if (sc) {
		sf_out_str(o, "sys_");
		sf_out_str(o, sc->name);
	} else {
		sf_out_str(o, c->decision == SF_DENY_I386 ? "i386 system call " : "syscall ");
		sf_out_s64(o, c->nr);
	}
	sf_out_str(o, "(");
	for (i = 0; i < n; i++) {
		if (i)
			sf_out_str(o, ", ");
		put_arg(o, c, sc, i, 1);
	}
	sf_out_str(o, ") let through (");
	if (c->decision != SF_NOT_IN_SET && c->decision != SF_ALLOW && c->decision != SF_DENY_I386)
		sf_out_str(o, "denied by "); /* a rule, not the allowed set */
	if (put_rule(o, c) < 0)
		sf_out_str(o, other_rule);
	sf_out_str(o, ")");
	if (put_fix(fix, sizeof fix, c)) {
		sf_out_str(o, "; add: ");
		sf_out_str(o, fix);
	}
	sf_out_str(o, "\n");
}

uint64_t sf_vsum_fix(struct sf_out *o, const struct sf_policy *p, const struct sf_vsum *e,
		     size_t n, size_t i)
{
	struct sf_obs all;
	uint64_t calls;
	int d = e[i].decision;
	size_t j;

	for (j = 0; j < i; j++)
		if (e[j].nr == e[i].nr)
			return 0;
	all = e[i].obs;
	calls = e[i].calls;
	for (j = i + 1; j < n; j++) {
		if (e[j].nr != e[i].nr)
			continue;
		sf_obs_merge(&all, &e[j].obs);
		calls += e[j].calls;
		/* the first filter any call failed: widened from there */
		if (e[j].decision != SF_NOT_IN_SET && (d == SF_NOT_IN_SET || e[j].decision < d))
			d = e[j].decision;
	}
	sf_vreport_fix(o, p, e[i].nr, d, &all, NULL);
	return calls;
}

size_t sf_vm_read_paged(long pid, uint64_t addr, void *buf, size_t n,
			long (*readv)(long pid, const struct iovec *local,
				      const struct iovec *remote))
{
	size_t done = 0;

	while (done < n) {
		size_t room = 4096 - ((addr + done) & 4095), k = n - done < room ? n - done : room;
		struct iovec local = { (char *)buf + done, k };
		struct iovec remote = { (void *)(uintptr_t)(addr + done), k };
		long r = readv(pid, &local, &remote);
		if (r <= 0)
			break;
		done += (size_t)r;
		if ((size_t)r < k)
			break;
	}
	return done;
}
