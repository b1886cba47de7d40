/* Landlock's denials read from audit records (filter/llrecords.h): the
 * records as the kernel writes them (taken from a run on Linux 6.18),
 * grouped by serial, the path as the program gave it, the domains. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <linux/audit.h>
#include <linux/netlink.h>

#include "landlock.h"
#include "llrecords.h"

#define ACCESS(serial, blockers, path, ino)                                                   \
	"audit(1796642898.138:" serial "): domain=118d4cbcf blockers=" blockers " path=\"" path \
	"\" dev=\"vda\" ino=" ino
#define DOMAIN(serial, pid)                                                                 \
	"audit(1796642898.138:" serial "): domain=118d4cbcf status=allocated mode=enforcing pid=" \
	pid " uid=0 exe=\"/usr/bin/secfilter\" comm=\"secfilter\""
#define SYSCALL(serial, a1)                                                                   \
	"audit(1796642898.138:" serial "): arch=c000003e syscall=257 success=no exit=-13 "      \
	"a0=ffffff9c a1=" a1 " a2=c1 a3=1a4 items=1 ppid=22760 pid=22761 auid=0 uid=0 gid=0 " \
	"euid=0 suid=0 fsuid=0 egid=0 sgid=0 fsgid=0 tty=(none) ses=5 comm=\"cp\" "           \
	"exe=\"/usr/bin/cp\" key=(null)"
#define PATH(serial, name, ino, type)                                                          \
	"audit(1796642898.138:" serial "): item=0 name=\"" name "\" inode=" ino                 \
	" dev=fe:00 mode=040755 ouid=0 ogid=0 rdev=00:00 nametype=" type " cap_fp=0 cap_fi=0 " \
	"cap_fe=0 cap_fver=0 cap_frootid=0"
#define EOE(serial) "audit(1796642898.138:" serial "): "

struct seen {
	unsigned n;
	struct sf_llrec_event last;
	struct sf_ll_denial d;
	char full[SF_LLREC_PATH];
	const char *memory; /* what read_mem finds at 0x1000, or NULL */
};

static size_t read_mem(void *ctx, long pid, uint64_t addr, void *buf, size_t n)
{
	struct seen *s = ctx;
	size_t len;

	(void)pid;
	if (!s->memory || addr != 0x1000)
		return 0;
	len = strlen(s->memory) + 1;
	len = len < n ? len : n;
	memcpy(buf, s->memory, len);
	return len;
}

static void denied(void *ctx, struct sf_llrec_event *e)
{
	struct seen *s = ctx;

	s->n++;
	memcpy(&s->last, e, sizeof *e);
	sf_llrec_denial(&s->last, &s->d, s->full);
}

static void start(struct sf_llrec *r, struct seen *s, long creator)
{
	memset(r, 0, sizeof *r);
	memset(s, 0, sizeof *s);
	assert_int_equal(sf_llrec_init(r, 4), 0);
	r->creator = creator;
	r->read_mem = read_mem;
	r->denied = denied;
	r->ctx = s;
}

/* cp in b/x: the PATH names "b/", the command line the leaf */
static void creation_named_from_argv(void **state)
{
	struct sf_llrec r;
	struct seen s;

	(void)state;
	start(&r, &s, 22760);
	sf_llrec_record(&r, SF_AUDIT_LANDLOCK_ACCESS, ACCESS("7", "fs.make_reg", "/tmp/t/b", "42"));
	sf_llrec_record(&r, SF_AUDIT_LANDLOCK_DOMAIN, DOMAIN("7", "22760"));
	sf_llrec_record(&r, SF_AUDIT_SYSCALL, SYSCALL("7", "7ffe0"));
	sf_llrec_record(&r, SF_AUDIT_PATH, PATH("7", "b/", "42", "PARENT"));
	/* "cp in b/x", hex: it holds NULs */
	sf_llrec_record(&r, SF_AUDIT_PROCTITLE, "audit(1796642898.138:7): proctitle=637000696E00622F78");
	assert_int_equal(s.n, 0);
	sf_llrec_record(&r, SF_AUDIT_EOE, EOE("7"));
	assert_int_equal(s.n, 1);
	assert_string_equal(s.d.comm, "cp");
	assert_int_equal(s.d.pid, 22761);
	assert_int_equal(s.d.nr, 257);
	assert_string_equal(s.d.given, "b/x");
	assert_string_equal(s.d.path, "/tmp/t/b/x");
	assert_int_equal(s.d.at_len, strlen("/tmp/t/b"));
	assert_int_equal(s.d.right, SF_FS_MAKE_REG);
	sf_llrec_free(&r);
}

