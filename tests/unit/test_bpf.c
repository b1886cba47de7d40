/* The BPF back end, case by case: each row (cases/bpf-rows.tests) is a
 * policy, a call and the expected decision, checked on the compiled
 * program (simulated) and on the userspace evaluator, which must agree.  Then the structural
 * promises of SPEC §4: the kernel accepts the program, syscalls allowed
 * with `1` stay cacheable, the 4096-instruction limit is a clear error. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <linux/audit.h>

#include "bpf.h"
#include "bpf_sim.h"
#include "eval.h"
#include "tcommon.h"
#include "tsupport.h"

enum {
	READ = 0, WRITE = 1, OPEN = 2, CLOSE = 3, LSEEK = 8, GETPID = 39,
	EXIT = 60, UNAME = 63, GETPPID = 110, EXIT_GROUP = 231, OPENAT = 257,
};

#define KILL SECCOMP_RET_KILL_PROCESS
#define X32 0x40000000
#define NEG(x) ((uint64_t)(int64_t)(x))

/* Foreign architectures: killed whatever the number (the evaluator does
 * not see the architecture). */
static const struct {
	const char *policy;
	uint32_t arch;
	int nr;
} foreign[] = {
	{ "write: 1", AUDIT_ARCH_I386, WRITE },
	{ "*: 1", AUDIT_ARCH_I386, 3 },
	{ "*: 1", AUDIT_ARCH_AARCH64, WRITE },
	{ "*: 1", AUDIT_ARCH_X86_64 & ~__AUDIT_ARCH_LE, READ },
};

/* The decision the program takes, also checking what the kernel checks
 * and that the kill action is the only other outcome. */
static int bpf_allows(const struct sock_filter *prog, unsigned n, uint32_t kill,
		      uint32_t arch, int nr, const uint64_t args[6])
{
	static struct bpf_sim st;
	uint32_t ret = bpf_sim_call(prog, n, arch, nr, args, &st);

	if (st.error)
		fail_msg("simulator: %s", st.error);
	if (ret != SECCOMP_RET_ALLOW && ret != kill)
		fail_msg("program returned %#x", ret);
	return ret == SECCOMP_RET_ALLOW;
}

static unsigned compile(const struct sf_policy *p, uint32_t kill, struct sock_filter *prog)
{
	struct sf_error err = { 0 };
	unsigned n = 0;
	const char *bad;
	int rc = sf_bpf_compile(p, kill, prog, SF_BPF_MAX, &n, &err);

	if (rc)
		fail_msg("sf_bpf_compile: %d %s", rc, err.text);
	if ((bad = bpf_sim_check(prog, n)))
		fail_msg("the kernel would refuse the program: %s", bad);
	return n;
}

/* One row of cases/bpf-rows.tests: the policy, a call, allow or kill:
 * the compiled program (under each kill action) and the evaluator agree
 * with the row. */
static void row_agrees(char **fields, void *ctx, const char *where)
{
	static struct sock_filter prog[SF_BPF_MAX];
	const uint32_t kills[] = { KILL, SECCOMP_RET_TRAP, SECCOMP_RET_ERRNO | 1234 };
	struct sf_policy *p = t_parse(NULL, fields[0]);
	int expect = !strcmp(fields[2], "allow");
	uint64_t args[6];
	unsigned k;
	long nr;

	(void)ctx;
	if (*t_read_call(fields[1], &nr, args) || (!expect && strcmp(fields[2], "kill")))
		fail_msg("%s: expected POLICY<tab>CALL<tab>allow|kill", where);
	for (k = 0; k < sizeof(kills) / sizeof(kills[0]); k++) {
		unsigned n = compile(p, kills[k], prog);
		int got = bpf_allows(prog, n, kills[k], AUDIT_ARCH_X86_64, (int)nr, args);
		if (got != expect)
			fail_msg("%s: '%s' %s: BPF %s, expected %s", where, fields[0], fields[1],
				 got ? "allows" : "kills", expect ? "allow" : "kill");
	}
	if ((sf_decide(p, (uint64_t)nr, args) == SF_ALLOW) != expect)
		fail_msg("%s: '%s': the evaluator disagrees with the row", where, fields[0]);
	sf_policy_free(p);
}

