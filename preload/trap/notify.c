/* Trusted mode's listener: the report of a kill, written from outside
 * the program (notify.h).
 *
 * Under the library's own kernel filter the report of a denied call used
 * to be written by the program's SIGSYS handler, in the process, with
 * the calls the policy lets the process make: a policy learned from a
 * small program (no write, getpid or kill) left a violation with nothing
 * on stderr, and a loader's error before main (a missing library) showed
 * only as a denied writev.  So the first image of a trusted tree forks a
 * listener before it installs its filter, and the filter sends the
 * policy's kill to it (SECCOMP_RET_USER_NOTIF): the call waits in the
 * kernel, the listener decides it again with the same policy, reads the
 * arguments from the notification and the strings from the process's
 * memory, writes the report the library writes to the process's own
 * standard error (or SECFILTER_LOG), and then ends the process as the
 * kernel's kill would, with SIGSYS (status 159): what `secfilter run
 * --trusted` does for its tree (tools/listen.c; both decide with
 * filter/notif.h).
 *
 * Why a fork, and a double one: the listener shares no memory with the
 * program (a program that could write the listener's memory could make
 * it answer "continue"), it is forked before the filter exists and
 * before the Landlock layers (so nothing it does is filtered, and the
 * /proc files it reads need no fs. rule), and its parent exits at once and is
 * reaped here, before any code of the program runs: the program has no
 * child it did not make, and its wait() never blocks on the listener.
 * The listener leaves the session (a terminal's ^C is not for it), keeps
 * no fd but the filter's (the report goes to the notifying process's own
 * standard error, taken for the report and closed after it: no pipe a
 * caller reads from stays open longer than the tree lives; where it reads
 * Landlock's audit records, below, also the audit socket and the first
 * image's standard error, until the records are in), is not
 * dumpable (another process of its user cannot read or trace it without
 * CAP_SYS_PTRACE), and exits when the last task under the filter is gone
 * (the fd reports POLLHUP).  Only the first image of a tree has one: an
 * image exec'd under the inherited filter finds its policy in force (the
 * mark, trusted.c) and loads nothing, and any filter it adds goes to its
 * own handler (the kernel takes one listener per filter tree).
 *
 * The hand-over, with only calls the policy is checked to allow once the
 * filter is in (else the handler reports, as before): the listener's
 * parent tells its pid (for PR_SET_PTRACER, where Yama restricts ptrace), the
 * program tells the fd number its seccomp() will return (the lowest free
 * one: nothing else runs here), installs the filter and closes its end
 * of the pipe; the listener takes the fd from it (pidfd_getfd) and closes
 * its own end, which the program waits for before it closes the fd: a
 * program holding it could answer its own denied calls.
 *
 * How the process dies: a thread that does not handle SIGSYS gets SIGSYS
 * (one that blocks it has it unblocked under ptrace first); the library's
 * handler, which every image of the tree has, gets SIGSYS with a mark
 * (sf_notify_die_request), leaves the backtrace in left_bt and sets
 * SIGSYS to SIG_DFL, after which the restarted call comes back here, the
 * report goes out with the backtrace in one write, and SIGSYS ends the
 * process.  A dying
 * process's rt_sigaction(SIGSYS, SIG_DFL) runs even where the policy
 * denies it (it can only make SIGSYS fatal); anything else from it, or a
 * process still alive two seconds on, gets SIGKILL (status 137).
 *
 * What a program can do to the channel: make denied calls (each one is
 * reported and kills the caller, however many processes make them at
 * once), write whatever it likes to its own standard error, send itself
 * the mark (it then dies of SIGSYS sooner), or kill the listener where
 * the policy allows kill: then nobody listens and the kernel fails every
 * call the policy would have killed with ENOSYS, as under `run --trusted`
 * when run is gone -- the call still never runs.  A root program that
 * the policy lets ptrace or pidfd_getfd can take the listener's fd, as
 * it could take any unfiltered process of its user's. */
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/prctl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>

#include "llrecords.h"
#include "notif.h"
#include "notify.h"
#include "trap.h"


#define DIE_MAGIC 0x5ec0d1e5 /* si_value of the listener's SIGSYS */
#define GRACE_MS 2000
#define MAX_DYING 64
#define MAX_AGAIN 8 /* notifications from a dying process before SIGKILL */
#define REPORT_CAP (64u << 10)
#define QUOTE_CAP 2048u
#define TAKEN 'k' /* the listener to the program: it has the filter's fd */
#define SITE_MARK 0x5ec0f17e517eull /* under a reissued call's site (reissue) */

/* ---- the program's side ---- */

static const struct sf_policy *listened; /* the policy the filter enforces */
static int pipe_to[2] = { -1, -1 };     /* program -> listener: the fd's number */
static int pipe_from[2] = { -1, -1 };   /* listener -> program: its pid, then EOF */
static int fd_expected = -1;

static int allowed(long nr, long a0, long a1, long a2)
{
	const uint64_t a[6] = { (uint64_t)a0, (uint64_t)a1, (uint64_t)a2, 0, 0, 0 };
	struct sf_notif_verdict v;

	/* (not sf_decide here: a copy of it would join the hot text) */
	sf_notif_judge(listened, 0, AUDIT_ARCH_X86_64, nr, a, &v);
	return v.decision == SF_ALLOW;
}

static int started; /* start() went well: the listener waits for the fd */
static int start(void);

/* ---- Landlock's denials, from the kernel's audit records ----
 *
 * Under LD_AUDIT alone no code of ours sees a call's result, so the
 * listener reads what `secfilter run --trusted` reads (tools/llaudit.h):
 * the audit netlink socket's read-only multicast group, which needs
 * CAP_AUDIT_READ and audit on, and gives the pids of the initial PID
 * namespace.  Both parse the records with filter/llrecords.c.  The
 * domains whose creator is the first image (the layers are entered there,
 * after the listener is forked) are the tree's.  A report goes to the
 * first image's standard error, held from the listener's start until the
 * records have come (a pid in a record may be reused by the time it is
 * read: no other process's stderr is taken for it), or to SECFILTER_LOG,
 * and only where the policy lets the process write it (may_write_own);
 * each add: line once. */
static int listen_ll;          /* the listener reads the records */
static long audit_fd = -1;     /* the multicast socket */
static long held_err = -1;     /* the first image's standard error */
static struct sf_llrec llrec;

#define LL_HELD 32 /* denials held until their domain shows */
#define LL_RECORD_CAP 16384 /* an audit record is at most 8970 bytes */

