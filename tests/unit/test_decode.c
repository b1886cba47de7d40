/* Arguments decoded by their hints (args.tbl), the rule that permits
 * observed calls, and reading such rules back: every suggestion parses,
 * permits each call it was made from, and survives a round trip. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "decode.h"
#include "eval.h"
#include "tsupport.h"
#include "vreport.h"

enum { READ = 0, WRITE = 1, MMAP = 9, MPROTECT = 10, IOCTL = 16, SOCKET = 41,
       CLONE = 56, KILL = 62, FCNTL = 72, PRCTL = 157, SETSOCKOPT = 54,
       OPENAT = 257, NEWFSTATAT = 262 };

static const char *arg_text(long nr, unsigned arg, uint64_t a0, uint64_t a1, uint64_t a2,
			    uint64_t a3)
{
	static char buf[512];
	uint64_t a[6] = { a0, a1, a2, a3, 0, 0 };
	struct sf_out o = { buf, sizeof buf, 0 };

	sf_decode_arg(&o, nr, arg, a);
	sf_out_end(&o);
	return buf;
}

static void arguments_by_their_hints(void **state)
{
	(void)state;
	assert_string_equal(arg_text(OPENAT, 2, 0, 0, 0x241, 0), "O_WRONLY|O_CREAT|O_TRUNC (0x241)");
	assert_string_equal(arg_text(OPENAT, 2, 0, 0, 0x80000, 0), "O_RDONLY|O_CLOEXEC (0x80000)");
	assert_string_equal(arg_text(OPENAT, 2, 0, 0, 0x101002, 0), "O_RDWR|O_SYNC (0x101002)");
	/* a bit no constant names stays, in hex */
	assert_string_equal(arg_text(OPENAT, 2, 0, 0, 0x40000000, 0),
			    "O_RDONLY|0x40000000 (0x40000000)");
	assert_string_equal(arg_text(OPENAT, 0, (uint64_t)-100, 0, 0, 0), "AT_FDCWD (-100)");
	assert_string_equal(arg_text(OPENAT, 0, 3, 0, 0, 0), "3");
	assert_string_equal(arg_text(OPENAT, 3, 0, 0, 0, 0644), "0644");
	assert_string_equal(arg_text(OPENAT, 1, 0, 0x7ffd1000, 0, 0), "0x7ffd1000");
	assert_string_equal(arg_text(SOCKET, 0, 1, 0, 0, 0), "AF_UNIX (1)");
	assert_string_equal(arg_text(SOCKET, 1, 0, 0x80001, 0, 0),
			    "SOCK_STREAM|SOCK_CLOEXEC (0x80001)");
	assert_string_equal(arg_text(MMAP, 2, 0, 0, 5, 0), "PROT_READ|PROT_EXEC (0x5)");
	assert_string_equal(arg_text(MMAP, 2, 0, 0, 0, 0), "PROT_NONE (0x0)");
	assert_string_equal(arg_text(CLONE, 0, 0x1200011, 0, 0, 0),
			    "SIGCHLD|CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID (0x1200011)");
	assert_string_equal(arg_text(KILL, 1, 0, 15, 0, 0), "SIGTERM (15)");
	assert_string_equal(arg_text(FCNTL, 1, 0, 2, 0, 0), "F_SETFD (2)");
	assert_string_equal(arg_text(IOCTL, 1, 0, 0x5413, 0, 0), "TIOCGWINSZ (21523)");
	/* setsockopt's optname is an SO_* at level SOL_SOCKET only */
	assert_string_equal(arg_text(SETSOCKOPT, 2, 3, 1, 2, 0), "SO_REUSEADDR (2)");
	assert_string_equal(arg_text(SETSOCKOPT, 2, 3, 6, 1, 0), "TCP_NODELAY (1)");
	assert_string_equal(arg_text(SETSOCKOPT, 2, 3, 41, 26, 0), "IPV6_V6ONLY (26)");
	assert_string_equal(arg_text(SETSOCKOPT, 2, 3, 0, 1, 0), "IP_TOS (1)");
	assert_string_equal(arg_text(SETSOCKOPT, 2, 3, 17, 1, 0), "1"); /* UDP: no names */
	/* no hint: by type */
	assert_string_equal(arg_text(READ, 2, 0, 0, 100000, 0), "0x186a0");
}

