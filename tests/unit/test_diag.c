/* Diagnostics (sf_policy_apply_diag): every error of a text in one parse,
 * warnings about policies that parse but likely do not mean what they
 * say, sets of values (`fd in {1, 2}`), and bytes named in messages. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "eval.h"
#include "tsupport.h"

enum { READ = 0, WRITE = 1, CLOSE = 3, IOCTL = 16, DUP2 = 33, FCNTL = 72 };

#define MAX_MSGS 40

/* What one parse reported, in order. */
struct msgs {
	unsigned n;
	int warning[MAX_MSGS];
	char text[MAX_MSGS][1024];
};

static void collect(void *ctx, int warning, const struct sf_error *e)
{
	struct msgs *m = ctx;

	assert_true(m->n < MAX_MSGS);
	m->warning[m->n] = warning;
	snprintf(m->text[m->n], sizeof m->text[m->n], "%s", e->text);
	m->n++;
}

/* Parses text as t.conf with diagnostics; returns the result, the policy
 * (freed by the caller) in *out. */
static int diag_parse(const char *text, unsigned max_errors, struct msgs *m,
		      struct sf_diag *d, struct sf_policy **out)
{
	struct sf_error err;

	memset(m, 0, sizeof(*m));
	*d = (struct sf_diag){ .emit = collect, .ctx = m, .max_errors = max_errors };
	return sf_policy_apply_diag(NULL, "t.conf", SF_SRC_TEXT, SF_SYNTAX_SECFILTER, text,
				    strlen(text), out, &err, d);
}

static unsigned count_kind(const struct msgs *m, int warning)
{
	unsigned i, n = 0;

	for (i = 0; i < m->n; i++)
		n += m->warning[i] == warning;
	return n;
}

/* Rows of a text and what its (first) error says. */
struct bad {
	const char *text, *want;
};

static void expect_errors(const struct bad *cases, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		struct sf_error e = t_parse_error(NULL, cases[i].text);
		if (!strstr(e.text, cases[i].want))
			fail_msg("case %u: want '%s', got:\n%s", i, cases[i].want, e.text);
	}
}

/* ---- every error of a file ---- */

/* Four mistakes of four kinds on four lines, good rules between them: four
 * errors, each at its place, in one parse. */
static void every_error_in_one_parse(void **state)
{
	static const char text[] =
		"read: fdd == 0\n"
		"write: fd == 1\n"
		"opn: 1; close: 1\n"
		"mmap: prot & PROT_EXC\n"
		"lseek: fd == 1 ||\n"
		"exit_group: 1\n";
	static const char *const want[] = {
		"t.conf:1:7: error: unknown argument 'fdd'",
		"t.conf:3:1: error: unknown syscall 'opn' (did you mean 'open'?)",
		"t.conf:4:14: error: unknown constant 'PROT_EXC' (did you mean 'PROT_EXEC'?)",
		"t.conf:5:18: error: expected an argument name",
	};
	struct msgs m;
	struct sf_diag d;
	struct sf_policy *p = NULL;
	unsigned i;

	(void)state;
	assert_int_equal(diag_parse(text, 20, &m, &d, &p), -EINVAL);
	assert_null(p);
	assert_int_equal(d.nerrors, 4);
	assert_int_equal(m.n, 4);
	for (i = 0; i < 4; i++) {
		assert_false(m.warning[i]);
		if (strncmp(m.text[i], want[i], strlen(want[i])) != 0)
			fail_msg("error %u: want '%s', got:\n%s", i, want[i], m.text[i]);
	}
	/* the fix-it lines stay with their errors */
	assert_non_null(strstr(m.text[2], "PROT_EXC\n      |              ^~~~~~~~\n"
				       "      |              PROT_EXEC\n"));
}

/* After a byte the lexer refuses, the rest of its rule is skipped and the
 * next one read: one error for the line, not one per byte. */
static void recovery_after_bad_bytes(void **state)
{
	struct msgs m;
	struct sf_diag d;
	struct sf_policy *p;

	(void)state;
	assert_int_equal(diag_parse("read: fd == \x01\x02\x03 $ 4\nwrite: fd = 1\nclose: 1", 20,
				    &m, &d, &p), -EINVAL);
	assert_int_equal(d.nerrors, 2);
	assert_non_null(strstr(m.text[0], "t.conf:1:13: error: unexpected byte 0x01, a control "
					  "character"));
	assert_non_null(strstr(m.text[1], "t.conf:2:11: error: unexpected character '='"));
}

/* Past max_errors, errors are counted, not emitted; without diagnostics the
 * parse stops at the first. */
static void errors_are_capped_and_counted(void **state)
{
	char text[1024];
	size_t n = 0;
	struct msgs m;
	struct sf_diag d;
	struct sf_policy *p;
	struct sf_error e;
	unsigned i;

	(void)state;
	for (i = 0; i < 30; i++)
		n += (size_t)snprintf(text + n, sizeof text - n, "nosuch%u: 1\n", i);
	assert_int_equal(diag_parse(text, 20, &m, &d, &p), -EINVAL);
	assert_int_equal(m.n, 20);
	assert_int_equal(d.nerrors, 30);
	assert_non_null(strstr(m.text[19], "t.conf:20:1: error: unknown syscall 'nosuch19'"));
	e = t_parse_error(NULL, text);
	assert_non_null(strstr(e.text, "t.conf:1:1: error: unknown syscall 'nosuch0'"));
	assert_null(strstr(e.text, "nosuch1'"));
}

