/* Files and ports (language v3): the fs./net. rules' errors, how rules
 * accumulate and layer, their canonical text, and the enforcer against
 * a kernel simulated here (its ABI chosen per test), so that what it
 * asks of the kernel for each ABI is seen call by call. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <cmocka.h>

#include "internal.h"
#include "landlock.h"
#include "tsupport.h"

/* ---- the language ---- */

static void errors_point_at_the_culprit(void **state __attribute__((unused)))
{
	static const struct {
		const char *text;
		unsigned line, col;
		const char *message, *caret;
	} cases[] = {
		{ "read: 1\nfs.read: /usr usr/lib", 2, 15,
		  "relative path 'usr/lib': fs. paths are absolute", "^~~~~~~" },
		{ "fs.read: ./x", 1, 10, "relative path './x'", "^~~" },
		{ "fs.raed: /usr", 1, 1, "unknown rule 'fs.raed' (did you mean 'fs.read'?)", "^~~~~~~" },
		{ "fs.make_drr: /usr", 1, 1, "did you mean 'fs.make_dir'?", "^~~~~~~~~~~" },
		{ "net.conect: 80", 1, 1, "did you mean 'net.connect'?", NULL },
		{ "fs.xyzzy: /x", 1, 1, "unknown rule 'fs.xyzzy' (files: fs.read", NULL },
		{ "net.connect: 443 65536", 1, 18, "port 65536 is out of range (0 to 65535)", "^~~~~" },
		{ "net.bind: http", 1, 11, "expected a TCP port (0 to 65535), got 'http'", NULL },
		{ "net.bind: -1", 1, 11, "expected a TCP port", NULL },
		{ "net.bind:", 1, 10, "expected one or more TCP ports after 'net.bind:'", NULL },
		{ "fs.read:  # nothing", 1, 11, "expected one or more absolute paths after 'fs.read:'",
		  NULL },
		{ "fs.read: \"/a b", 1, 10, "unterminated quoted path", NULL },
		{ "fs.read: \"/a b\"c", 1, 16, "after a quoted path", NULL },
		{ "fs.read: \"\"", 1, 10, "an empty path", NULL },
		{ "fs.read /usr", 1, 9, "expected ':' after 'fs.read'", NULL },
		{ "landlock.layer: 2", 1, 17, "'landlock.layer' takes only 1", NULL },
	};
	unsigned i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sf_error e = t_parse_error(NULL, cases[i].text);
		char where[32];

		snprintf(where, sizeof(where), "t.conf:%u:%u: error: ", cases[i].line, cases[i].col);
		if (!strstr(e.text, where) || !strstr(e.text, cases[i].message) ||
		    (cases[i].caret && !strstr(e.text, cases[i].caret)))
			fail_msg("%s\ngave\n%s", cases[i].text, e.text);
		assert_int_equal(e.code, -EINVAL);
	}
}

/* The canonical spelling of a path's rights: shorthands that fit in
 * whole, then single rights; paths in byte order; ports in order. */
static void rights_print_canonically(void **state __attribute__((unused)))
{
	static const struct {
		const char *text, *printed;
	} cases[] = {
		{ "fs.read_file: /a; fs.read_dir: /a", "fs.read: /a\n" },
		{ "fs.exec: /a; fs.read: /a", "fs.read: /a\nfs.execute: /a\n" },
		{ "fs.exec: /b; fs.exec: /a", "fs.exec: /a /b\n" },
		{ "fs.write: /w; fs.truncate: /w", "fs.write: /w\n" },
		{ "fs.make_reg: /m; fs.write_file: /m; fs.read_dir: /m",
		  "fs.write_file: /m\nfs.read_dir: /m\nfs.make_reg: /m\n" },
		{ "net.connect: 443 80; net.bind: 80; net.connect: 80",
		  "net.bind: 80\nnet.connect: 80 443\n" },
		{ "fs.read: \"/a b\" /c\"d", "fs.read: \"/a b\" /c\"d\n" },
		{ "fs.read: /x; landlock.layer: 1; landlock.layer: 1",
		  "fs.read: /x\n" },
	};
	unsigned i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sf_policy *p = t_parse(NULL, cases[i].text);
		if (strcmp(t_print(p), cases[i].printed) != 0)
			fail_msg("%s\nprinted\n%s\nexpected\n%s", cases[i].text, t_print(p),
				 cases[i].printed);
		sf_policy_free(p);
	}
}

