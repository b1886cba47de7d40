/* The policy language (SPEC §2): grammar, operators and precedence, values,
 * the type rules, and every error at its exact line and column. */
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

enum { READ = 0, WRITE = 1, CLOSE = 3, LSEEK = 8, MMAP = 9, GETPID = 39,
       KILL = 62, UNAME = 63, EXIT_GROUP = 231, OPENAT = 257 };

#define ALLOWED(p, nr, a0, a1, a2, a3) \
	assert_int_equal(t_decide(p, nr, a0, a1, a2, a3), SF_ALLOW)
#define DENIED(p, nr, a0, a1, a2, a3) \
	assert_int_not_equal(t_decide(p, nr, a0, a1, a2, a3), SF_ALLOW)

/* ---- grammar ---- */

/* A value in parentheses reads as C reads it: the mask of `&` whole. */
static void parenthesized_values(void **state)
{
	struct sf_policy *p = t_parse(NULL,
		"openat: !(flags & (O_WRONLY|O_RDWR|O_CREAT)) && flags != (0x80000)\n"
		"read: fd in ~(0xff | (0x100)) || fd == -(1)");
	struct sf_error e;

	(void)state;
	assert_string_equal(t_print(p),
			    "sys_read: fd in ~0x1ff || fd == 0xffffffff\n"
			    "sys_openat: !(flags & (O_WRONLY|O_RDWR|O_CREAT)) && flags != O_RDONLY|O_CLOEXEC\n");
	DENIED(p, OPENAT, 0, 0, 1, 0);
	ALLOWED(p, OPENAT, 0, 0, 0x10000, 0);
	sf_policy_free(p);
	e = t_parse_error(NULL, "openat: flags & (O_WRONLY");
	assert_int_equal(e.code, -EINVAL);
	assert_non_null(strstr(e.text, "t.conf:1:26: error: expected ')' to close the '(' at column 17"));
	e = t_parse_error(NULL, "openat: flags & ()");
	assert_non_null(strstr(e.text, "expected a number or a constant, got ')'"));
}

/* Each filter keeps its expression as written, for reports; filters that
 * came through another block keep it too. */
static void filters_keep_their_text(void **state)
{
	struct sf_policy *p = t_parse(NULL,
		"openat: !(flags & (O_WRONLY|O_RDWR))   # read only\n"
		"openat:  dfd == AT_FDCWD else return EACCES\n"
		"write: fd == 1 || fd == 2;read: 1");
	struct sf_policy *q;

	(void)state;
	assert_int_equal(p->sys[OPENAT].nfilters, 2);
	assert_string_equal(sf_filter_text(p, &p->filters[sf_rule_first(p, &p->sys[OPENAT])]),
			    "!(flags & (O_WRONLY|O_RDWR))");
	assert_string_equal(sf_filter_text(p, &p->filters[sf_rule_first(p, &p->sys[OPENAT]) + 1]),
			    "dfd == AT_FDCWD");
	assert_string_equal(sf_filter_text(p, &p->filters[sf_rule_first(p, &p->sys[WRITE])]),
			    "fd == 1 || fd == 2");
	q = t_parse(p, "openat: flags != O_PATH");
	assert_int_equal(q->sys[OPENAT].nfilters, 3);
	assert_string_equal(sf_filter_text(q, &q->filters[sf_rule_first(q, &q->sys[OPENAT])]),
			    "!(flags & (O_WRONLY|O_RDWR))");
	assert_string_equal(sf_filter_text(q, &q->filters[sf_rule_first(q, &q->sys[OPENAT]) + 2]),
			    "flags != O_PATH");
	assert_string_equal(sf_filter_text(q, &q->filters[sf_rule_first(q, &q->sys[WRITE])]),
			    "fd == 1 || fd == 2");
	sf_policy_free(q);
	sf_policy_free(p);
}

static void directive_spellings(void **state)
{
	static const char *const texts[] = {
		"read: 1", "sys_read: 1", "0: 1", "sys_read:1", "  read  :  1  ",
	};
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct sf_policy *p = t_parse(NULL, texts[i]);
		assert_string_equal(t_print(p), "sys_read: 1\n");
		sf_policy_free(p);
	}
}

static void entry_point_alias(void **state)
{
	struct sf_policy *p = t_parse(NULL, "sys_newuname: 1");

	(void)state;
	assert_string_equal(t_print(p), "sys_uname: 1\n");
	ALLOWED(p, UNAME, 0, 0, 0, 0);
	sf_policy_free(p);
}

static void rule_separators_and_comments(void **state)
{
	struct sf_policy *p = t_parse(NULL,
		"# a comment line\n"
		"read: 1; write: 1   # trailing comment; not a rule: close: 1\n"
		"\n"
		";;  ;\n"
		"getpid: 1;\r\n"
		"exit_group: 1");

	(void)state;
	assert_string_equal(t_print(p),
			    "sys_read: 1\nsys_write: 1\nsys_getpid: 1\nsys_exit_group: 1\n");
	DENIED(p, CLOSE, 0, 0, 0, 0);
	sf_policy_free(p);
}

static void empty_policy_allows_nothing(void **state)
{
	struct sf_policy *p = t_parse(NULL, "# nothing\n\n");

	(void)state;
	assert_string_equal(t_print(p), "");
	assert_int_equal(t_decide(p, READ, 0, 0, 0, 0), SF_NOT_IN_SET);
	sf_policy_free(p);
}

