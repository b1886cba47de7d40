/* minijail policy files, secfilter against minijail's own compiler (SPEC
 * §2, issue 11): every minijail policy of the test corpus, read by
 * secfilter and decided by its evaluator, and the program minijail's
 * tools/compile_seccomp_policy.py made of the same file
 * (NAME.bpf in tests/unit/minijail, made by regen.sh there, with
 * secfilter's tables for names), run in bpf_sim, decide every call alike.
 *
 * Registers aimed at the constants of minijail's program (each half of a
 * 64-bit comparison is one), their neighbours, under every upper half the
 * program tests and some others.  Alike means: kill-thread and
 * kill-process both kill (secfilter kills the process: stricter), the
 * errno the kernel would return.  Foreign architectures and numbers above
 * the table are not compared (secfilter(7) says where they differ). */
#include <glob.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <linux/audit.h>

#include "bpf_sim.h"
#include "eval.h"
#include "tcommon.h"
#include "tsupport.h"

#define CALLS 200000

static uint64_t rng = 0x6d696e696a61696cull;

static uint64_t rnd(void)
{
	return t_rnd(&rng);
}

struct tally {
	unsigned long calls, run, errnos, stopped;
};

static void compare(const char *path, const struct sf_policy *p, const struct sock_filter *prog,
		    unsigned n, struct tally *t)
{
	static uint64_t k[4096];
	unsigned nk = 0, i, j, arg;
	int named[SF_NR_COUNT], nnamed = 0, nr;

	k[nk++] = 0;
	k[nk++] = 0xffffffff;
	for (i = 0; i < n && nk + 3 <= sizeof(k) / sizeof(k[0]); i++)
		if (BPF_CLASS(prog[i].code) == BPF_JMP && BPF_SRC(prog[i].code) == BPF_K &&
		    BPF_OP(prog[i].code) != BPF_JA) {
			k[nk++] = prog[i].k;
			k[nk++] = (uint32_t)(prog[i].k - 1);
			k[nk++] = (uint32_t)(prog[i].k + 1);
		}
	for (nr = 0; nr < SF_NR_COUNT; nr++)
		if (sf_syscall_by_nr(nr) && (p->sys[nr].allowed || p->sys[nr].nfilters))
			named[nnamed++] = nr;
	for (i = 0; i < CALLS; i++) {
		struct bpf_sim st;
		uint64_t a[6];
		uint32_t want, got;

		if (nnamed && rnd() % 4)
			nr = named[rnd() % (unsigned)nnamed];
		else
			do
				nr = (int)(rnd() % SF_NR_COUNT);
			while (!sf_syscall_by_nr(nr));
		for (arg = 0; arg < 6; arg++) {
			uint64_t lo = k[rnd() % nk], hi = k[rnd() % nk];
			switch (rnd() % 8) {
			case 0: a[arg] = rnd(); break;
			case 1: a[arg] = lo; break;
			case 2: a[arg] = lo | 0xffffffff00000000ull; break;
			default: a[arg] = hi << 32 | lo;
			}
		}
		want = bpf_sim_canonical(bpf_sim_expect(p, nr, a, SECCOMP_RET_KILL_PROCESS));
		got = bpf_sim_canonical(bpf_sim_call(prog, n, AUDIT_ARCH_X86_64, nr, a, &st));
		if (st.error)
			fail_msg("%s: minijail's program: %s", path, st.error);
		if (want != got) {
			char args[200];
			for (j = 0, args[0] = '\0'; j < 6; j++)
				snprintf(args + strlen(args), sizeof(args) - strlen(args),
					 "%s%#" PRIx64, j ? ", " : "", a[j]);
			fail_msg("%s: %s(%s): secfilter %#x, minijail %#x\n--- secfilter reads:\n%s",
				 path, sf_syscall_by_nr(nr)->name, args, want, got, t_print(p));
		}
		t->calls++;
		t->run += want == SECCOMP_RET_ALLOW;
		t->errnos += (want & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ERRNO;
		t->stopped += want != SECCOMP_RET_ALLOW &&
			      (want & SECCOMP_RET_ACTION_FULL) != SECCOMP_RET_ERRNO;
	}
}

static void decides_as_minijail(void **state)
{
	static const char *const corpus[] = {
		"tests/e2e/policies/*.policy", "tests/e2e/policies/*/*.policy",
		"tests/unit/minijail/*.policy",
	};
	struct tally t = { 0 };
	glob_t files;
	size_t f;

	(void)state;
	t_glob(corpus, sizeof(corpus) / sizeof(corpus[0]), &files);
	for (f = 0; f < files.gl_pathc; f++) {
		const char *path = files.gl_pathv[f];
		char bpf[4096], *text, *c;
		struct sf_policy *p;
		struct sf_error err;
		size_t len, blen;
		char *prog;

		/* tests/e2e/policies/a/b.policy: tests/unit/minijail/e2e_policies_a_b.policy.bpf */
		snprintf(bpf, sizeof(bpf), "tests/unit/minijail/%s.bpf", path + strlen("tests/"));
		for (c = bpf + strlen("tests/unit/minijail/"); *c; c++)
			if (*c == '/')
				*c = '_';
		prog = t_slurp(bpf, &blen);
		if (!prog)
			fail_msg("%s: no program of minijail's (%s): run tests/unit/minijail/regen.sh",
				 path, bpf);
		assert_int_equal(blen % sizeof(struct sock_filter), 0);
		text = t_slurp(path, &len);
		assert_non_null(text);
		p = t_parse_syntax(SF_SYNTAX_MINIJAIL, path, text, &err);
		if (!p)
			fail_msg("%s", err.text);
		compare(path, p, (const struct sock_filter *)prog,
			(unsigned)(blen / sizeof(struct sock_filter)), &t);
		sf_policy_free(p);
		free(text);
		free(prog);
	}
	print_message("%zu minijail policies, %lu calls decided as minijail's compiler decides "
		      "(%lu run, %lu errno, %lu kill/trap/log)\n", files.gl_pathc, t.calls, t.run,
		      t.errnos, t.stopped);
	assert_true(files.gl_pathc >= 9);
	globfree(&files);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(decides_as_minijail),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