static void rows_agree(void **state)
{
	static struct sock_filter prog[SF_BPF_MAX];
	unsigned i;

	(void)state;
	t_each_case("tests/unit/cases/bpf-rows.tests", 3, row_agrees, NULL);
	for (i = 0; i < sizeof(foreign) / sizeof(foreign[0]); i++) {
		struct sf_policy *p = t_parse(NULL, foreign[i].policy);
		static const uint64_t args[6] = { 1 };
		unsigned n = compile(p, KILL, prog);

		assert_false(bpf_allows(prog, n, KILL, foreign[i].arch, foreign[i].nr, args));
		assert_false(bpf_sim_const_allow(prog, n, foreign[i].nr, foreign[i].arch));
		sf_policy_free(p);
	}
}

/* Syscalls allowed with `1` (or with a filter that always holds) run only
 * loads of nr/arch, JEQ/JGE/JGT/JSET, JA, RET: the kernel caches them. */
static void check_cacheable(const struct sf_policy *p, const struct sock_filter *prog, unsigned n)
{
	static struct bpf_sim st;
	static const uint64_t zero[6];
	unsigned nr, i;

	for (nr = 0; nr < SF_NR_COUNT; nr++) {
		const struct sf_sysrule *r = &p->sys[nr];
		if (!r->allowed || r->nfilters) {
			if (!r->allowed)
				assert_false(bpf_sim_const_allow(prog, n, (int)nr, AUDIT_ARCH_X86_64));
			continue;
		}
		/* `return E` is no allow, but its path is as short */
		if (!r->ret && !bpf_sim_const_allow(prog, n, (int)nr, AUDIT_ARCH_X86_64))
			fail_msg("syscall %u allowed with 1 is not cacheable", nr);
		assert_int_equal(bpf_sim_call(prog, n, AUDIT_ARCH_X86_64, (int)nr, zero, &st),
				 r->ret ? SECCOMP_RET_ERRNO | r->ret : SECCOMP_RET_ALLOW);
		for (i = 0; i < st.steps; i++) {
			const struct sock_filter *in = &prog[st.trace[i]];
			if (in->code == (BPF_LD | BPF_W | BPF_ABS) &&
			    in->k != offsetof(struct seccomp_data, nr) &&
			    in->k != offsetof(struct seccomp_data, arch))
				fail_msg("syscall %u: load of offset %u on its path", nr, in->k);
			if (BPF_CLASS(in->code) == BPF_ALU && in->code != (BPF_ALU | BPF_AND | BPF_K))
				fail_msg("syscall %u: ALU op on its path", nr);
		}
		/* header (3), a tree over at most 513 ranges, RET */
		assert_true(st.steps <= 3 + 10 + 1);
	}
}

/* Every outcome a program can have, against what the evaluator says
 * (bpf_sim_expect), under each kill action the callers use. */
static const struct {
	const char *policy;
	int nr;
	uint64_t args[6];
	uint32_t ret; /* with kill = KILL */
} actions[] = {
	{ "read: return EPERM", READ, { 0 }, SECCOMP_RET_ERRNO | 1 },
	{ "read: return 4095", READ, { 0 }, SECCOMP_RET_ERRNO | 4095 },
	{ "read: fd == 0 else return EBADF", READ, { 1 }, SECCOMP_RET_ERRNO | 9 },
	{ "read: fd == 0 else return EBADF", READ, { 0 }, SECCOMP_RET_ALLOW },
	{ "read: fd == 0 else return EBADF; read: count < 5", READ, { 0, 0, 9 }, KILL },
	{ "read: fd == 0 else return EBADF; read: count < 5 else return EIO", READ, { 0, 0, 9 },
	  SECCOMP_RET_ERRNO | 5 },
	{ "read: fd == 0 else return EBADF; read: count < 5 else return EIO", READ, { 7, 0, 9 },
	  SECCOMP_RET_ERRNO | 9 },
	{ "default: return EPERM", READ, { 0 }, SECCOMP_RET_ERRNO | 1 },
	{ "default: return EPERM", X32 | READ, { 0 }, SECCOMP_RET_ERRNO | 1 },
	{ "default: return EPERM", 600, { 0 }, SECCOMP_RET_ERRNO | 1 },
	{ "default: return EPERM; read: fd == 0", READ, { 1 }, SECCOMP_RET_ERRNO | 1 },
	{ "default: trap; read: fd == 0", READ, { 1 }, SECCOMP_RET_TRAP },
	{ "default: trap", WRITE, { 1 }, SECCOMP_RET_TRAP },
	{ "default: log", WRITE, { 1 }, SECCOMP_RET_LOG },
	{ "default: log; write: return EPERM", WRITE, { 1 }, SECCOMP_RET_ERRNO | 1 },
	{ "*: return ENOSYS; read: 1", WRITE, { 1 }, SECCOMP_RET_ERRNO | 38 },
	{ "*: return ENOSYS; read: 1", 600, { 1 }, KILL },
	{ "@network-io: return EACCES", 41 /* socket */, { 1 }, SECCOMP_RET_ERRNO | 13 },
	{ "@network-io: return EACCES", READ, { 1 }, KILL },
};

