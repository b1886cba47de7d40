/* minijail policy files (filter/minijail.c): each construct of the syntax
 * minijail's compile_seccomp_policy.py reads, decided as that compiler
 * decides it, and its errors at their place. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "eval.h"
#include "tsupport.h"

enum { READ = 0, WRITE = 1, OPEN = 2, CLOSE = 3, MMAP = 9, MPROTECT = 10, IOCTL = 16,
       GETPID = 39, SOCKET = 41, KILL = 62, UNAME = 63, EXIT_GROUP = 231, OPENAT = 257 };

#define RUN SF_ACTION_RUN
#define KILLED SF_ACTION_KILL

static struct sf_policy *mj(const char *text)
{
	struct sf_error err;
	struct sf_policy *p = t_parse_syntax(SF_SYNTAX_MINIJAIL, "t.policy", text, &err);

	if (!p)
		fail_msg("minijail policy rejected:\n%s\n%s", text, err.text);
	return p;
}

/* The call's outcome with arguments a0..a3 (the rest 0). */
static unsigned act(const struct sf_policy *p, long nr, uint64_t a0, uint64_t a1, uint64_t a2,
		    uint64_t a3)
{
	return t_action(p, nr, a0, a1, a2, a3);
}

/* minijail0(5)'s examples, as the compiler reads them on x86-64. */
static void documented_examples(void **state)
{
	struct sf_policy *p;

	(void)state;
	p = mj("read: 1\nwrite: 1\nrt_sigreturn: 1\nexit: 1\n");
	assert_int_equal(act(p, READ, 0, 0, 0, 0), RUN);
	assert_int_equal(act(p, GETPID, 0, 0, 0, 0), KILLED);
	sf_policy_free(p);

	/* open with O_LARGEFILE|O_RDONLY|O_NONBLOCK or some combination */
	p = mj("open: arg1 == 32768 || arg1 == 0 || arg1 == 34816 || arg1 == 2048\n"
	       "munmap: 1\nclose: 1\n");
	assert_int_equal(act(p, OPEN, 0, 34816, 0, 0), RUN);
	assert_int_equal(act(p, OPEN, 0, 1, 0, 0), KILLED);
	/* the whole register: 0x100000000 is not 0 */
	assert_int_equal(act(p, OPEN, 0, 0x100000000ull, 0, 0), KILLED);
	sf_policy_free(p);

	p = mj("open: arg1 & O_RDONLY\n"
	       "mmap: arg3 in MAP_PRIVATE|MAP_ANONYMOUS\n"
	       "mprotect: arg2 in ~PROT_EXEC || arg2 in ~PROT_WRITE\n");
	assert_int_equal(act(p, OPEN, 0, 0, 0, 0), KILLED); /* O_RDONLY is 0: never set */
	assert_int_equal(act(p, MMAP, 0, 0, 3, 0x22), RUN);
	assert_int_equal(act(p, MMAP, 0, 0, 3, 0x1022), KILLED);
	assert_int_equal(act(p, MPROTECT, 0, 0, 5, 0), RUN);  /* r-x */
	assert_int_equal(act(p, MPROTECT, 0, 0, 7, 0), KILLED); /* rwx */
	sf_policy_free(p);

	p = mj("read: return EBADF\n");
	assert_int_equal(act(p, READ, 0, 0, 0, 0), EBADF);
	sf_policy_free(p);

	/* The compiler's meaning: EXPR; return E gives E where EXPR matches,
	 * the default action elsewhere (minijail0(5) says the reverse, which
	 * is what libminijail's run-time parser does; see secfilter(7)). */
	p = mj("read: arg0 == 0; return EBADF\n");
	assert_int_equal(act(p, READ, 0, 0, 0, 0), EBADF);
	assert_int_equal(act(p, READ, 1, 0, 0, 0), KILLED);
	sf_policy_free(p);
}

/* A syscall defined twice: its filters are tried in order, so allows are
 * OR-ed; an unconditional allow at the end allows it all. */
