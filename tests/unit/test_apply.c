/* The apply rules (SPEC §2 "Meaning"): whole or nothing, EPERM on widening
 * once enforcing, narrowing appends, `0` removes, `*`, on_next_syscall;
 * the actions of language v2 and what narrowing means with them; groups;
 * and the same tree built without text (filter/build.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "eval.h"
#include "internal.h"
#include "tcommon.h"
#include "tsupport.h"

enum { READ = 0, WRITE = 1, CLOSE = 3, PTRACE = 101, IO_URING_SETUP = 425, CLONE3 = 435 };
enum { EPERM_ = 1, EBADF_ = 9, ENOSYS_ = 38 };

/* Applying text on cur is refused as widening (-EPERM). */
static void expect_eperm(const struct sf_policy *cur, const char *text)
{
	assert_int_equal(t_parse_error(cur, text).code, -EPERM);
}

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
	expect_eperm(cur, "close: fd == 1");
	expect_eperm(cur, "*: 1");
	expect_eperm(cur, "on_next_syscall: 1");
	/* removing then re-adding in one apply is widening too */
	expect_eperm(cur, "read: 0; read: 1");
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
		"sys_read: fd < 10\nsys_read: fd != 3\nsys_write: fd in {1, 2}\n");
	assert_int_equal(t_decide(p, READ, 2, 0, 0, 0), SF_ALLOW);
	/* each filter denies on its own, and the report can name which */
	assert_int_equal(t_decide(p, READ, 11, 0, 0, 0), (int)sf_rule_first(p, &p->sys[READ]));
	assert_int_equal(t_decide(p, READ, 3, 0, 0, 0), (int)sf_rule_first(p, &p->sys[READ]) + 1);
	assert_int_equal(p->filters[sf_rule_first(p, &p->sys[READ]) + 1].line, 1);
	assert_string_equal(sf_filter_source(p, &p->filters[sf_rule_first(p, &p->sys[READ])]), "t.conf");
	args[0] = 5;
	assert_int_equal(sf_decide(p, WRITE, args), sf_rule_first(p, &p->sys[WRITE]));
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
	expect_eperm(p, "*: 0; read: 1");
	sf_policy_free(p);
}

/* A policy without filters or returns has no index table, and its block
 * (what a filtered start freezes) is one page of rules and a header; one
 * filter or one return brings the table, and every index is as before. */
