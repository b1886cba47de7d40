/* io_uring against the policy (filter/uring.h): a policy that restricts
 * what a ring operation also does, and lets the program create a ring
 * without naming io_uring_setup in a rule of its own, is refused -- in
 * our syntax; the front ends' policies are taken, with a warning. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tsupport.h"
#include "uring.h"

static void restricting_a_ring_call_is_refused(void **state)
{
	struct sf_error e;

	(void)state;
	e = t_parse_error(NULL, "*: 1\nptrace: 0\nopenat: !(flags & O_CREAT)\n");
	assert_int_equal(e.code, -EINVAL);
	/* at the rule that restricted it */
	assert_int_equal(e.line, 3);
	assert_int_equal(e.col, 1);
	assert_non_null(strstr(e.text, "sys_openat is restricted, but io_uring_setup is allowed"));
	assert_non_null(strstr(e.text, "IORING_OP_OPENAT does what openat does"));
	assert_non_null(strstr(e.text, "'io_uring_setup: 0'"));
	/* the operation named is the plain one, not a variant */
	e = t_parse_error(NULL, "*: 1; write: fd == 1");
	assert_non_null(strstr(e.text, "IORING_OP_WRITE does"));
	/* nothing restricted, or no ring: nothing to refuse */
	sf_policy_free(t_parse(NULL, "*: 1"));
	sf_policy_free(t_parse(NULL, "*: 1; *: 0; read: 1"));
}

static void naming_io_uring_setup_accepts_it(void **state)
{
	struct sf_policy *p;

	(void)state;
	sf_policy_free(t_parse(NULL, "*: 1; io_uring_setup: 0; openat: 0"));
	sf_policy_free(t_parse(NULL, "*: 1; io_uring_setup: 1; openat: 0"));
	sf_policy_free(t_parse(NULL, "*: 1; io_uring_setup: entries < 8; connect: 0"));
	sf_policy_free(t_parse(NULL, "*: 1; 425: 1; connect: 0"));
	/* a restriction no ring operation can step around */
	sf_policy_free(t_parse(NULL, "*: 1; ptrace: 0; getppid: 0; kill: sig != 9"));
	/* no `*`: io_uring_setup is allowed only where named */
	sf_policy_free(t_parse(NULL, "read: 1; write: fd == 1; exit_group: 1"));
	/* the canonical text lists io_uring_setup, so it parses again */
	p = t_parse(NULL, "*: 1; io_uring_setup: 1; write: fd == 1");
	sf_policy_free(t_parse(NULL, t_print(p)));
	sf_policy_free(p);
}

/* Language v2: an errno is a restriction too, a group is not a rule of
 * io_uring_setup's own, and io_uring_setup returning an errno makes no
 * ring. */
static void actions_and_groups(void **state)
{
	struct sf_error e;

	(void)state;
	e = t_parse_error(NULL, "*: 1; read: return EPERM");
	assert_non_null(strstr(e.text, "IORING_OP_READ does"));
	/* everything not in S is restricted: here write, first by number */
	e = t_parse_error(NULL, "@aio: 1; read: 1; openat: flags == 0");
	assert_non_null(strstr(e.text, "sys_write is restricted, but io_uring_setup is allowed"));
	e = t_parse_error(NULL, "@system-service: 1; @network-io: 0");
	assert_non_null(strstr(e.text, "IORING_OP_SOCKET"));
	sf_policy_free(t_parse(NULL, "@system-service: 1"));
	e = t_parse_error(NULL, "*: 1; @file-system: return EACCES");
	assert_int_equal(e.code, -EINVAL);
	assert_int_equal(e.col, 7); /* at the group that restricted it */
	sf_policy_free(t_parse(NULL, "@aio: 1; io_uring_setup: 1; read: 1; openat: flags == 0"));
	sf_policy_free(t_parse(NULL, "*: return EPERM; read: 1; openat: 0"));
	sf_policy_free(t_parse(NULL, "*: 1; io_uring_setup: return ENOSYS; openat: 0"));
}

/* The running policy's word on io_uring_setup holds for later narrowings;
 * a narrowing of a policy that never named it is refused (EINVAL from
 * secfilter_apply). */
static void narrowings_keep_the_naming(void **state)
{
	struct sf_policy *cur = t_parse(NULL, "*: 1; ptrace: 0");
	struct sf_policy *named = t_parse(NULL, "*: 1; io_uring_setup: 1");
	struct sf_error e;

	(void)state;
	e = t_parse_error(cur, "ptrace: 0; connect: 0");
	assert_int_equal(e.code, -EINVAL);
	assert_int_equal(e.col, 12);
	sf_policy_free(t_parse(cur, "io_uring_setup: 0; connect: 0"));
	sf_policy_free(t_parse(named, "connect: 0"));
	sf_policy_free(cur);
	sf_policy_free(named);
}

