/* Landlock's denials from the kernel's audit records (llaudit.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "kmsg.h"
#include "landlock.h"
#include "llaudit.h"
#include "secfilter.h"

#ifndef AUDIT_LANDLOCK_ACCESS
#define AUDIT_LANDLOCK_ACCESS 1423
#define AUDIT_LANDLOCK_DOMAIN 1424
#endif
#ifndef AUDIT_NLGRP_READLOG
#define AUDIT_NLGRP_READLOG 1
#endif

#define HELD_MAX 256 /* events whose domain has not shown yet */

#define ARGV_MAX 4096 /* of PROCTITLE: the command line, enough to find a name in */

/* One denial, from its records: ACCESS, then in the same event (when
 * audit keeps a syscall context for the task) SYSCALL, PATH and
 * PROCTITLE.  The path is always the kernel's (PATH names relative to the
 * working directory need none of CWD). */
struct llaudit_event {
	uint64_t serial, domain, right, ino;
	int net, port, proc;
	int dir_given;         /* given names the directory the object is made or removed in */
	int leaf;              /* ... completed with the object's name */
	long pid, nr;
	char comm[64];
	char path[PATH_MAX];   /* the object the kernel checked */
	char given[PATH_MAX];  /* the object as the program gave it, or "" */
	char argv[ARGV_MAX];   /* PROCTITLE: the arguments, NUL-separated */
	size_t argv_len;
	uint64_t a[4];         /* the syscall's first arguments */
};

static void unreadable(struct llaudit *a, const char *why)
{
	snprintf(a->why, sizeof(a->why), "%s", why);
}

void llaudit_say_unseen(const struct llaudit *a)
{
	if (a->why[0])
		fprintf(stderr, "secfilter: run: note: what Landlock denied (if anything) was "
			"enforced but not reported: %s\n", a->why);
}

/* Whether audit is on: 1, 0, or -1 when it cannot be asked (AUDIT_GET
 * needs CAP_AUDIT_CONTROL). */
static int audit_enabled(void)
{
	struct {
		struct nlmsghdr h;
		struct audit_status s;
	} msg;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	char buf[8192];
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT), tries, on = -1;

	if (fd < 0)
		return -1;
	memset(&msg, 0, sizeof(msg));
	msg.h.nlmsg_len = NLMSG_LENGTH(0);
	msg.h.nlmsg_type = AUDIT_GET;
	msg.h.nlmsg_flags = NLM_F_REQUEST;
	if (sendto(fd, &msg, msg.h.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0) {
		close(fd);
		return -1;
	}
	/* the reply, or an error (refused) */
	for (tries = 0; tries < 4 && on < 0; tries++) {
		struct pollfd p = { fd, POLLIN, 0 };
		struct nlmsghdr *h = (struct nlmsghdr *)buf;
		ssize_t n;

		if (poll(&p, 1, 1000) <= 0 || (n = recv(fd, buf, sizeof(buf), 0)) < (ssize_t)sizeof(*h))
			break;
		if (h->nlmsg_type == NLMSG_ERROR)
			break;
		if (h->nlmsg_type == AUDIT_GET &&
		    n >= (ssize_t)NLMSG_LENGTH(offsetof(struct audit_status, failure)))
			on = ((struct audit_status *)NLMSG_DATA(h))->enabled != 0;
	}
	close(fd);
	return on;
}