static void star_and_on_next_syscall(void **state)
{
	struct sf_policy *p = t_parse(NULL, "*: 1; kill: 0\non_next_syscall: 1");

	(void)state;
	assert_true(p->pending);
	ALLOWED(p, READ, 0, 0, 0, 0);
	ALLOWED(p, OPENAT, 0, 0, 0, 0);
	assert_int_equal(t_decide(p, KILL, 0, 0, 0, 0), SF_NOT_IN_SET);
	assert_int_equal(strncmp(t_print(p), "on_next_syscall: 1\nsys_read: 1\n", 31), 0);
	sf_policy_free(p);
	p = t_parse(NULL, "on_next_syscall: 1; on_next_syscall: 0; read: 1");
	assert_false(p->pending);
	sf_policy_free(p);
}

/* ---- operators ---- */

struct op_case {
	const char *expr;  /* over lseek(fd u32, offset s64, whence u32) */
	int64_t offset;
	int want;
};

static void comparison_operators(void **state)
{
	static const struct op_case cases[] = {
		{ "offset == 5", 5, 1 }, { "offset == 5", 6, 0 },
		{ "offset != 5", 5, 0 }, { "offset != 5", 6, 1 },
		{ "offset < 5", 4, 1 }, { "offset < 5", 5, 0 }, { "offset < 5", -9, 1 },
		{ "offset <= 5", 5, 1 }, { "offset <= 5", 6, 0 },
		{ "offset > 5", 6, 1 }, { "offset > 5", 5, 0 }, { "offset > -5", -4, 1 },
		{ "offset >= 5", 5, 1 }, { "offset >= 5", 4, 0 },
		{ "offset & 6", 2, 1 }, { "offset & 6", 9, 0 },
		{ "offset & 0x8000000000000000", INT64_MIN, 1 },
		{ "offset < 0", INT64_MIN, 1 }, { "offset > 0", INT64_MIN, 0 },
		{ "offset >= -9223372036854775808", INT64_MIN, 1 },
		{ "offset < -9223372036854775808", INT64_MIN, 0 },
		{ "offset <= 9223372036854775807", INT64_MAX, 1 },
	};
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[128];
		struct sf_policy *p;

		snprintf(text, sizeof(text), "lseek: %s", cases[i].expr);
		p = t_parse(NULL, text);
		if ((t_decide(p, LSEEK, 0, (uint64_t)cases[i].offset, 0, 0) == SF_ALLOW) != cases[i].want)
			fail_msg("%s with offset %lld: expected %s", cases[i].expr,
				 (long long)cases[i].offset, cases[i].want ? "allow" : "deny");
		sf_policy_free(p);
	}
}

static void precedence(void **state)
{
	/* && binds tighter than ||; ! tighter than && */
	struct sf_policy *p = t_parse(NULL, "lseek: fd == 1 || fd == 2 && whence == 0");
	struct sf_policy *q = t_parse(NULL, "lseek: !fd == 1 && whence == 0");
	struct sf_policy *r = t_parse(NULL, "lseek: (fd == 1 || fd == 2) && whence == 0");

	(void)state;
	ALLOWED(p, LSEEK, 1, 0, 7, 0); /* fd == 1 alone suffices */
	DENIED(p, LSEEK, 2, 0, 7, 0);
	ALLOWED(p, LSEEK, 2, 0, 0, 0);
	ALLOWED(q, LSEEK, 3, 0, 0, 0); /* (!(fd == 1)) && whence == 0 */
	DENIED(q, LSEEK, 1, 0, 0, 0);
	DENIED(q, LSEEK, 3, 0, 1, 0);
	DENIED(r, LSEEK, 1, 0, 7, 0);
	ALLOWED(r, LSEEK, 2, 0, 0, 0);
	assert_string_equal(t_print(p), "sys_lseek: fd == 1 || fd == 2 && whence == SEEK_SET\n");
	assert_string_equal(t_print(q), "sys_lseek: !(fd == 1) && whence == SEEK_SET\n");
	assert_string_equal(t_print(r), "sys_lseek: fd in {1, 2} && whence == SEEK_SET\n");
	sf_policy_free(p);
	sf_policy_free(q);
	sf_policy_free(r);
}

static void negation(void **state)
{
	struct sf_policy *p = t_parse(NULL, "lseek: !(fd == 1 || fd == 2); close: !!(fd == 4)");

	(void)state;
	DENIED(p, LSEEK, 1, 0, 0, 0);
	DENIED(p, LSEEK, 2, 0, 0, 0);
	ALLOWED(p, LSEEK, 3, 0, 0, 0);
	ALLOWED(p, CLOSE, 4, 0, 0, 0);
	DENIED(p, CLOSE, 5, 0, 0, 0);
	assert_string_equal(t_print(p),
		"sys_close: !!(fd == 4)\nsys_lseek: !(fd in {1, 2})\n");
	sf_policy_free(p);
}

static void long_chains_stay_shallow(void **state)
{
	/* 20000 operands: the tree must be balanced, not a 20000-deep list
	 * (every consumer recurses over it). */
	size_t cap = 20000 * 16, n = 0;
	char *text = malloc(cap);
	struct sf_policy *p;
	int i;

	(void)state;
	n += (size_t)snprintf(text, cap, "lseek: ");
	for (i = 0; i < 20000; i++)
		n += (size_t)snprintf(text + n, cap - n, "%sfd == %d", i ? " || " : "", i);
	p = t_parse(NULL, text);
	ALLOWED(p, LSEEK, 19999, 0, 0, 0);
	ALLOWED(p, LSEEK, 0, 0, 0, 0);
	DENIED(p, LSEEK, 20000, 0, 0, 0);
	assert_int_equal(p->nnodes, 2 * 20000 - 1);
	sf_policy_free(p);
	free(text);
}

/* ---- values ---- */