/* What the rule of path gives in layer, 0 when it has none. */
static uint64_t granted(const struct sf_policy *p, unsigned layer, const char *path)
{
	const struct sf_landlock *ll = p->landlock;
	uint32_t i;

	for (i = 0; ll && i < ll->nrules; i++)
		if (ll->rules[i].layer == layer && !ll->rules[i].net &&
		    strcmp(ll->strings + ll->rules[i].path, path) == 0)
			return ll->rules[i].access;
	return 0;
}

static void rules_accumulate_in_one_layer(void **state __attribute__((unused)))
{
	struct sf_policy *p = t_parse(NULL, "fs.read: /usr; *: 1; fs.exec: /usr/bin\n"
					    "fs.write: /tmp; fs.read: /usr /etc; net.bind: 80");

	assert_non_null(p->landlock);
	assert_int_equal(p->landlock->nlayers, 1);
	assert_int_equal(p->landlock->handles[0], SF_LL_FS | SF_LL_NET);
	assert_int_equal(p->landlock->nrules, 5);
	assert_true(granted(p, 0, "/usr") == (SF_FS_READ_FILE | SF_FS_READ_DIR));
	assert_true(granted(p, 0, "/usr/bin") == (SF_FS_EXECUTE | SF_FS_READ_FILE));
	assert_true(granted(p, 0, "/tmp") & SF_FS_TRUNCATE);
	sf_policy_free(p);
	/* no such rule: no block at all */
	p = t_parse(NULL, "*: 1");
	assert_null(p->landlock);
	sf_policy_free(p);
}

/* On an enforcing policy a text's rules are a layer of their own (only
 * narrowing); on a pending one, or none, they join the last layer. */
static void narrowing_adds_a_layer(void **state __attribute__((unused)))
{
	struct sf_policy *a = t_parse(NULL, "*: 1; fs.read: /usr /etc");
	struct sf_policy *b = t_parse(a, "fs.read: /usr/bin");
	struct sf_policy *c = t_parse(b, "net.connect: 443; ptrace: 0");
	struct sf_policy *d = t_parse(c, "getpid: 0");
	struct sf_policy *pend = t_parse(NULL, "on_next_syscall: 1; *: 1; fs.read: /usr");
	struct sf_policy *e = t_parse(pend, "fs.read: /etc");

	assert_int_equal(b->landlock->nlayers, 2);
	assert_true(granted(b, 0, "/usr") && granted(b, 1, "/usr/bin") && !granted(b, 1, "/usr"));
	assert_string_equal(t_print(b) + strlen(t_print(b)) -
				    strlen("fs.read: /etc /usr\nlandlock.layer: 1\nfs.read: /usr/bin\n"),
			    "fs.read: /etc /usr\nlandlock.layer: 1\nfs.read: /usr/bin\n");
	assert_int_equal(c->landlock->nlayers, 3);
	assert_int_equal(c->landlock->handles[2], SF_LL_NET);
	assert_int_equal(d->landlock->nlayers, 3); /* no such rule: no layer */
	assert_int_equal(e->landlock->nlayers, 1);
	assert_true(granted(e, 0, "/usr") && granted(e, 0, "/etc"));
	sf_policy_free(a);
	sf_policy_free(b);
	sf_policy_free(c);
	sf_policy_free(d);
	sf_policy_free(pend);
	sf_policy_free(e);
}

/* The fact an exec'd image trusts (SECFILTER_LANDLOCK): it says how many
 * of this policy's first layers are entered, and matches nothing else. */