static void redefinitions_and_lists(void **state)
{
	struct sf_policy *p;

	(void)state;
	p = mj("write: arg0 == 1\nwrite: arg0 == 2 && arg2 < 10\n");
	assert_int_equal(act(p, WRITE, 1, 0, 99, 0), RUN);
	assert_int_equal(act(p, WRITE, 2, 0, 9, 0), RUN);
	assert_int_equal(act(p, WRITE, 2, 0, 10, 0), KILLED);
	assert_string_equal(t_print(p), "sys_write: u64(fd) == 1 || u64(fd) == 2 && count < 10\n");
	sf_policy_free(p);

	/* first match wins: 5 gets EBADF, 6 a SIGSYS, 7 runs, the rest the
	 * default */
	p = mj("close: {arg0 == 5; return EBADF, arg0 == 6; trap, arg0 <= 7}\n");
	assert_int_equal(act(p, CLOSE, 5, 0, 0, 0), EBADF);
	assert_int_equal(act(p, CLOSE, 6, 0, 0, 0), SF_ACTION_TRAP);
	assert_int_equal(act(p, CLOSE, 7, 0, 0, 0), RUN);
	assert_int_equal(act(p, CLOSE, 2, 0, 0, 0), RUN);
	assert_int_equal(act(p, CLOSE, 8, 0, 0, 0), KILLED);
	sf_policy_free(p);

	/* an allow before a return: it stays allowed */
	p = mj("close: arg0 == 5\nclose: arg0 <= 6; return EPERM\nclose: log\n");
	assert_int_equal(act(p, CLOSE, 5, 0, 0, 0), RUN);
	assert_int_equal(act(p, CLOSE, 4, 0, 0, 0), EPERM);
	assert_int_equal(act(p, CLOSE, 9, 0, 0, 0), SF_ACTION_LOG);
	sf_policy_free(p);

	/* the compiler: an unconditional allow last makes the rest moot */
	p = mj("close: arg0 == 5; return EBADF\nclose: allow\n");
	assert_int_equal(act(p, CLOSE, 5, 0, 0, 0), RUN);
	sf_policy_free(p);

	/* several syscalls at once, several filters at once */
	p = mj("{read, write}: {arg0 == 0, return ENOSYS}\n");
	assert_int_equal(act(p, READ, 0, 0, 0, 0), RUN);
	assert_int_equal(act(p, WRITE, 3, 0, 0, 0), ENOSYS);
	sf_policy_free(p);
}

static void actions(void **state)
{
	struct sf_policy *p;

	(void)state;
	p = mj("read: allow\nwrite: 1\nclose: kill-process\nkill: kill-thread\nuname: kill\n"
	       "getpid: trap\nsocket: log\nioctl: return 0x10019\n");
	assert_int_equal(act(p, READ, 0, 0, 0, 0), RUN);
	assert_int_equal(act(p, WRITE, 0, 0, 0, 0), RUN);
	/* kill-thread and kill kill the process: stricter (secfilter(7)) */
	assert_int_equal(act(p, CLOSE, 0, 0, 0, 0), KILLED);
	assert_int_equal(act(p, KILL, 0, 0, 0, 0), KILLED);
	assert_int_equal(act(p, UNAME, 0, 0, 0, 0), KILLED);
	assert_int_equal(act(p, GETPID, 0, 0, 0, 0), SF_ACTION_TRAP);
	assert_int_equal(act(p, SOCKET, 0, 0, 0, 0), SF_ACTION_LOG);
	/* SECCOMP_RET_ERRNO keeps 16 bits, the kernel caps them at 4095 */
	assert_int_equal(act(p, IOCTL, 0, 0, 0, 0), 25);
	sf_policy_free(p);
	p = mj("read: return 5000\n@default trap\n");
	assert_int_equal(act(p, READ, 0, 0, 0, 0), 4095);
	assert_int_equal(act(p, WRITE, 0, 0, 0, 0), SF_ACTION_TRAP);
	sf_policy_free(p);
}