static void numbers_in_three_bases(void **state)
{
	struct sf_policy *p = t_parse(NULL, "lseek: offset == 0x1f || offset == 017 || offset == 42 || offset == 0");

	(void)state;
	ALLOWED(p, LSEEK, 0, 31, 0, 0);
	ALLOWED(p, LSEEK, 0, 15, 0, 0);
	ALLOWED(p, LSEEK, 0, 42, 0, 0);
	ALLOWED(p, LSEEK, 0, 0, 0, 0);
	DENIED(p, LSEEK, 0, 17, 0, 0);
	sf_policy_free(p);
	p = t_parse(NULL, "lseek: offset == 0XFF; lseek: offset == 0xffffffffffffffff || offset == 255");
	ALLOWED(p, LSEEK, 0, 255, 0, 0);
	sf_policy_free(p);
	/* an unsigned argument takes any decimal that fits its width */
	p = t_parse(NULL, "read: count == 18446744073709551615 || fd == 4294967295");
	ALLOWED(p, READ, 0, 0, UINT64_MAX, 0);
	ALLOWED(p, READ, 0xffffffff, 0, 0, 0);
	sf_policy_free(p);
}

/* A decimal is a number, which a signed argument must be able to hold;
 * hex, octal, constants and negated numbers spell bit patterns of the
 * argument's width (SPEC §2). */
static void decimals_in_signed_range(void **state)
{
	static const struct {
		const char *text;
		unsigned col, len;
		const char *message;
	} bad[] = {
		{ "kill: pid == 2147483648", 14, 10,
		  "2147483648 is above the range of 'pid', a signed 32-bit argument "
		  "(-2147483648 to 2147483647); 0x80000000 is the bit pattern" },
		{ "kill: pid == 4294967295", 14, 10, "above the range of 'pid'" },
		{ "kill: pid == -2147483649", 14, 11,
		  "-2147483649 is below the range of 'pid', a signed 32-bit argument" },
		{ "kill: arg0 != 1 && arg0 == 1|2147483648", 30, 10, "above the range of 'pid'" },
		{ "kill: pid == ~2147483648", 14, 11, "above the range" },
		{ "lseek: offset > 9223372036854775808", 17, 19,
		  "above the range of 'offset', a signed 64-bit argument (-9223372036854775808 to "
		  "9223372036854775807); 0x8000000000000000 is the bit pattern" },
		{ "lseek: offset > -9223372036854775809", 17, 20, "below the range of 'offset'" },
	};
	struct sf_policy *p;
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct sf_error e = t_parse_error(NULL, bad[i].text);
		char caret[64];

		if (e.code != -EINVAL || e.col != bad[i].col || !strstr(e.text, bad[i].message))
			fail_msg("%s: got %d at %u:\n%s", bad[i].text, e.code, e.col, e.text);
		memset(caret, '~', bad[i].len);
		caret[0] = '^';
		caret[bad[i].len] = '\n';
		caret[bad[i].len + 1] = '\0';
		if (!strstr(e.text, caret))
			fail_msg("%s: caret of %u expected:\n%s", bad[i].text, bad[i].len, e.text);
	}
	/* the same bits, spelt as patterns */
	p = t_parse(NULL, "kill: pid == 0x80000000 || pid == -2147483648 || pid == 020000000000"
			  " || pid == 2147483647 || pid == ~0x7fffffff");
	assert_string_equal(t_print(p),
		"sys_kill: pid in {-2147483648, -2147483648, -2147483648, 2147483647, -2147483648}\n");
	ALLOWED(p, KILL, 0x80000000, 0, 0, 0);
	ALLOWED(p, KILL, 0xffffffff80000000, 0, 0, 0);
	DENIED(p, KILL, 0, 0, 0, 0);
	sf_policy_free(p);
	p = t_parse(NULL, "lseek: offset == 0x8000000000000000 || offset == -9223372036854775808"
			  " || offset == 9223372036854775807");
	ALLOWED(p, LSEEK, 0, 0x8000000000000000, 0, 0);
	ALLOWED(p, LSEEK, 0, 0x7fffffffffffffff, 0, 0);
	sf_policy_free(p);
}

static void negatives_and_complement(void **state)
{
	struct sf_policy *p = t_parse(NULL, "openat: dfd == -100; lseek: offset == ~0 || offset == -0x10");

	(void)state;
	ALLOWED(p, OPENAT, (uint64_t)-100, 0, 0, 0);
	ALLOWED(p, LSEEK, 0, UINT64_MAX, 0, 0);
	ALLOWED(p, LSEEK, 0, (uint64_t)-16, 0, 0);
	DENIED(p, LSEEK, 0, 16, 0, 0);
	sf_policy_free(p);
}

static void constants_and_or_of_terms(void **state)
{
	struct sf_policy *p = t_parse(NULL,
		"openat: dfd == AT_FDCWD && flags == O_WRONLY|O_CREAT|O_TRUNC");
	struct sf_policy *q = t_parse(NULL,
		"mmap: prot & PROT_EXEC|PROT_WRITE");

	(void)state;
	ALLOWED(p, OPENAT, (uint64_t)-100, 0, 01 | 0100 | 01000, 0);
	DENIED(p, OPENAT, (uint64_t)-100, 0, 01 | 0100, 0);
	DENIED(p, OPENAT, 3, 0, 01 | 0100 | 01000, 0);
	ALLOWED(q, MMAP, 0, 0, 4, 0);
	ALLOWED(q, MMAP, 0, 0, 2, 0);
	DENIED(q, MMAP, 0, 0, 1, 0);
	assert_string_equal(t_print(p),
		"sys_openat: dfd == AT_FDCWD && flags == O_WRONLY|O_CREAT|O_TRUNC\n");
	sf_policy_free(p);
	sf_policy_free(q);
}

/* ---- type rules ---- */

static void unsigned_int_cut_to_low_32_bits(void **state)
{
	/* The kernel reads an unsigned int fd from the low 32 bits: the
	 * register 0x100000001 is fd 1. */
	struct sf_policy *p = t_parse(NULL, "read: fd != 1; write: fd == 1");

	(void)state;
	DENIED(p, READ, 0x100000001ull, 0, 0, 0);
	DENIED(p, READ, 1, 0, 0, 0);
	ALLOWED(p, READ, 2, 0, 0, 0);
	ALLOWED(p, WRITE, 0xffffffff00000001ull, 0, 0, 0);
	sf_policy_free(p);
}

