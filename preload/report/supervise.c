/* Telling `secfilter run` that the policy is about to kill this process.
 *
 * run supervises a whole tree, yet only its own child's death reaches it:
 * a shell that reaps the `ls` the library killed hides the kill from
 * everyone above it.  So the library says so first: one datagram to the
 * abstract unix socket run named in SECFILTER_SUPERVISOR, right before the
 * kill.  The name travels as the other settings do -- exec passes it on
 * even to a program that cleared its environment -- and nothing has to
 * survive closefrom or a dropped descriptor.
 *
 * Fail-safe by construction: no socket (a tree not started by run, run
 * gone, another network namespace), a full queue (MSG_DONTWAIT) or a call
 * the kernel filter would deny (trusted mode) only means run is not told;
 * the process dies as it would anyway.  run gets the sender's pid from the
 * kernel (SO_PASSCRED), so the datagram carries only what run cannot know:
 * "kill NR COMM\n", and the report when it could not be written here (a
 * program that closed its standard error: coreutils do, at exit), which
 * run then writes. */
#include <linux/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>

#include "report.h"

/* What run takes of a report it writes for the library: its essentials
 * (a datagram this size always fits the socket's queue). */
#define REPORT_MAX 8192

void sf_tell_supervisor(const struct sf_call *c, const char *report, size_t rn)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *name = sf_cfg.supervisor;
	char msg[64], comm[17] = "?";
	struct sf_buf b = { msg, 0, sizeof msg };
	size_t n = name ? sf_strlen(name) : 0;
	struct iovec iov[2];
	struct msghdr mh;
	long fd;

	/* sun_path[0] stays 0: the abstract namespace. */
	if (!n || n >= sizeof sa.sun_path - 1 || !sf_may(SYS_socket, AF_UNIX))
		return;
	sf_memcpy(sa.sun_path + 1, name, n);
	sf_may_sys(SYS_prctl, PR_GET_NAME, (long)comm, 0, 0);
	sf_puts(&b, "kill ");
	sf_puti(&b, c->nr);
	sf_putc(&b, ' ');
	sf_puts(&b, comm);
	sf_putc(&b, '\n');
	iov[0] = (struct iovec){ msg, b.len };
	iov[1] = (struct iovec){ (void *)report, report ? (rn < REPORT_MAX ? rn : REPORT_MAX) : 0 };
	sf_memset(&mh, 0, sizeof mh);
	mh.msg_name = &sa;
	mh.msg_namelen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
	mh.msg_iov = iov;
	mh.msg_iovlen = 2;
	fd = sf_sys(SYS_socket, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, 0, 0, 0);
	if (fd < 0)
		return;
	sf_may_sys(SYS_sendmsg, fd, (long)&mh, MSG_DONTWAIT, 0);
	sf_may_sys(SYS_close, fd, 0, 0, 0);
}
