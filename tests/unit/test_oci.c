/* OCI seccomp profiles (filter/oci.c): what Docker, runc 1.1 and
 * libseccomp make of each construct for an x86-64 container without
 * added capabilities, and errors at their place.  test_oci_diff.c
 * compares the same readings with libseccomp itself. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "eval.h"
#include "tsupport.h"

enum { READ = 0, WRITE = 1, CLOSE = 3, GETPID = 39, SOCKET = 41, CLONE = 56, KILL = 62,
       UNAME = 63, PTRACE = 101, PERSONALITY = 135, CHROOT = 161, CLONE3 = 435,
       FILE_SETATTR = 469 };

static struct sf_policy *oci(const char *release, const char *text)
{
	struct sf_error err;
	struct sf_policy *p = t_oci(release, text, &err);

	if (!p)
		fail_msg("profile rejected:\n%s\n%s", text, err.text);
	return p;
}

static unsigned act(const struct sf_policy *p, long nr, uint64_t a0, uint64_t a1)
{
	return t_action(p, nr, a0, a1, 0, 0);
}

/* Everything Docker's default profile uses, in one profile. */
static const char docker_like[] =
	"{\n"
	"  \"defaultAction\": \"SCMP_ACT_ERRNO\",\n"
	"  \"defaultErrnoRet\": 1,\n"
	"  \"archMap\": [\n"
	"    { \"architecture\": \"SCMP_ARCH_X86_64\",\n"
	"      \"subArchitectures\": [\"SCMP_ARCH_X86\", \"SCMP_ARCH_X32\"] },\n"
	"    { \"architecture\": \"SCMP_ARCH_AARCH64\", \"subArchitectures\": [\"SCMP_ARCH_ARM\"] }\n"
	"  ],\n"
	"  \"syscalls\": [\n"
	"    { \"names\": [\"read\", \"write\", \"close\", \"uname\", \"no_such_call\"],\n"
	"      \"action\": \"SCMP_ACT_ALLOW\" },\n"
	"    { \"names\": [\"ptrace\"], \"action\": \"SCMP_ACT_ALLOW\",\n"
	"      \"includes\": { \"minKernel\": \"4.8\" } },\n"
	"    { \"names\": [\"getpid\"], \"action\": \"SCMP_ACT_ALLOW\",\n"
	"      \"includes\": { \"minKernel\": \"99.0\" } },\n"
	"    { \"names\": [\"socket\"], \"action\": \"SCMP_ACT_ALLOW\",\n"
	"      \"args\": [ { \"index\": 0, \"value\": 40, \"op\": \"SCMP_CMP_NE\" } ] },\n"
	"    { \"names\": [\"personality\"], \"action\": \"SCMP_ACT_ALLOW\",\n"
	"      \"args\": [ { \"index\": 0, \"value\": 0, \"op\": \"SCMP_CMP_EQ\" } ] },\n"
	"    { \"names\": [\"personality\"], \"action\": \"SCMP_ACT_ALLOW\",\n"
	"      \"args\": [ { \"index\": 0, \"value\": 4294967295, \"op\": \"SCMP_CMP_EQ\" } ] },\n"
	"    { \"names\": [\"kill\"], \"action\": \"SCMP_ACT_ALLOW\",\n"
	"      \"includes\": { \"arches\": [\"amd64\", \"x32\"] } },\n"
	"    { \"names\": [\"chroot\"], \"action\": \"SCMP_ACT_ALLOW\",\n"
	"      \"includes\": { \"caps\": [\"CAP_SYS_CHROOT\"] } },\n"
	"    { \"names\": [\"clone\", \"clone3\"], \"action\": \"SCMP_ACT_ALLOW\",\n"
	"      \"includes\": { \"caps\": [\"CAP_SYS_ADMIN\"] } },\n"
	"    { \"names\": [\"clone\"], \"action\": \"SCMP_ACT_ALLOW\",\n"
	"      \"args\": [ { \"index\": 0, \"value\": 2114060288, \"valueTwo\": 0,\n"
	"                  \"op\": \"SCMP_CMP_MASKED_EQ\" } ],\n"
	"      \"excludes\": { \"caps\": [\"CAP_SYS_ADMIN\"], \"arches\": [\"s390\", \"s390x\"] } },\n"
	"    { \"names\": [\"clone3\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 38,\n"
	"      \"excludes\": { \"caps\": [\"CAP_SYS_ADMIN\"] } },\n"
	"    { \"names\": [\"open_tree_attr\"], \"action\": \"SCMP_ACT_ALLOW\",\n"
	"      \"comment\": \"467, the highest number named\" }\n"
	"  ]\n"
	"}\n";