static void signed_int_sign_extends(void **state)
{
	struct sf_policy *p = t_parse(NULL, "openat: dfd == -100; kill: sig < 0");

	(void)state;
	ALLOWED(p, OPENAT, (uint64_t)-100, 0, 0, 0);
	ALLOWED(p, OPENAT, 0xffffff9cull, 0, 0, 0); /* high word is ignored */
	ALLOWED(p, OPENAT, 0x12345678ffffff9cull, 0, 0, 0);
	DENIED(p, OPENAT, 0xffffff9dull, 0, 0, 0);
	ALLOWED(p, KILL, 0, 0x80000000ull, 0, 0); /* INT_MIN */
	DENIED(p, KILL, 0, 0x7fffffffull, 0, 0);
	DENIED(p, KILL, 0, 0xffffffff00000001ull, 0, 0); /* sig 1 */
	sf_policy_free(p);
}

static void umode_t_cut_to_16_bits(void **state)
{
	struct sf_policy *p = t_parse(NULL, "openat: mode == 0644");

	(void)state;
	ALLOWED(p, OPENAT, 0, 0, 0, 0644);
	ALLOWED(p, OPENAT, 0, 0, 0, 0x10000 | 0644);
	DENIED(p, OPENAT, 0, 0, 0, 0755);
	sf_policy_free(p);
}

static void same_bits_same_value(void **state)
{
	/* 0xffffff9c fits a 32-bit int as the pattern of -100. */
	struct sf_policy *p = t_parse(NULL, "openat: dfd == 0xffffff9c");
	struct sf_policy *q = t_parse(NULL, "read: fd == -1");

	(void)state;
	assert_string_equal(t_print(p), "sys_openat: dfd == AT_FDCWD\n");
	ALLOWED(q, READ, 0xffffffffull, 0, 0, 0);
	assert_string_equal(t_print(q), "sys_read: fd == 0xffffffff\n");
	sf_policy_free(p);
	sf_policy_free(q);
}

static void pointers_compare_as_numbers(void **state)
{
	struct sf_policy *p = t_parse(NULL, "read: buf != 0 && count <= 4096");

	(void)state;
	DENIED(p, READ, 0, 0, 10, 0);
	ALLOWED(p, READ, 0, 0x7ffd0000, 10, 0);
	DENIED(p, READ, 0, 0x7ffd0000, 4097, 0);
	sf_policy_free(p);
}

static void argn_names(void **state)
{
	struct sf_policy *p = t_parse(NULL, "read: arg0 == 3 && arg2 < 10");

	(void)state;
	ALLOWED(p, READ, 3, 0, 9, 0);
	DENIED(p, READ, 3, 0, 10, 0);
	assert_string_equal(t_print(p), "sys_read: fd == 3 && count < 10\n");
	sf_policy_free(p);
}

/* A cast reads the whole register (or a part of it) whatever the
 * argument's declared type: what minijail and OCI profiles compare, and
 * the canonical form keeps it, so that their meaning survives printing. */
static void casts_read_the_register(void **state)
{
	struct sf_policy *p = t_parse(NULL, "read: u64(fd) == 0x100000001 || u16(count) == 7\n"
					    "getpid: u64(arg2) > 5; lseek: s32(offset) < 0\n"
					    "write: u32(fd) == 1 && u64(buf) != 0; close: s64(arg5) >= -1");

	(void)state;
	ALLOWED(p, READ, 0x100000001ull, 0, 0, 0);
	DENIED(p, READ, 1, 0, 0, 0);                /* fd 1, but not the register */
	ALLOWED(p, READ, 2, 0, 0x50007, 0);         /* the low 16 bits of count */
	ALLOWED(p, GETPID, 0, 0, 6, 0);             /* a syscall without arguments */
	DENIED(p, GETPID, 0, 0, 5, 0);
	ALLOWED(p, LSEEK, 0, 0xffffffff, 0, 0);     /* the low word is negative */
	DENIED(p, LSEEK, 0, 0xffffffff00000000ull, 0, 0);
	ALLOWED(p, WRITE, 0x700000001ull, 1, 0, 0); /* u32 is fd's own type */
	/* casts to the declared type vanish; u64 of a pointer is the pointer */
	assert_string_equal(t_print(p),
			    "sys_read: u64(fd) == 0x100000001 || u16(count) == 7\n"
			    "sys_write: fd == 1 && buf != 0\n"
			    "sys_close: s64(arg5) >= -1\n"
			    "sys_lseek: s32(offset) < 0\n"
			    "sys_getpid: u64(arg2) > 5\n");
	sf_policy_free(p);
}