/* Errors inside an @include'd file are reported where they are, and the
 * including file goes on after the @include. */
static void errors_in_included_files(void **state)
{
	char dir[] = "/tmp/sf-diag-XXXXXX", path[128], text[256];
	struct msgs m;
	struct sf_diag d;
	struct sf_policy *p;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/inc.conf", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("read: 1\nwrit: 1\nclose: fd == x\n", f);
	fclose(f);
	snprintf(text, sizeof text, "@include %s\nopn: 1\n", path);
	assert_int_equal(diag_parse(text, 20, &m, &d, &p), -EINVAL);
	assert_int_equal(d.nerrors, 3);
	assert_non_null(strstr(m.text[0], "inc.conf:2:1: error: unknown syscall 'writ'"));
	assert_non_null(strstr(m.text[1], "inc.conf:3:14: error: unknown constant 'x'"));
	assert_non_null(strstr(m.text[2], "t.conf:2:1: error: unknown syscall 'opn'"));
	remove(path);
	rmdir(dir);
}

/* ---- bytes named ---- */

static void bytes_are_named(void **state)
{
	static const struct bad cases[] = {
		{ "read: 1\x7f", "t.conf:1:8: error: unexpected byte 0x7f, a control character" },
		{ "read: 1 \xc3\xa9", "t.conf:1:9: error: unexpected byte 0xc3, not ASCII" },
		{ "\xef\xbb\xbfread: 1", "t.conf:1:1: error: byte order mark (bytes 0xef 0xbb 0xbf)" },
		{ "read: 1\n\xef\xbb\xbfwrite: 1", "t.conf:2:1: error: unexpected byte 0xef, not ASCII" },
	};

	(void)state;
	expect_errors(cases, sizeof(cases) / sizeof(cases[0]));
}

/* ---- sets of values ---- */

static void sets_are_values(void **state)
{
	struct sf_policy *p = t_parse(NULL,
		"dup2: oldfd in {3, 5} && newfd in {0,1,2}\n"
		"fcntl: cmd in {F_GETFL, F_SETFL, F_DUPFD_CLOEXEC} || !(fd in {7})");

	(void)state;
	assert_int_equal(t_decide(p, DUP2, 3, 2, 0, 0), SF_ALLOW);
	assert_int_equal(t_decide(p, DUP2, 5, 0, 0, 0), SF_ALLOW);
	assert_int_not_equal(t_decide(p, DUP2, 4, 0, 0, 0), SF_ALLOW); /* 4 = 3|5's bit */
	assert_int_not_equal(t_decide(p, DUP2, 1, 0, 0, 0), SF_ALLOW);
	assert_int_not_equal(t_decide(p, DUP2, 7, 0, 0, 0), SF_ALLOW);
	assert_int_not_equal(t_decide(p, DUP2, 3, 3, 0, 0), SF_ALLOW);
	assert_int_equal(t_decide(p, FCNTL, 7, 3 /* F_GETFL */, 0, 0), SF_ALLOW);
	assert_int_equal(t_decide(p, FCNTL, 8, 1 /* F_GETFD */, 0, 0), SF_ALLOW);
	assert_int_not_equal(t_decide(p, FCNTL, 7, 1, 0, 0), SF_ALLOW);
	/* the canonical text writes a set, with names where the argument has
	 * them, and a set of one as == */
	assert_string_equal(t_print(p),
		"sys_dup2: oldfd in {3, 5} && newfd in {0, 1, 2}\n"
		"sys_fcntl: cmd in {F_GETFL, F_SETFL, F_DUPFD_CLOEXEC} || !(fd == 7)\n");
	sf_policy_free(p);
	/* the same tree however it was spelt: == chains print as sets */
	p = t_parse(NULL, "dup2: oldfd == 3 || oldfd == 5 || newfd == 1 || oldfd == 9");
	assert_string_equal(t_print(p), "sys_dup2: oldfd in {3, 5} || newfd == 1 || oldfd == 9\n");
	sf_policy_free(p);
}

static void set_errors(void **state)
{
	static const struct bad cases[] = {
		{ "read: fd in {}", "t.conf:1:14: error: an empty set matches no value" },
		{ "read: fd in {1, 2", "t.conf:1:18: error: expected ',' or '}' to close the '{' at "
				     "column 13, got 'end of text'" },
		{ "read: fd in {1 2}", "t.conf:1:16: error: expected ',' or '}'" },
		{ "read: fd == {1}", "t.conf:1:13: error: expected a number or a constant, got '{'" },
		{ "read: fd in {1, 0x100000000}", "t.conf:1:17: error: value does not fit 'fd'" },
	};

	(void)state;
	expect_errors(cases, sizeof(cases) / sizeof(cases[0]));
}

/* ---- warnings ---- */