static void the_entered_fact_names_its_layers(void **state __attribute__((unused)))
{
	struct sf_policy *a = t_parse(NULL, "*: 1; fs.read: /usr /etc");
	struct sf_policy *b = t_parse(a, "fs.read: /usr/bin");
	struct sf_policy *other = t_parse(NULL, "*: 1; fs.read: /usr");
	char fa[64], fb1[64], fb2[64];
	const size_t skip = sizeof SF_LL_FACT_VAR;
	const struct {
		const struct sf_policy *p;
		const char *value;
		unsigned want;
	} rows[] = {
		{ a, fa + skip, 1 },       /* the fact of a: all of a */
		{ b, fa + skip, 1 },       /* narrowed after: its first layer only */
		{ b, fb1 + skip, 1 },
		{ b, fb2 + skip, 2 },
		{ a, fb2 + skip, 0 },      /* more layers than a has */
		{ other, fa + skip, 0 },   /* another policy's layer */
		{ a, "b:0000000000000000", 0 },
		{ a, "q:", 0 },
		{ a, "", 0 },
		{ a, NULL, 0 },
	};
	unsigned i;
	size_t n = sf_ll_fact(a->landlock, 1, fa, sizeof fa);

	assert_int_equal(n, strlen(fa));
	sf_ll_fact(b->landlock, 1, fb1, sizeof fb1);
	sf_ll_fact(b->landlock, 2, fb2, sizeof fb2);
	assert_true(strncmp(fa, SF_LL_FACT_VAR "=b:", skip + 2) == 0);
	assert_string_equal(fa, fb1);
	for (i = 0; i < sizeof rows / sizeof rows[0]; i++)
		assert_int_equal(sf_ll_fact_entered(rows[i].p->landlock, rows[i].value),
				 rows[i].want);
	sf_policy_free(a);
	sf_policy_free(b);
	sf_policy_free(other);
}

static void layers_stop_at_the_kernels_limit(void **state __attribute__((unused)))
{
	struct sf_policy *p = t_parse(NULL, "*: 1; fs.read: /"), *q;
	struct sf_error e;
	unsigned i;

	for (i = 1; i < SF_LL_MAX_LAYERS; i++) {
		q = t_parse(p, "fs.read: /usr");
		sf_policy_free(p);
		p = q;
	}
	assert_int_equal(p->landlock->nlayers, SF_LL_MAX_LAYERS);
	e = t_parse_error(p, "fs.read: /usr");
	assert_int_equal(e.code, -E2BIG);
	assert_non_null(strstr(e.text, "more than 16 layers"));
	sf_policy_free(p);
}

/* ---- the enforcer, against a simulated kernel ---- */

#define MAX_CALLS 64

static struct kernel {
	int abi;                 /* 0: no Landlock */
	const char *dirs[4], *files[4];
	struct { long nr, a0, a1; uint64_t access, port; const char *path; } calls[MAX_CALLS];
	unsigned ncalls;
	uint64_t handled_fs[4], handled_net[4];
	unsigned nrulesets;
	const char *fd_path[64];
	int restrict_errno;      /* landlock_restrict_self fails with it */
	char warnings[2048];
} k;

static long fake_sys(long nr, long a0, long a1, long a2, long a3, long a4, long a5)
{
	unsigned i;

	(void)a3, (void)a4, (void)a5;
	assert_true(k.ncalls < MAX_CALLS);
	k.calls[k.ncalls].nr = nr;
	k.calls[k.ncalls].a0 = a0;
	k.calls[k.ncalls].a1 = a1;
	k.ncalls++;
	switch (nr) {
	case 444: /* landlock_create_ruleset */
		if (!k.abi)
			return -EOPNOTSUPP;
		if (a2 == 1)
			return k.abi;
		k.handled_fs[k.nrulesets] = ((const uint64_t *)a0)[0];
		k.handled_net[k.nrulesets] = ((const uint64_t *)a0)[1];
		k.fd_path[40 + k.nrulesets] = "<ruleset>";
		return 40 + k.nrulesets++;
	case 445: { /* landlock_add_rule */
		const uint64_t *attr = (const uint64_t *)a2;
		int32_t parent;
		memcpy(&parent, (const char *)a2 + 8, sizeof(parent));
		k.calls[k.ncalls - 1].access = attr[0];
		if (a1 == 1)
			k.calls[k.ncalls - 1].path = k.fd_path[parent];
		else
			k.calls[k.ncalls - 1].port = attr[1];
		return 0;
	}
	case 446: /* landlock_restrict_self */
		return k.restrict_errno ? -k.restrict_errno : 0;
	case SYS_openat:
		assert_int_equal(a2, O_PATH | O_CLOEXEC);
		/* the table's own string: the caller's goes with its policy */
		for (i = 0; i < 8; i++) {
			const char *known = i < 4 ? k.dirs[i] : k.files[i - 4];
			if (known && strcmp(known, (const char *)a1) == 0) {
				k.fd_path[10 + k.ncalls] = known;
				return 10 + k.ncalls;
			}
		}
		return -ENOENT;
	case SYS_fstat: {
		struct stat *st = (struct stat *)a1;
		memset(st, 0, sizeof(*st));
		st->st_mode = S_IFREG;
		for (i = 0; i < 4; i++)
			if (k.dirs[i] && strcmp(k.dirs[i], k.fd_path[a0]) == 0)
				st->st_mode = S_IFDIR;
		return 0;
	}
	case SYS_close: case SYS_prctl:
		return 0;
	}
	fail_msg("unexpected syscall %ld", nr);
	return -ENOSYS;
}