/* kill, trap and log for every call of a syscall, and after else. */
static void actions_of_rules(void **state)
{
	struct sf_policy *p = t_parse(NULL, "default: return EPERM; read: kill; write: log\n"
					    "close: fd == 0 else trap; lseek: fd == 1 else log\n"
					    "mmap: prot == 2 else kill; @aio: trap; getpid: return EACCES");

	(void)state;
	assert_int_equal(t_action(p, READ, 0, 0, 0, 0), SF_ACTION_KILL);
	assert_int_equal(t_action(p, WRITE, 0, 0, 0, 0), SF_ACTION_LOG);
	assert_int_equal(t_action(p, CLOSE, 0, 0, 0, 0), SF_ACTION_RUN);
	assert_int_equal(t_action(p, CLOSE, 1, 0, 0, 0), SF_ACTION_TRAP);
	assert_int_equal(t_action(p, LSEEK, 2, 0, 0, 0), SF_ACTION_LOG);
	assert_int_equal(t_action(p, MMAP, 0, 0, 3, 0), SF_ACTION_KILL);
	assert_int_equal(t_action(p, GETPID, 0, 0, 0, 0), EACCES);
	assert_int_equal(t_action(p, 206, 0, 0, 0, 0), SF_ACTION_TRAP); /* io_setup */
	assert_int_equal(t_action(p, 39 + 1, 0, 0, 0, 0), EPERM);
	assert_string_equal(t_print(p),
			    "default: return EPERM\n"
			    "sys_read: kill\n"
			    "sys_write: log\n"
			    "sys_close: fd == 0 else trap\n"
			    "sys_lseek: fd == 1 else log\n"
			    "sys_mmap: prot == PROT_WRITE else kill\n"
			    "sys_getpid: return EACCES\n"
			    "sys_io_setup: trap\n"
			    "sys_io_destroy: trap\n"
			    "sys_io_getevents: trap\n"
			    "sys_io_submit: trap\n"
			    "sys_io_cancel: trap\n"
			    "sys_io_pgetevents: trap\n"
			    "sys_io_uring_setup: trap\n"
			    "sys_io_uring_enter: trap\n"
			    "sys_io_uring_register: trap\n");
	sf_policy_free(p);
	/* the words are actions only where an action may stand */
	p = t_parse(NULL, "kill: kill");
	assert_int_equal(t_action(p, 62, 0, 0, 0, 0), SF_ACTION_KILL);
	sf_policy_free(p);
}

/* ---- errors: kind, line, column, caret ---- */

struct error_case {
	const char *text;
	int code;
	unsigned line, col;
	const char *message; /* a substring of the first line */
};