static const char *str_text(const char *s, size_t n, int trunc)
{
	static char buf[256];
	struct sf_out o = { buf, sizeof buf, 0 };

	sf_decode_string(&o, s, n, trunc);
	sf_out_end(&o);
	return buf;
}

static const char *sa_text(const void *sa, size_t n)
{
	static char buf[256];
	struct sf_out o = { buf, sizeof buf, 0 };

	sf_decode_sockaddr(&o, sa, n);
	sf_out_end(&o);
	return buf;
}

static void strings_and_addresses(void **state)
{
	static const unsigned char un[] = { 1, 0, '/', 'r', 'u', 'n', 0, 'x' };
	static const unsigned char abs_un[] = { 1, 0, 0, 'a', 'b' };
	static const unsigned char in4[] = { 2, 0, 0, 80, 127, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0 };
	unsigned char in6[28] = { 10, 0, 1, 187 };

	(void)state;
	assert_string_equal(str_text("/etc/passwd", 11, 0), "\"/etc/passwd\"");
	assert_string_equal(str_text("a\"b\n\x01", 5, 1), "\"a\\\"b\\n\\x01\"...");
	assert_string_equal(sa_text(un, sizeof un), "{AF_UNIX, \"/run\"}");
	assert_string_equal(sa_text(abs_un, sizeof abs_un), "{AF_UNIX, @\"ab\"}");
	assert_string_equal(sa_text(in4, sizeof in4), "{AF_INET, 127.0.0.1:80}");
	in6[8 + 15] = 1;
	assert_string_equal(sa_text(in6, sizeof in6), "{AF_INET6, [::1]:443}");
	in6[8] = 0x20;
	in6[9] = 0x01;
	assert_string_equal(sa_text(in6, sizeof in6), "{AF_INET6, [2001::1]:443}");
}

/* The rule for calls, checked: it parses, and permits each call. */
static const char *suggest(long nr, enum sf_argmode mode, const uint64_t (*calls)[6], unsigned n)
{
	static char buf[1024];
	char text[1200];
	struct sf_out o = { buf, sizeof buf, 0 };
	const struct sf_syscall *sc = sf_syscall_by_nr(nr);
	struct sf_obs obs;
	struct sf_policy *p;
	unsigned i;

	sf_obs_init(&obs);
	for (i = 0; i < n; i++)
		sf_obs_add(&obs, nr, calls[i]);
	sf_suggest(&o, nr, &obs, mode);
	sf_out_end(&o);
	snprintf(text, sizeof text, "sys_%s: %s", sc->name, buf);
	p = t_parse(NULL, text);
	for (i = 0; i < n; i++)
		assert_int_equal(sf_decide(p, (uint64_t)nr, calls[i]), SF_ALLOW);
	sf_policy_free(p);
	return buf;
}