/* Values: every spelling the compiler reads, compared as 64-bit words. */
static void values(void **state)
{
	struct sf_policy *p;

	(void)state;
	p = mj("read: arg0 == 0x10 || arg0 == 020 || arg0 == -1 || arg0 == ~(1|2) ||"
	       " arg0 == O_WRONLY|O_CREAT || arg0 == EPERM || arg0 == 08\n"
	       "write: arg0 in ~PROT_EXEC && arg1 > 0xffffffff\n");
	assert_int_equal(act(p, READ, 16, 0, 0, 0), RUN);
	assert_int_equal(act(p, READ, 0xffffffffffffffffull, 0, 0, 0), RUN);
	assert_int_equal(act(p, READ, 0xffffffffull, 0, 0, 0), KILLED); /* not -1 in 64 bits */
	assert_int_equal(act(p, READ, 0xfffffffffffffffcull, 0, 0, 0), RUN);
	assert_int_equal(act(p, READ, 0101, 0, 0, 0), RUN);
	assert_int_equal(act(p, READ, 1, 0, 0, 0), RUN);
	assert_int_equal(act(p, READ, 8, 0, 0, 0), RUN);
	assert_int_equal(act(p, READ, 2, 0, 0, 0), KILLED);
	assert_int_equal(act(p, WRITE, 3, 0x100000000ull, 0, 0), RUN);
	assert_int_equal(act(p, WRITE, 0x400000000ull, 0x100000000ull, 0, 0), RUN);
	assert_int_equal(act(p, WRITE, 4, 0x100000000ull, 0, 0), KILLED);
	/* the canonical text keeps the 64-bit reading, so it means the same
	 * when parsed again (the library's exec'd images parse it) */
	assert_non_null(strstr(t_print(p), "sys_read: u64(fd) in {16, 16, 0xffffffffffffffff, "
					  "0xfffffffffffffffc, 65, 1, 8}\n"));
	sf_policy_free(p);
}

static void default_and_denylist(void **state)
{
	struct sf_policy *p;

	(void)state;
	p = mj("@default trap\nread: arg0 == 1\n");
	assert_int_equal(act(p, READ, 2, 0, 0, 0), SF_ACTION_TRAP);
	assert_int_equal(act(p, GETPID, 0, 0, 0, 0), SF_ACTION_TRAP);
	sf_policy_free(p);

	/* @denylist: what is not named runs; actions are returns */
	p = mj("@denylist\n# a denylist\nptrace: return EPERM\nsocket: arg0 == AF_NETLINK; return EACCES\n");
	assert_int_equal(act(p, READ, 0, 0, 0, 0), RUN);
	assert_int_equal(act(p, 101, 0, 0, 0, 0), EPERM);
	assert_int_equal(act(p, SOCKET, 16, 0, 0, 0), EACCES);
	assert_int_equal(act(p, SOCKET, 2, 0, 0, 0), RUN);
	assert_int_equal(act(p, 600, 0, 0, 0, 0), EPERM); /* outside the table */
	sf_policy_free(p);
}

static void metadata_skips_other_arches(void **state)
{
	struct sf_policy *p;

	(void)state;
	p = mj("read[arch=x86_64]: 1\nwrite[arch=arm,aarch64]: 1\n{close, getpid[arch=x86]}: 1\n");
	assert_int_equal(act(p, READ, 0, 0, 0, 0), RUN);
	assert_int_equal(act(p, WRITE, 0, 0, 0, 0), KILLED);
	assert_int_equal(act(p, CLOSE, 0, 0, 0, 0), RUN);
	assert_int_equal(act(p, GETPID, 0, 0, 0, 0), KILLED);
	sf_policy_free(p);
	/* continuation lines, comments, blank lines, CRLF */
	p = mj("# c\r\n\r\nread: arg0 == 1 || \\\n  arg0 == 2 # two\r\n");
	assert_int_equal(act(p, READ, 2, 0, 0, 0), RUN);
	sf_policy_free(p);
}

struct error_case {
	const char *text;
	unsigned line, col;
	const char *message;
};