static void errors_at_exact_positions(void **state)
{
	static const struct error_case cases[] = {
		{ "read: 1\nsys_read: fdd == 0", -EINVAL, 2, 11,
		  "unknown argument 'fdd' for sys_read (expected fd, buf, count, arg0..arg2)" },
		{ "raed: 1", -EINVAL, 1, 1, "unknown syscall 'raed' (did you mean 'read'?)" },
		{ "sys_raed: 1", -EINVAL, 1, 1, "did you mean 'read'?" },
		{ "xyzzyplugh: 1", -EINVAL, 1, 1, "unknown syscall 'xyzzyplugh'" },
		{ "999: 1", -EINVAL, 1, 1, "no x86-64 syscall has number 999" },
		{ "read 1", -EINVAL, 1, 6, "expected ':' after 'read', got '1'" },
		{ "read:", -EINVAL, 1, 6, "expected 1 (allow), 0 (remove), an action or an expression after ':'" },
		{ "read: 2", -EINVAL, 1, 7, "expected 1 (allow), 0 (remove), an action or an expression, got '2'" },
		{ "read: fd", -EINVAL, 1, 9, "expected a comparison" },
		{ "read: fd =", -EINVAL, 1, 10, "unexpected character '='" },
		{ "read: fd == ", -EINVAL, 1, 13, "expected a number or a constant" },
		{ "read: fd == 1 junk", -EINVAL, 1, 15, "unexpected 'junk' after the rule" },
		{ "read: (fd == 1", -EINVAL, 1, 15, "expected ')' to close the '(' at column 7" },
		{ "read: fd == 08", -EINVAL, 1, 14, "invalid digit '8' in octal number" },
		{ "read: fd == 0x", -EINVAL, 1, 13, "'0x' is not a number" },
		{ "read: fd == 12a", -EINVAL, 1, 15, "invalid digit 'a' in decimal number" },
		{ "read: fd == 99999999999999999999", -EINVAL, 1, 13, "does not fit in 64 bits" },
		{ "read: fd == 0x100000000", -EINVAL, 1, 13, "value does not fit 'fd', a 32-bit argument" },
		{ "openat: dfd == -2147483649", -EINVAL, 1, 16, "below the range of 'dfd'" },
		{ "openat: dfd == -0x80000001", -EINVAL, 1, 16, "does not fit 'dfd'" },
		{ "openat: mode == 0x10000", -EINVAL, 1, 17, "a 16-bit argument" },
		{ "openat: flags & O_WRONGLY", -EINVAL, 1, 17, "unknown constant 'O_WRONGLY' (did you mean 'O_WRONLY'?)" },
		{ "getpid: arg0 == 1", -EINVAL, 1, 9, "sys_getpid takes no arguments" },
		{ "read: arg3 == 1", -EINVAL, 1, 7, "unknown argument 'arg3'" },
		{ "*: fd == 1", -EINVAL, 1, 4, "'*' takes only 1, 0 or an action" },
		{ "on_next_syscall: arg0 == 1", -EINVAL, 1, 18, "'on_next_syscall' takes only 1 or 0" },
		{ "read: 1\n\n  write: 1 $", -EINVAL, 3, 12, "unexpected character '$'" },
		{ "read: 1 # \xc3\xa9\nwrite: \xc3\xa9", -EINVAL, 2, 8, "unexpected byte 0xc3" },
		{ ": 1", -EINVAL, 1, 1, "expected a syscall name, '*', '@GROUP', 'default' or 'on_next_syscall'" },
		{ "read: fd == 1 ||", -EINVAL, 1, 17, "expected an argument name" },
		{ "read: fd == --1", -EINVAL, 1, 14, "expected a number or a constant, got '-'" },
		/* casts and actions */
		{ "read: u64(fdd) == 1", -EINVAL, 1, 11, "unknown argument 'fdd' for sys_read (a cast takes an argument name or arg0..arg5)" },
		{ "read: u64(arg6) == 1", -EINVAL, 1, 11, "unknown argument 'arg6'" },
		{ "read: u64(fd == 1", -EINVAL, 1, 14, "expected ')' to end the cast, got '=='" },
		{ "read: u64() == 1", -EINVAL, 1, 11, "expected an argument name in the cast, got ')'" },
		{ "read: u16(fd) == 70000", -EINVAL, 1, 18, "value does not fit 'u16(fd)', a 16-bit argument" },
		{ "read: s32(count) == 2147483648", -EINVAL, 1, 21, "2147483648 is above the range of 's32(count)'" },
		{ "read: arg5 == 1", -EINVAL, 1, 7, "unknown argument 'arg5'" },
		{ "read: u8(fd) == 1", -EINVAL, 1, 7, "unknown argument 'u8'" },
		{ "read: fd == 1 else kil", -EINVAL, 1, 20, "expected an action (return ERRNO, kill, trap, log) after 'else', got 'kil'" },
		{ "read: trap fd", -EINVAL, 1, 12, "unexpected 'fd' after the rule" },
		/* language v2 */
		{ "read: return", -EINVAL, 1, 13, "expected an error name (EPERM, ENOSYS, ...) or number after 'return', got 'end of text'" },
		{ "read: return EPRM", -EINVAL, 1, 14, "unknown error name 'EPRM' (did you mean 'EPERM'?)" },
		{ "read: return XYZZYQ", -EINVAL, 1, 14, "unknown error name 'XYZZYQ' (expected EPERM, ENOSYS, ... or a number from 1 to 4095)" },
		{ "read: return 4096", -EINVAL, 1, 14, "4096 is not an error number (1 to 4095)" },
		{ "read: return 0", -EINVAL, 1, 14, "0 is not an error number" },
		{ "read: return -1", -EINVAL, 1, 14, "expected an error name" },
		{ "read: return EPERM fd", -EINVAL, 1, 20, "unexpected 'fd' after the rule (expected ';' or a new line)" },
		{ "read: fd == 1 else", -EINVAL, 1, 19, "expected an action (return ERRNO, kill, trap, log) after 'else', got 'end of text'" },
		{ "read: fd == 1 else return", -EINVAL, 1, 26, "expected an error name" },
		{ "read: fd == 1 junk", -EINVAL, 1, 15, "(expected '||', '&&', 'else', ';' or a new line)" },
		{ "read: fd in", -EINVAL, 1, 12, "expected a number or a constant" },
		{ "read: fd in 0x100000000", -EINVAL, 1, 13, "value does not fit 'fd', a 32-bit argument" },
		{ "default: 1", -EINVAL, 1, 10, "expected kill, log, trap or return ERRNO after 'default:', got '1'" },
		{ "default: fd == 1", -EINVAL, 1, 10, "expected kill, log, trap or return ERRNO" },
		{ "default: return", -EINVAL, 1, 16, "expected an error name" },
		{ "on_next_syscall: return EPERM", -EINVAL, 1, 18, "'on_next_syscall' takes only 1 or 0" },
		{ "*: fd == 1 else return EPERM", -EINVAL, 1, 4, "'*' takes only 1, 0 or an action" },
		{ "@file-system: fd == 1", -EINVAL, 1, 15, "a group takes only 1, 0 or an action (return ERRNO, kill, trap, log), not an expression" },
		{ "@file-sytem: 1", -EINVAL, 1, 1, "unknown group '@file-sytem' (did you mean '@file-system'?)" },
		{ "@zzzzzzzz: 1", -EINVAL, 1, 1, "unknown group '@zzzzzzzz' (see `secfilter syscalls --groups`)" },
		{ "@: 1", -EINVAL, 1, 1, "expected a group name or 'include' after '@'" },
		{ "@include", -EINVAL, 1, 9, "expected a path after '@include'" },
		{ "@include   ; read: 1", -EINVAL, 1, 12, "expected a path after '@include'" },
		{ "@include /nonexistent/x.conf", -EINVAL, 1, 10, "cannot read '/nonexistent/x.conf': No such file or directory" },
		{ "@include /dev/null", -EINVAL, 1, 10, "cannot read '/dev/null': not a regular file" },
		{ "@include /", -EINVAL, 1, 10, "cannot read '/': Is a directory" },
		{ "read: 1\n  @include /nonexistent # a comment", -EINVAL, 2, 12, "cannot read '/nonexistent'" },
	};
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sf_error e = t_parse_error(NULL, cases[i].text);
		char head[64];

		snprintf(head, sizeof(head), "t.conf:%u:%u: error: ", cases[i].line, cases[i].col);
		if (e.code != cases[i].code || e.line != cases[i].line ||
		    e.col != cases[i].col || strncmp(e.text, head, strlen(head)) != 0 ||
		    !strstr(e.text, cases[i].message))
			fail_msg("case %u: %s\nwant %s...%s (code %d)\ngot (code %d):\n%s", i,
				 cases[i].text, head, cases[i].message, cases[i].code,
				 e.code, e.text);
	}
}

static void error_shows_line_and_caret(void **state)
{
	struct sf_error e = t_parse_error(NULL, "read: 1\nwrite: 1\nsys_read: fdd == 0\n");

	(void)state;
	assert_string_equal(e.text,
		"t.conf:3:11: error: unknown argument 'fdd' for sys_read (expected fd, buf, count, arg0..arg2)\n"
		"    3 | sys_read: fdd == 0\n"
		"      |           ^~~\n"
		"      |           fd\n");
}

static void caret_follows_tabs(void **state)
{
	struct sf_error e = t_parse_error(NULL, "\tread:\tfd == 0x100000000");

	(void)state;
	assert_non_null(strstr(e.text, "    1 | \tread:\tfd == 0x100000000\n"
					"      | \t     \t      ^~~~~~~~~~~\n"));
}

