/* run --trusted, listening to its kernel filter (listen.h).
 *
 * A notified call waits in the kernel until run answers, so nothing of it
 * runs before run has decided.  Log mode answers "continue" once the call
 * is reported.  A kill ends the process as the kernel's own kill would,
 * with SIGSYS (status 159, a core dump where they are enabled), sent to
 * the waiting thread: its wait ends, and the signal's default action ends
 * the process before the call returns (a thread that blocks SIGSYS has it
 * taken out of its mask first, see sigsys_through_mask).  A process that
 * could outlive SIGSYS (it handles or ignores it, or cannot be traced)
 * gets SIGKILL instead, and so does one still alive two seconds later or
 * notifying again.
 *
 * What is left when run is gone (killed, or exited with PROG while other
 * processes of the tree go on): nobody listens, and the kernel fails
 * every call the policy would have killed with ENOSYS.  The call still
 * never runs; the process is no longer killed for it.  While run is
 * stopped (SIGSTOP), such a call waits. */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "bpf.h"
#include "eval.h"
#include "listen.h"
#include "notif.h"
#include "secfilter.h"

#define NR_CLOSE 3
#define SIGSYS_GRACE_MS 2000

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

int listen_possible(const struct sf_policy *p, int log)
{
	uint32_t act = SECCOMP_RET_USER_NOTIF;
	const struct sf_sysrule *c = &p->sys[NR_CLOSE];
	unsigned i;
	int self, fd;

	if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &act) != 0)
		return 0;
	self = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (self < 0)
		return 0;
	fd = (int)syscall(SYS_pidfd_getfd, self, self, 0);
	close(self);
	if (fd < 0)
		return 0;
	close(fd);
	if (!sf_notif_useful(p, log))
		return 0;
	/* PROG must close its copy of the listener (listen.h): a close the
	 * policy could fail with an errno or a trap would leave it open */
	if (c->allowed && c->ret)
		return 0;
	for (i = 0; i < c->nfilters; i++)
		if (p->filters[sf_rule_first(p, c) + i].fail)
			return 0;
	return 1;
}

static long vm_readv(long pid, const struct iovec *local, const struct iovec *remote)
{
	return process_vm_readv((pid_t)pid, local, 1, remote, 1, 0);
}

/* Reads from the process for display: page by page, up to the first
 * page it cannot read. */
static size_t vm_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
	return sf_vm_read_paged(*(pid_t *)ctx, addr, buf, n, vm_readv);
}

/* A line of /proc/TID/status: "Tgid:\t123" -> 123, "SigBlk:\t..." hex. */
static int status_field(pid_t tid, const char *name, unsigned long long *v, int hex)
{
	char path[64], text[4096];
	uint64_t u;
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, text, sizeof(text));
		close(fd);
	}
	if (n <= 0 || sf_status_field(text, (size_t)n, name, hex, &u) < 0)
		return -1;
	*v = u;
	return 0;
}

static void comm_of(pid_t tid, char *comm, size_t cap)
{
	char path[64];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, comm, cap - 1);
		close(fd);
	}
	if (n <= 0)
		n = snprintf(comm, cap, "?");
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
}