static long ll_socket(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 }; /* READLOG */
	long fd = sf_sys(SYS_socket, AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
			 NETLINK_AUDIT, 0, 0, 0);

	if (fd >= 0 && sf_sys(SYS_bind, fd, (long)&sa, sizeof sa, 0, 0, 0) < 0) {
		sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
		fd = -1;
	}
	return fd;
}

/* Whether audit is on: 0 only when the kernel says it is off (asking
 * needs CAP_AUDIT_CONTROL; unanswered, it may be on).  Off, Landlock
 * records nothing and a listener would wait for nothing. */
static int ll_audit_on(void)
{
	char msg[SF_AUDIT_GET_LEN], buf[1024];
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	long fd = sf_sys(SYS_socket, AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT, 0, 0, 0), n;
	struct pollfd pf = { (int)fd, POLLIN, 0 };
	int on = 1;

	if (fd < 0)
		return 1;
	sf_audit_get_request(msg);
	/* the reply, or an error (refused: then it may be on) */
	if (sf_sys(SYS_sendto, fd, (long)msg, sizeof msg, 0, (long)&kernel, sizeof kernel) > 0 &&
	    sf_sys(SYS_poll, (long)&pf, 1, 1000, 0, 0, 0) > 0 &&
	    (n = sf_sys(SYS_recvfrom, fd, (long)buf, sizeof buf, MSG_DONTWAIT, 0, 0)) > 0 &&
	    sf_audit_get_reply(buf, (size_t)n) == 0)
		on = 0;
	sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
	return on;
}

/* Whether the records can be read here: this is the initial PID namespace
 * (PROC_PID_INIT_INO), whose pids the records give, audit is on, and the
 * socket binds (CAP_AUDIT_READ). */
static int ll_readable(void)
{
	static const char init_ns[] = "pid:[4026531836]";
	char link[32];
	long n = sf_sys(SYS_readlink, (long)"/proc/self/ns/pid", (long)link, sizeof link, 0, 0, 0),
	     fd;

	if (n != (long)sizeof init_ns - 1 || __builtin_memcmp(link, init_ns, (size_t)n) != 0 ||
	    !ll_audit_on())
		return 0;
	if ((fd = ll_socket()) < 0)
		return 0;
	sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
	return 1;
}

void sf_notify_start(const struct sf_policy *p)
{
	uint32_t act = SECCOMP_RET_USER_NOTIF;
	int reaper = 0;
	long self, fd;

	if (sf_cfg.action == SF_ACT_LOG)
		return;
	/* what Landlock denies, reported from the kernel's records where no
	 * preloaded copy's wrappers see it */
	listen_ll = p->landlock && !sf_preloaded() && ll_readable();
	if ((!sf_notif_useful(p, 0) && !listen_ll) ||
	    sf_sys(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, (long)&act, 0, 0, 0) != 0)
		return;
	/* the listener would be this process's child, were it a subreaper */
	if (sf_sys(SYS_prctl, PR_GET_CHILD_SUBREAPER, (long)&reaper, 0, 0, 0, 0) != 0 || reaper)
		return;
	self = sf_sys(SYS_pidfd_open, sf_sys(SYS_getpid, 0, 0, 0, 0, 0, 0), 0, 0, 0, 0, 0);
	if (self < 0)
		return;
	fd = sf_sys(SYS_pidfd_getfd, self, self, 0, 0, 0, 0); /* Linux 5.6 */
	sf_sys(SYS_close, self, 0, 0, 0, 0, 0);
	if (fd < 0)
		return;
	sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
	listened = p;
	sf_notify_wanted = 1;
	started = start() == 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		sf_sys(SYS_close, *fd, 0, 0, 0, 0, 0);
	*fd = -1;
}

static void listen_forever(long prog_pid) __attribute__((noreturn));
static void ll_start(long prog_pid);

/* The listener's parent: forks it, tells its pid (the program need not
 * wait for the listener to run) and exits. */
static void middle(long prog_pid) __attribute__((noreturn));
static void middle(long prog_pid)
{
	long r = sf_sys(SYS_clone, SIGCHLD, 0, 0, 0, 0, 0);

	if (r == 0)
		listen_forever(prog_pid);
	if (r > 0 && sf_sys(SYS_write, pipe_from[1], (long)&r, sizeof r, 0, 0, 0) != sizeof r)
		r = -1;
	sf_sys(SYS_exit_group, r < 0, 0, 0, 0, 0, 0);
	__builtin_unreachable();
}

/* Starts the listener and tells it which fd the filter's will be.
 * 0, or -1 (nothing left running). */
static int start(void)
{
	long prog_pid = sf_sys(SYS_getpid, 0, 0, 0, 0, 0, 0), pid, lpid = 0, probe;
	int st = 0;

	if (sf_sys(SYS_pipe2, (long)pipe_to, O_CLOEXEC, 0, 0, 0, 0) < 0)
		return -1;
	if (sf_sys(SYS_pipe2, (long)pipe_from, O_CLOEXEC, 0, 0, 0, 0) < 0) {
		close_fd(&pipe_to[0]);
		close_fd(&pipe_to[1]);
		return -1;
	}
	pid = sf_sys(SYS_clone, SIGCHLD, 0, 0, 0, 0, 0);
	if (pid == 0)
		middle(prog_pid);
	close_fd(&pipe_to[0]);
	close_fd(&pipe_from[1]);
	if (pid > 0)
		sf_sys(SYS_wait4, pid, (long)&st, 0, 0, 0, 0);
	if (pid < 0 || st != 0 ||
	    sf_sys(SYS_read, pipe_from[0], (long)&lpid, sizeof lpid, 0, 0, 0) != sizeof lpid)
		goto fail;
	/* Yama's ptrace_scope 1: the listener reads our memory and may
	 * unblock SIGSYS under ptrace (EINVAL without Yama) */
	sf_sys(SYS_prctl, PR_SET_PTRACER, lpid, 0, 0, 0, 0);
	probe = sf_sys(SYS_fcntl, pipe_to[1], F_DUPFD, 0, 0, 0, 0);
	if (probe < 0)
		goto fail;
	sf_sys(SYS_close, probe, 0, 0, 0, 0, 0);
	fd_expected = (int)probe;
	/* the hand-over's calls made under the filter */
	if (!allowed(SYS_close, pipe_to[1], 0, 0) || !allowed(SYS_close, pipe_from[0], 0, 0) ||
	    !allowed(SYS_close, probe, 0, 0) ||
	    !allowed(SYS_read, pipe_from[0], (long)&lpid, sizeof lpid) ||
	    sf_sys(SYS_write, pipe_to[1], (long)&fd_expected, sizeof fd_expected, 0, 0, 0) !=
		    sizeof fd_expected)
		goto fail;
	return 0;
fail:
	close_fd(&pipe_to[1]); /* the listener, told nothing, exits */
	close_fd(&pipe_from[0]);
	return -1;
}

