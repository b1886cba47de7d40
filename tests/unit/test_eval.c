/* The evaluator's lowered tests (interval arithmetic, exit chains, the
 * conjunction fast path) against a direct reading of SPEC §2 over the tree:
 * cut the register to the argument's type, compare signed or unsigned. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "eval.h"
#include "tsupport.h"

static int ref_pred(const struct sf_node *n, const uint64_t *args)
{
	uint64_t x = sf_normalize(args[n->arg], n->type), v = n->value;
	int s = sf_type_signed(n->type);
	int lt = s ? (int64_t)x < (int64_t)v : x < v;
	int gt = s ? (int64_t)x > (int64_t)v : x > v;

	switch (n->op) {
	case SF_OP_EQ: return x == v;
	case SF_OP_NE: return x != v;
	case SF_OP_LT: return lt;
	case SF_OP_LE: return !gt;
	case SF_OP_GT: return gt;
	case SF_OP_GE: return !lt;
	case SF_OP_IN: return (x & ~v) == 0;
	default: return (x & v) != 0;
	}
}

static int ref_tree(const struct sf_node *nodes, uint32_t i, const uint64_t *args)
{
	const struct sf_node *n = &nodes[i];

	switch (n->kind) {
	case SF_N_PRED: return ref_pred(n, args);
	case SF_N_NOT: return !ref_tree(nodes, n->left, args);
	case SF_N_AND: return ref_tree(nodes, n->left, args) && ref_tree(nodes, n->right, args);
	default: return ref_tree(nodes, n->left, args) || ref_tree(nodes, n->right, args);
	}
}

/* SF_ALLOW, SF_NOT_IN_SET, SF_RETURN or the first filter that is false. */
static int ref_decide(const struct sf_policy *p, unsigned nr, const uint64_t *args)
{
	const struct sf_sysrule *r = &p->sys[nr];
	unsigned k;

	if (!r->allowed)
		return SF_NOT_IN_SET;
	for (k = 0; k < r->nfilters; k++)
		if (!ref_tree(p->nodes, p->filters[sf_rule_first(p, r) + k].root, args))
			return (int)(sf_rule_first(p, r) + k);
	return r->ret ? SF_RETURN : SF_ALLOW;
}

/* What the call gets, read off the tree (secfilter(7), "Actions"). */
static unsigned ref_action(const struct sf_policy *p, unsigned nr, int d)
{
	if (d == SF_ALLOW)
		return SF_ACTION_RUN;
	if (d == SF_RETURN)
		return p->sys[nr].ret;
	if (d >= 0 && p->filters[d].fail)
		return p->filters[d].fail;
	return p->dflt;
}

static uint64_t edge_value(uint64_t *rng)
{
	static const uint64_t edges[] = {
		0, 1, 2, 0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff, 0x80000000,
		0xffffffff, 0x100000000, 0x100000001, 0x7fffffffffffffff,
		0x8000000000000000, 0xffffffffffffffff, 0xffffffff80000000,
		0xffffffff7fffffff, 0644, 0x89abcdef, (uint64_t)-100,
	};
	uint64_t r = t_rnd(rng);

	switch (r % 4) {
	case 0: return edges[(r >> 8) % (sizeof(edges) / sizeof(edges[0]))];
	case 1: return edges[(r >> 8) % (sizeof(edges) / sizeof(edges[0]))] + (r >> 40) % 3 - 1;
	case 2: return (r >> 8) % 5 ? (uint32_t)t_rnd(rng) : t_rnd(rng) << 32 | (r >> 16 & 0xffff);
	default: return t_rnd(rng);
	}
}