static void wide_line_numbers_keep_the_caret_aligned(void **state)
{
	char *text = malloc(100000 + 16);
	struct sf_error e;

	(void)state;
	memset(text, '\n', 99999);
	strcpy(text + 99999, "raed: 1");
	e = t_parse_error(NULL, text);
	assert_int_equal(e.line, 100000);
	assert_non_null(strstr(e.text, "\n100000 | raed: 1\n       | ^~~~\n       | read\n"));
	free(text);
}

static void limits(void **state)
{
	struct sf_policy *p;
	char *text, *printed;
	struct sf_error e;
	size_t n = 0;
	int i;

	(void)state;
	/* nesting: 64 levels are fine, 65 are not */
	text = malloc(4096);
	n = (size_t)sprintf(text, "read: ");
	for (i = 0; i < 64; i++)
		text[n++] = '(';
	n += (size_t)sprintf(text + n, "fd == 1");
	for (i = 0; i < 64; i++)
		text[n++] = ')';
	text[n] = '\0';
	sf_policy_free(t_parse(NULL, text));
	/* 64 negations: the printer adds parentheses around the predicate,
	 * and that text parses too (a fuzzer found it refused) */
	n = (size_t)sprintf(text, "read: ");
	for (i = 0; i < 64; i++)
		text[n++] = '!';
	n += (size_t)sprintf(text + n, "fd == 1");
	text[n] = '\0';
	p = t_parse(NULL, text);
	printed = strdup(t_print(p));
	assert_non_null(strstr(printed, "!(fd == 1)"));
	sf_policy_free(t_parse(NULL, printed));
	sf_policy_free(p);
	free(printed);
	n = (size_t)sprintf(text, "read: ");
	for (i = 0; i < 65; i++)
		text[n++] = '!';
	n += (size_t)sprintf(text + n, "(fd == 1)");
	text[n] = '\0';
	e = t_parse_error(NULL, text);
	assert_int_equal(e.code, -E2BIG);
	assert_int_equal(e.col, 6 + 65);
	assert_non_null(strstr(e.text, "nested deeper than 64 levels"));
	free(text);

	/* text size: 1 MiB is the limit */
	text = malloc(SF_MAX_TEXT + 2);
	memset(text, '\n', SF_MAX_TEXT + 1);
	memcpy(text, "read: 1", 7);
	text[SF_MAX_TEXT + 1] = '\0';
	e = t_parse_error(NULL, text);
	assert_int_equal(e.code, -E2BIG);
	assert_non_null(strstr(e.text, "t.conf: error: policy text is 1048577 bytes; the limit is 1 MiB"));
	text[SF_MAX_TEXT] = '\0';
	sf_policy_free(t_parse(NULL, text));
	free(text);
}

static void excerpt_shows_control_bytes_as_question_marks(void **state)
{
	struct sf_error e = t_parse_error(NULL, "read:\x1b[2J fd == 1");

	(void)state;
	assert_non_null(strstr(e.text, "t.conf:1:6: error: unexpected byte 0x1b"));
	assert_non_null(strstr(e.text, "    1 | read:?[2J fd == 1\n      |      ^\n"));
	assert_null(strchr(e.text, 0x1b));
}

/* Files for the @include tests, in a directory of their own. */
static char incdir[64];