static void suggestions(void **state)
{
	static const uint64_t ro[][6] = { { (uint64_t)-100, 0, 0x80000 },
					  { (uint64_t)-100, 0, 0x90800 } };
	static const uint64_t rw[][6] = { { (uint64_t)-100, 0, 0x80000 },
					  { (uint64_t)-100, 0, 0x241 } };
	static const uint64_t relative[][6] = { { 3, 0, 0 } };
	static const uint64_t sock[][6] = { { 1, 0x80001, 0 } };
	static const uint64_t socks[][6] = { { 1, 0x80001, 0 }, { 2, 2, 0 } };
	static const uint64_t wr[][6] = { { 1 }, { 2 } };
	static const uint64_t wr3[][6] = { { 1 }, { 4 } };
	static const uint64_t maps[][6] = { { 0, 4096, 1, 2 }, { 0, 4096, 5, 2 }, { 0, 4096, 3, 0x22 } };
	static const uint64_t jit[][6] = { { 0, 4096, 7, 0x22 } };
	static const uint64_t forks[][6] = { { 0x1200011 } };
	static const uint64_t pr[][6] = { { 15 }, { 38 } };
	static const struct {
		long nr;
		enum sf_argmode mode;
		const uint64_t (*calls)[6];
		unsigned n;
		const char *want;
	} cases[] = {
		{ OPENAT, SF_ARGS_AUTO, ro, 2,
		  "dfd == AT_FDCWD && !(flags & (O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND))" },
		{ OPENAT, SF_ARGS_AUTO, rw, 2, "dfd == AT_FDCWD && !(flags & (O_RDWR|O_APPEND))" },
		{ OPENAT, SF_ARGS_AUTO, relative, 1,
		  "!(flags & (O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND))" },
		{ OPENAT, SF_ARGS_STRICT, ro, 2,
		  "dfd == AT_FDCWD && (flags == O_RDONLY|O_CLOEXEC || "
		  "flags == O_RDONLY|O_NONBLOCK|O_DIRECTORY|O_CLOEXEC)" },
		{ OPENAT, SF_ARGS_NONE, ro, 2, "1" },
		{ SOCKET, SF_ARGS_AUTO, sock, 1, "family == AF_UNIX && type == SOCK_STREAM|SOCK_CLOEXEC" },
		{ SOCKET, SF_ARGS_AUTO, socks, 2,
		  "(family == AF_UNIX || family == AF_INET) && "
		  "(type == SOCK_DGRAM || type == SOCK_STREAM|SOCK_CLOEXEC)" },
		{ WRITE, SF_ARGS_AUTO, wr, 2, "fd == 1 || fd == 2" },
		{ WRITE, SF_ARGS_AUTO, wr3, 2, "1" },
		{ WRITE, SF_ARGS_STRICT, wr3, 2, "fd == 1 || fd == 4" },
		{ MMAP, SF_ARGS_AUTO, maps, 3, "!(prot & PROT_WRITE) || !(prot & PROT_EXEC)" },
		{ MMAP, SF_ARGS_AUTO, maps, 1, "!(prot & PROT_EXEC)" },
		{ MMAP, SF_ARGS_AUTO, jit, 1, "1" },
		{ MMAP, SF_ARGS_STRICT, maps, 3,
		  "(prot == PROT_READ || prot == PROT_READ|PROT_WRITE || "
		  "prot == PROT_READ|PROT_EXEC) && "
		  "(flags == MAP_PRIVATE || flags == MAP_PRIVATE|MAP_ANONYMOUS)" },
		{ CLONE, SF_ARGS_AUTO, forks, 1,
		  "clone_flags == SIGCHLD|CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID" },
		{ PRCTL, SF_ARGS_AUTO, pr, 2, "option == PR_SET_NAME || option == PR_SET_NO_NEW_PRIVS" },
	};
	char buf[64];
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = suggest(cases[i].nr, cases[i].mode, cases[i].calls, cases[i].n);

		if (strcmp(got, cases[i].want) != 0)
			fail_msg("case %u: want %s\ngot %s", i, cases[i].want, got);
	}
	/* more values than an enum list takes: no filter, but still valid */
	{
		uint64_t many[12][6];
		memset(many, 0, sizeof many);
		for (i = 0; i < 12; i++)
			many[i][0] = 1 + i;
		assert_string_equal(suggest(PRCTL, SF_ARGS_AUTO, (const uint64_t(*)[6])many, 12), "1");
	}
	snprintf(buf, sizeof buf, "%s", suggest(NEWFSTATAT, SF_ARGS_AUTO, relative, 1));
	assert_string_equal(buf, "1");
}

/* setsockopt's (level, optname): one rule for the pairs the calls made,
 * which parses, permits them and no other pair, and reads back into the
 * same pairs, also from other shapes of the rule. */