static void actions_agree(void **state)
{
	static struct sock_filter prog[SF_BPF_MAX];
	static struct bpf_sim st;
	const uint32_t kills[] = { KILL, SECCOMP_RET_TRAP | SF_BPF_TRAP_KILL, SECCOMP_RET_LOG };
	unsigned i, k;

	(void)state;
	for (i = 0; i < sizeof(actions) / sizeof(actions[0]); i++) {
		struct sf_policy *p = t_parse(NULL, actions[i].policy);

		assert_int_equal(bpf_sim_expect(p, actions[i].nr, actions[i].args, KILL),
				 actions[i].ret);
		for (k = 0; k < sizeof(kills) / sizeof(kills[0]); k++) {
			unsigned n = compile(p, kills[k], prog);
			uint32_t got = bpf_sim_call(prog, n, AUDIT_ARCH_X86_64, actions[i].nr,
						    actions[i].args, &st);
			uint32_t want = bpf_sim_expect(p, actions[i].nr, actions[i].args, kills[k]);
			if (st.error || got != want)
				fail_msg("'%s' nr %d, kill %#x: BPF %#x, evaluator %#x %s",
					 actions[i].policy, actions[i].nr, kills[k], got, want,
					 st.error ? st.error : "");
			/* a foreign architecture gets the default action */
			got = bpf_sim_call(prog, n, AUDIT_ARCH_I386, READ, actions[i].args, &st);
			assert_int_equal(got, bpf_sim_expect(p, 600, actions[i].args, kills[k]));
		}
		sf_policy_free(p);
	}
}

static void allowed_with_1_is_cacheable(void **state)
{
	static struct sock_filter prog[SF_BPF_MAX];
	static const char *const policies[] = {
		"*: 1",
		"*: 1; getpid: 0",
		"read: 1; write: fd == 1; exit_group: 1; lseek: offset > 0 || whence == 2",
		"read: fd >= 0; getpid: 1",
		"open: mode & 0xffff || mode == 0; openat: dfd < 0; uname: 1",
		"default: return EPERM; *: 1; io_uring_setup: 0; clone3: return ENOSYS; "
		"write: fd == 1 else return EBADF",
		"default: trap; read: 1; getppid: return 4095; @file-system: return EACCES; close: 1",
		"default: log; *: return EPERM; read: 1; write: fd in 3",
	};
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(policies) / sizeof(policies[0]); i++) {
		struct sf_policy *p = t_parse(NULL, policies[i]);
		unsigned n = compile(p, KILL, prog);

		check_cacheable(p, prog, n);
		/* A filter the argument's type makes always true costs nothing. */
		if (strstr(policies[i], "fd >= 0"))
			assert_true(bpf_sim_const_allow(prog, n, READ, AUDIT_ARCH_X86_64));
		sf_policy_free(p);
	}
}

/* Every number from 0 to 511 allowed or denied in a pattern, so that the
 * dispatch tree has hundreds of ranges (a hand-built block: the table may
 * not have these numbers). */