static void put_file(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", incdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static struct sf_error apply_file(const char *name, struct sf_policy **out)
{
	char path[256];
	char *text;
	size_t len;
	struct sf_error err;
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", incdir, name);
	f = fopen(path, "r");
	assert_non_null(f);
	text = malloc(1 << 16);
	len = fread(text, 1, 1 << 16, f);
	fclose(f);
	memset(&err, 0, sizeof err);
	*out = NULL;
	sf_policy_apply_src(NULL, path, SF_SRC_FILE, text, len, out, &err);
	free(text);
	return err;
}

/* Strips "<incdir>/" from the text, for comparisons. */
static const char *rel(const char *text)
{
	static char buf[2048];
	size_t n = strlen(incdir), i = 0, o = 0;

	while (text[i] && o + 1 < sizeof buf) {
		if (strncmp(text + i, incdir, n) == 0 && text[i + n] == '/')
			i += n + 1;
		else
			buf[o++] = text[i++];
	}
	buf[o] = '\0';
	return buf;
}

static void includes(void **state)
{
	struct sf_policy *p;
	struct sf_error e;
	char sub[128], cwd[512];
	unsigned i;

	(void)state;
	snprintf(incdir, sizeof incdir, "/tmp/secfilter-inc-XXXXXX");
	assert_non_null(mkdtemp(incdir));
	snprintf(sub, sizeof sub, "%s/sub", incdir);
	assert_int_equal(mkdir(sub, 0700), 0);
	put_file("main.conf", "read: 1\n@include sub/one.conf\nwrite: 1\n");
	put_file("sub/one.conf", "# relative to sub/\nclose: fd > 2\n@include two.conf ; getpid: 1\n");
	put_file("sub/two.conf", "\n\nclone3: return ENOSYS\n");

	/* in place, in order, relative to each including file */
	e = apply_file("main.conf", &p);
	assert_int_equal(e.code, 0);
	assert_string_equal(t_print(p), "sys_read: 1\nsys_write: 1\nsys_close: fd > 2\n"
					"sys_getpid: 1\nsys_clone3: return ENOSYS\n");
	assert_string_equal(rel(sf_filter_source(p, &p->filters[0])), "sub/one.conf");
	assert_int_equal(p->filters[0].line, 2);
	sf_policy_free(p);

	/* an error deep down names the chain, nearest includer first */
	put_file("sub/two.conf", "\n\nclone3: return ENOSYS\nraed: 1\n");
	e = apply_file("main.conf", &p);
	assert_null(p);
	assert_int_equal(e.code, -EINVAL);
	assert_int_equal(e.line, 4);
	assert_string_equal(rel(e.text),
		"In file included from sub/one.conf:3,\n"
		"                 from main.conf:2:\n"
		"sub/two.conf:4:1: error: unknown syscall 'raed' (did you mean 'read'?)\n"
		"    4 | raed: 1\n"
		"      | ^~~~\n"
		"      | read\n");

	/* cycles, to itself and through another file */
	put_file("sub/two.conf", "@include two.conf\n");
	e = apply_file("main.conf", &p);
	assert_non_null(strstr(e.text, "sub/two.conf:1:10: error: @include cycle: 'two.conf' is this file"));
	put_file("sub/two.conf", "@include ../main.conf\n");
	e = apply_file("main.conf", &p);
	assert_string_equal(rel(e.text),
		"In file included from sub/one.conf:3,\n"
		"                 from main.conf:2:\n"
		"sub/two.conf:1:10: error: @include cycle: '../main.conf' is main.conf, which "
		"includes this file\n"
		"    1 | @include ../main.conf\n"
		"      |          ^~~~~~~~~~~~\n");

	/* a missing file */
	put_file("sub/two.conf", "@include three.conf\n");
	e = apply_file("main.conf", &p);
	assert_non_null(strstr(rel(e.text), "sub/two.conf:1:10: error: cannot read "
				  "'sub/three.conf': No such file or directory"));

	/* the depth limit: a chain of SF_MAX_INCLUDE files is fine, one more is not */
	for (i = 0; i <= SF_MAX_INCLUDE + 1; i++) {
		char name[32], text[64];
		snprintf(name, sizeof name, "d%u.conf", i);
		snprintf(text, sizeof text, "@include d%u.conf\n", i + 1);
		put_file(name, i == SF_MAX_INCLUDE ? "read: 1\n" : text);
	}
	e = apply_file("d0.conf", &p);
	assert_int_equal(e.code, 0);
	sf_policy_free(p);
	put_file("d16.conf", "@include d17.conf\n");
	put_file("d17.conf", "read: 1\n");
	e = apply_file("d0.conf", &p);
	assert_int_equal(e.code, -E2BIG);
	assert_non_null(strstr(e.text, "d16.conf:1:1: error: @include nested deeper than 16 files"));

	/* includes together count against the 1 MiB */
	{
		char *big = malloc(SF_MAX_TEXT / 2 + 2);
		memset(big, '#', SF_MAX_TEXT / 2);
		big[SF_MAX_TEXT / 2] = '\n';
		big[SF_MAX_TEXT / 2 + 1] = '\0';
		put_file("big.conf", big);
		free(big);
		put_file("twice.conf", "@include big.conf\n@include big.conf\n");
		e = apply_file("twice.conf", &p);
		assert_int_equal(e.code, -E2BIG);
		assert_non_null(strstr(e.text, "big.conf' makes the policy text over 1 MiB"));
	}

	/* text: relative to the working directory; the API: refused */
	assert_non_null(getcwd(cwd, sizeof cwd));
	put_file("sub/two.conf", "clone3: return ENOSYS\n");
	assert_int_equal(chdir(incdir), 0);
	p = t_parse(NULL, "@include sub/one.conf\n");
	assert_int_equal(chdir(cwd), 0);
	assert_string_equal(t_print(p), "sys_close: fd > 2\nsys_getpid: 1\nsys_clone3: return ENOSYS\n");
	sf_policy_free(p);
	memset(&e, 0, sizeof e);
	assert_int_equal(sf_policy_apply_src(NULL, "<api>", SF_SRC_NO_INCLUDE, "@include /etc/x", 15,
					     &p, &e), -EINVAL);
	assert_non_null(strstr(e.text, "<api>:1:1: error: @include is not available here"));
	{
		char cmd[128];
		snprintf(cmd, sizeof cmd, "rm -rf %s", incdir);
		assert_int_equal(system(cmd), 0);
	}
}

static void nul_byte_is_an_error(void **state)
{
	struct sf_policy *p = NULL;
	struct sf_error e;

	(void)state;
	assert_int_equal(sf_policy_apply(NULL, "t.conf", "read: 1\0write: 1", 16, &p, &e), -EINVAL);
	assert_non_null(strstr(e.text, "t.conf:1:8: error: unexpected NUL byte"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(directive_spellings),
		cmocka_unit_test(entry_point_alias),
		cmocka_unit_test(rule_separators_and_comments),
		cmocka_unit_test(empty_policy_allows_nothing),
		cmocka_unit_test(star_and_on_next_syscall),
		cmocka_unit_test(comparison_operators),
		cmocka_unit_test(precedence),
		cmocka_unit_test(negation),
		cmocka_unit_test(long_chains_stay_shallow),
		cmocka_unit_test(numbers_in_three_bases),
		cmocka_unit_test(decimals_in_signed_range),
		cmocka_unit_test(negatives_and_complement),
		cmocka_unit_test(constants_and_or_of_terms),
		cmocka_unit_test(unsigned_int_cut_to_low_32_bits),
		cmocka_unit_test(signed_int_sign_extends),
		cmocka_unit_test(umode_t_cut_to_16_bits),
		cmocka_unit_test(same_bits_same_value),
		cmocka_unit_test(pointers_compare_as_numbers),
		cmocka_unit_test(argn_names),
		cmocka_unit_test(casts_read_the_register),
		cmocka_unit_test(actions_of_rules),
		cmocka_unit_test(errors_at_exact_positions),
		cmocka_unit_test(error_shows_line_and_caret),
		cmocka_unit_test(caret_follows_tabs),
		cmocka_unit_test(wide_line_numbers_keep_the_caret_aligned),
		cmocka_unit_test(limits),
		cmocka_unit_test(excerpt_shows_control_bytes_as_question_marks),
		cmocka_unit_test(nul_byte_is_an_error),
		cmocka_unit_test(includes),
		cmocka_unit_test(parenthesized_values),
		cmocka_unit_test(filters_keep_their_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