static void pairs(void **state)
{
	enum { SOL = 1, TCP = 6, IP6 = 41 };
	static const struct {
		enum sf_argmode mode;
		unsigned n;
		uint64_t calls[3][6];
		const char *rule;
	} cases[] = {
		{ SF_ARGS_AUTO, 2, { { 3, SOL, 2 }, { 3, TCP, 1 } },
		  "level == SOL_SOCKET && optname == SO_REUSEADDR || "
		  "level == IPPROTO_TCP && optname == TCP_NODELAY" },
		{ SF_ARGS_AUTO, 3, { { 3, IP6, 26 }, { 4, SOL, 2 }, { 3, SOL, 9 } },
		  "level == SOL_SOCKET && optname == SO_REUSEADDR || level == SOL_SOCKET && "
		  "optname == SO_KEEPALIVE || level == IPPROTO_IPV6 && optname == IPV6_V6ONLY" },
		/* one pair: the two filters, named by its level */
		{ SF_ARGS_AUTO, 1, { { 3, TCP, 1 } }, "level == IPPROTO_TCP && optname == TCP_NODELAY" },
		{ SF_ARGS_STRICT, 2, { { 3, SOL, 2, 0, 4 }, { 3, TCP, 1, 0, 4 } },
		  "level == SOL_SOCKET && optname == SO_REUSEADDR || "
		  "level == IPPROTO_TCP && optname == TCP_NODELAY" },
		{ SF_ARGS_NONE, 2, { { 3, SOL, 2 }, { 3, TCP, 1 } }, "1" },
	};
	static const uint64_t cross[6] = { 3, SOL, 1 }; /* SO_DEBUG: TCP_NODELAY's number */
	unsigned i, k;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char buf[512], text[600], again[512];
		struct sf_out o = { buf, sizeof buf, 0 }, o2 = { again, sizeof again, 0 };
		struct sf_obs obs, back;
		struct sf_pairs pp, pback;
		struct sf_policy *p;

		sf_obs_init(&obs);
		memset(&pp, 0, sizeof pp);
		for (k = 0; k < cases[i].n; k++) {
			sf_obs_add(&obs, SETSOCKOPT, cases[i].calls[k]);
			sf_pairs_add(&pp, SETSOCKOPT, cases[i].calls[k]);
		}
		sf_suggest_pairs(&o, SETSOCKOPT, &obs, &pp, cases[i].mode);
		sf_out_end(&o);
		assert_string_equal(buf, cases[i].rule);
		snprintf(text, sizeof text, "sys_setsockopt: %s", buf);
		p = t_parse(NULL, text);
		for (k = 0; k < cases[i].n; k++)
			assert_int_equal(sf_decide(p, SETSOCKOPT, cases[i].calls[k]), SF_ALLOW);
		if (cases[i].mode != SF_ARGS_NONE)
			assert_int_not_equal(sf_decide(p, SETSOCKOPT, cross), SF_ALLOW);
		assert_int_equal(sf_obs_of_filters(&back, p, SETSOCKOPT), 1);
		sf_pairs_of_filters(&pback, p, SETSOCKOPT, &back);
		assert_int_equal(pback.many, cases[i].mode == SF_ARGS_NONE);
		sf_suggest_pairs(&o2, SETSOCKOPT, &back, &pback, cases[i].mode);
		sf_out_end(&o2);
		assert_string_equal(again, cases[i].rule);
		sf_policy_free(p);
	}
	{
		/* each argument filtered apart (as learn once wrote): every
		 * pair of their values */
		struct sf_policy *p = t_parse(NULL, "sys_setsockopt: level == SOL_SOCKET && "
						    "(optname == SO_REUSEADDR || optname == SO_KEEPALIVE)");
		struct sf_obs back;
		struct sf_pairs pback;
		char buf[512];
		struct sf_out o = { buf, sizeof buf, 0 };

		assert_int_equal(sf_obs_of_filters(&back, p, SETSOCKOPT), 1);
		sf_pairs_of_filters(&pback, p, SETSOCKOPT, &back);
		assert_int_equal(pback.n, 2);
		sf_suggest_pairs(&o, SETSOCKOPT, &back, &pback, SF_ARGS_AUTO);
		sf_out_end(&o);
		assert_string_equal(buf, "level == SOL_SOCKET && optname == SO_REUSEADDR || "
					 "level == SOL_SOCKET && optname == SO_KEEPALIVE");
		sf_policy_free(p);
	}
	{
		/* without pairs, several levels: option names as numbers,
		 * which no level's constants would misname */
		static const uint64_t two[][6] = { { 3, SOL, 2 }, { 3, TCP, 1 } };
		assert_string_equal(suggest(SETSOCKOPT, SF_ARGS_AUTO, two, 2),
				    "(level == SOL_SOCKET || level == IPPROTO_TCP) && "
				    "(optname == 1 || optname == 2)");
		assert_string_equal(suggest(SETSOCKOPT, SF_ARGS_AUTO, two + 1, 1),
				    "level == IPPROTO_TCP && optname == TCP_NODELAY");
	}
}