static void docker_like_profile(void **state)
{
	struct sf_policy *p = oci("6.18.44-test", docker_like);

	(void)state;
	assert_int_equal(act(p, READ, 0, 0), SF_ACTION_RUN);
	assert_int_equal(act(p, UNAME, 0, 0), SF_ACTION_RUN);
	assert_int_equal(act(p, PTRACE, 0, 0), SF_ACTION_RUN);   /* 6.18 >= 4.8 */
	assert_int_equal(act(p, GETPID, 0, 0), EPERM);           /* 6.18 < 99.0 */
	assert_int_equal(act(p, SOCKET, 2, 0), SF_ACTION_RUN);
	assert_int_equal(act(p, SOCKET, 40, 0), EPERM);
	assert_int_equal(act(p, SOCKET, 0x100000028ull, 0), SF_ACTION_RUN); /* 64 bits */
	assert_int_equal(act(p, PERSONALITY, 0xffffffff, 0), SF_ACTION_RUN);
	assert_int_equal(act(p, PERSONALITY, 0xffffffffffffffffull, 0), EPERM);
	assert_int_equal(act(p, KILL, 0, 0), SF_ACTION_RUN);     /* amd64 */
	assert_int_equal(act(p, CHROOT, 0, 0), EPERM);           /* needs a capability */
	/* clone without namespace flags: the capability-less entry */
	assert_int_equal(act(p, CLONE, 0x3d0f00, 0), SF_ACTION_RUN);
	assert_int_equal(act(p, CLONE, 0x3d0f00 | 0x10000000, 0), EPERM); /* CLONE_NEWUSER */
	assert_int_equal(act(p, CLONE3, 0, 0), ENOSYS);
	/* runc's stub: above the highest number named, ENOSYS */
	assert_int_equal(act(p, FILE_SETATTR, 0, 0), ENOSYS);
	assert_int_equal(act(p, 466, 0, 0), EPERM);
	sf_policy_free(p);

	/* an older kernel: ptrace's entry goes */
	p = oci("4.4.0-21-generic", docker_like);
	assert_int_equal(act(p, PTRACE, 0, 0), EPERM);
	sf_policy_free(p);
}