static void big_allow_lists(void **state)
{
	static struct sock_filter prog[SF_BPF_MAX];
	static const uint64_t zero[6];
	static struct bpf_sim st;
	unsigned seed, nr;

	(void)state;
	for (seed = 0; seed < 40; seed++) {
		struct tp *b = tp_new();
		struct sf_policy *p;
		unsigned n, maxsteps = 0;

		for (nr = 0; nr < SF_NR_COUNT; nr++)
			if (seed == 0 ? nr % 2 : seed == 1 ? 1 : (nr * 2654435761u >> (seed % 20)) % 3 != 0)
				tp_allow(b, nr);
		p = tp_build(b);
		assert_non_null(p);
		n = compile(p, KILL, prog);
		check_cacheable(p, prog, n);
		for (nr = 0; nr < SF_NR_COUNT + 8; nr++) {
			int allow = nr < SF_NR_COUNT && p->sys[nr].allowed;
			assert_int_equal(bpf_allows(prog, n, KILL, AUDIT_ARCH_X86_64, (int)nr, zero), allow);
			bpf_sim_call(prog, n, AUDIT_ARCH_X86_64, (int)nr, zero, &st);
			if (st.steps > maxsteps)
				maxsteps = st.steps;
		}
		/* alternating numbers: 513 ranges, the worst case */
		if (seed == 0)
			print_message("alternating allow list: %u instructions, at most %u run\n",
				      n, maxsteps);
		tp_free(p);
	}
}

/* A filter so long that jumps to its RETs exceed 255 instructions. */
static void far_jumps(void **state)
{
	static struct sock_filter prog[SF_BPF_MAX];
	static char text[64 * 1024];
	uint64_t args[6] = { 0 };
	struct sf_policy *p;
	size_t len = 0;
	unsigned i, n;

	(void)state;
	len += (size_t)sprintf(text + len, "read: count > 0; read: ");
	for (i = 0; i < 400; i++)
		len += (size_t)sprintf(text + len, "%s(fd == %u && count != %u)", i ? " || " : "",
				       1000 + 2 * i, i);
	/* JA trampolines, then a reload dropped from under them: */
	len += (size_t)sprintf(text + len, "; write: (");
	for (i = 0; i < 300; i++)
		len += (size_t)sprintf(text + len, "%sfd == %u", i ? " || " : "", 1000 + 3 * i);
	len += (size_t)sprintf(text + len, ") && fd != 1300 || count == 7");
	len += (size_t)sprintf(text + len, "; getpid: 1; lseek: offset == 0 || offset > 0x100000000");
	p = t_parse(NULL, text);
	n = compile(p, KILL, prog);
	assert_true(n > 3 * 256);
	for (i = 0; i < 1200; i++) {
		args[0] = 1000 + i;
		args[2] = i % 7 ? 1 + i / 2 : i % 2 ? 0 : 7;
		assert_int_equal(bpf_allows(prog, n, KILL, AUDIT_ARCH_X86_64, READ, args),
				 sf_decide(p, READ, args) == SF_ALLOW);
		assert_int_equal(bpf_allows(prog, n, KILL, AUDIT_ARCH_X86_64, WRITE, args),
				 sf_decide(p, WRITE, args) == SF_ALLOW);
	}
	args[1] = 0x100000001;
	assert_true(bpf_allows(prog, n, KILL, AUDIT_ARCH_X86_64, LSEEK, args));
	assert_true(bpf_allows(prog, n, KILL, AUDIT_ARCH_X86_64, GETPID, args));
	check_cacheable(p, prog, n);
	sf_policy_free(p);
}

/* Chains of every length around the reach of a jump (255) and its
 * multiples, so that trampolines and the reuse of RET copies and JAs land
 * on each side of their limits. */