static void index_table_only_when_needed(void **state)
{
	struct sf_policy *p = t_parse(NULL, "*: 1; ptrace: 0");
	struct sf_policy *f = t_parse(NULL, "*: 1; io_uring_setup: 0; read: fd == 3; write: return EPERM");

	(void)state;
	assert_null(p->idx);
	assert_true(p->size <= 4096 + 256);
	assert_int_equal(sf_rule_first(p, &p->sys[READ]), 0);
	assert_int_equal(sf_rule_test(p, &p->sys[READ]), 0);
	assert_non_null(f->idx);
	assert_int_equal(f->sys[READ].nfilters, 1);
	assert_int_equal(t_decide(f, READ, 3, 0, 0, 0), SF_ALLOW);
	assert_int_equal(t_decide(f, READ, 4, 0, 0, 0), (int)sf_rule_first(f, &f->sys[READ]));
	assert_int_equal(t_decide(f, WRITE, 1, 0, 0, 0), SF_RETURN);
	assert_int_equal(t_decide(f, CLOSE, 1, 0, 0, 0), SF_ALLOW);
	sf_policy_free(p);
	sf_policy_free(f);
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

	(void)state;
	/* while pending, the process is unrestricted: anything may be added */
	assert_true(p->pending);
	assert_string_equal(t_print(p), "on_next_syscall: 1\nsys_read: 1\nsys_write: 1\n");
	/* once in force, the same change is widening */
	assert_false(q->pending);
	expect_eperm(q, "close: 1");
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

/* Which rule sets what a passing call gets: the last of 1, expr, return. */
static void actions_last_writer(void **state)
{
	struct sf_policy *p;

	(void)state;
	/* return drops the filters: every call fails */
	p = t_parse(NULL, "read: fd == 0; read: return EPERM");
	assert_int_equal(p->sys[READ].nfilters, 0);
	t_expect_outcomes(p, "read() EPERM; read(5) EPERM");
	assert_string_equal(t_print(p), "sys_read: return EPERM\n");
	sf_policy_free(p);
	/* 1 and expr after return: the calls run again (when they pass) */
	p = t_parse(NULL, "read: return EPERM; read: fd == 0 else return EBADF; write: return EPERM;"
			  " write: 1");
	t_expect_outcomes(p, "read() run; read(1) EBADF; write(1) run");
	sf_policy_free(p);
	/* 0 after return: out of S, the default action; return after 0: in */
	p = t_parse(NULL, "default: return EACCES; read: return EPERM; read: 0; write: 0;"
			  " write: return EBADF");
	t_expect_outcomes(p, "read() EACCES");
	assert_int_equal(p->sys[READ].allowed, 0);
	t_expect_outcomes(p, "write() EBADF");
	assert_string_equal(t_print(p), "default: return EACCES\nsys_write: return EBADF\n");
	sf_policy_free(p);
	/* several filters: the first that is false decides, with its else */
	p = t_parse(NULL, "read: fd < 10 else return EBADF; read: count < 100; read: fd != 3 "
			  "else return EACCES");
	t_expect_outcomes(p, "read(11, 0, 200) EBADF; read(3, 0, 200) kill;"
			  "read(3, 0, 5) EACCES; read(4, 0, 5) run");
	sf_policy_free(p);
	/* default: the rest, and the filters without an else; numbers the
	 * table lacks too */
	p = t_parse(NULL, "default: return ENOSYS; write: fd == 1; default: trap");
	assert_int_equal(p->dflt, SF_ACTION_TRAP);
	t_expect_outcomes(p, "write(2) trap; read() trap; 0x40000000() trap");
	sf_policy_free(p);
	p = t_parse(NULL, "default: log");
	t_expect_outcomes(p, "read() log");
	assert_string_equal(t_print(p), "default: log\n");
	sf_policy_free(p);
	p = t_parse(NULL, "default: kill");
	assert_string_equal(t_print(p), "");
	sf_policy_free(p);
}

/* `*` and groups apply the rule to each of their syscalls in turn. */
static void star_and_groups(void **state)
{
	const struct sf_group *fs = sf_group_lookup("@file-system", 12);
	const struct sf_group *priv = sf_group_lookup("@privileged", 11);
	struct sf_policy *p;
	unsigned i, in = 0;

	(void)state;
	assert_non_null(fs);
	assert_non_null(priv);
	p = t_parse(NULL, "*: return EPERM; @file-system: 1; @privileged: 0; @network-io: return EACCES");
	for (i = 0; i < fs->count; i++) {
		int priv_too = 0;
		unsigned k;
		for (k = 0; k < priv->count; k++)
			priv_too |= priv->nrs[k] == fs->nrs[i];
		assert_int_equal(t_action(p, fs->nrs[i], 0, 0, 0, 0),
				 priv_too ? SF_ACTION_KILL : SF_ACTION_RUN);
	}
	for (i = 0; i < priv->count; i++)
		assert_int_equal(p->sys[priv->nrs[i]].allowed, 0);
	t_expect_outcomes(p, "socket() EACCES; connect() EACCES; reboot() kill;"
			  "ptrace() EPERM;" /* @debug, not here */
			  "getppid() EPERM;"
			  /* `*: return E` is every syscall of the table, not the default */
			  "511() kill");
	for (i = 0; i < sf_syscall_count; i++)
		in += p->sys[sf_syscalls[i].nr].allowed;
	assert_int_equal(in, sf_syscall_count - priv->count);
	sf_policy_free(p);
}

static void expect_widening(const struct sf_policy *cur, const char *text, const char *why)
{
	struct sf_error e = t_parse_error(cur, text);

	if (e.code != -EPERM || !strstr(e.text, why) ||
	    !strstr(e.text, "the running policy can only be narrowed"))
		fail_msg("%s: expected EPERM with '%s', got %d:\n%s", text, why, e.code, e.text);
}

static void expect_narrowing(const struct sf_policy *cur, const char *text)
{
	sf_policy_free(t_parse(cur, text));
}

/* Once enforcing, every call must get an outcome at least as strict as
 * before: run < log < errno < trap < kill. */
static void narrowing_with_actions(void **state)
{
	struct sf_policy *cur;

	(void)state;
	cur = t_parse(NULL, "*: 1; io_uring_setup: 0; read: return EPERM; write: fd == 1; "
			    "close: fd == 1 else return EBADF");
	expect_narrowing(cur, "open: return EACCES");        /* run -> errno */
	expect_narrowing(cur, "read: return EACCES");        /* errno -> errno */
	expect_narrowing(cur, "read: 0");                    /* errno -> kill */
	expect_narrowing(cur, "close: return EPERM");        /* its errno -> errno */
	expect_narrowing(cur, "write: count < 5 else return EPERM"); /* run -> errno */
	expect_narrowing(cur, "default: kill");
	expect_widening(cur, "default: trap", "default: trap is weaker than the running default, kill");
	expect_widening(cur, "read: 1", "sys_read returns an error in the running policy");
	expect_widening(cur, "read: fd == 0", "its calls would run");
	expect_widening(cur, "write: return EPERM",
			"calls of sys_write that its filters deny would fail with an errno instead of "
			"being killed");
	expect_widening(cur, "default: return EPERM", "default: return EPERM is weaker than the "
			"running default, kill");
	expect_widening(cur, "default: log", "weaker");
	expect_widening(cur, "read: 0; read: return EPERM", "sys_read is not in the allowed set");
	sf_policy_free(cur);

	/* a default errno: return is no wider than being out of S */
	cur = t_parse(NULL, "default: return EPERM; read: 1");
	expect_narrowing(cur, "close: return EACCES");
	expect_narrowing(cur, "read: return ENOSYS");
	expect_narrowing(cur, "default: return EACCES");
	expect_narrowing(cur, "default: trap");
	expect_widening(cur, "close: 1", "sys_close is not in the allowed set");
	expect_widening(cur, "default: log", "weaker than the running default, return EPERM");
	sf_policy_free(cur);

	/* default log: errnos are stricter than it */
	cur = t_parse(NULL, "default: log; read: return EPERM; write: fd == 1 else return EBADF; close: 1");
	expect_narrowing(cur, "open: return EACCES");
	expect_narrowing(cur, "close: 0");
	expect_narrowing(cur, "default: return EPERM");
	expect_widening(cur, "read: 0", "sys_read: 0 would give the default action, log, to "
			"calls that now fail with an errno");
	expect_widening(cur, "write: 0", "the default action, log");
	sf_policy_free(cur);

	/* kill, trap and log as a syscall's action and as else */
	cur = t_parse(NULL, "*: 1; io_uring_setup: 0; read: log; write: fd == 1 else trap; close: kill; open: trap");
	expect_narrowing(cur, "read: return EPERM");          /* log -> errno */
	expect_narrowing(cur, "read: trap; read: kill");      /* -> trap -> kill */
	expect_narrowing(cur, "write: kill");                 /* trap, run -> kill */
	expect_narrowing(cur, "write: count < 9 else log");   /* run -> log */
	expect_narrowing(cur, "open: kill");
	expect_narrowing(cur, "uname: log");                  /* run -> log */
	expect_widening(cur, "read: 1", "every call of sys_read gets log in the running policy; "
			"its calls would run");
	expect_widening(cur, "write: log", "calls of sys_write that its filters deny would run, "
			"logged instead of getting SIGSYS");
	expect_widening(cur, "close: return EPERM", "would fail with an errno instead of being "
			"killed");
	expect_widening(cur, "open: log", "instead of getting SIGSYS");
	expect_widening(cur, "close: fd == 1", "every call of sys_close gets kill");
	sf_policy_free(cur);
	cur = t_parse(NULL, "default: trap; read: kill; write: log; close: fd == 0 else kill");
	expect_widening(cur, "read: 0", "sys_read: 0 would give the default action, trap, to "
			"calls that now are killed");
	expect_widening(cur, "close: 0", "to calls that now are killed");
	expect_narrowing(cur, "write: 0");                    /* log -> trap */
	expect_widening(cur, "uname: log", "sys_uname is not in the allowed set, and log is "
			"weaker than the default action");
	expect_narrowing(cur, "uname: kill");
	sf_policy_free(cur);

	/* pending: anything goes, as before */
	cur = t_parse(NULL, "on_next_syscall: 1; read: return EPERM");
	expect_narrowing(cur, "read: 1; default: log");
	sf_policy_free(cur);
}

/* The tree a front end builds without text (filter/build.c) is the one
 * the parser builds: the same block, the same canonical text. */
static void tree_without_text(void **state)
{
	struct sf_ast ast;
	struct sf_policy *p = NULL, *want;
	struct sf_error err;
	uint32_t src, a, b, c, ops[3], root;
	struct sf_rule r = { 0 };

	(void)state;
	sf_ast_init(&ast);
	assert_int_equal(sf_ast_src(&ast, "profile.json", NULL, 0, &src), 0);
	/* read: fd == 0 || fd == 1 || !(count > 10) else return EBADF */
	assert_int_equal(sf_ast_pred(&ast, 0, SF_T_U32, SF_OP_EQ, 0, &a), 0);
	assert_int_equal(sf_ast_pred(&ast, 0, SF_T_U32, SF_OP_EQ, 0x100000001, &b), 0);
	assert_int_equal(sf_ast_pred(&ast, 2, SF_T_U64, SF_OP_GT, 10, &c), 0);
	assert_int_equal(sf_ast_not(&ast, c, &c), 0);
	ops[0] = a, ops[1] = b, ops[2] = c;
	assert_int_equal(sf_ast_chain(&ast, SF_N_OR, ops, 3, &root), 0);
	r.what = SF_R_SYSCALL, r.nr = READ, r.rhs = SF_RHS_EXPR, r.root = root;
	r.action = EBADF_, r.src = (uint16_t)src, r.line = 3;
	assert_int_equal(sf_ast_rule(&ast, &r), 0);
	memset(&r, 0, sizeof r);
	r.what = SF_R_DEFAULT, r.rhs = SF_RHS_ACTION, r.action = EPERM_;
	assert_int_equal(sf_ast_rule(&ast, &r), 0);
	r.what = SF_R_SYSCALL, r.nr = CLONE3, r.rhs = SF_RHS_RETURN, r.action = ENOSYS_;
	assert_int_equal(sf_ast_rule(&ast, &r), 0);
	r.what = SF_R_GROUP, r.nr = (uint16_t)(sf_group_lookup("@aio", 4) - sf_groups);
	r.rhs = SF_RHS_ALLOW;
	assert_int_equal(sf_ast_rule(&ast, &r), 0);
	/* @aio has io_uring_setup: a rule of its own says what rings may do */
	r.what = SF_R_SYSCALL, r.nr = IO_URING_SETUP, r.rhs = SF_RHS_ALLOW;
	assert_int_equal(sf_ast_rule(&ast, &r), 0);
	memset(&err, 0, sizeof err);
	assert_int_equal(sf_policy_apply_ast(NULL, &ast, &p, &err), 0);
	want = t_parse(NULL, "read: fd == 0 || fd == 1 || !(count > 10) else return EBADF\n"
			     "default: return EPERM; clone3: return ENOSYS; @aio: 1; io_uring_setup: 1");
	assert_string_equal(t_print(p), t_print(want));
	assert_string_equal(sf_filter_source(p, &p->filters[0]), "profile.json");
	assert_int_equal(p->filters[0].line, 3);
	t_expect_outcomes(p, "read(0x200000001, 0, 50) run; read(2, 0, 50) EBADF");
	sf_policy_free(p);
	/* an error at a rule of a tree without text: no excerpt, the place */
	r.what = SF_R_SYSCALL, r.nr = CLONE3, r.rhs = SF_RHS_ALLOW, r.line = 7, r.col = 2;
	assert_int_equal(sf_ast_rule(&ast, &r), 0);
	assert_int_equal(sf_policy_apply_ast(want, &ast, &p, &err), -EPERM);
	assert_null(p);
	assert_string_equal(err.text, "profile.json:7:2: error: sys_clone3 returns an error in the "
			    "running policy; its calls would run: the running policy can only be "
			    "narrowed\n");
	sf_policy_free(want);
	sf_ast_free(&ast);
}

/* A front end's tree is not trusted: whatever it holds, -EINVAL with a
 * message, never a crash. */
static void bad_trees_fail_closed(void **state)
{
	static const struct {
		struct sf_rule r;
		struct sf_node n;
		const char *why;
	} cases[] = {
		{ { .what = SF_R_SYSCALL, .nr = 600, .rhs = SF_RHS_ALLOW }, { 0 }, "syscall number" },
		{ { .what = SF_R_SYSCALL, .nr = 337, .rhs = SF_RHS_ALLOW }, { 0 }, "syscall number" },
		{ { .what = SF_R_GROUP, .nr = 999, .rhs = SF_RHS_ALLOW }, { 0 }, "no such group" },
		{ { .what = 9, .rhs = SF_RHS_ALLOW }, { 0 }, "a bad rule" },
		{ { .what = SF_R_SYSCALL, .rhs = 9 }, { 0 }, "a bad rule" },
		{ { .what = SF_R_SYSCALL, .rhs = SF_RHS_RETURN, .action = 0 }, { 0 },
		  "an action is kill, trap, log or an errno" },
		{ { .what = SF_R_SYSCALL, .rhs = SF_RHS_RETURN, .action = 0x2000 }, { 0 },
		  "an action is" },
		{ { .what = SF_R_SYSCALL, .rhs = SF_RHS_EXPR, .action = 0x1003 }, { 0 },
		  "else takes" },
		{ { .what = SF_R_SYSCALL, .rhs = SF_RHS_EXPR, .root = 5 }, { 0 }, "a bad expression" },
		{ { .what = SF_R_ALL, .rhs = SF_RHS_EXPR }, { 0 }, "a bad expression" },
		{ { .what = SF_R_DEFAULT, .rhs = SF_RHS_ACTION, .action = 0 }, { 0 }, "cannot have" },
		{ { .what = SF_R_DEFAULT, .rhs = SF_RHS_ALLOW }, { 0 }, "cannot have" },
		{ { .what = SF_R_ON_NEXT, .rhs = SF_RHS_RETURN, .action = 1 }, { 0 }, "cannot have" },
		{ { .what = SF_R_SYSCALL, .rhs = SF_RHS_EXPR }, { .kind = SF_N_NOT, .left = 1 },
		  "a child made after its parent" },
		{ { .what = SF_R_SYSCALL, .rhs = SF_RHS_EXPR }, { .kind = SF_N_OR, .left = 0, .right = 7 },
		  "a child made after its parent" },
		{ { .what = SF_R_SYSCALL, .rhs = SF_RHS_EXPR }, { .kind = 7 }, "a bad node" },
		{ { .what = SF_R_SYSCALL, .rhs = SF_RHS_EXPR }, { .kind = SF_N_PRED, .arg = 6 },
		  "a bad predicate" },
		{ { .what = SF_R_SYSCALL, .rhs = SF_RHS_EXPR },
		  { .kind = SF_N_PRED, .type = SF_T_U32, .value = 1ull << 40 }, "a bad predicate" },
		{ { .what = SF_R_SYSCALL, .rhs = SF_RHS_EXPR }, { .kind = SF_N_PRED, .op = 9 },
		  "a bad predicate" },
	};
	unsigned i, k;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sf_ast ast;
		struct sf_policy *p = (struct sf_policy *)1;
		struct sf_error err;
		uint32_t src, node;
		struct sf_node *slot;

		sf_ast_init(&ast);
		assert_int_equal(sf_ast_src(&ast, "x.json", NULL, 0, &src), 0);
		assert_int_equal(sf_ast_pred(&ast, 0, SF_T_U32, SF_OP_EQ, 1, &node), 0);
		slot = sf_vec_push(&ast.nodes, sizeof(*slot), 100);
		*slot = cases[i].n;
		if (cases[i].n.kind == 0 && cases[i].n.arg == 0 && cases[i].n.op == 0 &&
		    cases[i].n.type == 0 && cases[i].n.value == 0)
			ast.nodes.n--; /* no node of its own */
		assert_int_equal(sf_ast_rule(&ast, &cases[i].r), 0);
		memset(&err, 0, sizeof err);
		if (sf_policy_apply_ast(NULL, &ast, &p, &err) != -EINVAL)
			fail_msg("case %u accepted", i);
		assert_null(p);
		if (!strstr(err.text, "internal error: malformed policy tree") ||
		    !strstr(err.text, cases[i].why))
			fail_msg("case %u: %s", i, err.text);
		sf_ast_free(&ast);
	}
	/* too deep: a NOT over a NOT, 5000 times */
	{
		struct sf_ast ast;
		struct sf_policy *p;
		struct sf_error err;
		struct sf_rule r = { .what = SF_R_SYSCALL, .rhs = SF_RHS_EXPR };
		uint32_t src, node;

		sf_ast_init(&ast);
		assert_int_equal(sf_ast_src(&ast, "x.json", NULL, 0, &src), 0);
		assert_int_equal(sf_ast_pred(&ast, 0, SF_T_U32, SF_OP_EQ, 1, &node), 0);
		for (k = 0; k < 5000; k++)
			assert_int_equal(sf_ast_not(&ast, node, &node), 0);
		r.root = node;
		assert_int_equal(sf_ast_rule(&ast, &r), 0);
		memset(&err, 0, sizeof err);
		assert_int_equal(sf_policy_apply_ast(NULL, &ast, &p, &err), -EINVAL);
		assert_non_null(strstr(err.text, "too deep"));
		sf_ast_free(&ast);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(actions_last_writer),
		cmocka_unit_test(star_and_groups),
		cmocka_unit_test(narrowing_with_actions),
		cmocka_unit_test(tree_without_text),
		cmocka_unit_test(bad_trees_fail_closed),
		cmocka_unit_test(whole_or_nothing),
		cmocka_unit_test(widening_is_eperm_once_enforcing),
		cmocka_unit_test(allowed_again_is_not_widening),
		cmocka_unit_test(narrowing_appends_filters),
		cmocka_unit_test(zero_removes_and_drops_filters),
		cmocka_unit_test(star_is_every_syscall),
		cmocka_unit_test(index_table_only_when_needed),
		cmocka_unit_test(star_zero_then_allow_when_unfiltered),
		cmocka_unit_test(pending_policy_is_not_enforcing),
		cmocka_unit_test(sources_are_kept_per_filter),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