/* A suggested rule read back gives an observation that suggests the same
 * rule; merging it with new calls widens it just enough. */
static void read_back_and_merge(void **state)
{
	static const struct {
		const char *rule;
		int ok;
	} cases[] = {
		{ "sys_openat: dfd == AT_FDCWD && !(flags & (O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND))", 1 },
		{ "sys_socket: (family == AF_UNIX || family == AF_INET) && type == SOCK_STREAM", 1 },
		{ "sys_mmap: !(prot & PROT_WRITE) || !(prot & PROT_EXEC)", 1 },
		{ "sys_mmap: !(prot & PROT_EXEC)", 1 },
		{ "sys_write: fd == 1 || fd == 2", 1 },
		{ "sys_write: 1", 1 },
		/* not ours: a flag that is not risky, a range, an else */
		{ "sys_openat: !(flags & O_NOFOLLOW)", 0 },
		{ "sys_write: fd < 3", 0 },
		{ "sys_write: fd == 1 else return EPERM", 0 },
		{ "sys_write: return EPERM", 0 },
	};
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct sf_policy *p = t_parse(NULL, cases[i].rule);
		const char *colon = strchr(cases[i].rule, ':');
		char name[32], buf[512];
		const struct sf_syscall *sc;
		struct sf_out o = { buf, sizeof buf, 0 };
		struct sf_obs obs;

		snprintf(name, sizeof name, "%.*s", (int)(colon - cases[i].rule), cases[i].rule);
		sc = sf_syscall_lookup(name, strlen(name));
		assert_non_null(sc);
		assert_int_equal(sf_obs_of_filters(&obs, p, sc->nr), cases[i].ok);
		if (cases[i].ok) {
			sf_suggest(&o, sc->nr, &obs, SF_ARGS_AUTO);
			sf_out_end(&o);
			assert_string_equal(buf, colon + 2);
		}
		sf_policy_free(p);
	}
	{
		/* a read-only policy merged with a run that writes */
		static const uint64_t w[6] = { (uint64_t)-100, 0, 0x241 };
		struct sf_policy *p = t_parse(NULL, cases[0].rule);
		struct sf_obs old, add;
		char buf[512];
		struct sf_out o = { buf, sizeof buf, 0 };

		assert_int_equal(sf_obs_of_filters(&old, p, OPENAT), 1);
		sf_obs_init(&add);
		sf_obs_add(&add, OPENAT, w);
		sf_obs_merge(&old, &add);
		sf_suggest(&o, OPENAT, &old, SF_ARGS_AUTO);
		sf_out_end(&o);
		assert_string_equal(buf, "dfd == AT_FDCWD && !(flags & (O_RDWR|O_APPEND))");
		sf_policy_free(p);
	}
	{
		/* a filter the mode would not write is kept, widened */
		static const uint64_t c[6] = { 2 };
		struct sf_policy *p = t_parse(NULL, "rt_sigaction: sig == SIGINT");
		struct sf_obs old, add;
		char buf[512];
		struct sf_out o = { buf, sizeof buf, 0 };

		assert_int_equal(sf_obs_of_filters(&old, p, 13), 1);
		sf_obs_init(&add);
		sf_obs_add(&add, 13, c);
		sf_obs_add(&add, 13, (const uint64_t[6]){ 15 });
		sf_obs_merge(&old, &add);
		sf_suggest(&o, 13, &old, SF_ARGS_AUTO);
		sf_out_end(&o);
		assert_string_equal(buf, "sig == SIGINT || sig == SIGTERM");
		sf_policy_free(p);
	}
}