static void errors_at_their_place(void **state)
{
	static const struct error_case cases[] = {
		{ "read: 1\nraed: 1", 2, 1, "nonexistent syscall 'raed'" },
		{ "sys_read: 1", 1, 1, "nonexistent syscall 'sys_read'" },
		{ "0: 1", 1, 1, "invalid syscall descriptor" },
		{ "read: arg0 = 1", 1, 12, "invalid operator" },
		{ "read: arg0 == 1 $", 1, 17, "invalid token" },
		{ "read: !(arg0 == 1)", 1, 7, "invalid token" },
		{ "read: arg6 == 1", 1, 7, "x86-64 syscalls have six arguments" },
		{ "read: arg7 == 1", 1, 7, "invalid argument" },
		/* a register past the arguments whose argN the kernel's names
		 * took: it would print as another argument (a fuzzer found it) */
		{ "read: 1\narch_prctl: arg2 == 5", 2, 0,
		  "sys_arch_prctl takes 2 arguments, and its register 2 cannot be tested: arg2 is "
		  "what the kernel calls its argument 1" },
		{ "prctl: arg5 == 5", 1, 0, "sys_prctl takes 5 arguments, and its register 5" },
		{ "read: arg0 == NOPE", 1, 15, "invalid constant: secfilter's table has no 'NOPE'" },
		{ "read: arg0 == ~~1", 1, 16, "invalid double complement" },
		{ "read: arg0 == (1|2", 1, 15, "unclosed parenthesis" },
		{ "read: arg0 == 0x10000000000000000", 1, 15, "unsigned overflow" },
		{ "read: arg0 == -9223372036854775809", 1, 15, "signed underflow" },
		{ "read: trace", 1, 7, "'trace' hands the call to a ptrace tracer" },
		{ "read: user-notify", 1, 7, "'user-notify' hands the call to a supervisor" },
		{ "read: return 0", 1, 14, "return 0 makes the call return 0 without running it" },
		{ "read: return 65536", 1, 14, "return 65536 makes the call return 0" },
		{ "read: 2", 1, 7, "invalid action" },
		{ "read: return", 1, 13, "missing return value" },
		{ "read 1", 1, 6, "invalid colon" },
		{ "read: 1 1", 1, 9, "extra tokens" },
		{ "read:", 1, 6, "missing filter" },
		{ "read: {1, 1", 1, 7, "unclosed brace" },
		{ "read: return EPERM\nread: 1", 2, 5, "syscall read (number 0) already had an unconditional action applied, at t.policy:1" },
		{ "@default log", 1, 10, "invalid permissive default action" },
		{ "@default allow", 1, 10, "invalid permissive default action" },
		{ "@default user-notify", 1, 10, "'user-notify' hands the call to a supervisor" },
		{ "read: 1\n@denylist x", 2, 1, "invalid token" },
		{ "read[arch=x86_64: 1", 1, 5, "unclosed bracket" },
		{ "read[arch=x86_64; arch=x86]: 1", 1, 19, "duplicate metadata key: \"arch\"" },
		{ "getpid@chromeos: 1", 1, 1, "syscall groups (NAME@NAMESPACE)" },
		{ "@denylist\nread: 1", 2, 7, "invalid denylist policy" },
		{ "@include relative", 1, 10, "invalid include path (a path starts with / or ./)" },
		{ "@include ./nonexistent.policy", 1, 10, "could not @include nonexistent.policy: No such file or directory" },
		{ "@frequency ./nonexistent.txt", 1, 12, "could not open frequency file nonexistent.txt" },
		{ "read: arg0 == \\\n  1 ^", 2, 5, "invalid token" },
	};
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sf_error err;
		char head[64];
		struct sf_policy *p = t_parse_syntax(SF_SYNTAX_MINIJAIL, "t.policy", cases[i].text,
						     &err);

		snprintf(head, sizeof(head), "t.policy:%u:%u: error: ", cases[i].line, cases[i].col);
		if (p || err.code != -EINVAL || strncmp(err.text, head, strlen(head)) != 0 ||
		    !strstr(err.text, cases[i].message))
			fail_msg("case %u: %s\nwant %s...%s\ngot (%d):\n%s", i, cases[i].text, head,
				 cases[i].message, err.code, p ? "(accepted)" : err.text);
	}
}

static char dir[64];