/* the call's string wins over the command line; two candidates on the
 * command line name neither */
static void creation_named_from_memory(void **state)
{
	struct sf_llrec r;
	struct seen s;

	(void)state;
	start(&r, &s, 22760);
	s.memory = "b/q";
	sf_llrec_record(&r, SF_AUDIT_LANDLOCK_DOMAIN, DOMAIN("8", "22760"));
	sf_llrec_record(&r, SF_AUDIT_LANDLOCK_ACCESS, ACCESS("8", "fs.make_reg", "/tmp/t/b", "42"));
	sf_llrec_record(&r, SF_AUDIT_SYSCALL, SYSCALL("8", "1000"));
	sf_llrec_record(&r, SF_AUDIT_PATH, PATH("8", "b/", "42", "PARENT"));
	sf_llrec_record(&r, SF_AUDIT_EOE, EOE("8"));
	assert_int_equal(s.n, 1);
	assert_string_equal(s.d.given, "b/q");

	s.memory = "c/q"; /* not under the directory given: not taken */
	sf_llrec_record(&r, SF_AUDIT_LANDLOCK_ACCESS, ACCESS("9", "fs.make_reg", "/tmp/t/b", "42"));
	sf_llrec_record(&r, SF_AUDIT_SYSCALL, SYSCALL("9", "1000"));
	sf_llrec_record(&r, SF_AUDIT_PATH, PATH("9", "b/", "42", "PARENT"));
	sf_llrec_record(&r, SF_AUDIT_PROCTITLE, "audit(1796642898.138:9): proctitle=637000622F7900622F78");
	sf_llrec_record(&r, SF_AUDIT_EOE, EOE("9"));
	assert_int_equal(s.n, 2);
	assert_string_equal(s.d.given, "b/"); /* "cp b/y b/x": which one? */
	assert_string_equal(s.d.path, "/tmp/t/b");
	sf_llrec_free(&r);
}

/* no syscall context: the object alone, no process; another tree's
 * domain: dropped */
static void without_context_and_theirs(void **state)
{
	struct sf_llrec r;
	struct seen s;

	(void)state;
	start(&r, &s, 22760);
	sf_llrec_record(&r, SF_AUDIT_LANDLOCK_ACCESS, ACCESS("10", "fs.write_file", "/tmp/t/in", "43"));
	sf_llrec_record(&r, SF_AUDIT_LANDLOCK_DOMAIN, DOMAIN("10", "22760"));
	sf_llrec_record(&r, SF_AUDIT_EOE, EOE("10"));
	assert_int_equal(s.n, 1);
	assert_null(s.d.comm);
	assert_int_equal(s.d.pid, 0);
	assert_int_equal(s.d.nr, -1);
	assert_null(s.d.given);
	assert_string_equal(s.d.path, "/tmp/t/in");
	sf_llrec_free(&r);

	start(&r, &s, 1);
	sf_llrec_record(&r, SF_AUDIT_LANDLOCK_ACCESS, ACCESS("11", "fs.write_file", "/tmp/t/in", "43"));
	sf_llrec_record(&r, SF_AUDIT_LANDLOCK_DOMAIN, DOMAIN("11", "22760"));
	sf_llrec_record(&r, SF_AUDIT_EOE, EOE("11"));
	sf_llrec_flush(&r);
	assert_int_equal(s.n, 0);
	sf_llrec_free(&r);
}

/* an event whose domain has not shown is held, and the table's room is
 * bounded: the oldest goes first */
