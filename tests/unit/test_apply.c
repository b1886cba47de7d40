/* The apply rules (SPEC §2 "Meaning"): whole or nothing, EPERM on widening
 * once enforcing, narrowing appends, `0` removes, `*`, on_next_syscall. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "eval.h"
#include "tsupport.h"

enum { READ = 0, WRITE = 1, CLOSE = 3, GETPID = 39, PTRACE = 101, EXIT_GROUP = 231 };

static void whole_or_nothing(void **state)
{
	struct sf_policy *cur = t_parse(NULL, "read: 1; write: 1");
	struct sf_error e;
	struct sf_policy *p = (struct sf_policy *)1;
	const char *bad = "write: 0\nclose: 1\nread: fdd == 1";

	(void)state;
	e = t_parse_error(cur, bad);
	assert_int_equal(e.line, 3);
	/* the current block is untouched: the first two rules did not apply */
	assert_string_equal(t_print(cur), "sys_read: 1\nsys_write: 1\n");
	assert_int_equal(sf_policy_apply(cur, "t.conf", bad, strlen(bad), &p, &e), -EINVAL);
	assert_null(p);
	sf_policy_free(cur);
}

static void widening_is_eperm_once_enforcing(void **state)
{
	struct sf_policy *cur = t_parse(NULL, "read: 1; write: fd == 1");
	struct sf_error e;

	(void)state;
	assert_false(cur->pending);
	e = t_parse_error(cur, "read: 0; close: 1");
	assert_int_equal(e.code, -EPERM);
	assert_int_equal(e.line, 1);
	assert_int_equal(e.col, 10);
	assert_non_null(strstr(e.text, "sys_close is not in the allowed set: the running policy can only be narrowed"));
	e = t_parse_error(cur, "close: fd == 1");
	assert_int_equal(e.code, -EPERM);
	e = t_parse_error(cur, "*: 1");
	assert_int_equal(e.code, -EPERM);
	e = t_parse_error(cur, "on_next_syscall: 1");
	assert_int_equal(e.code, -EPERM);
	/* removing then re-adding in one apply is widening too */
	e = t_parse_error(cur, "read: 0; read: 1");
	assert_int_equal(e.code, -EPERM);
	sf_policy_free(cur);
}

static void allowed_again_is_not_widening(void **state)
{
	struct sf_policy *cur = t_parse(NULL, "read: 1; write: fd == 1");
	struct sf_policy *p = t_parse(cur, "read: 1; write: 1; on_next_syscall: 0");

	(void)state;
	/* `write: 1` keeps write's filter: it adds to S, it does not lift F */
	assert_string_equal(t_print(p), "sys_read: 1\nsys_write: fd == 1\n");
	sf_policy_free(p);
	sf_policy_free(cur);
}

static void narrowing_appends_filters(void **state)
{
	struct sf_policy *cur = t_parse(NULL, "read: fd < 10; write: 1");
	struct sf_policy *p = t_parse(cur, "read: fd != 3\nwrite: fd == 1 || fd == 2");
	uint64_t args[6] = { 0 };

	(void)state;
	assert_string_equal(t_print(p),
		"sys_read: fd < 10\nsys_read: fd != 3\nsys_write: fd == 1 || fd == 2\n");
	assert_int_equal(t_decide(p, READ, 2, 0, 0, 0), SF_ALLOW);
	/* each filter denies on its own, and the report can name which */
	assert_int_equal(t_decide(p, READ, 11, 0, 0, 0), (int)p->sys[READ].first);
	assert_int_equal(t_decide(p, READ, 3, 0, 0, 0), (int)p->sys[READ].first + 1);
	assert_int_equal(p->filters[p->sys[READ].first + 1].line, 1);
	assert_string_equal(sf_filter_source(p, &p->filters[p->sys[READ].first]), "t.conf");
	args[0] = 5;
	assert_int_equal(sf_decide(p, WRITE, args), p->sys[WRITE].first);
	/* the old block still decides as before */
	assert_int_equal(t_decide(cur, WRITE, 5, 0, 0, 0), SF_ALLOW);
	sf_policy_free(p);
	sf_policy_free(cur);
}