static void observations_as_text(void **state)
{
	static const uint64_t calls[][6] = { { 1, 0x80001, 0 }, { 2, 2, 0 }, { 1, 0x80001, 0 } };
	struct sf_obs o, back;
	char buf[1024];
	struct sf_out out = { buf, sizeof buf, 0 };
	unsigned i;

	(void)state;
	sf_obs_init(&o);
	for (i = 0; i < 3; i++)
		sf_obs_add(&o, SOCKET, calls[i]);
	sf_argobs_any(&o.a[4]);
	sf_obs_format(&out, &o);
	sf_out_end(&out);
	assert_string_equal(buf, "3 0:3:1,2 0:80003:80001,2 0:0:0 0:0 3:ffffffffffffffff 0:0");
	assert_int_equal(sf_obs_parse(&back, buf, strlen(buf)), 0);
	assert_int_equal(back.calls, o.calls);
	for (i = 0; i < SF_MAX_ARGS; i++) {
		assert_int_equal(back.a[i].nvals, o.a[i].nvals);
		assert_memory_equal(back.a[i].vals, o.a[i].vals, o.a[i].nvals * sizeof(uint64_t));
		assert_int_equal(back.a[i].many, o.a[i].many);
		assert_int_equal(back.a[i].pair_seen, o.a[i].pair_seen);
		assert_int_equal(back.a[i].keep, o.a[i].keep);
		assert_int_equal(back.a[i].bits, o.a[i].bits);
	}
	assert_int_equal(sf_obs_parse(&back, "3 0:3", 5), -1);
	assert_int_equal(sf_obs_parse(&back, "3 9:0 0:0 0:0 0:0 0:0 0:0", 25), -1);
	assert_int_equal(sf_obs_parse(&back, "", 0), -1);
}

/* A process's memory for the reports: one string and one address. */
static size_t fake_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
	static const unsigned char un[] = { 1, 0, '/', 'r', 'u', 'n', '/', 's', 0 };
	const char *path = ctx;
	size_t have;

	if (addr == 0x1000) {
		have = strlen(path) + 1;
		n = n < have ? n : have;
		memcpy(buf, path, n);
		return n;
	}
	if (addr == 0x2000) {
		n = n < sizeof un ? n : sizeof un;
		memcpy(buf, un, n);
		return n;
	}
	return 0;
}

static const char *report(struct sf_vcall *c)
{
	static char buf[4096];
	struct sf_out o = { buf, sizeof buf, 0 };

	sf_vreport_head(&o, c);
	sf_vreport_args(&o, c);
	if (sf_vreport_rule(&o, c) < 0)
		sf_out_str(&o, "    rule: ?\n");
	sf_vreport_add(&o, c);
	sf_out_end(&o);
	return buf;
}

/* Applying the add: line of a report lets the call run. */
static void apply_fix(const char *policy, const char *rep, long nr, const uint64_t a[6])
{
	const char *add = strstr(rep, "    add: ");
	char text[4096];
	struct sf_policy *p;

	assert_non_null(add);
	add += 9;
	snprintf(text, sizeof text, "%s\n%.*s", policy, (int)strcspn(add, "\n"), add);
	p = t_parse(NULL, text);
	assert_int_equal(sf_decide(p, (uint64_t)nr, a), SF_ALLOW);
	sf_policy_free(p);
}

static void reports(void **state)
{
	static const char *pol = "read: 1\nopenat: !(flags & (O_WRONLY|O_RDWR))\n"
				 "openat: dfd == AT_FDCWD else return EACCES";
	struct sf_policy *p = t_parse(NULL, pol);
	struct sf_vcall c = { OPENAT, { (uint64_t)-100, 0x1000, 0x241, 0644 }, 0x401234, "ls", 42,
			      p, 0, fake_read, "/etc/x", 0 };
	const char *rep;

	(void)state;
	c.decision = sf_decide(p, OPENAT, c.a);
	rep = report(&c);
	assert_string_equal(rep,
		"ls[42]: system call 257 (sys_openat) blocked at ip:401234\n"
		"    dfd = AT_FDCWD (-100)\n"
		"    filename = \"/etc/x\" (0x1000)\n"
		"    flags = O_WRONLY|O_CREAT|O_TRUNC (0x241)\n"
		"    mode = 0644\n"
		"    rule: sys_openat: !(flags & (O_WRONLY|O_RDWR)) (t.conf:2)\n"
		"    add: sys_openat: 0; sys_openat: (!(flags & (O_WRONLY|O_RDWR))) || "
		"dfd == AT_FDCWD && !(flags & (O_RDWR|O_APPEND)); sys_openat: dfd == AT_FDCWD "
		"else return EACCES\n");
	apply_fix(pol, rep, OPENAT, c.a);
	sf_policy_free(p);

	/* not in the set; a socket address; memory that cannot be read */
	p = t_parse(NULL, "read: 1");
	{
		struct sf_vcall k = { 42, { 3, 0x2000, 9 }, 0x1, "curl", 7, p, SF_NOT_IN_SET,
				      fake_read, "", 0 };
		rep = report(&k);
		assert_non_null(strstr(rep, "    uservaddr = {AF_UNIX, \"/run/s\"} (0x2000)\n"));
		assert_non_null(strstr(rep, "    rule: not in the allowed set\n"));
		assert_non_null(strstr(rep, "    add: sys_connect: 1\n"));
		apply_fix("read: 1", rep, 42, k.a);
		k.a[1] = 0x3000;
		rep = report(&k);
		assert_non_null(strstr(rep, "    uservaddr = 0x3000\n"));
	}
	sf_policy_free(p);

	/* a filter dropped whole when nothing of its syscall's arguments
	 * would be filtered */
	pol = "getpid: 1\nclose: fd > 2";
	p = t_parse(NULL, pol);
	{
		struct sf_vcall k = { 3, { 1 }, 0x1, "sh", 7, p, 0, NULL, NULL, 0 };
		k.decision = sf_decide(p, 3, k.a);
		rep = report(&k);
		assert_non_null(strstr(rep, "    rule: sys_close: fd > 2 (t.conf:2)\n"));
		assert_non_null(strstr(rep, "    add: sys_close: 0; sys_close: 1\n"));
		apply_fix(pol, rep, 3, k.a);
	}
	sf_policy_free(p);
}