static void put_file(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static struct sf_policy *mj_file(const char *name, struct sf_error *err)
{
	char path[256], text[4096];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	return t_parse_syntax(SF_SYNTAX_MINIJAIL, path, text, err);
}

/* @include and @frequency are relative to the file that names them. */
static void includes_and_frequency(void **state)
{
	struct sf_policy *p;
	struct sf_error err;
	char want[256];

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/sf-mj-XXXXXX");
	assert_non_null(mkdtemp(dir));
	assert_int_equal(mkdir(strcat(strcpy(want, dir), "/sub"), 0700), 0);
	put_file("main.policy", "@include ./sub/common.policy\n@frequency ./freq.txt\n"
				"write: arg0 == 1\n");
	put_file("sub/common.policy", "read: 1\n@include ./more.policy\nwrite: arg0 == 2\n");
	put_file("sub/more.policy", "close: 1\n");
	put_file("freq.txt", "read: 100\nwrite: 0x20\n");
	p = mj_file("main.policy", &err);
	if (!p)
		fail_msg("%s", err.text);
	assert_int_equal(act(p, READ, 0, 0, 0, 0), RUN);
	assert_int_equal(act(p, CLOSE, 0, 0, 0, 0), RUN);
	assert_int_equal(act(p, WRITE, 1, 0, 0, 0), RUN);
	assert_int_equal(act(p, WRITE, 2, 0, 0, 0), RUN);
	assert_int_equal(act(p, WRITE, 3, 0, 0, 0), KILLED);
	sf_policy_free(p);

	/* errors in an included file name the chain */
	put_file("bad.policy", "read: 1\n@include ./sub/bad2.policy\n");
	put_file("sub/bad2.policy", "\nwrte: 1\n");
	assert_null(mj_file("bad.policy", &err));
	snprintf(want, sizeof(want), "In file included from %s/bad.policy:2:\n%s/sub/bad2.policy:2:1: "
		 "error: nonexistent syscall 'wrte'", dir, dir);
	if (!strstr(err.text, want))
		fail_msg("want %s\ngot %s", want, err.text);

	/* a cycle, the depth limit of the compiler (10) */
	put_file("cycle.policy", "@include ./cycle.policy\n");
	assert_null(mj_file("cycle.policy", &err));
	assert_non_null(strstr(err.text, "@include cycle"));
	put_file("d9.policy", "read: 1\n");
	{
		int i;
		for (i = 8; i >= 1; i--) {
			char name[32], text[64];
			snprintf(name, sizeof name, "d%d.policy", i);
			snprintf(text, sizeof text, "@include ./d%d.policy\n", i + 1);
			put_file(name, text);
		}
	}
	p = mj_file("d1.policy", &err); /* nine files deep: the limit */
	if (!p)
		fail_msg("%s", err.text);
	sf_policy_free(p);
	put_file("d9.policy", "@include ./d10.policy\n");
	put_file("d10.policy", "read: 1\n");
	assert_null(mj_file("d1.policy", &err));
	assert_non_null(strstr(err.text, "@include statement nested too deep"));

	/* a frequency file is checked, then ignored */
	put_file("f.policy", "@frequency ./badfreq.txt\nread: 1\n");
	put_file("badfreq.txt", "read: 010\n");
	assert_null(mj_file("f.policy", &err));
	assert_non_null(strstr(err.text, "badfreq.txt:1:7: error: invalid number"));

	/* @denylist: in every file of the policy, and only there */
	put_file("deny.policy", "@denylist\nptrace: return EPERM\n@include ./deny2.policy\n");
	put_file("deny2.policy", "bpf: return EPERM\n");
	assert_null(mj_file("deny.policy", &err));
	assert_non_null(strstr(err.text, "policy must contain @denylist flag"));
	put_file("allow.policy", "read: 1\n@include ./deny3.policy\n");
	put_file("deny3.policy", "@denylist\n");
	assert_null(mj_file("allow.policy", &err));
	assert_non_null(strstr(err.text, "deny3.policy:1:1: error: @denylist in a file that the "
					 "policy given does not make a denylist"));
	if (system(strcat(strcpy(want, "rm -r "), dir)) != 0)
		fail_msg("cannot remove %s", dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(documented_examples),
		cmocka_unit_test(redefinitions_and_lists),
		cmocka_unit_test(actions),
		cmocka_unit_test(values),
		cmocka_unit_test(default_and_denylist),
		cmocka_unit_test(metadata_skips_other_arches),
		cmocka_unit_test(errors_at_their_place),
		cmocka_unit_test(includes_and_frequency),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