static void zero_removes_and_drops_filters(void **state)
{
	struct sf_policy *cur = t_parse(NULL, "read: fd == 0; read: count < 5; write: 1");
	struct sf_policy *p = t_parse(cur, "read: 0");
	struct sf_policy *q;

	(void)state;
	assert_int_equal(t_decide(p, READ, 0, 0, 1, 0), SF_NOT_IN_SET);
	assert_int_equal(p->sys[READ].nfilters, 0);
	assert_int_equal(p->nfilters, 0);
	assert_string_equal(t_print(p), "sys_write: 1\n");
	/* unfiltered: 0 then 1 re-adds without the old filters */
	q = t_parse(NULL, "read: fd == 0; read: 0; read: 1");
	assert_string_equal(t_print(q), "sys_read: 1\n");
	sf_policy_free(q);
	sf_policy_free(p);
	sf_policy_free(cur);
}

static void star_is_every_syscall(void **state)
{
	struct sf_policy *p = t_parse(NULL, "*: 1; ptrace: 0");
	struct sf_error e;
	unsigned i, allowed = 0;

	(void)state;
	for (i = 0; i < sf_syscall_count; i++)
		allowed += p->sys[sf_syscalls[i].nr].allowed;
	assert_int_equal(allowed, sf_syscall_count - 1);
	assert_int_equal(t_decide(p, PTRACE, 0, 0, 0, 0), SF_NOT_IN_SET);
	/* numbers the table does not have are never in S */
	assert_int_equal(t_decide(p, 511, 0, 0, 0, 0), SF_NOT_IN_SET);
	assert_int_equal(t_decide(p, 0x40000000 | READ, 0, 0, 0, 0), SF_NOT_IN_SET);
	assert_int_equal(t_decide(p, -1L, 0, 0, 0, 0), SF_NOT_IN_SET);
	/* `*: 0` while enforcing narrows to nothing; `read: 1` then widens */
	e = t_parse_error(p, "*: 0; read: 1");
	assert_int_equal(e.code, -EPERM);
	sf_policy_free(p);
}

static void star_zero_then_allow_when_unfiltered(void **state)
{
	struct sf_policy *p = t_parse(NULL, "*: 1; *: 0; read: 1");

	(void)state;
	assert_string_equal(t_print(p), "sys_read: 1\n");
	sf_policy_free(p);
}

static void pending_policy_is_not_enforcing(void **state)
{
	struct sf_policy *cur = t_parse(NULL, "on_next_syscall: 1; read: 1");
	struct sf_policy *p = t_parse(cur, "write: 1");
	struct sf_policy *q = t_parse(p, "on_next_syscall: 0");
	struct sf_error e;

	(void)state;
	/* while pending, the process is unrestricted: anything may be added */
	assert_true(p->pending);
	assert_string_equal(t_print(p), "on_next_syscall: 1\nsys_read: 1\nsys_write: 1\n");
	/* once in force, the same change is widening */
	assert_false(q->pending);
	e = t_parse_error(q, "close: 1");
	assert_int_equal(e.code, -EPERM);
	sf_policy_free(q);
	sf_policy_free(p);
	sf_policy_free(cur);
}

static void sources_are_kept_per_filter(void **state)
{
	struct sf_policy *cur, *p = NULL;
	struct sf_error e;
	const char *more = "\n\nread: count > 0";

	(void)state;
	assert_int_equal(sf_policy_apply(NULL, "policy.conf", "read: fd == 0", 13, &cur, &e), 0);
	assert_int_equal(sf_policy_apply(cur, "<api>", more, strlen(more), &p, &e), 0);
	assert_string_equal(sf_filter_source(p, &p->filters[0]), "policy.conf");
	assert_int_equal(p->filters[0].line, 1);
	assert_string_equal(sf_filter_source(p, &p->filters[1]), "<api>");
	assert_int_equal(p->filters[1].line, 3);
	sf_policy_free(p);
	sf_policy_free(cur);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(whole_or_nothing),
		cmocka_unit_test(widening_is_eperm_once_enforcing),
		cmocka_unit_test(allowed_again_is_not_widening),
		cmocka_unit_test(narrowing_appends_filters),
		cmocka_unit_test(zero_removes_and_drops_filters),
		cmocka_unit_test(star_is_every_syscall),
		cmocka_unit_test(star_zero_then_allow_when_unfiltered),
		cmocka_unit_test(pending_policy_is_not_enforcing),
		cmocka_unit_test(sources_are_kept_per_filter),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