/* Log mode's line, and the head of a full report of a call let through:
 * one row per case. */
static void log_lines(void **state)
{
	static const struct {
		const char *policy;
		long nr;
		uint64_t a[6];
		const char *line; /* sf_vreport_line's */
	} rows[] = {
		{ "read: 1", 110, { 0 },
		  "LOG t[9]: sys_getppid() let through (not in the allowed set); add: sys_getppid: 1\n" },
		{ "read: 1\nopenat: !(flags & (O_WRONLY|O_RDWR))", OPENAT,
		  { (uint64_t)-100, 0x1000, 0x241, 0644 },
		  "LOG t[9]: sys_openat(AT_FDCWD (-100), \"/etc/x\", O_WRONLY|O_CREAT|O_TRUNC (0x241), "
		  "0644) let through (denied by sys_openat: !(flags & (O_WRONLY|O_RDWR)) (t.conf:2)); "
		  "add: sys_openat: 0; sys_openat: (!(flags & (O_WRONLY|O_RDWR))) || dfd == AT_FDCWD "
		  "&& !(flags & (O_RDWR|O_APPEND))\n" },
		{ "read: 1\ngetppid: log", 110, { 0 },
		  "LOG t[9]: sys_getppid() let through (denied by sys_getppid: log); add: sys_getppid: 1\n" },
		/* a string that cannot be read: the pointer */
		{ "read: 1", OPENAT, { (uint64_t)-100, 0x3000, 0, 0 },
		  "LOG t[9]: sys_openat(AT_FDCWD (-100), 0x3000, O_RDONLY (0x0), 0) let through (not in "
		  "the allowed set); add: sys_openat: dfd == AT_FDCWD && !(flags & "
		  "(O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND))\n" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		struct sf_policy *p = t_parse(NULL, rows[i].policy);
		struct sf_vcall c = { rows[i].nr, { 0 }, 0x401234, "t", 9, p, 0, fake_read, "/etc/x", 1 };
		char buf[4096];
		struct sf_out o = { buf, sizeof buf, 0 };

		memcpy(c.a, rows[i].a, sizeof c.a);
		c.decision = sf_decide(p, (uint64_t)c.nr, c.a);
		sf_vreport_line(&o, &c, "?");
		sf_out_end(&o);
		assert_string_equal(buf, rows[i].line);
		o.len = 0;
		sf_vreport_head(&o, &c);
		sf_out_end(&o);
		assert_non_null(strstr(buf, ") let through at ip:401234\n"));
		sf_policy_free(p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(arguments_by_their_hints),
		cmocka_unit_test(strings_and_addresses),
		cmocka_unit_test(suggestions),
		cmocka_unit_test(read_back_and_merge),
		cmocka_unit_test(pairs),
		cmocka_unit_test(observations_as_text),
		cmocka_unit_test(reports),
		cmocka_unit_test(log_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
