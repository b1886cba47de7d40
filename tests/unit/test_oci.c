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
#include "tcommon.h"
#include "tsupport.h"

static struct sf_policy *oci(const char *release, const char *text)
{
	struct sf_error err;
	struct sf_policy *p = t_oci(release, text, &err);

	if (!p)
		fail_msg("profile rejected:\n%s\n%s", text, err.text);
	return p;
}

/* Each call of calls (see t_expect_outcomes) gets its outcome under the
 * profile text on a kernel of this release. */
static void oci_outcomes(const char *release, const char *text, const char *calls)
{
	struct sf_policy *p = oci(release, text);

	t_expect_outcomes(p, calls);
	sf_policy_free(p);
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
	t_expect_outcomes(p, "read() run; uname() run; ptrace() run;" /* 6.18 >= 4.8 */
			  "getpid() EPERM;" /* 6.18 < 99.0 */
			  "socket(2) run; socket(40) EPERM; socket(0x100000028) run;" /* 64 bits */
			  "personality(0xffffffff) run;"
			  "personality(0xffffffffffffffff) EPERM; kill() run;" /* amd64 */
			  "chroot() EPERM;" /* needs a capability */
			  /* clone without namespace flags: the capability-less entry */
			  "clone(0x3d0f00) run; clone(0x103d0f00) EPERM;" /* CLONE_NEWUSER */
			  "clone3() ENOSYS;"
			  /* runc's stub: above the highest number named, ENOSYS */
			  "file_setattr() ENOSYS; 466() EPERM");
	sf_policy_free(p);

	/* an older kernel: ptrace's entry goes */
	oci_outcomes("4.4.0-21-generic", docker_like, "ptrace() EPERM");
}

/* runc and libseccomp: what several rules of one syscall mean. */
static void rules_of_one_syscall(void **state)
{
	(void)state;
	/* one entry testing an argument twice: runc makes each condition a
	 * rule of its own (OR), not one rule (AND) */
	oci_outcomes("6.1", "{\"defaultAction\": \"SCMP_ACT_KILL_PROCESS\", \"syscalls\": [\n"
		     "{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": [\n"
		     " {\"index\": 0, \"value\": 1, \"op\": \"SCMP_CMP_GE\"},\n"
		     " {\"index\": 0, \"value\": 3, \"op\": \"SCMP_CMP_LE\"}]},\n"
		     "{\"names\": [\"write\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": [\n"
		     " {\"index\": 0, \"value\": 1, \"op\": \"SCMP_CMP_GE\"},\n"
		     " {\"index\": 1, \"value\": 3, \"op\": \"SCMP_CMP_LE\"}]}]}",
		     "read(9) run; read() run; write(9, 9) kill; write(9, 2) run");

	/* the first rule without conditions is the syscall's whole filter;
	 * a rule with the default action is dropped */
	oci_outcomes("6.1", "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [\n"
		     "{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\",\n"
		     " \"args\": [{\"index\": 0, \"value\": 1, \"op\": \"SCMP_CMP_EQ\"}]},\n"
		     "{\"names\": [\"read\"], \"action\": \"SCMP_ACT_TRAP\"},\n"
		     "{\"names\": [\"read\"], \"action\": \"SCMP_ACT_LOG\"},\n"
		     "{\"names\": [\"write\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 1},\n"
		     "{\"names\": [\"write\"], \"action\": \"SCMP_ACT_ALLOW\",\n"
		     " \"args\": [{\"index\": 0, \"value\": 1, \"op\": \"SCMP_CMP_EQ\"}]}]}",
		     "read(1) trap; write(1) run; write(2) EPERM");

	/* rules with different actions that no call meets both of */
	oci_outcomes("6.1", "{\"defaultAction\": \"SCMP_ACT_KILL\", \"syscalls\": [\n"
		     "{\"names\": [\"close\"], \"action\": \"SCMP_ACT_ALLOW\",\n"
		     " \"args\": [{\"index\": 0, \"value\": 10, \"op\": \"SCMP_CMP_LT\"}]},\n"
		     "{\"names\": [\"close\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 9,\n"
		     " \"args\": [{\"index\": 0, \"value\": 18446744073709551360,\n"
		     "            \"valueTwo\": 256, \"op\": \"SCMP_CMP_MASKED_EQ\"}]},\n"
		     "{\"names\": [\"close\"], \"action\": \"SCMP_ACT_LOG\",\n"
		     " \"args\": [{\"index\": 0, \"value\": 511, \"op\": \"SCMP_CMP_GT\"},\n"
		     "          {\"index\": 1, \"value\": 7, \"op\": \"SCMP_CMP_EQ\"}]}]}",
		     "close(3) run; close(0x10c) EBADF; close(0x1ff, 7) EBADF;"
		     "close(0x20d, 7) log; close(0x20d, 8) kill; close(50, 7) kill");
}

static void default_actions(void **state)
{
	(void)state;
	/* allow: a deny list; a number the table lacks gets the kernel's
	 * own ENOSYS */
	oci_outcomes("6.1", "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": "
		     "[\"SCMP_ARCH_X86_64\"], \"syscalls\": [\n"
		     "{\"names\": [\"ptrace\"], \"action\": \"SCMP_ACT_ERRNO\"},\n"
		     "{\"names\": [\"socket\"], \"action\": \"SCMP_ACT_KILL_PROCESS\",\n"
		     " \"args\": [{\"index\": 0, \"value\": 16, \"op\": \"SCMP_CMP_EQ\"}]}]}",
		     "read() run; file_setattr() run;" /* no stub */
		     "ptrace() EPERM; socket(16) kill; socket(2) run; 1000() ENOSYS");
	/* log, trap, kill; runc passes int16(errnoRet), libseccomp 16 bits */
	oci_outcomes("6.1", "{\"defaultAction\": \"SCMP_ACT_LOG\", \"syscalls\": [\n"
		     "{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 65538},\n"
		     "{\"names\": [\"write\"], \"action\": \"SCMP_ACT_ALLOW\"}]}",
		     "getpid() log; read() 2; write() run");
	oci_outcomes("6.1", "{\"defaultAction\": \"SCMP_ACT_TRAP\"}", "getpid() trap");
}

static void errors_at_their_place(void **state)
{
	(void)state;
	t_refused_in("tests/unit/cases/oci-errors.tests", "p.json", t_read_oci);
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