/* runc and libseccomp: what several rules of one syscall mean. */
static void rules_of_one_syscall(void **state)
{
	struct sf_policy *p;

	(void)state;
	/* one entry testing an argument twice: runc makes each condition a
	 * rule of its own (OR), not one rule (AND) */
	p = oci("6.1", "{\"defaultAction\": \"SCMP_ACT_KILL_PROCESS\", \"syscalls\": [\n"
		       "{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": [\n"
		       " {\"index\": 0, \"value\": 1, \"op\": \"SCMP_CMP_GE\"},\n"
		       " {\"index\": 0, \"value\": 3, \"op\": \"SCMP_CMP_LE\"}]},\n"
		       "{\"names\": [\"write\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": [\n"
		       " {\"index\": 0, \"value\": 1, \"op\": \"SCMP_CMP_GE\"},\n"
		       " {\"index\": 1, \"value\": 3, \"op\": \"SCMP_CMP_LE\"}]}]}");
	assert_int_equal(act(p, READ, 9, 0), SF_ACTION_RUN);
	assert_int_equal(act(p, READ, 0, 0), SF_ACTION_RUN);
	assert_int_equal(act(p, WRITE, 9, 9), SF_ACTION_KILL);
	assert_int_equal(act(p, WRITE, 9, 2), SF_ACTION_RUN);
	sf_policy_free(p);

	/* the first rule without conditions is the syscall's whole filter;
	 * a rule with the default action is dropped */
	p = oci("6.1", "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [\n"
		       "{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\",\n"
		       " \"args\": [{\"index\": 0, \"value\": 1, \"op\": \"SCMP_CMP_EQ\"}]},\n"
		       "{\"names\": [\"read\"], \"action\": \"SCMP_ACT_TRAP\"},\n"
		       "{\"names\": [\"read\"], \"action\": \"SCMP_ACT_LOG\"},\n"
		       "{\"names\": [\"write\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 1},\n"
		       "{\"names\": [\"write\"], \"action\": \"SCMP_ACT_ALLOW\",\n"
		       " \"args\": [{\"index\": 0, \"value\": 1, \"op\": \"SCMP_CMP_EQ\"}]}]}");
	assert_int_equal(act(p, READ, 1, 0), SF_ACTION_TRAP);
	assert_int_equal(act(p, WRITE, 1, 0), SF_ACTION_RUN);
	assert_int_equal(act(p, WRITE, 2, 0), EPERM);
	sf_policy_free(p);

	/* rules with different actions that no call meets both of */
	p = oci("6.1", "{\"defaultAction\": \"SCMP_ACT_KILL\", \"syscalls\": [\n"
		       "{\"names\": [\"close\"], \"action\": \"SCMP_ACT_ALLOW\",\n"
		       " \"args\": [{\"index\": 0, \"value\": 10, \"op\": \"SCMP_CMP_LT\"}]},\n"
		       "{\"names\": [\"close\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 9,\n"
		       " \"args\": [{\"index\": 0, \"value\": 18446744073709551360,\n"
		       "            \"valueTwo\": 256, \"op\": \"SCMP_CMP_MASKED_EQ\"}]},\n"
		       "{\"names\": [\"close\"], \"action\": \"SCMP_ACT_LOG\",\n"
		       " \"args\": [{\"index\": 0, \"value\": 511, \"op\": \"SCMP_CMP_GT\"},\n"
		       "          {\"index\": 1, \"value\": 7, \"op\": \"SCMP_CMP_EQ\"}]}]}");
	assert_int_equal(act(p, CLOSE, 3, 0), SF_ACTION_RUN);
	assert_int_equal(act(p, CLOSE, 0x10c, 0), EBADF);
	assert_int_equal(act(p, CLOSE, 0x1ff, 7), EBADF);
	assert_int_equal(act(p, CLOSE, 0x20d, 7), SF_ACTION_LOG);
	assert_int_equal(act(p, CLOSE, 0x20d, 8), SF_ACTION_KILL);
	assert_int_equal(act(p, CLOSE, 50, 7), SF_ACTION_KILL);
	sf_policy_free(p);
}

static void default_actions(void **state)
{
	struct sf_policy *p;

	(void)state;
	/* allow: a deny list; a number the table lacks gets the kernel's
	 * own ENOSYS */
	p = oci("6.1", "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": "
		       "[\"SCMP_ARCH_X86_64\"], \"syscalls\": [\n"
		       "{\"names\": [\"ptrace\"], \"action\": \"SCMP_ACT_ERRNO\"},\n"
		       "{\"names\": [\"socket\"], \"action\": \"SCMP_ACT_KILL_PROCESS\",\n"
		       " \"args\": [{\"index\": 0, \"value\": 16, \"op\": \"SCMP_CMP_EQ\"}]}]}");
	assert_int_equal(act(p, READ, 0, 0), SF_ACTION_RUN);
	assert_int_equal(act(p, FILE_SETATTR, 0, 0), SF_ACTION_RUN); /* no stub */
	assert_int_equal(act(p, PTRACE, 0, 0), EPERM);
	assert_int_equal(act(p, SOCKET, 16, 0), SF_ACTION_KILL);
	assert_int_equal(act(p, SOCKET, 2, 0), SF_ACTION_RUN);
	assert_int_equal(act(p, 1000, 0, 0), ENOSYS);
	sf_policy_free(p);
	/* log, trap, kill; runc passes int16(errnoRet), libseccomp 16 bits */
	p = oci("6.1", "{\"defaultAction\": \"SCMP_ACT_LOG\", \"syscalls\": [\n"
		       "{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 65538},\n"
		       "{\"names\": [\"write\"], \"action\": \"SCMP_ACT_ALLOW\"}]}");
	assert_int_equal(act(p, GETPID, 0, 0), SF_ACTION_LOG);
	assert_int_equal(act(p, READ, 0, 0), 2);
	assert_int_equal(act(p, WRITE, 0, 0), SF_ACTION_RUN);
	sf_policy_free(p);
	p = oci("6.1", "{\"defaultAction\": \"SCMP_ACT_TRAP\"}");
	assert_int_equal(act(p, GETPID, 0, 0), SF_ACTION_TRAP);
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
		{ "{}", 1, 1, "a profile without defaultAction and syscalls turns seccomp off" },
		{ "[]", 1, 1, "the profile must be an object, not an array" },
		{ "{\"defaultAction\": \"SCMP_ACT_ERRNO\",\n \"sycalls\": []}", 2, 2,
		  "unknown key \"sycalls\" in the profile (did you mean \"syscalls\"?)" },
		{ "{\"defaultAction\": 1}", 1, 19, "\"defaultAction\" must be a string, not a number" },
		{ "{\"defaultAction\": \"SCMP_ACT_ERNO\"}", 1, 19,
		  "unknown action \"SCMP_ACT_ERNO\" (did you mean \"SCMP_ACT_ERRNO\"?)" },
		{ "{\"defaultAction\": \"SCMP_ACT_TRACE\"}", 1, 19, "SCMP_ACT_TRACE hands the call" },
		{ "{\"defaultAction\": \"SCMP_ACT_NOTIFY\"}", 1, 19, "SCMP_ACT_NOTIFY hands the call" },
		{ "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrnoRet\": 0}", 1, 56,
		  "defaultErrnoRet 0 makes the call return 0 without running it" },
		{ "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrnoRet\": 4095}", 1, 56,
		  "defaultErrnoRet 4095: libseccomp takes errno numbers below 4095" },
		{ "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrnoRet\": -1}", 1, 56,
		  "\"defaultErrnoRet\" must be a whole number" },
		{ "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"flags\": [\"SECCOMP_FILTER_FLAG_LOG\"]}", 1,
		  37, "seccomp flags are not supported by runc 1.1" },
		{ "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"architectures\": [\"SCMP_ARCH_X86_46\"]}", 1,
		  55, "unknown architecture \"SCMP_ARCH_X86_46\" (did you mean \"SCMP_ARCH_X86_64\"?)" },
		{ "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"architectures\": [\"SCMP_ARCH_X86\"],\n"
		  " \"archMap\": [{\"architecture\": \"SCMP_ARCH_X86_64\"}]}", 2, 2,
		  "both 'architectures' and 'archMap' are specified" },
		{ "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [\n"
		  "{\"name\": \"read\", \"names\": [\"write\"], \"action\": \"SCMP_ACT_ALLOW\"}]}", 2, 2,
		  "both 'name' and 'names' are specified" },
		{ "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [\n"
		  "{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\", \"arg\": []}]}", 2, 49,
		  "unknown key \"arg\" in a syscall entry (did you mean \"args\"?)" },
		{ "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [\n"
		  "{\"names\": [\"read\"]}]}", 2, 1, "missing action" },
		{ "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [\n"
		  "{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": [\n"
		  "  {\"index\": 6, \"value\": 1, \"op\": \"SCMP_CMP_EQ\"}]}]}", 3, 13,
		  "syscalls have six arguments: \"index\" is 0 to 5" },
		{ "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [\n"
		  "{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": [\n"
		  "  {\"index\": 0, \"value\": 1, \"op\": \"SCMP_CMP_EQUAL\"}]}]}", 3, 34,
		  "unknown operator \"SCMP_CMP_EQUAL\"" },
		{ "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [\n"
		  "{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": [\n"
		  "  {\"index\": 0, \"value\": 1.5, \"op\": \"SCMP_CMP_EQ\"}]}]}", 3, 25,
		  "\"value\" must be a whole number" },
		{ "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [\n"
		  "{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\",\n"
		  " \"includes\": {\"minKernel\": \"4.8.1\"}}]}", 3, 28, "invalid kernel version \"4.8.1\"" },
		{ "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [\n"
		  "{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\",\n"
		  " \"excludes\": {\"minKernel\": \"0.0\"}}]}", 3, 28, "version cannot be 0.0" },
		{ "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [\n"
		  "{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\",\n"
		  " \"includes\": {\"capabilities\": []}}]}", 3, 15,
		  "unknown key \"capabilities\" in \"includes\"" },
		{ "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [\n"
		  "{\"names\": [\"close\"], \"action\": \"SCMP_ACT_ALLOW\",\n"
		  " \"args\": [{\"index\": 0, \"value\": 10, \"op\": \"SCMP_CMP_LT\"}]},\n"
		  "{\"names\": [\"close\"], \"action\": \"SCMP_ACT_LOG\",\n"
		  " \"args\": [{\"index\": 1, \"value\": 10, \"op\": \"SCMP_CMP_LT\"}]}]}", 4, 12,
		  "a call of close can match this rule (log) and the one at line 2 (allow)" },
		{ "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [null]}", 1, 50,
		  "a syscall entry must be an object, not null" },
		{ "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [1]}]}", 1, 61,
		  "names must be strings, not a number" },
	};
	unsigned i, bad = 0;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sf_error err;
		char head[64];
		struct sf_policy *p = t_oci("6.1.0", cases[i].text, &err);

		snprintf(head, sizeof(head), "p.json:%u:%u: error: ", cases[i].line, cases[i].col);
		if (p || err.code != -EINVAL || strncmp(err.text, head, strlen(head)) != 0 ||
		    !strstr(err.text, cases[i].message)) {
			print_error("case %u: %s\nwant %s...%s\ngot (%d):\n%s\n", i, cases[i].text,
				    head, cases[i].message, err.code, p ? "(accepted)" : err.text);
			bad++;
			sf_policy_free(p);
		}
	}
	assert_int_equal(bad, 0);
}

/* The canonical text of a profile says what it means, in our language,
 * and means the same parsed again. */
static void canonical_text(void **state)
{
	struct sf_policy *p = oci("6.18.44-test", docker_like), *q;

	(void)state;
	q = t_parse(NULL, t_print(p));
	assert_string_equal(t_print(q), t_print(p));
	assert_non_null(strstr(t_print(p), "default: return EPERM\n"));
	assert_non_null(strstr(t_print(p), "sys_clone: clone_flags in ~(CLONE_NEWNS|CLONE_NEWCGROUP|"
					  "CLONE_NEWUTS|CLONE_NEWIPC|CLONE_NEWUSER|CLONE_NEWPID|CLONE_NEWNET)\n"));
	assert_non_null(strstr(t_print(p), "sys_socket: u64(family) != AF_VSOCK\n"));
	assert_non_null(strstr(t_print(p), "sys_clone3: return ENOSYS\n"));
	sf_policy_free(q);
	sf_policy_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(docker_like_profile),
		cmocka_unit_test(rules_of_one_syscall),
		cmocka_unit_test(default_actions),
		cmocka_unit_test(errors_at_their_place),
		cmocka_unit_test(canonical_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