static void collect_warning(void *ctx, const char *msg)
{
	(void)ctx;
	strncat(k.warnings, msg, sizeof(k.warnings) - strlen(k.warnings) - 2);
	strcat(k.warnings, "\n");
}

static int enforce(const char *text, int abi, const struct sf_ll_extra *extra, unsigned nextra,
		   struct sf_error *err)
{
	struct sf_policy *p = t_parse(NULL, text);
	struct sf_ll_env env = { fake_sys, extra, nextra, collect_warning, NULL, 0 };
	int rc;

	memset(&k, 0, sizeof(k));
	k.abi = abi;
	k.dirs[0] = "/usr";
	k.dirs[1] = "/tmp/a";
	k.dirs[2] = "/";
	k.files[0] = "/usr/lib/libsecfilter.so";
	k.files[1] = "/etc/passwd";
	memset(err, 0, sizeof(*err));
	rc = sf_landlock_enforce(p->landlock, 0, &env, err);
	sf_policy_free(p);
	return rc;
}

/* The access the add_rule call for path asked for; ~0 when none. */
static uint64_t rule_for(const char *path)
{
	unsigned i;

	for (i = 0; i < k.ncalls; i++)
		if (k.calls[i].nr == 445 && k.calls[i].path && strcmp(k.calls[i].path, path) == 0)
			return k.calls[i].access;
	return ~0ull;
}

static unsigned count_calls(long nr)
{
	unsigned i, n = 0;

	for (i = 0; i < k.ncalls; i++)
		n += k.calls[i].nr == nr;
	return n;
}

static void enforcer_handles_every_right_of_the_abi(void **state __attribute__((unused)))
{
	static const struct sf_ll_extra lib[] = {
		{ "/usr/lib/libsecfilter.so", SF_FS_READ_FILE | SF_FS_EXECUTE },
		{ "/var/log/missing.log", SF_FS_WRITE_FILE },
	};
	struct sf_error err;

	assert_int_equal(enforce("fs.read: /usr /etc/passwd /nonexistent\nfs.write: /tmp/a\n"
				 "net.connect: 443", 7, lib, 2, &err), 0);
	assert_int_equal(k.nrulesets, 1);
	assert_true(k.handled_fs[0] == SF_FS_ALL);
	assert_true(k.handled_net[0] == (SF_NET_BIND | SF_NET_CONNECT));
	assert_true(rule_for("/usr") == (SF_FS_READ_FILE | SF_FS_READ_DIR));
	/* a file: the directory rights dropped, or the kernel says EINVAL */
	assert_true(rule_for("/etc/passwd") == SF_FS_READ_FILE);
	assert_true(rule_for("/tmp/a") & SF_FS_MAKE_REG);
	assert_true(rule_for("/usr/lib/libsecfilter.so") == (SF_FS_READ_FILE | SF_FS_EXECUTE));
	assert_non_null(strstr(k.warnings, "t.conf:1: warning: '/nonexistent' cannot be opened "
				  "(No such file or directory): skipped"));
	assert_null(strstr(k.warnings, "missing.log")); /* secfilter's own: silently */
	assert_int_equal(count_calls(446), 1);
	assert_int_equal(count_calls(SYS_prctl), 1);
}

/* A layer of net. rules only handles no file-system right, and gets
 * none of secfilter's own file rules. */