void llaudit_open(struct llaudit *a, const struct sf_landlock *ll, struct treelog *tl)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1u << (AUDIT_NLGRP_READLOG - 1) };
	int size = 4 << 20;

	memset(a, 0, sizeof(*a));
	a->fd = -1;
	a->ll = ll;
	a->tl = tl;
	if (!ll)
		return;
	if (!kmsg_pids_match()) {
		unreadable(a, "the kernel's audit records give the pids of the initial PID "
			       "namespace, not of this one");
		return;
	}
	if (audit_enabled() == 0) {
		unreadable(a, "the kernel's audit is off (auditctl -e 1 turns it on)");
		return;
	}
	a->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_AUDIT);
	if (a->fd < 0 || bind(a->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		char why[256];
		snprintf(why, sizeof(why), "the kernel's audit records cannot be read here (%s%s)",
			 strerror(errno), errno == EPERM ? ": reading them needs CAP_AUDIT_READ" : "");
		unreadable(a, why);
		llaudit_close(a);
		return;
	}
	/* room for many records while run is not scheduled */
	if (setsockopt(a->fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(a->fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
}

void llaudit_close(struct llaudit *a)
{
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
	free(a->ev);
	a->ev = NULL;
	a->nev = a->evcap = 0;
}

static int known(const uint64_t *set, unsigned n, uint64_t d)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (set[i] == d)
			return 1;
	return 0;
}

/* The leaf name a directory given as dir (a PATH record's name of the
 * PARENT kind: "b/", "/tmp/b/", or the working directory in full when the
 * program gave a bare name) was completed with: cand is accepted when it
 * is dir's text followed by one name. */
static int completes(const char *dir, const char *cand)
{
	size_t n = strlen(dir);

	if (n == 0 || dir[n - 1] != '/')
		n = 0; /* a bare name, in the working directory */
	return strncmp(cand, dir, n) == 0 && cand[n] && !strchr(cand + n, '/') &&
	       strcmp(cand + n, ".") != 0 && strcmp(cand + n, "..") != 0;
}

static void complete_with(struct llaudit_event *e, const char *cand)
{
	snprintf(e->given, sizeof(e->given), "%s", cand);
	e->leaf = 1;
}

/* The program's name for the object made or removed in a directory: the
 * string its call passed, read from its memory while it still runs (one
 * of the syscall's first arguments that completes the directory), else
 * the one argument of its command line that does. */
static void complete_from_memory(struct llaudit_event *e)
{
	char file[64], s[PATH_MAX];
	unsigned i;
	int fd;

	snprintf(file, sizeof(file), "/proc/%ld/mem", e->pid);
	if (e->pid <= 0 || (fd = open(file, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	for (i = 0; i < 4 && !e->leaf; i++) {
		ssize_t n = e->a[i] ? pread(fd, s, sizeof(s) - 1, (off_t)e->a[i]) : -1;

		if (n <= 0)
			continue;
		s[n] = '\0';
		if (strlen(s) < (size_t)n && completes(e->given, s))
			complete_with(e, s);
	}
	close(fd);
}

static void complete_from_argv(struct llaudit_event *e)
{
	const char *arg, *found = NULL;

	for (arg = e->argv; arg < e->argv + e->argv_len; arg += strlen(arg) + 1)
		if (completes(e->given, arg)) {
			if (found && strcmp(found, arg) != 0)
				return; /* two candidates: name neither */
			found = arg;
		}
	if (found)
		complete_with(e, found);
}

static void report(struct llaudit *a, struct llaudit_event *e)
{
	struct sf_ll_denial d = { e->proc ? e->comm : NULL, e->proc ? e->pid : 0,
				  e->proc ? e->nr : -1, NULL, e->net ? NULL : e->path,
				  e->net ? 0 : strlen(e->path), e->right, e->port };
	char text[3 * PATH_MAX + 512], fix[PATH_MAX + 64], full[PATH_MAX];
	struct sf_out o = { text, sizeof(text), 0 }, fo = { fix, sizeof(fix), 0 };

	if (!e->net && e->given[0]) {
		if (e->dir_given && !e->leaf)
			complete_from_argv(e);
		d.given = e->given;
		if (e->dir_given && e->leaf) {
			/* the directory the kernel checked, and the program's leaf */
			int n = snprintf(full, sizeof(full), "%s/%s", e->path,
					 strrchr(e->given, '/') ? strrchr(e->given, '/') + 1 : e->given);
			if (n > 0 && (size_t)n < sizeof(full))
				d.path = full;
		}
	}
	if (!sf_ll_report(&o, a->ll, &d) || sf_out_end(&o) >= sizeof(text))
		return;
	sf_ll_fix(&fo, a->ll, &d);
	if (sf_out_end(&fo) < sizeof(fix) && treelog_landlock(a->tl, fix, d.comm, 1))
		treelog_write(a->tl, text, o.len);
}

/* Event i is done: reported when its domain is ours, dropped when it is
 * another's, kept until its domain shows otherwise. */
static void settle(struct llaudit *a, size_t i)
{
	struct llaudit_event *e = &a->ev[i];

	if (!known(a->ours, a->nours, e->domain) && !known(a->theirs, a->ntheirs, e->domain) &&
	    a->nev <= HELD_MAX)
		return;
	if (known(a->ours, a->nours, e->domain))
		report(a, e);
	a->ev[i] = a->ev[--a->nev];
}

/* The value of key as a number in base, or 0. */
static uint64_t number(const char *msg, const char *key, int base)
{
	const char *v = kmsg_field(msg, key);

	return v ? strtoull(v, NULL, base) : 0;
}

static void on_access(struct llaudit *a, uint64_t serial, const char *msg)
{
	const char *b = kmsg_field(msg, "blockers"), *v;
	struct llaudit_event *e;
	size_t n;

	if (!b)
		return;
	a->ev = xgrow(a->ev, &a->evcap, a->nev, sizeof(*a->ev), 16);
	e = &a->ev[a->nev];
	memset(e, 0, sizeof(*e));
	e->serial = serial;
	e->domain = number(msg, "domain", 16);
	e->ino = number(msg, "ino", 10);
	n = strcspn(b, ", ");
	e->right = sf_ll_right_of(b, n, &e->net);
	if (!e->right)
		return;
	if (e->net) {
		v = kmsg_field(msg, e->right == SF_NET_BIND ? "src" : "dest");
		if (!v)
			return;
		e->port = (int)strtol(v, NULL, 10);
	} else {
		if (!(v = kmsg_field(msg, "path")))
			return;
		kmsg_untrusted(v, e->path, sizeof(e->path));
		if (e->path[0] != '/') /* a name without its directory */
			return;
	}
	a->nev++;
}

static void on_syscall(struct llaudit *a, uint64_t serial, const char *msg)
{
	const char *v;
	size_t i;
	unsigned k;

	for (i = 0; i < a->nev; i++) {
		struct llaudit_event *e = &a->ev[i];
		if (e->serial != serial)
			continue;
		e->proc = 1;
		e->pid = (long)number(msg, "pid", 10);
		e->nr = kmsg_field(msg, "syscall") ? (long)number(msg, "syscall", 10) : -1;
		for (k = 0; k < 4; k++) {
			char key[3] = { 'a', (char)('0' + k), '\0' };
			e->a[k] = number(msg, key, 16);
		}
		if ((v = kmsg_field(msg, "comm")))
			kmsg_untrusted(v, e->comm, sizeof(e->comm));
		else
			e->proc = 0;
	}
}

/* A name the call looked up: the program's name for the object the
 * kernel checked when the inode is the same.  For a file made in a
 * directory the record names the directory only ("b/" of "b/x"). */
static void on_path(struct llaudit *a, uint64_t serial, const char *msg)
{
	const char *v = kmsg_field(msg, "name"), *type = kmsg_field(msg, "nametype");
	uint64_t ino = number(msg, "inode", 10);
	size_t i;

	if (!v || !type || !ino)
		return;
	for (i = 0; i < a->nev; i++) {
		struct llaudit_event *e = &a->ev[i];

		if (e->serial != serial || e->net || e->given[0] || e->ino != ino)
			continue;
		kmsg_untrusted(v, e->given, sizeof(e->given));
		e->dir_given = strncmp(type, "PARENT", 6) == 0;
		if (e->dir_given && e->proc)
			complete_from_memory(e);
	}
}

/* The command line (NUL-separated, hex, or quoted when it is one
 * printable word). */
static void on_proctitle(struct llaudit *a, uint64_t serial, const char *msg)
{
	const char *v = kmsg_field(msg, "proctitle");
	size_t i, n;

	if (!v)
		return;
	n = *v == '"' ? strcspn(v + 1, "\"") : strspn(v, "0123456789ABCDEFabcdef") / 2;
	for (i = 0; i < a->nev; i++) {
		struct llaudit_event *e = &a->ev[i];

		if (e->serial != serial)
			continue;
		kmsg_untrusted(v, e->argv, sizeof(e->argv));
		e->argv_len = n < sizeof(e->argv) ? n : sizeof(e->argv) - 1;
	}
}

static void on_domain(struct llaudit *a, const char *msg)
{
	uint64_t d = number(msg, "domain", 16);
	const char *status = kmsg_field(msg, "status");

	if (!status)
		return;
	if (strncmp(status, "deallocated", 11) == 0) {
		a->ndead += known(a->ours, a->nours, d);
		return;
	}
	if (known(a->ours, a->nours, d) || known(a->theirs, a->ntheirs, d))
		return;
	if ((pid_t)number(msg, "pid", 10) == a->creator) {
		if (a->nours < sizeof(a->ours) / sizeof(a->ours[0]))
			a->ours[a->nours++] = d;
	} else {
		/* forget the oldest: a domain of another tree is only a
		 * shortcut for dropping its records */
		if (a->ntheirs == sizeof(a->theirs) / sizeof(a->theirs[0]))
			a->ntheirs = 0;
		a->theirs[a->ntheirs++] = d;
	}
}

/* Events of serials before this one are complete. */
static void settle_before(struct llaudit *a, uint64_t serial, int all)
{
	size_t i = a->nev;

	while (i-- > 0)
		if (all || a->ev[i].serial != serial)
			settle(a, i);
}

static void record(struct llaudit *a, int type, char *msg)
{
	const char *colon = strchr(msg, ':');
	uint64_t serial;

	if (strncmp(msg, "audit(", 6) != 0 || !colon)
		return;
	serial = strtoull(colon + 1, NULL, 10);
	if (type == AUDIT_LANDLOCK_ACCESS) {
		settle_before(a, serial, 0);
		on_access(a, serial, msg);
	} else if (type == AUDIT_SYSCALL) {
		on_syscall(a, serial, msg);
	} else if (type == AUDIT_PATH) {
		on_path(a, serial, msg);
	} else if (type == AUDIT_PROCTITLE) {
		on_proctitle(a, serial, msg);
	} else if (type == AUDIT_LANDLOCK_DOMAIN) {
		on_domain(a, msg);
	} else if (type == AUDIT_EOE) {
		settle_before(a, serial, 1);
	}
}

/* 1 when something was read. */
static int read_some(struct llaudit *a)
{
	char buf[65536];
	int got = 0;

	while (a->fd >= 0) {
		ssize_t n = recv(a->fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
		struct nlmsghdr *h;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ENOBUFS) { /* overflowed: records were lost */
			a->lost = 1;
			continue;
		}
		if (n <= 0)
			break;
		got = 1;
		/* One record a datagram.  Its nlmsg_len is not to be trusted:
		 * audit sets it to the payload's length, not the message's. */
		if ((size_t)n <= NLMSG_HDRLEN)
			continue;
		h = (struct nlmsghdr *)buf;
		buf[n] = '\0';
		record(a, h->nlmsg_type, buf + NLMSG_HDRLEN);
	}
	return got;
}

void llaudit_read(struct llaudit *a)
{
	read_some(a);
}

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

void llaudit_finish(struct llaudit *a)
{
	long long start = now_ms();
	size_t i;

	if (a->fd < 0)
		return;
	/* kauditd sends the records after they were queued, which was
	 * before each denied call returned: they are on their way.  A domain
	 * of ours that showed ends with its record of deallocation, after
	 * every record of its denials; otherwise a quiet moment ends it. */
	for (;;) {
		struct pollfd p = { a->fd, POLLIN, 0 };
		int waiting = a->nours > a->ndead;

		read_some(a);
		if (now_ms() - start > (waiting ? 2000 : 50))
			break;
		if (poll(&p, 1, waiting ? 100 : 50) == 0 && !waiting)
			break;
	}
	for (i = 0; i < a->nev; i++)
		if (known(a->ours, a->nours, a->ev[i].domain))
			report(a, &a->ev[i]);
	a->nev = 0;
	if (a->lost)
		fprintf(stderr, "secfilter: run: warning: some of the kernel's audit records were "
			"lost (too many at once): not every Landlock denial was reported\n");
	llaudit_close(a);
}