/* The filter is in with the listener's fd: the listener takes it, and
 * this process's copy goes before any code of the program runs. */
static void hand_over(long fd)
{
	long lpid, r;

	if (fd != fd_expected) { /* cannot be: nothing else runs here */
		close_fd(&pipe_to[1]);
		close_fd(&pipe_from[0]);
		sf_sys(SYS_close, fd, 0, 0, 0, 0, 0); /* the filter's kills fail with ENOSYS */
		sf_fatal("secfilter: the kernel filter's listener is not where it was expected");
	}
	close_fd(&pipe_to[1]);
	lpid = 0;
	while ((r = sf_sys(SYS_read, pipe_from[0], (long)&lpid, sizeof lpid, 0, 0, 0)) == -EINTR)
		;
	close_fd(&pipe_from[0]);
	sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
	/* Nobody took the filter's kills: they would fail with ENOSYS and
	 * kill no one.  Closed, the fd no longer holds a denied call here. */
	if (r != 1 || (char)lpid != TAKEN)
		sf_fatal("secfilter: the kernel filter's listener did not start");
}

int sf_notify_load(struct sf_prog *prog, const struct sf_policy *p, struct sf_error *err)
{
	int r;

	if (!sf_notify_wanted)
		return sf_trusted_load(prog, p, err);
	if (started) {
		started = 0;
		r = sf_trusted_load(prog, p, err);
		if (r >= 0) {
			hand_over(r);
			sf_notify_wanted = 0;
			sf_notify_heard = 1;
			return 0;
		}
		close_fd(&pipe_to[1]);
		close_fd(&pipe_from[0]);
		/* EBUSY: a filter above has a listener (the kernel takes one) */
		if (r != -EBUSY && r != -ESRCH)
			return r;
		sf_memset(err, 0, sizeof *err);
	}
	sf_notify_wanted = 0;
	r = sf_trusted_compile_boot(p, prog, err);
	return r < 0 ? r : sf_trusted_load(prog, p, err);
}

/* The call site of the call this thread made again for the listener:
 * the backtrace starts there, past the library's own frames. */
static __thread uintptr_t reissued_site;

/* The call made again with its site and a mark on the stack at the
 * `syscall`, where the listener finds them (/proc/TID/syscall has the
 * stack pointer) for the report's ip: the program's call site, not this
 * one.  Below the red zone; in the region, as every syscall instruction
 * of the library (t_lib_region). */
SF_REGION static long reissue(const struct sf_call *c)
{
	register long r10 __asm__("r10") = (long)c->a[3];
	register long r8 __asm__("r8") = (long)c->a[4];
	register long r9 __asm__("r9") = (long)c->a[5];
	long ret;

	__asm__ volatile("sub $128, %%rsp\n\t"
			 "push %[site]\n\t"
			 "push %[mark]\n\t"
			 "syscall\n\t"
			 "add $144, %%rsp"
			 : "=a"(ret)
			 : "0"(c->nr), "D"(c->a[0]), "S"(c->a[1]), "d"(c->a[2]), "r"(r10), "r"(r8),
			   "r"(r9), [site] "r"((uint64_t)c->ip), [mark] "r"(SITE_MARK)
			 : "rcx", "r11", "memory");
	return ret;
}

int sf_notify_reissue(const struct sf_call *c, int d, const struct sf_policy *p)
{
	const struct sf_policy *k = sf_kernel_policy();
	unsigned a = sf_call_action(p, c, d);
	int kd;

	/* the kernel must deny it: the call is made for real */
	if (!sf_notify_heard || !sf_kernel_on || c->i386 || !k || k->pending ||
	    (a != SF_ACTION_KILL && a != SF_ACTION_LOG) ||
	    (kd = sf_decide(k, (uint64_t)c->nr, c->a)) == SF_ALLOW)
		return 0;
	/* let through, it reaches the listener, which reports it: once */
	if (a == SF_ACTION_LOG)
		return sf_call_action(k, c, kd) == SF_ACTION_LOG;
	reissued_site = c->ip;
	reissue(c);
	reissued_site = 0;
	return 0;
}

/* In every copy of the library, before the policy is in force: the
 * report floor's violation path calls up through this hook. */
__attribute__((constructor(101))) static void notify_init(void)
{
	sf_on_trusted_violation = sf_notify_reissue;
}

/* The backtrace a dying process leaves for the listener, which writes it
 * with the rest of the report in one write (a report in two writes had a
 * server's own log lines land between them).  Static, not on the stack
 * (the handler returns before the listener reads it) nor mapped (the
 * policy may deny mmap): the listener finds it at the same offset from
 * the library's ELF header in every image mapping the library's file
 * (left_bt_in). */
#define BT_CAP 8192u
#define BT_MAGIC 0x5ec0ba7c7aceull
static struct left_bt {
	uint64_t magic, len;
	char text[BT_CAP];
} left_bt;

int sf_notify_die_request(const siginfo_t *si, ucontext_t *uc)
{
	struct sf_buf b = { left_bt.text, 0, sizeof left_bt.text };

	if (si->si_code != SI_QUEUE || si->si_value.sival_int != DIE_MAGIC)
		return 0;
	sf_report_backtrace(&b, uc, reissued_site);
	left_bt.len = b.len;
	__atomic_store_n(&left_bt.magic, BT_MAGIC, __ATOMIC_RELEASE);
	return 1;
}

/* ---- the listener ---- */

struct dying {
	long pid; /* tgid, 0: a free slot */
	long pidfd;
	long long deadline;
	int again;
	/* its report, written when its backtrace is in or it is gone (flush) */
	char *report;
	size_t len;
	long err; /* its standard error, taken for the report, or -1 */
};

static long nfd = -1; /* the filter's listener */
static struct dying dying[MAX_DYING];