static void a_net_layer_handles_no_files(void **state __attribute__((unused)))
{
	static const struct sf_ll_extra lib[] = { { "/usr/lib/libsecfilter.so", SF_FS_READ_FILE } };
	struct sf_error err;

	assert_int_equal(enforce("net.bind: 8080", 7, lib, 1, &err), 0);
	assert_true(k.handled_fs[0] == 0);
	assert_true(rule_for("/usr/lib/libsecfilter.so") == ~0ull);
	assert_int_equal(count_calls(445), 1);
	{
		unsigned i;
		for (i = 0; k.calls[i].nr != 445; i++)
			;
		assert_int_equal(k.calls[i].port, 8080);
		assert_int_equal(k.calls[i].a1, 2); /* LANDLOCK_RULE_NET_PORT */
	}
}

static void each_layer_is_a_ruleset(void **state __attribute__((unused)))
{
	static const struct sf_ll_extra lib[] = { { "/usr/lib/libsecfilter.so", SF_FS_READ_FILE } };
	struct sf_error err;

	assert_int_equal(enforce("fs.read: /usr; landlock.layer: 1; fs.read: /tmp/a", 7, lib, 1,
				 &err), 0);
	assert_int_equal(k.nrulesets, 2);
	assert_int_equal(count_calls(446), 2);
	/* the library in both: an access needs every layer's grant */
	assert_int_equal(count_calls(445), 4);
}

/* What the policy restricts and the kernel cannot: an error at load
 * that names it, before anything is created. */
static void old_kernels_refuse_what_they_cannot_restrict(void **state __attribute__((unused)))
{
	static const struct {
		const char *text;
		int abi, ok;
		const char *message;
	} cases[] = {
		{ "fs.read: /usr", 0, 0, "no Landlock" },
		{ "net.connect: 443", 3, 0, "net. rules need Landlock ABI 4" },
		{ "fs.read: /usr", 2, 0, "fs.truncate: the policy's fs. rules restrict it, and the "
					 "running kernel's Landlock (ABI 2) cannot (ABI 3 can)" },
		{ "fs.read: /usr; fs.truncate: /", 4, 0, "fs.ioctl_dev: " },
		{ "fs.read: /usr; fs.refer: /tmp/a", 1, 0, "fs.refer: " },
		{ "fs.read: /usr; fs.truncate: /; fs.ioctl_dev: /", 4, 1, NULL },
		{ "fs.read: /usr; fs.truncate: /; fs.ioctl_dev: /; fs.refer: /", 1, 1, NULL },
		{ "net.connect: 443", 4, 1, NULL },
	};
	struct sf_error err;
	unsigned i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = enforce(cases[i].text, cases[i].abi, NULL, 0, &err);
		if (cases[i].ok) {
			if (rc)
				fail_msg("%s on ABI %d: %s", cases[i].text, cases[i].abi, err.text);
			continue;
		}
		assert_int_equal(rc, -EOPNOTSUPP);
		if (!strstr(err.text, cases[i].message))
			fail_msg("%s on ABI %d:\n%s", cases[i].text, cases[i].abi, err.text);
		assert_int_equal(k.nrulesets, 0);
		assert_int_equal(count_calls(446), 0);
	}
	/* what an old kernel handles, and no right beyond it in a rule */
	assert_int_equal(enforce("fs.read: /usr; fs.truncate: /; fs.ioctl_dev: /", 3, NULL, 0,
				 &err), 0);
	assert_true(k.handled_fs[0] == ((SF_FS_MAKE_SYM * 2 - 1) | SF_FS_REFER | SF_FS_TRUNCATE));
	assert_true(rule_for("/") == SF_FS_TRUNCATE);
}

static void a_failed_restriction_is_an_error(void **state __attribute__((unused)))
{
	struct sf_error err;

	memset(&k, 0, sizeof(k));
	k.restrict_errno = EPERM;
	{
		struct sf_policy *p = t_parse(NULL, "net.bind: 1");
		struct sf_ll_env env = { fake_sys, NULL, 0, collect_warning, NULL, 0 };
		k.abi = 7;
		assert_int_equal(sf_landlock_enforce(p->landlock, 0, &env, &err), -EPERM);
		assert_non_null(strstr(err.text, "cannot enforce the Landlock ruleset: Operation not permitted"));
		assert_int_equal(count_calls(SYS_close), 1); /* the ruleset */
		sf_policy_free(p);
	}
}