static int still_waiting(const struct listener *l, uint64_t id)
{
	return ioctl(l->fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

static void respond(const struct listener *l, uint64_t id, int error, int cont)
{
	struct seccomp_notif_resp resp;

	memset(&resp, 0, sizeof(resp));
	resp.id = id;
	resp.error = error;
	resp.flags = cont ? SECCOMP_USER_NOTIF_FLAG_CONTINUE : 0;
	ioctl(l->fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

/* SIGSYS to a thread that blocks it -- glibc blocks every signal around
 * clone3 in pthread_create and in posix_spawn: run takes it under ptrace
 * for a moment (its wait for our answer ends), clears SIGSYS from its
 * mask, sends it and lets go, and the signal's default action ends the
 * process.  0, or -1 (then the caller uses SIGKILL). */
static int sigsys_through_mask(pid_t tid, pid_t tgid)
{
	const uint64_t bit = 1ull << (SIGSYS - 1);
	uint64_t mask;
	siginfo_t si;
	int ok = -1;

	if (ptrace(PTRACE_SEIZE, tid, 0, 0) < 0)
		return -1;
	if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) == 0) {
		/* its stop, not reaped (WNOWAIT): the thread may be PROG,
		 * whose exit is run's to collect */
		memset(&si, 0, sizeof(si));
		while (waitid(P_PID, (id_t)tid, &si, WSTOPPED | WEXITED | WNOWAIT | __WALL) < 0 &&
		       errno == EINTR)
			;
		if (si.si_pid == tid && si.si_code == CLD_TRAPPED &&
		    ptrace(PTRACE_GETSIGMASK, tid, sizeof(mask), &mask) == 0) {
			mask &= ~bit;
			if (ptrace(PTRACE_SETSIGMASK, tid, sizeof(mask), &mask) == 0 &&
			    syscall(SYS_tgkill, tgid, tid, SIGSYS) == 0)
				ok = 0;
		}
	}
	ptrace(PTRACE_DETACH, tid, 0, 0);
	return ok;
}

static struct listen_kill *kill_of(struct listener *l, pid_t pid)
{
	size_t i;

	for (i = 0; i < l->nkills; i++)
		if (l->kills[i].pid == pid)
			return &l->kills[i];
	return NULL;
}

/* Ends process tgid, whose thread tid waits in notification id. */
static void kill_process(struct listener *l, uint64_t id, pid_t tid, pid_t tgid, long nr,
			 const char *comm)
{
	unsigned long long blk = 0, ign = 0, cgt = 0;
	unsigned way;
	struct listen_kill *k = kill_of(l, tgid);
	int pidfd;

	if (k) { /* notifying again: SIGSYS did not end it */
		if (k->pidfd >= 0)
			syscall(SYS_pidfd_send_signal, k->pidfd, SIGKILL, NULL, 0);
		return;
	}
	pidfd = (int)syscall(SYS_pidfd_open, tgid, 0);
	/* the pidfd names the process whose thread still waits: checked
	 * after it was opened, so that a pid reused since is not killed */
	if (pidfd < 0 || !still_waiting(l, id)) {
		if (pidfd >= 0)
			close(pidfd);
		else /* not a process we can name: the call fails instead */
			respond(l, id, -ENOSYS, 0);
		return;
	}
	l->kills = xgrow(l->kills, &l->cap, l->nkills, sizeof(*l->kills), 8);
	k = &l->kills[l->nkills++];
	k->pid = tgid;
	k->nr = nr;
	snprintf(k->comm, sizeof(k->comm), "%.16s", comm);
	k->pidfd = pidfd;
	k->deadline_ms = now_ms() + SIGSYS_GRACE_MS;
	if (l->proc_ok && status_field(tid, "SigBlk", &blk, 1) == 0 &&
	    status_field(tid, "SigIgn", &ign, 1) == 0 &&
	    status_field(tid, "SigCgt", &cgt, 1) == 0 &&
	    !((way = sf_notif_kill_way(blk, ign, cgt)) & (SF_KILL_HANDLED | SF_KILL_SIGKILL))) {
		if (!(way & SF_KILL_UNMASK) && syscall(SYS_tgkill, tgid, tid, SIGSYS) == 0)
			return;
		if ((way & SF_KILL_UNMASK) && sigsys_through_mask(tid, tgid) == 0)
			return;
	}
	syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
}

static void serve_one(struct listener *l)
{
	struct seccomp_notif n;
	unsigned long long tgid = 0;
	char comm[32];
	struct sf_vcall c;
	struct sf_notif_verdict v;
	pid_t tid;

	memset(&n, 0, sizeof(n));
	if (ioctl(l->fd, SECCOMP_IOCTL_NOTIF_RECV, &n) < 0)
		return; /* its caller died meanwhile */
	tid = (pid_t)n.pid;
	if (!tid) { /* outside our PID namespace: no way to name or end it */
		respond(l, n.id, -ENOSYS, 0);
		return;
	}
	if (l->proc_ok) {
		comm_of(tid, comm, sizeof(comm));
		if (status_field(tid, "Tgid", &tgid, 0) < 0 || !still_waiting(l, n.id))
			return;
	} else {
		/* another namespace's /proc would name another process: the
		 * thread is taken for its process (a thread that is not
		 * its group's leader cannot be ended, see kill_process) */
		snprintf(comm, sizeof(comm), "?");
		tgid = (unsigned long long)tid;
	}
	sf_notif_judge(l->p, l->log, n.data.arch, n.data.nr, (const uint64_t *)n.data.args, &v);
	memset(&c, 0, sizeof(c));
	c.nr = n.data.nr;
	memcpy(c.a, n.data.args, sizeof(c.a));
	c.ip = n.data.instruction_pointer;
	c.comm = comm;
	c.pid = (long)tgid;
	c.p = l->p;
	c.decision = v.decision;
	c.read = v.x86 ? vm_read : NULL;
	c.ctx = &tid;
	if (v.decision == SF_ALLOW) { /* not ours to decide (cannot happen) */
		respond(l, n.id, 0, 1);
		return;
	}
	c.logged = v.action == SF_ACTION_LOG;
	treelog_call(l->tl, &c);
	if (v.action == SF_ACTION_LOG)
		respond(l, n.id, 0, 1);
	else if (v.action >= 1 && v.action <= SF_ERRNO_MAX)
		respond(l, n.id, -(int)v.action, 0);
	else
		kill_process(l, n.id, tid, (pid_t)tgid, v.x86 ? c.nr : -1, comm);
}

int listen_serve(struct listener *l, int wait_ms)
{
	struct pollfd pf = { l->fd, POLLIN, 0 };
	int handled = 0;

	if (l->fd < 0)
		return 0;
	while (poll(&pf, 1, handled ? 0 : wait_ms) > 0 && (pf.revents & POLLIN)) {
		serve_one(l);
		handled++;
	}
	return handled;
}

size_t listen_reap(struct listener *l, int force)
{
	long long now = now_ms();
	size_t i, dying = 0;

	for (i = 0; i < l->nkills; i++) {
		struct listen_kill *k = &l->kills[i];
		struct pollfd pf = { k->pidfd, POLLIN, 0 };

		if (k->pidfd < 0)
			continue;
		if (poll(&pf, 1, 0) > 0) { /* it is gone */
			close(k->pidfd);
			k->pidfd = -1;
			continue;
		}
		if (force || now >= k->deadline_ms)
			syscall(SYS_pidfd_send_signal, k->pidfd, SIGKILL, NULL, 0);
		dying++;
	}
	return dying;
}
