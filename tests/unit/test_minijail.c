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
#include "tcommon.h"
#include "tsupport.h"

static struct sf_policy *mj(const char *text)
{
	struct sf_error err;
	struct sf_policy *p = t_parse_syntax(SF_SYNTAX_MINIJAIL, "t.policy", text, &err);

	if (!p)
		fail_msg("minijail policy rejected:\n%s\n%s", text, err.text);
	return p;
}

/* Each call of calls (see t_expect_outcomes) gets its outcome under the
 * minijail policy text. */
static void mj_outcomes(const char *text, const char *calls)
{
	struct sf_policy *p = mj(text);

	t_expect_outcomes(p, calls);
	sf_policy_free(p);
}

/* minijail0(5)'s examples, as the compiler reads them on x86-64. */
static void documented_examples(void **state)
{
	(void)state;
	mj_outcomes("read: 1\nwrite: 1\nrt_sigreturn: 1\nexit: 1\n", "read() run; getpid() kill");

	/* open with O_LARGEFILE|O_RDONLY|O_NONBLOCK or some combination */
	mj_outcomes("open: arg1 == 32768 || arg1 == 0 || arg1 == 34816 || arg1 == 2048\n"
		    "munmap: 1\nclose: 1\n",
		    "open(0, 34816) run; open(0, 1) kill;"
		    /* the whole register: 0x100000000 is not 0 */
		    "open(0, 0x100000000) kill");

	mj_outcomes("open: arg1 & O_RDONLY\n"
		    "mmap: arg3 in MAP_PRIVATE|MAP_ANONYMOUS\n"
		    "mprotect: arg2 in ~PROT_EXEC || arg2 in ~PROT_WRITE\n",
		    "open() kill;" /* O_RDONLY is 0: never set */
		    "mmap(0, 0, 3, 0x22) run; mmap(0, 0, 3, 0x1022) kill;"
		    "mprotect(0, 0, 5) run;" /* r-x */
		    "mprotect(0, 0, 7) kill"); /* rwx */

	mj_outcomes("read: return EBADF\n", "read() EBADF");

	/* The compiler's meaning: EXPR; return E gives E where EXPR matches,
	 * the default action elsewhere (minijail0(5) says the reverse, which
	 * is what libminijail's run-time parser does; see secfilter(7)). */
	mj_outcomes("read: arg0 == 0; return EBADF\n", "read() EBADF; read(1) kill");
}

/* A syscall defined twice: its filters are tried in order, so allows are
 * OR-ed; an unconditional allow at the end allows it all. */
static void redefinitions_and_lists(void **state)
{
	struct sf_policy *p;

	(void)state;
	p = mj("write: arg0 == 1\nwrite: arg0 == 2 && arg2 < 10\n");
	t_expect_outcomes(p, "write(1, 0, 99) run; write(2, 0, 9) run; write(2, 0, 10) kill");
	assert_string_equal(t_print(p), "sys_write: u64(fd) == 1 || u64(fd) == 2 && count < 10\n");
	sf_policy_free(p);

	/* first match wins: 5 gets EBADF, 6 a SIGSYS, 7 runs, the rest the
	 * default */
	mj_outcomes("close: {arg0 == 5; return EBADF, arg0 == 6; trap, arg0 <= 7}\n",
		    "close(5) EBADF; close(6) trap; close(7) run; close(2) run;"
		    "close(8) kill");

	/* an allow before a return: it stays allowed */
	mj_outcomes("close: arg0 == 5\nclose: arg0 <= 6; return EPERM\nclose: log\n",
		    "close(5) run; close(4) EPERM; close(9) log");

	/* the compiler: an unconditional allow last makes the rest moot */
	mj_outcomes("close: arg0 == 5; return EBADF\nclose: allow\n", "close(5) run");

	/* several syscalls at once, several filters at once */
	mj_outcomes("{read, write}: {arg0 == 0, return ENOSYS}\n", "read() run; write(3) ENOSYS");
}

static void actions(void **state)
{
	(void)state;
	mj_outcomes("read: allow\nwrite: 1\nclose: kill-process\nkill: kill-thread\nuname: kill\n"
		    "getpid: trap\nsocket: log\nioctl: return 0x10019\n",
		    "read() run; write() run;"
		    /* kill-thread and kill kill the process: stricter (secfilter(7)) */
		    "close() kill; kill() kill; uname() kill; getpid() trap; socket() log;"
		    /* SECCOMP_RET_ERRNO keeps 16 bits, the kernel caps them at 4095 */
		    "ioctl() 25");
	mj_outcomes("read: return 5000\n@default trap\n", "read() 4095; write() trap");
}