/* The log flags reach landlock_restrict_self only where the ABI has them
 * (7): an older kernel refuses unknown flags with EINVAL. */
static void log_flags_follow_the_abi(void **state __attribute__((unused)))
{
	static const int abis[] = { 6, 7 };
	unsigned i, j;

	for (i = 0; i < 2; i++) {
		struct sf_policy *p = t_parse(NULL, "net.bind: 1");
		struct sf_ll_env env = { fake_sys, NULL, 0, collect_warning, NULL,
					 SF_LL_LOG_NEW_EXEC_ON };
		struct sf_error err;
		long flags = -1;

		memset(&k, 0, sizeof(k));
		k.abi = abis[i];
		assert_int_equal(sf_landlock_enforce(p->landlock, 0, &env, &err), 0);
		for (j = 0; j < k.ncalls; j++)
			if (k.calls[j].nr == 446)
				flags = k.calls[j].a1;
		assert_int_equal(flags, abis[i] >= 7 ? (long)SF_LL_LOG_NEW_EXEC_ON : 0);
		sf_policy_free(p);
	}
}

static void report(const struct sf_policy *p, const struct sf_ll_denial *d, const char *want)
{
	char buf[1024];
	struct sf_out o = { buf, sizeof(buf), 0 };
	int r = sf_ll_report(&o, p->landlock, d);

	sf_out_end(&o);
	if (want ? !r || strcmp(buf, want) != 0 : r)
		fail_msg("got\n%s\nwanted\n%s", r ? buf : "(nothing)", want ? want : "(nothing)");
}

/* Reports of denials as rows: the policy, the denial as its witness
 * knows it, the text (NULL: none of ours to report).  One text whoever
 * saw the denial, what it does not know said as unknown; the rule line
 * names a rule of the right that grants it elsewhere, or says none does;
 * a path shown as given and, when Landlock checked another (relative, a
 * link), that one too; an interpreter's denial names what the exec ran. */
#define LL_P "*: 1\nfs.read: /\nfs.write: /tmp/a\nnet.connect: 53"
#define LL_Q "*: 1\nfs.read: /\nfs.write: /tmp/a\nfs.exec: /usr/bin/echo\nnet.bind: 80"
static const struct {
	const char *policy;
	struct sf_ll_denial d;
	const char *want;
} denials[] = {
	{ LL_P,
	  { .comm = "cp", .pid = 1234, .nr = SYS_openat, .given = "../b/x", .path = "/tmp/b/x",
	    .at_len = 6, .right = SF_FS_MAKE_REG },
	  "cp[1234]: openat denied by Landlock: \"../b/x\" (/tmp/b/x) needs fs.make_reg\n"
	  "    rule: fs.write (t.conf:3) does not grant it here\n    add: fs.write: /tmp/b\n" },
	{ LL_P, { .nr = -1, .path = "/tmp/b", .at_len = 6, .right = SF_FS_MAKE_REG },
	  "?[?]: a call denied by Landlock: /tmp/b needs fs.make_reg\n"
	  "    rule: fs.write (t.conf:3) does not grant it here\n    add: fs.write: /tmp/b\n" },
	{ LL_P, { .comm = "py", .pid = 7, .nr = SYS_connect, .right = SF_NET_CONNECT, .port = 9 },
	  "py[7]: connect denied by Landlock: TCP port 9\n"
	  "    rule: net.connect (t.conf:4) does not grant it here\n    add: net.connect: 9\n" },
	/* a denial the policy's layers do not explain: none of ours */
	{ LL_P,
	  { .comm = "cp", .pid = 1, .nr = SYS_openat, .given = "/tmp/a/x", .path = "/tmp/a/x",
	    .at_len = 6, .right = SF_FS_MAKE_REG },
	  NULL },
	{ LL_Q,
	  { .comm = "sh", .pid = 5, .nr = SYS_execve, .given = "/bin/cat", .path = "/usr/bin/cat",
	    .at_len = 12, .right = SF_FS_EXECUTE },
	  "sh[5]: execve denied by Landlock: \"/bin/cat\" (/usr/bin/cat) needs fs.execute\n"
	  "    rule: fs.exec (t.conf:4) does not grant it here\n    add: fs.exec: /usr/bin/cat\n" },
	{ LL_Q,
	  { .comm = "sh", .pid = 5, .nr = SYS_execve, .given = "/lib64/ld-linux-x86-64.so.2",
	    .path = "/usr/lib/ld.so", .at_len = 14, .right = SF_FS_EXECUTE, .exec = "/bin/echo" },
	  "sh[5]: execve denied by Landlock: \"/lib64/ld-linux-x86-64.so.2\" (/usr/lib/ld.so), the "
	  "interpreter of \"/bin/echo\", needs fs.execute\n"
	  "    rule: fs.exec (t.conf:4) does not grant it here\n    add: fs.exec: /usr/lib/ld.so\n" },
	/* the exec's later files denied the same right: one add: line */
	{ LL_P,
	  { .comm = "sh", .pid = 5, .nr = SYS_execve, .given = "/bin/cat", .path = "/usr/bin/cat",
	    .at_len = 12, .right = SF_FS_EXECUTE, .more = "/usr/lib/ld.so" },
	  "sh[5]: execve denied by Landlock: \"/bin/cat\" (/usr/bin/cat) needs fs.execute\n"
	  "    rule: no fs.exec rule, and the fs. rules (t.conf:2) deny what none grants\n"
	  "    add: fs.exec: /usr/bin/cat /usr/lib/ld.so\n" },
	{ LL_Q, { .comm = "py", .pid = 7, .nr = SYS_connect, .right = SF_NET_CONNECT, .port = 9 },
	  "py[7]: connect denied by Landlock: TCP port 9\n"
	  "    rule: no net.connect rule, and the net. rules (t.conf:5) deny what none grants\n"
	  "    add: net.connect: 9\n" },
};