static void random_policies_decide_as_the_tree(void **state)
{
	static char text[1 << 16];
	uint64_t rng = 0xe7a1, vectors = 0;
	unsigned round, v;

	(void)state;
	for (round = 0; round < 400; round++) {
		struct sf_policy *p;
		t_random_policy(text, sizeof(text), &rng, 16);
		unsigned filtered[SF_NR_COUNT], nf = 0, nr;
		p = t_parse(NULL, text);
		for (nr = 0; nr < SF_NR_COUNT; nr++)
			if (p->sys[nr].nfilters)
				filtered[nf++] = nr;
		for (v = 0; v < 2000; v++) {
			/* mostly the syscalls that have filters: that is where
			 * the lowering can go wrong */
			const struct sf_syscall *sc = nf && t_rnd(&rng) % 8 ?
				sf_syscall_by_nr(filtered[t_rnd(&rng) % nf]) :
				&sf_syscalls[t_rnd(&rng) % sf_syscall_count];
			uint64_t args[6];
			unsigned k;
			int got, want;
			for (k = 0; k < 6; k++)
				args[k] = edge_value(&rng);
			got = sf_decide(p, (uint64_t)sc->nr, args);
			want = ref_decide(p, (unsigned)sc->nr, args);
			if (got != want || sf_action(p, (uint64_t)sc->nr, got) !=
					   ref_action(p, (unsigned)sc->nr, want))
				fail_msg("sys_%s(%#llx, %#llx, %#llx, %#llx, %#llx, %#llx): "
					 "evaluator %d, tree %d; policy:\n%.3000s", sc->name,
					 (unsigned long long)args[0], (unsigned long long)args[1],
					 (unsigned long long)args[2], (unsigned long long)args[3],
					 (unsigned long long)args[4], (unsigned long long)args[5], got, want,
					 text);
			vectors++;
		}
		sf_policy_free(p);
	}
	print_message("%llu vectors decided alike\n", (unsigned long long)vectors);
}

static void conjunction_fast_path_names_the_denier(void **state)
{
	struct sf_policy *p = t_parse(NULL, "write: fd == 1 && count < 100; write: buf != 0");

	(void)state;
	assert_int_equal(p->sys[1].conj, 3);
	assert_int_equal(t_decide(p, 1, 1, 8, 5, 0), SF_ALLOW);
	assert_int_equal(t_decide(p, 1, 2, 8, 5, 0), 0);
	assert_int_equal(t_decide(p, 1, 1, 8, 100, 0), 0);
	assert_int_equal(t_decide(p, 1, 1, 0, 5, 0), 1);
	sf_policy_free(p);
	/* a bit test and an OR are not plain conjunctions */
	p = t_parse(NULL, "write: fd & 1; read: fd == 1 || fd == 2");
	assert_int_equal(p->sys[0].conj, 0);
	assert_int_equal(p->sys[1].conj, 0);
	sf_policy_free(p);
}

/* Two ranges on one argument in one && chain become one interval test;
 * the decisions at each edge stay those of the two predicates. */
static void ranges_on_one_argument_merge(void **state)
{
	struct sf_policy *p = t_parse(NULL,
		"write: fd == 1 && count < 65536 && buf != 0 && count > 0\n"
		"lseek: offset >= -10 && whence <= 2 && offset < 10\n"
		"read: count > 10 && count < 5\n"
		"pread64: count > 10 && (fd == 1 || fd == 2) && count < 20");
	struct { uint64_t nr, a0, a1, a2; int want; } rows[] = {
		{ 1, 1, 8, 0, SF_NOT_IN_SET + 2 }, { 1, 1, 8, 1, SF_ALLOW },
		{ 1, 1, 8, 65535, SF_ALLOW }, { 1, 1, 8, 65536, SF_NOT_IN_SET + 2 },
		{ 1, 1, 0, 5, SF_NOT_IN_SET + 2 }, { 1, 2, 8, 5, SF_NOT_IN_SET + 2 },
		{ 8, 0, (uint64_t)-10, 0, SF_ALLOW }, { 8, 0, (uint64_t)-11, 0, SF_NOT_IN_SET + 2 },
		{ 8, 0, 9, 2, SF_ALLOW }, { 8, 0, 10, 2, SF_NOT_IN_SET + 2 },
		{ 8, 0, 0, 3, SF_NOT_IN_SET + 2 },
		{ 0, 0, 0, 7, SF_NOT_IN_SET + 2 }, { 0, 0, 0, 11, SF_NOT_IN_SET + 2 },
		{ 17, 1, 0, 11, SF_ALLOW }, { 17, 2, 0, 19, SF_ALLOW },
		{ 17, 3, 0, 15, SF_NOT_IN_SET + 2 }, { 17, 1, 0, 20, SF_NOT_IN_SET + 2 },
		{ 17, 1, 0, 10, SF_NOT_IN_SET + 2 },
	};
	size_t i;

	(void)state;
	assert_int_equal(p->sys[1].conj, 3);  /* count's two ranges: one test */
	assert_int_equal(p->sys[8].conj, 2);  /* a signed range, around 0 */
	assert_int_equal(p->sys[0].conj, 2);  /* empty: left as two tests */
	for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		int d = t_decide(p, rows[i].nr, rows[i].a0, rows[i].a1, rows[i].a2, 0);
		/* the denier is the syscall's only filter, whatever its index */
		int want = rows[i].want == SF_ALLOW ? SF_ALLOW : (int)sf_rule_first(p, &p->sys[rows[i].nr]);
		assert_int_equal(d, want);
	}
	sf_policy_free(p);
}