/* Values: every spelling the compiler reads, compared as 64-bit words. */
static void values(void **state)
{
	struct sf_policy *p;

	(void)state;
	p = mj("read: arg0 == 0x10 || arg0 == 020 || arg0 == -1 || arg0 == ~(1|2) ||"
	       " arg0 == O_WRONLY|O_CREAT || arg0 == EPERM || arg0 == 08\n"
	       "write: arg0 in ~PROT_EXEC && arg1 > 0xffffffff\n");
	t_expect_outcomes(p, "read(16) run; read(0xffffffffffffffff) run;"
			  "read(0xffffffff) kill;" /* not -1 in 64 bits */
			  "read(0xfffffffffffffffc) run; read(0101) run; read(1) run;"
			  "read(8) run; read(2) kill; write(3, 0x100000000) run;"
			  "write(0x400000000, 0x100000000) run;"
			  "write(4, 0x100000000) kill");
	/* the canonical text keeps the 64-bit reading, so it means the same
	 * when parsed again (the library's exec'd images parse it) */
	assert_non_null(strstr(t_print(p), "sys_read: u64(fd) in {16, 16, 0xffffffffffffffff, "
					  "0xfffffffffffffffc, 65, 1, 8}\n"));
	sf_policy_free(p);
}

static void default_and_denylist(void **state)
{
	(void)state;
	mj_outcomes("@default trap\nread: arg0 == 1\n", "read(2) trap; getpid() trap");

	/* @denylist: what is not named runs; actions are returns */
	mj_outcomes("@denylist\n# a denylist\nptrace: return EPERM\nsocket: arg0 == AF_NETLINK; return EACCES\n",
		    "read() run; 101() EPERM; socket(16) EACCES; socket(2) run;"
		    "600() EPERM"); /* outside the table */
}

static void metadata_skips_other_arches(void **state)
{
	(void)state;
	mj_outcomes("read[arch=x86_64]: 1\nwrite[arch=arm,aarch64]: 1\n{close, getpid[arch=x86]}: 1\n",
		    "read() run; write() kill; close() run; getpid() kill");
	/* continuation lines, comments, blank lines, CRLF */
	mj_outcomes("# c\r\n\r\nread: arg0 == 1 || \\\n  arg0 == 2 # two\r\n", "read(2) run");
}

static void errors_at_their_place(void **state)
{
	(void)state;
	t_refused_in("tests/unit/cases/minijail-errors.tests", "t.policy", t_read_minijail);
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
	char path[256], *text;
	struct sf_policy *p;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	text = t_slurp(path, NULL);
	assert_non_null(text);
	p = t_parse_syntax(SF_SYNTAX_MINIJAIL, path, text, err);
	free(text);
	return p;
}

/* The policy file name is refused with an error that holds message. */
static void expect_file_refused(const char *name, const char *message)
{
	struct sf_error err;

	assert_null(mj_file(name, &err));
	if (!strstr(err.text, message))
		fail_msg("%s: want %s\ngot %s", name, message, err.text);
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
	t_expect_outcomes(p, "read() run; close() run; write(1) run; write(2) run;"
			  "write(3) kill");
	sf_policy_free(p);

	/* errors in an included file name the chain */
	put_file("bad.policy", "read: 1\n@include ./sub/bad2.policy\n");
	put_file("sub/bad2.policy", "\nwrte: 1\n");
	snprintf(want, sizeof(want), "In file included from %s/bad.policy:2:\n%s/sub/bad2.policy:2:1: "
		 "error: nonexistent syscall 'wrte'", dir, dir);
	expect_file_refused("bad.policy", want);

	/* a cycle, the depth limit of the compiler (10) */
	put_file("cycle.policy", "@include ./cycle.policy\n");
	expect_file_refused("cycle.policy", "@include cycle");
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
	expect_file_refused("d1.policy", "@include statement nested too deep");

	/* a frequency file is checked, then ignored */
	put_file("f.policy", "@frequency ./badfreq.txt\nread: 1\n");
	put_file("badfreq.txt", "read: 010\n");
	expect_file_refused("f.policy", "badfreq.txt:1:7: error: invalid number");

	/* @denylist: in every file of the policy, and only there */
	put_file("deny.policy", "@denylist\nptrace: return EPERM\n@include ./deny2.policy\n");
	put_file("deny2.policy", "bpf: return EPERM\n");
	expect_file_refused("deny.policy", "policy must contain @denylist flag");
	put_file("allow.policy", "read: 1\n@include ./deny3.policy\n");
	put_file("deny3.policy", "@denylist\n");
	expect_file_refused("allow.policy", "deny3.policy:1:1: error: @denylist in a file that the "
			    "policy given does not make a denylist");
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
