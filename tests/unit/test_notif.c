/* What a listener does with a notification (filter/notif.h): the verdict
 * on a call, how a process is ended, and /proc/PID/status's fields. */
#include <linux/audit.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>

#include <cmocka.h>

#include "eval.h"
#include "notif.h"
#include "tsupport.h"

#define SYS_BIT (1ull << (SIGSYS - 1))

static void verdicts(void **state)
{
	static const struct {
		const char *policy;
		int log;
		uint32_t arch;
		long nr;
		uint64_t a0;
		int x86;
		unsigned action;
	} rows[] = {
		{ "*: 1; getppid: 0", 0, AUDIT_ARCH_X86_64, SYS_getppid, 0, 1, SF_ACTION_KILL },
		{ "*: 1; getppid: 0", 1, AUDIT_ARCH_X86_64, SYS_getppid, 0, 1, SF_ACTION_LOG },
		{ "*: 1; getppid: log", 0, AUDIT_ARCH_X86_64, SYS_getppid, 0, 1, SF_ACTION_LOG },
		{ "*: 1; io_uring_setup: 0; close: fd == 3 else return EBADF", 0, AUDIT_ARCH_X86_64, SYS_close, 4, 1,
		  9 },
		{ "*: 1", 0, AUDIT_ARCH_X86_64, SYS_getppid, 0, 1, SF_ACTION_RUN },
		/* x32 and i386 calls have no rule: killed */
		{ "*: 1", 0, AUDIT_ARCH_X86_64, 0x40000000 | SYS_getppid, 0, 0, SF_ACTION_KILL },
		{ "*: 1", 0, AUDIT_ARCH_I386, 64, 0, 0, SF_ACTION_KILL },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		struct sf_policy *p = t_parse(NULL, rows[i].policy);
		uint64_t a[6] = { rows[i].a0, 0, 0, 0, 0, 0 };
		struct sf_notif_verdict v;

		sf_notif_judge(p, rows[i].log, rows[i].arch, rows[i].nr, a, &v);
		assert_int_equal(v.x86, rows[i].x86);
		assert_int_equal(v.action, rows[i].action);
		assert_int_equal(v.decision == SF_ALLOW, rows[i].action == SF_ACTION_RUN);
		sf_policy_free(p);
	}
}

static void useful(void **state)
{
	struct sf_policy *kill = t_parse(NULL, "*: 1; getppid: 0");
	struct sf_policy *eperm = t_parse(NULL, "default: return EPERM; getppid: 1");

	(void)state;
	assert_true(sf_notif_useful(kill, 0));
	assert_false(sf_notif_useful(eperm, 0));
	assert_true(sf_notif_useful(eperm, 1));
	sf_policy_free(kill);
	sf_policy_free(eperm);
}

static void kill_ways(void **state)
{
	static const struct {
		uint64_t blk, ign, cgt;
		unsigned way;
	} rows[] = {
		{ 0, 0, 0, 0 },
		{ SYS_BIT, 0, 0, SF_KILL_UNMASK },
		{ 0, 0, SYS_BIT, SF_KILL_HANDLED },
		{ SYS_BIT, 0, SYS_BIT, SF_KILL_UNMASK | SF_KILL_HANDLED },
		{ 0, SYS_BIT, 0, SF_KILL_SIGKILL },
		{ SYS_BIT, SYS_BIT, 0, SF_KILL_SIGKILL },
		{ ~SYS_BIT, ~SYS_BIT, ~SYS_BIT, 0 }, /* other signals do not count */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof rows / sizeof rows[0]; i++)
		assert_int_equal(sf_notif_kill_way(rows[i].blk, rows[i].ign, rows[i].cgt),
				 rows[i].way);
}

static void status_fields(void **state)
{
	static const char text[] = "Name:\tcat\nTgid:\t4242\nPid:\t4243\n"
				   "SigBlk:\t0000000040000000\nSigIgn:\t0000000000001000\n"
				   "TgidX:\t7\n";
	static const struct {
		const char *name;
		int hex, found;
		uint64_t v;
	} rows[] = {
		{ "Tgid", 0, 1, 4242 },
		{ "Pid", 0, 1, 4243 },
		{ "SigBlk", 1, 1, 0x40000000 },
		{ "SigIgn", 1, 1, 0x1000 },
		{ "SigCgt", 1, 0, 0 }, /* absent */
		{ "Name", 0, 0, 0 },   /* not a number */
		{ "Tgi", 0, 0, 0 },    /* a prefix of a name is not it */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		uint64_t v = 99;
		int r = sf_status_field(text, sizeof text - 1, rows[i].name, rows[i].hex, &v);
		assert_int_equal(r, rows[i].found ? 0 : -1);
		if (rows[i].found)
			assert_int_equal(v, rows[i].v);
	}
	/* a text cut short ends the search, not the read */
	assert_int_equal(sf_status_field(text, 8, "Tgid", 0, &(uint64_t){ 0 }), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(verdicts),
		cmocka_unit_test(useful),
		cmocka_unit_test(kill_ways),
		cmocka_unit_test(status_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