/* Chains of ranges on one argument of each type, with constants and
 * registers from the same few values around 0 and the type's edges: where
 * merging intervals could go wrong, the random pass above seldom looks. */
static void random_range_chains_decide_as_the_tree(void **state)
{
	static const struct { const char *sys, *arg; unsigned nr, idx; const char *vals[8]; } at[] = {
		{ "kill", "pid", 62, 0, { "-3", "-1", "0", "1", "2", "0x7fffffff", "-2147483648", "5" } },
		{ "lseek", "offset", 8, 1, { "-3", "-1", "0", "1", "2", "0x7fffffffffffffff",
					     "-0x8000000000000000", "5" } },
		{ "read", "count", 0, 2, { "0", "1", "2", "3", "5", "~0", "0x8000000000000000",
					   "0x7fffffffffffffff" } },
		{ "close", "fd", 3, 0, { "0", "1", "2", "3", "5", "0xffffffff", "0x80000000", "0x7fffffff" } },
		{ "fchmod", "mode", 91, 1, { "0", "1", "2", "3", "5", "0xffff", "0x8000", "0x7fff" } },
	};
	static const char *const ops[] = { "<", "<=", ">", ">=", "==", "!=" };
	static const uint64_t regs[] = {
		0, 1, 2, 3, 4, 5, 6, (uint64_t)-1, (uint64_t)-2, (uint64_t)-3, (uint64_t)-4,
		0x7fffffff, 0x80000000, 0xffffffff, 0x7fff, 0x8000, 0xffff, 0x10000,
		0x7fffffffffffffff, 0x8000000000000000, 0xfffffffe, 0x100000002,
	};
	uint64_t rng = 0x4a9e, vectors = 0;
	unsigned round, k, v;
	char text[512];

	(void)state;
	for (round = 0; round < 3000; round++) {
		unsigned w = (unsigned)(t_rnd(&rng) % 5), len = 2 + (unsigned)(t_rnd(&rng) % 3);
		size_t n = (size_t)snprintf(text, sizeof text, "%s: ", at[w].sys);
		struct sf_policy *p;

		for (k = 0; k < len; k++)
			n += (size_t)snprintf(text + n, sizeof text - n, "%s%s %s %s",
					      k ? " && " : "", at[w].arg, ops[t_rnd(&rng) % 6],
					      at[w].vals[t_rnd(&rng) % 8]);
		p = t_parse(NULL, text);
		for (v = 0; v < sizeof regs / sizeof regs[0]; v++) {
			uint64_t args[6] = { 0, 0, 0, 0, 0, 0 };
			int got, want;

			args[at[w].idx] = regs[v];
			got = sf_decide(p, at[w].nr, args);
			want = ref_decide(p, at[w].nr, args);
			if (got != want)
				fail_msg("%s with %s = %#llx: evaluator %d, tree %d", text,
					 at[w].arg, (unsigned long long)regs[v], got, want);
			vectors++;
		}
		sf_policy_free(p);
	}
	print_message("%llu vectors over range chains decided alike\n", (unsigned long long)vectors);
}