static void denials_report_as_their_rows_say(void **state __attribute__((unused)))
{
	unsigned i;

	for (i = 0; i < sizeof denials / sizeof denials[0]; i++) {
		struct sf_policy *p = t_parse(NULL, denials[i].policy);

		report(p, &denials[i].d, denials[i].want);
		sf_policy_free(p);
	}
}

/* The add: line alone, for log mode's summary. */
static void the_fix_is_the_reports_add_line(void **state __attribute__((unused)))
{
	struct sf_policy *p = t_parse(NULL, LL_P);
	char fix[64];
	struct sf_out o = { fix, sizeof(fix), 0 };

	assert_int_equal(sf_ll_fix(&o, p->landlock, &denials[1].d), 1);
	sf_out_end(&o);
	assert_string_equal(fix, "fs.write: /tmp/b");
	sf_policy_free(p);
}

static void the_kernels_blocker_names_are_rights(void **state __attribute__((unused)))
{
	int net = -1;

	assert_true(sf_ll_right_of("fs.make_reg", 11, &net) == SF_FS_MAKE_REG && net == 0);
	assert_true(sf_ll_right_of("fs.ioctl_dev,x", 12, &net) == SF_FS_IOCTL_DEV);
	assert_true(sf_ll_right_of("net.connect_tcp", 15, &net) == SF_NET_CONNECT && net == 1);
	assert_true(sf_ll_right_of("net.bind_tcp", 12, &net) == SF_NET_BIND && net == 1);
	/* a shorthand of the language is no kernel right */
	assert_true(sf_ll_right_of("fs.write", 8, &net) == 0);
	assert_true(sf_ll_right_of("scope.signal", 12, &net) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(errors_point_at_the_culprit),
		cmocka_unit_test(rights_print_canonically),
		cmocka_unit_test(rules_accumulate_in_one_layer),
		cmocka_unit_test(narrowing_adds_a_layer),
		cmocka_unit_test(the_entered_fact_names_its_layers),
		cmocka_unit_test(layers_stop_at_the_kernels_limit),
		cmocka_unit_test(enforcer_handles_every_right_of_the_abi),
		cmocka_unit_test(a_net_layer_handles_no_files),
		cmocka_unit_test(each_layer_is_a_ruleset),
		cmocka_unit_test(old_kernels_refuse_what_they_cannot_restrict),
		cmocka_unit_test(a_failed_restriction_is_an_error),
		cmocka_unit_test(log_flags_follow_the_abi),
		cmocka_unit_test(denials_report_as_their_rows_say),
		cmocka_unit_test(the_fix_is_the_reports_add_line),
		cmocka_unit_test(the_kernels_blocker_names_are_rights),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
