/* Landlock's denials from the kernel's audit records (llaudit.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "kmsg.h"
#include "landlock.h"
#include "llaudit.h"
#include "llrecords.h"
#include "secfilter.h"

#ifndef AUDIT_NLGRP_READLOG
#define AUDIT_NLGRP_READLOG 1
#endif

#define HELD_MAX 256 /* events whose domain has not shown yet */

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
	char msg[SF_AUDIT_GET_LEN], buf[8192];
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT), tries, on = -1;

	if (fd < 0)
		return -1;
	sf_audit_get_request(msg);
	if (sendto(fd, msg, sizeof(msg), 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0) {
		close(fd);
		return -1;
	}
	/* the reply, or an error (refused) */
	for (tries = 0; tries < 4 && on < 0; tries++) {
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t n;

		if (poll(&p, 1, 1000) <= 0 || (n = recv(fd, buf, sizeof(buf), 0)) < (ssize_t)NLMSG_HDRLEN ||
		    ((struct nlmsghdr *)buf)->nlmsg_type == NLMSG_ERROR)
			break;
		on = sf_audit_get_reply(buf, (size_t)n);
	}
	close(fd);
	return on;
}

/* The string at addr in pid's memory, while pid runs. */
static size_t read_mem(void *ctx, long pid, uint64_t addr, void *buf, size_t n)
{
	char file[64];
	ssize_t got;
	int fd;

	(void)ctx;
	snprintf(file, sizeof(file), "/proc/%ld/mem", pid);
	if (pid <= 0 || (fd = open(file, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	got = pread(fd, buf, n, (off_t)addr);
	close(fd);
	return got > 0 ? (size_t)got : 0;
}

static void denied(void *ctx, struct sf_llrec_event *e)
{
	struct llaudit *a = ctx;
	struct sf_ll_denial d;
	char text[3 * PATH_MAX + 512], fix[PATH_MAX + 64], full[SF_LLREC_PATH];
	struct sf_out o = { text, sizeof(text), 0 }, fo = { fix, sizeof(fix), 0 };

	sf_llrec_denial(e, &d, full);
	if (!sf_ll_report(&o, a->ll, &d) || sf_out_end(&o) >= sizeof(text))
		return;
	sf_ll_fix(&fo, a->ll, &d);
	if (sf_out_end(&fo) < sizeof(fix) && treelog_landlock(a->tl, fix, d.comm, 1))
		treelog_write(a->tl, text, o.len);
}

void llaudit_open(struct llaudit *a, const struct sf_landlock *ll, struct treelog *tl)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1u << (AUDIT_NLGRP_READLOG - 1) };
	int size = 4 << 20;

	memset(a, 0, sizeof(*a));
	a->fd = -1;
	a->ll = ll;
	a->tl = tl;
	a->rec.read_mem = read_mem;
	a->rec.denied = denied;
	a->rec.ctx = a;
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
	if (sf_llrec_init(&a->rec, HELD_MAX) < 0)
		tool_oom();
	/* room for many records while run is not scheduled */
	if (setsockopt(a->fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(a->fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
}

void llaudit_close(struct llaudit *a)
{
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
	sf_llrec_free(&a->rec);
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
		sf_llrec_record(&a->rec, h->nlmsg_type, buf + NLMSG_HDRLEN);
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

/* The barrier (llrecords.h): a socket of ours joins the records' group
 * and leaves it.  0, or -1. */
static int barrier(struct llaudit *a)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1u << (AUDIT_NLGRP_READLOG - 1) };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);

	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	a->rec.barrier = getpid();
	close(fd);
	return 0;
}

void llaudit_finish(struct llaudit *a)
{
	long long start = now_ms();
	int fenced;

	if (a->fd < 0)
		return;
	/* kauditd sends the records in the order they were queued, and each
	 * denial's was queued before the denied call returned: the record of
	 * the barrier comes after all of them.  A domain of ours that showed
	 * ends with its record of deallocation; without a barrier a quiet
	 * moment ends it. */
	fenced = barrier(a) == 0;
	for (;;) {
		struct pollfd p = { a->fd, POLLIN, 0 };
		int waiting;

		read_some(a);
		waiting = sf_llrec_waiting(&a->rec);
		if ((fenced && !waiting) || now_ms() - start > (waiting ? 2000 : 50))
			break;
		if (poll(&p, 1, waiting ? 100 : 50) == 0 && !waiting)
			break;
	}
	sf_llrec_flush(&a->rec);
	if (a->lost)
		fprintf(stderr, "secfilter: run: warning: some of the kernel's audit records were "
			"lost (too many at once): not every Landlock denial was reported\n");
	llaudit_close(a);
}