/* `x in m`: no bit of x, as its type reads the register, outside m. */
static void in_reads_the_argument_as_its_type(void **state)
{
	struct sf_policy *p = t_parse(NULL,
		"mprotect: prot in ~PROT_EXEC\n"  /* u64 */
		"kill: sig in 0x7f\n"             /* s32 */
		"close: fd in 0xff\n"             /* u32 */
		"fchmod: mode in 0777\n"          /* u16 */
		"tkill: sig in -2\n"              /* s32, a mask with bit 31 */
		"lseek: offset in 0");            /* s64: only 0 */
	struct { long nr; uint64_t a0, a1, a2; int ok; } rows[] = {
		{ 10, 0, 0, 3, 1 }, { 10, 0, 0, 7, 0 }, { 10, 0, 0, 0, 1 },
		{ 10, 0, 0, 0x8000000000000003, 1 }, { 10, 0, 0, 0x4, 0 },
		{ 62, 0, 5, 0, 1 }, { 62, 0, 0x80, 0, 0 },
		{ 62, 0, 0xffffffff00000005, 0, 1 }, /* the kernel reads 5 */
		{ 62, 0, (uint64_t)-1, 0, 0 },
		{ 3, 0x1000000ff, 0, 0, 1 }, { 3, 0x100, 0, 0, 0 },
		{ 91, 0, 0x10000 | 0644, 0, 1 }, { 91, 0, 01000, 0, 0 },
		{ 200, 0, (uint64_t)-2, 0, 1 }, { 200, 0, 0x7ffffffe, 0, 1 },
		{ 200, 0, 1, 0, 0 }, { 200, 0, (uint64_t)-1, 0, 0 },
		{ 8, 0, 0, 0, 1 }, { 8, 0, 1, 0, 0 }, { 8, 0, 0x100000000, 0, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		int d = t_decide(p, rows[i].nr, rows[i].a0, rows[i].a1, rows[i].a2, 0);
		if ((d == SF_ALLOW) != rows[i].ok)
			fail_msg("row %zu: nr %ld (%#llx, %#llx, %#llx): %d", i, rows[i].nr,
				 (unsigned long long)rows[i].a0, (unsigned long long)rows[i].a1,
				 (unsigned long long)rows[i].a2, d);
	}
	sf_policy_free(p);
}

/* `return E` is a chain of one test that always exits to SF_RETURN: the
 * evaluator's fast paths stay as they were. */
static void return_is_a_one_test_chain(void **state)
{
	struct sf_policy *p = t_parse(NULL, "default: return EACCES; getppid: return EPERM;"
					    " read: fd == 0 else return EBADF; write: fd == 1");

	(void)state;
	assert_int_equal(p->sys[110].chain, 1);
	assert_int_equal(p->sys[110].conj, 0);
	assert_int_equal(p->sys[110].nfilters, 0);
	assert_int_equal(t_decide(p, 110, 0, 0, 0, 0), SF_RETURN);
	assert_int_equal(t_action(p, 110, 0, 0, 0, 0), 1);
	assert_int_equal(t_action(p, 0, 0, 0, 0, 0), SF_ACTION_RUN);
	assert_int_equal(t_action(p, 0, 3, 0, 0, 0), 9);   /* else return EBADF */
	assert_int_equal(t_action(p, 1, 3, 0, 0, 0), 13);  /* the default: EACCES */
	assert_int_equal(t_action(p, 39, 0, 0, 0, 0), 13); /* not in S */
	assert_int_equal(t_action(p, 600, 0, 0, 0, 0), 13);
	assert_int_equal(p->sys[1].conj, 1);
	sf_policy_free(p);
}

static void first_test_of_each_syscall(void **state)
{
	struct sf_policy *p = t_parse(NULL, "read: fd < 3 || fd > 9; read: count != 0; write: fd == 1; close: fd & 2");
	unsigned nr;

	(void)state;
	for (nr = 0; nr < SF_NR_COUNT; nr++)
		if (p->sys[nr].nfilters)
			assert_int_equal(sf_rule_test(p, &p->sys[nr]), p->filters[sf_rule_first(p, &p->sys[nr])].test);
	sf_policy_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(random_policies_decide_as_the_tree),
		cmocka_unit_test(conjunction_fast_path_names_the_denier),
		cmocka_unit_test(ranges_on_one_argument_merge),
		cmocka_unit_test(random_range_chains_decide_as_the_tree),
		cmocka_unit_test(first_test_of_each_syscall),
		cmocka_unit_test(in_reads_the_argument_as_its_type),
		cmocka_unit_test(return_is_a_one_test_chain),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