/* Parses each row's text (with `suffix` after it): valid, and one warning
 * that says want, or none when want is NULL. */
static void expect_warnings(const struct bad *cases, unsigned n, const char *suffix)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		char text[128];
		struct msgs m;
		struct sf_diag d;
		struct sf_policy *p;

		snprintf(text, sizeof text, "%s%s", cases[i].text, suffix);
		assert_int_equal(diag_parse(text, 20, &m, &d, &p), 0);
		sf_policy_free(p);
		assert_int_equal(d.nerrors, 0);
		assert_int_equal(d.nwarnings, m.n);
		if (!cases[i].want) {
			if (m.n)
				fail_msg("case %u: no warning expected, got:\n%s", i, m.text[0]);
			continue;
		}
		if (m.n != 1 || !m.warning[0] || !strstr(m.text[0], cases[i].want))
			fail_msg("case %u: want one warning '%s', got %u:\n%s", i, cases[i].want,
				 m.n, m.n ? m.text[0] : "");
	}
}

/* `in` with a value on an argument that is not a flag word: a warning that
 * says what passes and how to write a set; none on flag words and modes. */
static void in_on_values_warns(void **state)
{
	static const struct bad cases[] = { /* want NULL: no warning */
		{ "close: fd in 4|8", "t.conf:1:8: warning: 'in' tests bits: 'fd in 4|8' passes every "
				     "fd whose bits are among 0xc (0, 4, 8 and 12), not only the "
				     "values written; 'fd' is a file descriptor, not a flag word: for "
				     "a set of values write 'fd in {4, 8}'" },
		{ "ioctl: cmd in TCGETS", "'cmd' is one value of a set of constants, not a flag "
					  "word: for a set of values write 'cmd in {TCGETS}'" },
		{ "fcntl: cmd in (F_GETFL|F_SETFL)", "write 'cmd in {VALUE, ...}'" },
		{ "close: fd in 0xff", "(256 values)" },
		{ "openat: flags in O_CLOEXEC|O_NONBLOCK", NULL },
		{ "mmap: prot in PROT_READ|PROT_WRITE", NULL },
		{ "fchmod: mode in 0755", NULL },
		{ "close: fd in 0", NULL },
		{ "close: fd in {4, 8}", NULL },
	};

	(void)state;
	expect_warnings(cases, sizeof(cases) / sizeof(cases[0]), "\nexit_group: 1\n");
}

/* A policy that leaves the program no way to end: a warning, by rows. */
static void policies_that_cannot_exit_warn(void **state)
{
	static const struct bad cases[] = { /* want NULL: no warning */
		{ "", "t.conf: warning: the policy is empty (no rules, only comments or blank lines)" },
		{ "# nothing yet\n\n", "t.conf: warning: the policy is empty" },
		{ "read: 1; read: 0", "t.conf: warning: the policy allows no syscall" },
		{ "read: 1", "t.conf: warning: exit_group is not allowed, nor exit: the program cannot "
			     "exit and is killed when it tries (add 'exit_group: 1')" },
		{ "read: 1; exit: 1", "t.conf: warning: exit_group is not allowed: " },
		{ "*: 1; exit_group: return EPERM", "warning: exit_group is not allowed: " },
		{ "default: return EPERM; read: 1", "warning: exit_group is not allowed" },
		{ "read: 1; exit_group: 1", NULL },
		{ "read: 1; exit_group: error_code == 0", NULL }, /* a filter may let it */
		{ "*: 1", NULL },
		{ "default: log", NULL },
		{ "read: 1; exit_group: log", NULL },
	};

	(void)state;
	expect_warnings(cases, sizeof(cases) / sizeof(cases[0]), "");
}

/* Warnings and errors of one parse come in text order; warnings do not
 * make a policy invalid, and without diagnostics none are made. */
static void warnings_with_errors(void **state)
{
	struct msgs m;
	struct sf_diag d;
	struct sf_policy *p;

	(void)state;
	assert_int_equal(diag_parse("close: fd in 1|2\nopn: 1\nwrite: fd in 3\n", 20, &m, &d, &p),
			 -EINVAL);
	assert_int_equal(m.n, 3);
	assert_int_equal(count_kind(&m, 1), 2);
	assert_int_equal(count_kind(&m, 0), 1);
	assert_true(m.warning[0] && !m.warning[1] && m.warning[2]);
	assert_int_equal(d.nwarnings, 2);
	/* no exit_group warning for a policy that is not made */
	assert_null(strstr(m.text[2], "exit_group"));
	p = t_parse(NULL, "close: fd in 1|2");
	assert_non_null(p);
	sf_policy_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_error_in_one_parse),
		cmocka_unit_test(recovery_after_bad_bytes),
		cmocka_unit_test(errors_are_capped_and_counted),
		cmocka_unit_test(errors_in_included_files),
		cmocka_unit_test(bytes_are_named),
		cmocka_unit_test(sets_are_values),
		cmocka_unit_test(set_errors),
		cmocka_unit_test(in_on_values_warns),
		cmocka_unit_test(policies_that_cannot_exit_warn),
		cmocka_unit_test(warnings_with_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