static struct sf_policy *foreign(const struct sf_policy *cur, enum sf_syntax syntax,
			       const char *text)
{
	struct sf_policy *p = NULL;
	struct sf_error e;

	memset(&e, 0, sizeof e);
	if (sf_policy_apply_syntax(cur, "t", SF_SRC_TEXT, syntax, text, strlen(text), &p, &e))
		fail_msg("%s", e.text);
	return p;
}

/* Our language's refusal is ours: a minijail or OCI policy decides as
 * minijail and Docker do, and the tools warn (sf_policy_uring_warning). */
static void front_ends_decide_as_their_tools(void **state)
{
	static const char deny[] = "@denylist\nptrace: return EPERM\n"
				   "socket: arg0 == AF_NETLINK; return EACCES\n";
	static const char oci[] = "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": "
				  "[{\"names\": [\"unlinkat\"], \"action\": \"SCMP_ACT_ERRNO\"}]}";
	struct sf_policy *p, *q;
	char w[512];

	(void)state;
	p = foreign(NULL, SF_SYNTAX_MINIJAIL, deny);
	assert_true(p->uring_waived);
	assert_int_equal(sf_policy_uring_warning(p, SF_SYNTAX_MINIJAIL, w, sizeof w), 1);
	assert_non_null(strstr(w, "io_uring_setup is allowed, so a ring can do what the policy "
				  "denies: IORING_OP_SOCKET does what socket does"));
	assert_non_null(strstr(w, "'io_uring_setup: return ENOSYS'"));
	/* a narrowing in our syntax keeps the front end's word, and its
	 * canonical text (what the library reads) parses again */
	q = t_parse(p, "connect: 0");
	assert_int_equal(sf_policy_uring_warning(q, SF_SYNTAX_SECFILTER, w, sizeof w), 1);
	sf_policy_free(q);
	sf_policy_free(t_parse(NULL, t_print(p)));
	sf_policy_free(p);
	/* the same decisions in our syntax are refused */
	assert_int_equal(t_parse_error(NULL, "*: 1; ptrace: return EPERM; "
					     "socket: family != AF_NETLINK else return EACCES")
				 .code,
			 -EINVAL);
	/* naming io_uring_setup, or denying it, leaves nothing to warn of */
	p = foreign(NULL, SF_SYNTAX_MINIJAIL, "@denylist\nsocket: return EACCES\n"
					      "io_uring_setup: return ENOSYS\n");
	assert_int_equal(sf_policy_uring_warning(p, SF_SYNTAX_MINIJAIL, w, sizeof w), 0);
	sf_policy_free(p);
	p = foreign(NULL, SF_SYNTAX_MINIJAIL, "@denylist\nptrace: return EPERM\n");
	assert_int_equal(sf_policy_uring_warning(p, SF_SYNTAX_MINIJAIL, w, sizeof w), 0);
	sf_policy_free(p);
	p = foreign(NULL, SF_SYNTAX_OCI, oci);
	assert_int_equal(sf_policy_uring_warning(p, SF_SYNTAX_OCI, w, sizeof w), 1);
	assert_non_null(strstr(w, "IORING_OP_UNLINKAT"));
	assert_non_null(strstr(w, "\"SCMP_ACT_ERRNO\""));
	sf_policy_free(p);
}

/* Every syscall of the table is caught, each by itself. */
static void every_call_of_the_table(void **state)
{
	char text[128];
	unsigned i, k, checked = 0;

	(void)state;
	for (i = 0; i < sf_uring_op_count; i++) {
		assert_int_equal(sf_uring_ops[i].op, i);
		for (k = 0; k < sf_uring_ops[i].ncalls; k++) {
			const struct sf_syscall *sc = sf_syscall_by_nr(sf_uring_ops[i].calls[k]);
			struct sf_error e;

			assert_non_null(sc);
			snprintf(text, sizeof text, "*: 1; %s: 0", sc->name);
			e = t_parse_error(NULL, text);
			assert_int_equal(e.code, -EINVAL);
			assert_non_null(sf_uring_op_for((unsigned)sc->nr));
			snprintf(text, sizeof text, "*: 1; %s: arg0 == 1", sc->name);
			assert_int_equal(t_parse_error(NULL, text).code, -EINVAL);
			snprintf(text, sizeof text, "*: 1; io_uring_setup: 0; %s: 0", sc->name);
			sf_policy_free(t_parse(NULL, text));
			checked++;
		}
	}
	/* 6.18's last operation is IORING_OP_PIPE */
	assert_int_equal(sf_uring_op_count, 63);
	assert_string_equal(sf_uring_ops[62].name, "PIPE");
	assert_true(checked > 60);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(restricting_a_ring_call_is_refused),
		cmocka_unit_test(naming_io_uring_setup_accepts_it),
		cmocka_unit_test(narrowings_keep_the_naming),
		cmocka_unit_test(front_ends_decide_as_their_tools),
		cmocka_unit_test(actions_and_groups),
		cmocka_unit_test(every_call_of_the_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