static void jump_reach_boundaries(void **state)
{
	static struct sock_filter prog[SF_BPF_MAX];
	static char text[64 * 1024];
	uint64_t args[6] = { 0 };
	unsigned terms, shape, n, fd;

	(void)state;
	for (terms = 120; terms < 800; terms += terms % 127 < 10 || terms % 255 > 245 ? 1 : 37) {
		for (shape = 0; shape < 3; shape++) {
			struct sf_policy *p;
			size_t len = (size_t)sprintf(text, "write: (");
			unsigned i;

			for (i = 0; i < terms; i++)
				len += (size_t)sprintf(text + len, "%s%s == %u", i ? " || " : "",
						       shape == 1 && i % 3 == 0 ? "count" : "fd",
						       1000 + 3 * i);
			len += (size_t)sprintf(text + len, ") && %s || count == 7; read: fd == 0",
					       shape == 2 ? "count > 0x100000000" : "fd != 1300");
			p = t_parse(NULL, text);
			n = compile(p, KILL, prog);
			for (fd = 998; fd < 1000 + 3 * terms + 2; fd++) {
				args[0] = fd;
				args[2] = fd % 5 == 0 ? 7 : fd % 5 == 1 ? 0x100000001 : fd;
				assert_int_equal(bpf_allows(prog, n, KILL, AUDIT_ARCH_X86_64, WRITE, args),
						 sf_decide(p, WRITE, args) == SF_ALLOW);
			}
			sf_policy_free(p);
		}
	}
}

static void too_big_is_e2big(void **state)
{
	static struct sock_filter prog[SF_BPF_MAX + 100];
	static char text[256 * 1024];
	struct sf_error err = { 0 };
	struct sf_policy *p;
	size_t len = 0;
	unsigned i, n = 77, exact;

	(void)state;
	len += (size_t)sprintf(text + len, "read: ");
	for (i = 0; i < 4100; i++) /* one instruction each */
		len += (size_t)sprintf(text + len, "%sfd == %u", i ? " || " : "", 7 * i);
	p = t_parse(NULL, text);
	assert_int_equal(sf_bpf_compile(p, KILL, prog, SF_BPF_MAX + 100, &n, &err), -E2BIG);
	assert_int_equal(err.code, -E2BIG);
	assert_int_equal(n, 0);
	assert_string_equal(err.text,
			    "policy compiles to more than 4096 BPF instructions (the kernel limit)");
	sf_policy_free(p);

	/* Right-leaning chains, (a || (b || (c ...))), deeper than the
	 * parser nests: the compiler's stack spills into the buffer. */
	for (i = 0; i < 2; i++) {
		const unsigned depth = i ? 3000 : 1500;
		static const uint64_t zero[6];
		uint64_t args[6] = { 0 };
		struct tp *b = tp_new();
		uint32_t root = tp_pred(b, 0, SF_T_U32, SF_OP_EQ, depth);
		unsigned k;

		for (k = depth; k-- > 0;)
			root = tp_or(b, tp_pred(b, 0, SF_T_U32, SF_OP_EQ, k), root);
		tp_filter(b, READ, root);
		tp_allow(b, WRITE);
		p = tp_build(b);
		assert_non_null(p);
		if (i) {
			assert_int_equal(sf_bpf_compile(p, KILL, prog, SF_BPF_MAX, &n, &err), -E2BIG);
		} else {
			n = compile(p, KILL, prog);
			for (args[0] = 0; args[0] <= depth + 1; args[0] += 7)
				assert_int_equal(bpf_allows(prog, n, KILL, AUDIT_ARCH_X86_64, READ, args),
						 args[0] <= depth);
			assert_true(bpf_allows(prog, n, KILL, AUDIT_ARCH_X86_64, WRITE, zero));
		}
		tp_free(p);
	}

	/* The buffer's capacity is a limit too, exactly. */
	p = t_parse(NULL, "read: fd == 1 || fd == 5 || count > 7; write: 1; lseek: offset < -3");
	exact = compile(p, KILL, prog);
	assert_int_equal(sf_bpf_compile(p, KILL, prog, exact, &n, &err), 0);
	assert_int_equal(n, exact);
	assert_int_equal(sf_bpf_compile(p, KILL, prog, exact - 1, &n, &err), -E2BIG);
	assert_non_null(strstr(err.text, "more than"));
	assert_int_equal(sf_bpf_compile(p, KILL, prog, 0, &n, &err), -E2BIG);
	sf_policy_free(p);
}