static void held_and_bounded(void **state)
{
	struct sf_llrec r;
	struct seen s;
	unsigned i;

	(void)state;
	start(&r, &s, 22760);
	for (i = 0; i < 6; i++)
		sf_llrec_record(&r, SF_AUDIT_LANDLOCK_ACCESS,
				ACCESS("12", "fs.make_dir", "/tmp/t/b", "42"));
	assert_int_equal(r.nev, 4);
	assert_int_equal(s.n, 0); /* not known to be ours */
	sf_llrec_record(&r, SF_AUDIT_LANDLOCK_DOMAIN, DOMAIN("12", "22760"));
	assert_true(sf_llrec_waiting(&r));
	sf_llrec_flush(&r);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.d.right, SF_FS_MAKE_DIR);

	/* the barrier: the record of the reader leaving the group ends it */
	r.barrier = 4242;
	assert_true(sf_llrec_waiting(&r));
	sf_llrec_record(&r, SF_AUDIT_EVENT_LISTENER,
			"audit(1796642900.154:13): pid=4242 uid=0 auid=0 tty=(none) ses=5 "
			"comm=\"secfilter\" exe=\"/usr/bin/secfilter\" nl-mcgrp=1 op=connect res=1");
	assert_true(sf_llrec_waiting(&r));
	sf_llrec_record(&r, SF_AUDIT_EVENT_LISTENER,
			"audit(1796642900.154:14): pid=4243 uid=0 auid=0 tty=(none) ses=5 "
			"comm=\"secfilter\" exe=\"/usr/bin/secfilter\" nl-mcgrp=1 op=disconnect res=1");
	assert_true(sf_llrec_waiting(&r));
	sf_llrec_record(&r, SF_AUDIT_EVENT_LISTENER,
			"audit(1796642900.154:15): pid=4242 uid=0 auid=0 tty=(none) ses=5 "
			"comm=\"secfilter\" exe=\"/usr/bin/secfilter\" nl-mcgrp=1 op=disconnect res=1");
	assert_false(sf_llrec_waiting(&r));
	sf_llrec_free(&r);
}

static void fields(void **state)
{
	char out[16];

	(void)state;
	assert_string_equal(sf_rec_field("audit(1:2): nametype=X name=\"a\"", "name"), "\"a\"");
	assert_null(sf_rec_field("audit(1:2): xname=3", "name"));
	assert_int_equal(sf_rec_untrusted("610062", out, sizeof out), 3);
	assert_memory_equal(out, "a\0b", 4);
	assert_int_equal(sf_rec_untrusted("\"abc\" x", out, 3), 2); /* cut to fit */
	assert_string_equal(out, "ab");
	assert_int_equal(sf_rec_num("ff ", 16), 255);
	assert_int_equal(sf_rec_num("19x", 10), 19);
}

/* AUDIT_GET: the request, and the answers */
static void audit_get(void **state)
{
	struct {
		struct nlmsghdr h;
		struct audit_status s;
	} m;
	char req[SF_AUDIT_GET_LEN];

	(void)state;
	sf_audit_get_request(req);
	memcpy(&m.h, req, sizeof req);
	assert_int_equal(m.h.nlmsg_type, AUDIT_GET);
	assert_int_equal(m.h.nlmsg_len, sizeof req);
	memset(&m, 0, sizeof m);
	m.h.nlmsg_type = AUDIT_GET;
	m.s.enabled = 1;
	assert_int_equal(sf_audit_get_reply(&m, sizeof m), 1);
	m.s.enabled = 0;
	assert_int_equal(sf_audit_get_reply(&m, sizeof m), 0);
	assert_int_equal(sf_audit_get_reply(&m, NLMSG_HDRLEN + 4), -1); /* too short */
	m.h.nlmsg_type = NLMSG_ERROR;
	assert_int_equal(sf_audit_get_reply(&m, sizeof m), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(creation_named_from_argv),
		cmocka_unit_test(creation_named_from_memory),
		cmocka_unit_test(without_context_and_theirs),
		cmocka_unit_test(held_and_bounded),
		cmocka_unit_test(fields),
		cmocka_unit_test(audit_get),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