static long long now_ms(void)
{
	struct timespec t = { 0, 0 };

	sf_sys(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&t, 0, 0, 0, 0);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void proc_path(char *out, size_t cap, long pid, const char *leaf)
{
	struct sf_buf b = { out, 0, cap };

	sf_puts(&b, "/proc/");
	sf_putu(&b, (uint64_t)pid);
	sf_putc(&b, '/');
	sf_puts(&b, leaf);
	sf_putc(&b, '\0');
}

/* Up to cap bytes of /proc/PID/leaf; how many. */
static size_t read_proc(long pid, const char *leaf, char *buf, size_t cap)
{
	char path[64];
	size_t len = 0;
	long fd, r;

	proc_path(path, sizeof path, pid, leaf);
	fd = sf_sys(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return 0;
	while (len < cap && (r = sf_sys(SYS_read, fd, (long)(buf + len), cap - len, 0, 0, 0)) > 0)
		len += (size_t)r;
	sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
	return len;
}

struct task {
	long tid, tgid;
	uint64_t blk, ign, cgt;
	char comm[17];
};

/* 0, or -1 when the task is gone. */
static int task_of(long tid, struct task *t)
{
	char text[4096];
	size_t n = read_proc(tid, "status", text, sizeof text);
	uint64_t tgid;

	t->tid = tid;
	if (sf_status_field(text, n, "Tgid", 0, &tgid) < 0 ||
	    sf_status_field(text, n, "SigBlk", 1, &t->blk) < 0 ||
	    sf_status_field(text, n, "SigIgn", 1, &t->ign) < 0 ||
	    sf_status_field(text, n, "SigCgt", 1, &t->cgt) < 0)
		return -1;
	t->tgid = (long)tgid;
	n = read_proc(tid, "comm", t->comm, sizeof t->comm - 1);
	while (n && t->comm[n - 1] == '\n')
		n--;
	t->comm[n] = '\0';
	if (!n)
		t->comm[n++] = '?', t->comm[n] = '\0';
	return 0;
}

static int waiting(uint64_t id)
{
	return sf_sys(SYS_ioctl, nfd, (long)SECCOMP_IOCTL_NOTIF_ID_VALID, (long)&id, 0, 0, 0) == 0;
}

static void respond(uint64_t id, int error, int cont)
{
	struct seccomp_notif_resp r;

	sf_memset(&r, 0, sizeof r);
	r.id = id;
	r.error = error;
	r.flags = cont ? SECCOMP_USER_NOTIF_FLAG_CONTINUE : 0;
	sf_sys(SYS_ioctl, nfd, (long)SECCOMP_IOCTL_NOTIF_SEND, (long)&r, 0, 0, 0);
}

/* ---- what the call was writing, when it is a message ---- */

/* Up to cap bytes of what write/writev asked to write; how many. */
static size_t written_text(const struct seccomp_notif *n, long tid, char *out, size_t cap)
{
	struct iovec iov[16];
	size_t len = 0, i, cnt;
	long ctx = tid;

	if (n->data.nr == SYS_write)
		return sf_vm_read(&ctx, n->data.args[1],
				  out, n->data.args[2] < cap ? n->data.args[2] : cap);
	cnt = n->data.args[2] < 16 ? n->data.args[2] : 16;
	cnt = sf_vm_read(&ctx, n->data.args[1], iov, cnt * sizeof *iov) / sizeof *iov;
	for (i = 0; i < cnt && len < cap; i++) {
		size_t k = iov[i].iov_len < cap - len ? iov[i].iov_len : cap - len;
		size_t got = sf_vm_read(&ctx, (uintptr_t)iov[i].iov_base, out + len, k);
		len += got;
		if (got < k)
			break;
	}
	return len;
}

static int contains(const char *s, size_t n, const char *what)
{
	size_t k = sf_strlen(what), i;

	for (i = 0; i + k <= n; i++)
		if (s[i] == what[0] && !__builtin_memcmp(s + i, what, k))
			return 1;
	return 0;
}

/* A line of /proc/PID/maps: its range, its file offset, and what follows
 * (device, inode, path) up to the end of the line. */
struct mapline {
	uint64_t lo, hi, off;
	const char *file, *end;
};

static const char *hex(const char *s, const char *end, uint64_t *v)
{
	for (*v = 0; s < end && ((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')); s++)
		*v = *v * 16 + (uint64_t)(*s <= '9' ? *s - '0' : *s - 'a' + 10);
	return s;
}

/* The line at s into m; where the next one starts. */
static const char *mapline(const char *s, const char *end, struct mapline *m)
{
	const char *e = s;

	while (e < end && *e != '\n')
		e++;
	s = hex(s, e, &m->lo);
	s = hex(s + (s < e), e, &m->hi);
	while (s < e && *s != ' ')
		s++;
	while (s < e && *++s != ' ') /* the permissions */
		;
	s = hex(s + (s < e), e, &m->off);
	m->file = s + (s < e);
	m->end = e;
	return e + (e < end);
}

/* The maps of pid into pages of REPORT_CAP; its length in *n. */
static char *maps_of(long pid, size_t *n)
{
	char *maps = sf_pages(REPORT_CAP);

	*n = maps ? read_proc(pid, "maps", maps, REPORT_CAP) : 0;
	return maps;
}

/* Whether ip lies in the dynamic loader's code (/proc/PID/maps): the
 * program has not started yet. */
static int in_loader(long tid, uint64_t ip)
{
	size_t n;
	char *maps = maps_of(tid, &n);
	const char *s = maps, *base;
	struct mapline m;
	int found = 0;

	while (maps && s < maps + n) {
		s = mapline(s, maps + n, &m);
		if (ip < m.lo || ip >= m.hi)
			continue;
		for (base = m.end; base > m.file && base[-1] != '/'; base--)
			;
		found = base > m.file && m.end - base > 3 && sf_startswith(base, "ld-");
		break;
	}
	if (maps)
		sf_unpages(maps, REPORT_CAP);
	return found;
}

/* A denied write to standard output or error: what it said, and when
 * the dynamic loader said it (an error before main), what to do. */
static void put_message(struct sf_out *o, const struct seccomp_notif *n, long tid)
{
	char text[QUOTE_CAP];
	size_t len;

	if ((n->data.nr != SYS_write && n->data.nr != SYS_writev) || n->data.args[0] < 1 ||
	    n->data.args[0] > 2)
		return;
	len = written_text(n, tid, text, sizeof text);
	if (!len)
		return;
	sf_out_str(o, "    message: ");
	sf_decode_string(o, text, len, len == sizeof text);
	sf_out_str(o, "\n");
	if (!in_loader(tid, n->data.instruction_pointer))
		return;
	sf_out_str(o, "    hint: the dynamic loader wrote this before the program started: "
		      "its error, not the program's call; the policy denies the message, "
		      "not what failed\n");
	if (contains(text, len, "static TLS"))
		sf_out_str(o, "    hint: under LD_AUDIT glibc sets up TLS before it loads the "
			      "program's libraries, whose initial-exec TLS must then fit in what "
			      "it keeps for dlopen (512 bytes unless told): start the program "
			      "with `secfilter run --trusted`, which needs no audit module, or "
			      "reserve more with GLIBC_TUNABLES=glibc.rtld.optional_static_tls=N "
			      "(N bytes: 4096 fits libjemalloc)\n");
	else
		sf_out_str(o, "    hint: fix what it names (without secfilter the program "
			      "fails the same way), or allow the message with the add: line\n");
}

/* ---- the report ---- */

/* Where the call was made: for one the library made again (reissue), the
 * site under the mark on its stack, else where the kernel saw it. */
static uint64_t call_site(const struct seccomp_notif *n, long tid)
{
	char text[256];
	size_t len = read_proc(tid, "syscall", text, sizeof text - 1), i = 0;
	uint64_t sp = 0, top[2] = { 0, 0 };
	long ctx = tid;
	int field = 0;

	/* "NR ARG0 ... ARG5 SP PC", the numbers after NR in hex (0x...) */
	for (; i < len && field < 7; i++)
		field += text[i] == ' ';
	if (i + 2 < len)
		hex(text + i + 2, text + len, &sp);
	if (field == 7 && sf_vm_read(&ctx, sp, top, sizeof top) == sizeof top && top[0] == SITE_MARK)
		return top[1];
	return n->data.instruction_pointer;
}

/* The process's standard error, for the report: its own open file
 * (pidfd_getfd), or the file reopened through /proc for appending.  The
 * fd, or -1. */
static long take_stderr(long pidfd, long pid)
{
	char path[64];
	long fd = sf_sys(SYS_pidfd_getfd, pidfd, 2, 0, 0, 0, 0);

	if (fd < 0) {
		proc_path(path, sizeof path, pid, "fd/2");
		fd = sf_sys(SYS_openat, AT_FDCWD, (long)path,
			    O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC, 0, 0, 0);
	}
	/* above 2: emit puts each dying process's own there in turn */
	if (fd >= 0 && fd <= 2) {
		long high = sf_sys(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 3, 0, 0, 0);
		sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
		fd = high;
	}
	return fd < 0 ? -1 : fd;
}

/* A report to its destination, in one write: the process's standard
 * error (err, closed here; as fd 2 for sf_log_emit), or SECFILTER_LOG's. */
static void emit(const char *s, size_t n, long err)
{
	if (err >= 0) {
		sf_sys(SYS_dup3, err, 2, 0, 0, 0, 0);
		sf_sys(SYS_close, err, 0, 0, 0, 0, 0);
	}
	if (sf_cfg.log != SF_LOG_STDERR || err >= 0)
		sf_log_emit(s, n);
	sf_sys(SYS_close, 2, 0, 0, 0, 0, 0);
}

/* The (syscall, decision) pairs of calls let through that the listener
 * reported: each once for the tree, as run reports them (its repeats
 * are counted by the process, for its summary).  A pair that finds no
 * room is reported every time. */
#define LOGGED_MAX 256
static uint64_t logged[LOGGED_MAX];

static int logged_before(long nr, int decision)
{
	uint64_t key = ((uint64_t)(nr + 1) << 32) | (uint32_t)decision;

	return sf_seen(logged, LOGGED_MAX, key, (unsigned)((key * 0x9e3779b97f4a7c15ull) >> 56));
}

/* The report of n into pages of REPORT_CAP (its length in *len), with
 * the process's standard error taken in *err; NULL when nothing is to
 * be said (a pair logged before) or there is no memory. */
static char *compose(const struct seccomp_notif *n, const struct task *t,
		     const struct sf_notif_verdict *v, long pidfd, size_t *len, long *err)
{
	char *mem;
	struct sf_out o;
	struct sf_vcall c;
	long ctx = t->tid;

	if (v->action == SF_ACTION_LOG && logged_before((long)n->data.nr, v->decision))
		return NULL;
	if (!(mem = sf_pages(REPORT_CAP)))
		return NULL;
	o = (struct sf_out){ mem, REPORT_CAP, 0 };
	c.nr = (long)n->data.nr;
	sf_memcpy(c.a, n->data.args, sizeof c.a);
	c.ip = call_site(n, t->tid);
	c.comm = t->comm;
	c.pid = t->tgid;
	c.p = listened;
	c.decision = v->decision;
	c.read = v->x86 ? sf_vm_read : NULL;
	c.ctx = &ctx;
	c.logged = 0; /* set by sf_report_vbody from the form */
	sf_report_vbody(&o, &c, sf_report_form_of(v->action));
	if (v->x86)
		put_message(&o, n, t->tid);
	sf_out_end(&o);
	*len = o.len < o.cap ? o.len : o.cap - 1;
	*err = sf_cfg.log == SF_LOG_STDERR ? take_stderr(pidfd, t->tgid) : -1;
	return mem;
}

/* A report of a call the process survives: written at once. */
static void report(const struct seccomp_notif *n, const struct task *t,
		   const struct sf_notif_verdict *v, long pidfd)
{
	size_t len = 0;
	long err = -1;
	char *mem = compose(n, t, v, pidfd, &len, &err);

	if (!mem)
		return;
	emit(mem, len, err);
	sf_unpages(mem, REPORT_CAP);
}

/* ---- the backtrace a dying process left (left_bt) ---- */

extern const char __ehdr_start[] __attribute__((visibility("hidden")));

/* This library's file as the maps name it (device, inode, path), read
 * by the listener at its start: its own copy is the first image's. */
static char self_file[512];

static void know_self_file(void)
{
	size_t n;
	char *maps = maps_of(sf_sys(SYS_getpid, 0, 0, 0, 0, 0, 0), &n);
	const char *s = maps;
	struct mapline m;

	while (maps && s < maps + n) {
		s = mapline(s, maps + n, &m);
		if (m.lo == (uintptr_t)__ehdr_start && !m.off &&
		    (size_t)(m.end - m.file) < sizeof self_file) {
			sf_memcpy(self_file, m.file, (size_t)(m.end - m.file));
			break;
		}
	}
	if (maps)
		sf_unpages(maps, REPORT_CAP);
}

/* The backtrace tid's process left in left_bt, if it maps this library's
 * file, into out (non-printing bytes as '?'): how many bytes.  A process
 * may map the file twice (LD_AUDIT and LD_PRELOAD: two copies), and the
 * copy whose handler ran is the one whose left_bt is marked. */
static size_t left_bt_in(long tid, char *out, size_t cap)
{
	size_t n, len = 0, i, self_len = sf_strlen(self_file);
	char *maps = self_len ? maps_of(tid, &n) : NULL;
	const char *s = maps;
	struct mapline m;
	struct left_bt hdr = { 0, 0, { 0 } };
	long ctx = tid;
	uintptr_t at = 0;

	while (maps && s < maps + n && hdr.magic != BT_MAGIC) {
		s = mapline(s, maps + n, &m);
		if (m.off || (size_t)(m.end - m.file) != self_len ||
		    __builtin_memcmp(m.file, self_file, self_len))
			continue;
		at = (uintptr_t)m.lo + (uintptr_t)((const char *)&left_bt - __ehdr_start);
		if (sf_vm_read(&ctx, at, &hdr, 16) != 16)
			hdr.magic = 0;
	}
	if (maps)
		sf_unpages(maps, REPORT_CAP);
	if (hdr.magic != BT_MAGIC)
		return 0;
	len = hdr.len < BT_CAP ? hdr.len : BT_CAP;
	len = sf_vm_read(&ctx, at + 16, out, len < cap ? len : cap);
	for (i = 0; i < len; i++)
		if (out[i] != '\n' && (out[i] < ' ' || out[i] > '~'))
			out[i] = '?';
	return len;
}

/* Whether the process could have written the backtrace to the report's
 * destination itself, as the policy the listener enforces decides: the
 * text is the process's, and the listener writes no more for it than
 * the process could. */
static int may_write_own(void)
{
	switch (sf_cfg.log) {
	case SF_LOG_FILE:
		return allowed(SYS_openat, AT_FDCWD, 0, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC) &&
		       allowed(SYS_write, 3, 0, 0);
	case SF_LOG_SYSLOG:
		return allowed(SYS_socket, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0) &&
		       allowed(SYS_connect, 3, 0, 0) && allowed(SYS_sendto, 3, 0, 0);
	default:
		return allowed(SYS_write, 2, 0, 0);
	}
}

/* ---- the kill ---- */

static struct dying *dying_of(long pid)
{
	unsigned i;

	for (i = 0; i < MAX_DYING; i++)
		if (dying[i].pid == pid)
			return &dying[i];
	return NULL;
}

/* SIGSYS to thread t: plain, or with the mark for the library's handler. */
static int send_sigsys(const struct task *t, int handled)
{
	siginfo_t si;

	if (!handled)
		return (int)sf_sys(SYS_tgkill, t->tgid, t->tid, SIGSYS, 0, 0, 0);
	sf_memset(&si, 0, sizeof si);
	si.si_signo = SIGSYS;
	si.si_code = SI_QUEUE;
	si.si_pid = (pid_t)sf_sys(SYS_getpid, 0, 0, 0, 0, 0, 0);
	si.si_uid = (uid_t)sf_sys(SYS_getuid, 0, 0, 0, 0, 0, 0);
	si.si_value.sival_int = DIE_MAGIC;
	return (int)sf_sys(SYS_rt_tgsigqueueinfo, t->tgid, t->tid, SIGSYS, (long)&si, 0, 0);
}

/* A thread that blocks SIGSYS (glibc blocks every signal around clone3
 * in pthread_create and posix_spawn): taken under ptrace for a moment,
 * SIGSYS cleared from its mask and sent.  0, or -1. */
static int through_mask(const struct task *t, int handled)
{
	uint64_t mask;
	siginfo_t si;
	int ok = -1;

	if (sf_sys(SYS_ptrace, PTRACE_SEIZE, t->tid, 0, 0, 0, 0) < 0)
		return -1;
	if (sf_sys(SYS_ptrace, PTRACE_INTERRUPT, t->tid, 0, 0, 0, 0) == 0) {
		sf_memset(&si, 0, sizeof si);
		while (sf_sys(SYS_waitid, P_PID, t->tid, (long)&si,
			      WSTOPPED | WEXITED | WNOWAIT | __WALL, 0, 0) == -EINTR)
			;
		if (si.si_pid == t->tid && si.si_code == CLD_TRAPPED &&
		    sf_sys(SYS_ptrace, PTRACE_GETSIGMASK, t->tid, sizeof mask, (long)&mask, 0, 0) == 0) {
			mask &= ~SF_SIGSYS_BIT;
			if (sf_sys(SYS_ptrace, PTRACE_SETSIGMASK, t->tid, sizeof mask, (long)&mask, 0,
				   0) == 0 &&
			    send_sigsys(t, handled) == 0)
				ok = 0;
		}
	}
	/* A tracee that exited meanwhile cannot be detached: its exit is
	 * collected here, or its parent's wait would block on it while this
	 * listener lives, and the listener lives as long as it is there. */
	if (sf_sys(SYS_ptrace, PTRACE_DETACH, t->tid, 0, 0, 0, 0) < 0)
		while (sf_sys(SYS_waitid, P_PID, t->tid, (long)&si, WEXITED | __WALL, 0, 0) == -EINTR)
			;
	return ok;
}

/* Ends t's process as the kernel's kill would (see the top).  Whether
 * the library's handler was asked (the call then comes back: again). */
static int end(const struct task *t, struct dying *k)
{
	unsigned way = sf_notif_kill_way(t->blk, t->ign, t->cgt);
	int handled = (way & SF_KILL_HANDLED) != 0;

	/* back with SIGSYS still handled: a handler other than the library's */
	if (k->again && handled)
		way |= SF_KILL_SIGKILL;
	if (!(way & SF_KILL_SIGKILL) && k->again < MAX_AGAIN &&
	    ((way & SF_KILL_UNMASK) ? through_mask(t, handled) : send_sigsys(t, handled)) == 0)
		return handled;
	sf_sys(SYS_pidfd_send_signal, k->pidfd, SIGKILL, 0, 0, 0, 0);
	return 0;
}

/* k's report, once: with the backtrace its thread left when the process
 * is still there (tid) and could have written it itself. */
static void flush(struct dying *k, long tid)
{
	if (!k->report)
		return;
	if (tid && may_write_own())
		k->len += left_bt_in(tid, k->report + k->len, REPORT_CAP - 1 - k->len);
	emit(k->report, k->len, k->err);
	sf_unpages(k->report, REPORT_CAP);
	k->report = NULL;
	k->err = -1;
}

/* A dying process's call: its SIGSYS back to SIG_DFL runs (the library's
 * handler does that), anything else ends it: by then the handler has
 * left the backtrace, and the report goes out. */
static void again(const struct seccomp_notif *n, const struct task *t, struct dying *k)
{
	struct sf_ksigaction act = { (void *)1, 0, 0, 0 };
	long ctx = t->tid;

	if (n->data.nr == SYS_rt_sigaction && n->data.args[0] == SIGSYS && n->data.args[1] &&
	    sf_vm_read(&ctx, n->data.args[1], &act, sizeof act.handler) == sizeof act.handler &&
	    act.handler == (void *)SIG_DFL) {
		respond(n->id, 0, 1);
		return;
	}
	flush(k, t->tid);
	k->again++;
	end(t, k);
}

/* report: composed (compose), written when the backtrace is in. */
static void kill_process(const struct task *t, long pidfd, char *report, size_t len, long err)
{
	struct dying *k = dying_of(0);

	if (!k) { /* too many at once: the rest die at once */
		if (report) {
			emit(report, len, err);
			sf_unpages(report, REPORT_CAP);
		}
		sf_sys(SYS_pidfd_send_signal, pidfd, SIGKILL, 0, 0, 0, 0);
		sf_sys(SYS_close, pidfd, 0, 0, 0, 0, 0);
		return;
	}
	k->pid = t->tgid;
	k->pidfd = pidfd;
	k->deadline = now_ms() + GRACE_MS;
	k->again = 0;
	k->report = report;
	k->len = len;
	k->err = err;
	if (!end(t, k))
		flush(k, 0);
}

/* Forgets the dead; SIGKILL to those past their deadline.  How many are
 * dying.  A report still held goes out without its backtrace. */
static unsigned reap(void)
{
	long long now = now_ms();
	unsigned i, left = 0;

	for (i = 0; i < MAX_DYING; i++) {
		struct pollfd pf = { (int)dying[i].pidfd, POLLIN, 0 };
		if (!dying[i].pid)
			continue;
		if (sf_sys(SYS_poll, (long)&pf, 1, 0, 0, 0, 0) > 0) {
			flush(&dying[i], 0);
			sf_sys(SYS_close, dying[i].pidfd, 0, 0, 0, 0, 0);
			dying[i].pid = 0;
			continue;
		}
		if (now >= dying[i].deadline) {
			flush(&dying[i], 0);
			sf_sys(SYS_pidfd_send_signal, dying[i].pidfd, SIGKILL, 0, 0, 0, 0);
		}
		left++;
	}
	return left;
}

static void serve_one(void)
{
	struct seccomp_notif n;
	struct sf_notif_verdict v;
	struct task t;
	struct dying *k;
	long pidfd;

	sf_memset(&n, 0, sizeof n);
	if (sf_sys(SYS_ioctl, nfd, (long)SECCOMP_IOCTL_NOTIF_RECV, (long)&n, 0, 0, 0) < 0)
		return; /* its caller died meanwhile */
	if (!n.pid) { /* outside our PID namespace: no way to name or end it */
		respond(n.id, -ENOSYS, 0);
		return;
	}
	if (task_of(n.pid, &t) < 0) {
		/* its /proc unreadable: nothing to report it with, and the
		 * call must neither run nor wait for ever */
		if (waiting(n.id))
			sf_sys(SYS_kill, n.pid, SIGKILL, 0, 0, 0, 0);
		return;
	}
	if (!waiting(n.id))
		return;
	if ((k = dying_of(t.tgid))) {
		again(&n, &t, k);
		return;
	}
	sf_notif_judge(listened, 0, n.data.arch, n.data.nr, (const uint64_t *)n.data.args, &v);
	if (v.decision == SF_ALLOW) { /* not ours to decide (cannot happen) */
		respond(n.id, 0, 1);
		return;
	}
	/* the pidfd names the process whose thread still waits: checked
	 * after it was opened, so that a pid reused since is not killed */
	pidfd = sf_sys(SYS_pidfd_open, t.tgid, 0, 0, 0, 0, 0);
	if (pidfd < 0 || !waiting(n.id)) {
		if (pidfd >= 0)
			sf_sys(SYS_close, pidfd, 0, 0, 0, 0, 0);
		else
			respond(n.id, -ENOSYS, 0);
		return;
	}
	if (v.action == SF_ACTION_LOG || (v.action >= 1 && v.action <= SF_ERRNO_MAX)) {
		report(&n, &t, &v, pidfd);
		respond(n.id, v.action == SF_ACTION_LOG ? 0 : -(int)v.action, v.action == SF_ACTION_LOG);
	} else {
		size_t len = 0;
		long err = -1;
		char *mem = compose(&n, &t, &v, pidfd, &len, &err);
		kill_process(&t, pidfd, mem, len, err);
		return;
	}
	sf_sys(SYS_close, pidfd, 0, 0, 0, 0, 0);
}

static void quit(void) __attribute__((noreturn));
static void quit(void)
{
	sf_sys(SYS_exit_group, 0, 0, 0, 0, 0, 0);
	__builtin_unreachable();
}

/* Every fd but keep[0] and keep[1] (keep[0] < keep[1]) closed. */
static void close_all_but(long lo, long hi)
{
	if (lo > 0)
		sf_sys(SYS_close_range, 0, lo - 1, 0, 0, 0, 0);
	if (hi > lo + 1)
		sf_sys(SYS_close_range, lo + 1, hi - 1, 0, 0, 0, 0);
	sf_sys(SYS_close_range, hi + 1, ~0u, 0, 0, 0, 0);
}

/* The listener's setup: out of the program's session and fds, then the
 * hand-over (see the top); returns the filter's fd. */
static long take_listener(long prog_pid)
{
	static const struct sf_ksigaction ign = { (void *)SIG_IGN, SA_RESTORER, 0, 0 };
	static const int quiet[] = { SIGPIPE, SIGHUP, SIGINT, SIGQUIT, SIGTSTP, SIGTTOU };
	long in = pipe_to[0], out = pipe_from[1], pidfd, fd = -1, r;
	static const char taken = TAKEN;
	int num = -1, dummy;
	uint64_t id = 0;
	unsigned i;

	close_all_but(in < out ? in : out, in < out ? out : in);
	sf_sys(SYS_setsid, 0, 0, 0, 0, 0, 0);
	sf_sys(SYS_chdir, (long)"/", 0, 0, 0, 0, 0); /* no directory kept busy */
	for (i = 0; i < sizeof quiet / sizeof quiet[0]; i++)
		sf_sys(SYS_rt_sigaction, quiet[i], (long)&ign, 0, 8, 0, 0);
	sf_sys(SYS_prctl, PR_SET_NAME, (long)"secfilter-ntfy", 0, 0, 0, 0);
	sf_sys(SYS_prctl, PR_SET_DUMPABLE, 0, 0, 0, 0, 0);
	if (sf_sys(SYS_read, in, (long)&num, sizeof num, 0, 0, 0) != sizeof num)
		quit();
	/* its end closed: the filter is in (or failed) */
	while ((r = sf_sys(SYS_read, in, (long)&dummy, sizeof dummy, 0, 0, 0)) > 0 || r == -EINTR)
		;
	pidfd = sf_sys(SYS_pidfd_open, prog_pid, 0, 0, 0, 0, 0);
	if (pidfd >= 0)
		fd = sf_sys(SYS_pidfd_getfd, pidfd, num, 0, 0, 0, 0);
	/* a listener's fd knows no notification 0; another fd is no listener */
	if (fd < 0 ||
	    sf_sys(SYS_ioctl, fd, (long)SECCOMP_IOCTL_NOTIF_ID_VALID, (long)&id, 0, 0, 0) != -ENOENT)
		quit();
	sf_sys(SYS_close, pidfd, 0, 0, 0, 0, 0);
	sf_sys(SYS_close, in, 0, 0, 0, 0, 0);
	ll_start(prog_pid); /* before any code of the program runs and is denied */
	sf_sys(SYS_write, out, (long)&taken, 1, 0, 0, 0);
	sf_sys(SYS_close, out, 0, 0, 0, 0, 0); /* the program may go on */
	return fd;
}

/* ---- the listener's side of Landlock's denials (see above) ---- */

static size_t ll_read_mem(void *ctx, long pid, uint64_t addr, void *buf, size_t n)
{
	(void)ctx;
	return sf_vm_read(&pid, addr, buf, n);
}

/* The add: lines reported, by hash: each once for the tree. */
static uint64_t ll_said[LOGGED_MAX];

static void ll_denied(void *ctx, struct sf_llrec_event *e)
{
	const struct sf_landlock *ll = listened->landlock;
	struct sf_ll_denial d;
	char full[SF_LLREC_PATH], fix[SF_LLREC_PATH + 64], *mem;
	struct sf_out o, fo = { fix, sizeof fix, 0 };
	long err = -1;

	(void)ctx;
	sf_llrec_denial(e, &d, full);
	if (!sf_ll_fix(&fo, ll, &d) || fo.len >= fo.cap || sf_ll_said(ll_said, LOGGED_MAX, fix, fo.len) ||
	    !may_write_own())
		return;
	if (sf_cfg.log == SF_LOG_STDERR &&
	    (held_err < 0 || (err = sf_sys(SYS_fcntl, held_err, F_DUPFD_CLOEXEC, 3, 0, 0, 0)) < 0))
		return;
	if (!(mem = sf_pages(REPORT_CAP))) {
		if (err >= 0)
			sf_sys(SYS_close, err, 0, 0, 0, 0, 0);
		return;
	}
	o = (struct sf_out){ mem, REPORT_CAP, 0 };
	if (sf_ll_report(&o, ll, &d) && o.len < o.cap)
		emit(mem, o.len, err);
	else if (err >= 0)
		sf_sys(SYS_close, err, 0, 0, 0, 0, 0);
	sf_unpages(mem, REPORT_CAP);
}

/* The socket, and the first image's standard error, taken while it waits
 * for the hand-over: the records of what it is denied come after. */
static void ll_start(long prog_pid)
{
	long pidfd;

	if (!listen_ll || sf_llrec_init(&llrec, LL_HELD) < 0 || (audit_fd = ll_socket()) < 0)
		return;
	llrec.creator = prog_pid;
	llrec.read_mem = ll_read_mem;
	llrec.denied = ll_denied;
	if (sf_cfg.log == SF_LOG_STDERR && (pidfd = sf_sys(SYS_pidfd_open, prog_pid, 0, 0, 0, 0, 0)) >= 0) {
		held_err = take_stderr(pidfd, prog_pid);
		sf_sys(SYS_close, pidfd, 0, 0, 0, 0, 0);
	}
}

/* The records queued now; how many. */
static unsigned ll_read(void)
{
	char buf[LL_RECORD_CAP];
	unsigned got = 0;
	long n;

	while (audit_fd >= 0 &&
	       ((n = sf_sys(SYS_recvfrom, audit_fd, (long)buf, sizeof buf - 1, MSG_DONTWAIT, 0, 0)) >
			0 ||
		n == -EINTR || n == -ENOBUFS)) {
		/* one record a datagram; its nlmsg_len is the payload's (run's
		 * reader says more); ENOBUFS: some were lost */
		if (n <= NLMSG_HDRLEN)
			continue;
		buf[n] = '\0';
		sf_llrec_record(&llrec, ((struct nlmsghdr *)buf)->nlmsg_type, buf + NLMSG_HDRLEN);
		got++;
	}
	return got;
}

/* The tree is gone: the records still on their way, up to the barrier
 * (llrecords.h: this socket joins the records' group and leaves it; the
 * kernel sends records in the order they were queued) and the
 * deallocation of each domain of ours that showed, at most 2 s. */
static void ll_finish(void)
{
	long long end = now_ms() + GRACE_MS;
	long fence;

	if (audit_fd < 0)
		return;
	if ((fence = ll_socket()) >= 0) {
		llrec.barrier = sf_sys(SYS_getpid, 0, 0, 0, 0, 0, 0);
		sf_sys(SYS_close, fence, 0, 0, 0, 0, 0);
	}
	for (;;) {
		struct pollfd pf = { (int)audit_fd, POLLIN, 0 };
		int waiting;

		ll_read();
		waiting = sf_llrec_waiting(&llrec);
		if ((fence >= 0 && !waiting) || now_ms() > end ||
		    (sf_sys(SYS_poll, (long)&pf, 1, waiting ? 100 : 50, 0, 0, 0) == 0 && !waiting))
			break;
	}
	sf_llrec_flush(&llrec);
	sf_sys(SYS_close, audit_fd, 0, 0, 0, 0, 0);
	audit_fd = -1;
	if (held_err >= 0)
		sf_sys(SYS_close, held_err, 0, 0, 0, 0, 0);
	held_err = -1;
}

static void listen_forever(long prog_pid)
{
	nfd = take_listener(prog_pid);
	know_self_file();
	sf_kernel_on = 0; /* nothing here is filtered: the reporter may call anything */
	for (;;) {
		struct pollfd pf[2] = { { (int)nfd, POLLIN, 0 }, { (int)audit_fd, POLLIN, 0 } };
		long r = sf_sys(SYS_poll, (long)pf, audit_fd >= 0 ? 2 : 1, reap() ? 100 : -1, 0, 0,
				0);
		if (r > 0 && (pf[1].revents & POLLIN))
			ll_read();
		if (r > 0 && (pf[0].revents & POLLIN))
			serve_one();
		else if (r > 0 && pf[0].revents)
			break; /* POLLHUP: no task is left under the filter */
	}
	while (reap())
		sf_sys(SYS_poll, 0, 0, 100, 0, 0, 0);
	ll_finish();
	quit();
}