/* Blocks the parser never makes: the compiler refuses them (fail closed). */
static void malformed_blocks_fail_closed(void **state)
{
	static struct sock_filter prog[SF_BPF_MAX];
	struct sf_error err = { 0 };
	struct tp *b = tp_new();
	struct sf_policy *p;
	struct sf_node *nodes;
	uint32_t a, c;
	unsigned n;

	(void)state;
	a = tp_pred(b, 0, SF_T_U32, SF_OP_EQ, 1);
	c = tp_pred(b, 2, SF_T_U64, SF_OP_GT, 5);
	tp_filter(b, READ, tp_or(b, a, tp_not(b, c)));
	p = tp_build(b);
	assert_non_null(p);
	nodes = (struct sf_node *)p->nodes;
	assert_int_equal(sf_bpf_compile(p, KILL, prog, SF_BPF_MAX, &n, &err), 0);

	nodes[0].value = 0x100000001; /* not normalized to u32 */
	assert_int_equal(sf_bpf_compile(p, KILL, prog, SF_BPF_MAX, &n, &err), -EINVAL);
	assert_int_equal(err.code, -EINVAL);
	assert_non_null(strstr(err.text, "internal error"));
	nodes[0].value = 1;
	nodes[0].arg = 6;
	assert_int_equal(sf_bpf_compile(p, KILL, prog, SF_BPF_MAX, &n, &err), -EINVAL);
	nodes[0].arg = 0;
	nodes[2].left = 99; /* out of nodes[] */
	assert_int_equal(sf_bpf_compile(p, KILL, prog, SF_BPF_MAX, &n, &err), -EINVAL);
	nodes[2].left = 2; /* NOT of itself: a cycle */
	assert_int_equal(sf_bpf_compile(p, KILL, prog, SF_BPF_MAX, &n, &err), -EINVAL);
	nodes[2].left = 1;
	nodes[3].right = 3; /* OR whose right operand is itself: a cycle too */
	assert_int_equal(sf_bpf_compile(p, KILL, prog, SF_BPF_MAX, &n, &err), -EINVAL);
	nodes[3].right = 2;
	nodes[3].kind = 9;
	assert_int_equal(sf_bpf_compile(p, KILL, prog, SF_BPF_MAX, &n, &err), -EINVAL);
	nodes[3].kind = SF_N_OR;
	assert_int_equal(sf_bpf_compile(p, KILL, prog, SF_BPF_MAX, &n, &err), 0);
	assert_int_equal(sf_bpf_compile(p, SECCOMP_RET_ALLOW, prog, SF_BPF_MAX, &n, &err), -EINVAL);
	assert_int_equal(n, 0);
	tp_free(p);
}

/* The shape promised in bpf.c, on a small program. */
static void header_and_dispatch(void **state)
{
	static struct sock_filter prog[SF_BPF_MAX];
	static struct bpf_sim st;
	static const uint64_t zero[6];
	struct sf_policy *p = t_parse(NULL, "read: 1; write: 1; exit_group: 1");
	unsigned n = compile(p, KILL, prog);

	(void)state;
	assert_int_equal(prog[0].code, BPF_LD | BPF_W | BPF_ABS);
	assert_int_equal(prog[0].k, offsetof(struct seccomp_data, arch));
	assert_int_equal(prog[1].code, BPF_JMP | BPF_JEQ | BPF_K);
	assert_int_equal(prog[1].k, AUDIT_ARCH_X86_64);
	assert_int_equal(prog[2].code, BPF_LD | BPF_W | BPF_ABS);
	assert_int_equal(prog[2].k, offsetof(struct seccomp_data, nr));
	/* ranges [0,2) allow, [2,231) kill, 231 allow, [232,...) kill */
	assert_int_equal(bpf_sim_call(prog, n, AUDIT_ARCH_X86_64, WRITE, zero, &st), SECCOMP_RET_ALLOW);
	assert_true(st.steps <= 6);
	assert_true(n <= 10);
	sf_policy_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rows_agree),
		cmocka_unit_test(allowed_with_1_is_cacheable),
		cmocka_unit_test(actions_agree),
		cmocka_unit_test(big_allow_lists),
		cmocka_unit_test(far_jumps),
		cmocka_unit_test(jump_reach_boundaries),
		cmocka_unit_test(too_big_is_e2big),
		cmocka_unit_test(malformed_blocks_fail_closed),
		cmocka_unit_test(header_and_dispatch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
