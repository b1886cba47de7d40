/* ptrace plumbing shared by `run` and `learn` (see trace.h). */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trace.h"

/* The options trace_spawn gave the child, to go back to. */
static long spawn_options;

pid_t wait_retry(pid_t pid, int *status, int flags)
{
	pid_t r;

	do
		r = waitpid(pid, status, flags | __WALL);
	while (r < 0 && errno == EINTR);
	return r;
}

static void kill_and_reap(pid_t pid)
{
	int st;

	kill(pid, SIGKILL);
	wait_retry(pid, &st, 0);
}

/* The child's half of trace_spawn; reports a failure on efd. */
static void __attribute__((noreturn)) spawn_child(const struct spawn *s, int efd, pid_t parent)
{
	struct spawn_fail f = { SPAWN_SETUP, 0 };

	/* Our life is tied to the tracer's for good: until it has set
	 * PTRACE_O_EXITKILL, a secfilter killed right now would leave a child
	 * that goes on to exec PROG untraced and unfiltered; after it has
	 * let PROG go, PROG must not run on without the secfilter that
	 * supervises it, even one killed by SIGKILL.  The death signal
	 * outlives the exec (with no_new_privs, which run sets, a set-ID PROG
	 * does not clear it); PROG clears it if it changes its own ids. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		goto fail;
	if (getppid() != parent) {
		errno = ESRCH;
		goto fail;
	}
	if (s->keep_fd >= 0 && fcntl(s->keep_fd, F_SETFD, 0) < 0)
		goto fail;
	if (s->no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		goto fail;
	if (ptrace(PTRACE_TRACEME, 0, 0, 0) < 0)
		goto fail;
	if (s->before_exec) {
		int rc = s->before_exec(s->before_exec_ctx);
		if (rc < 0) {
			errno = -rc;
			goto fail;
		}
	}
	raise(SIGSTOP);
	execve(s->path, s->argv, s->envp);
	f.stage = SPAWN_EXEC;
fail:
	f.err = errno;
	if (write(efd, &f, sizeof(f)) < 0)
		_exit(125);
	if (f.stage == SPAWN_EXEC)
		_exit(f.err == ENOENT ? 127 : 126);
	_exit(125);
}

void trace_spawn_failure(int errfd, struct spawn_fail *f)
{
	ssize_t n;

	do
		n = read(errfd, f, sizeof(*f));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(*f)) {
		f->stage = SPAWN_NONE;
		f->err = 0;
	}
}

pid_t trace_spawn(const struct spawn *s, int *errfd)
{
	pid_t parent = getpid(), pid;
	int ep[2], st, e;

	if (pipe2(ep, O_CLOEXEC) < 0)
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		e = errno;
		close(ep[0]);
		close(ep[1]);
		errno = e;
		return -1;
	}
	if (pid == 0)
		spawn_child(s, ep[1], parent);
	close(ep[1]);
	if (wait_retry(pid, &st, 0) < 0)
		goto fail;
	if (!WIFSTOPPED(st) || WSTOPSIG(st) != SIGSTOP) {
		struct spawn_fail f;
		trace_spawn_failure(ep[0], &f);
		if (WIFSTOPPED(st))
			kill_and_reap(pid);
		close(ep[0]);
		errno = f.err ? f.err : ECHILD;
		return -1;
	}
	spawn_options = s->options | PTRACE_O_EXITKILL | PTRACE_O_TRACEEXEC;
	if (ptrace(PTRACE_SETOPTIONS, pid, 0, spawn_options) < 0)
		goto fail;
	*errfd = ep[0];
	return pid;
fail:
	e = errno;
	kill_and_reap(pid);
	close(ep[0]);
	errno = e;
	return -1;
}

int trace_stop_signal(pid_t pid, int status)
{
	siginfo_t si;

	/* An event stop (status >> 16) carries no signal.  Without
	 * PTRACE_SEIZE a group-stop looks like a signal stop; only a real
	 * signal-delivery-stop has siginfo. */
	if (status >> 16 || ptrace(PTRACE_GETSIGINFO, pid, 0, &si) < 0)
		return 0;
	return WSTOPSIG(status);
}

/* Resumes the stopped child, delivering sig, and waits for what comes
 * next.  0: a stop (*st); 1: it ended (*status = *st); -1: failure. */
static int resume(pid_t pid, int sig, int *st, int *status)
{
	if (ptrace(PTRACE_CONT, pid, 0, sig) < 0 || wait_retry(pid, st, 0) < 0)
		return -1;
	if (WIFEXITED(*st) || WIFSIGNALED(*st)) {
		*status = *st;
		return 1;
	}
	return 0;
}

static int is_exec_event(int status)
{
	return status >> 8 == (SIGTRAP | (PTRACE_EVENT_EXEC << 8));
}

int trace_until_exec(pid_t pid, int *status)
{
	int st, sig = 0, rc;

	while ((rc = resume(pid, sig, &st, status)) == 0) {
		if (is_exec_event(st))
			return 0;
		sig = trace_stop_signal(pid, st);
	}
	return rc;
}

/* Replaces n <= 8 bytes at addr, keeping the old ones in old (if not
 * NULL).  Goes through aligned words, which never straddle a page, and
 * through ptrace, which may write read-only text (FOLL_FORCE). */
static int poke_bytes(pid_t pid, unsigned long addr, const void *bytes, size_t n, void *old)
{
	unsigned long base = addr & ~7ul, words[2];
	size_t off = addr - base, nw = (off + n + 7) / 8, i;

	for (i = 0; i < nw; i++) {
		errno = 0;
		words[i] = (unsigned long)ptrace(PTRACE_PEEKTEXT, pid, base + 8 * i, 0);
		if (errno)
			return -1;
	}
	if (old)
		memcpy(old, (char *)words + off, n);
	memcpy((char *)words + off, bytes, n);
	for (i = 0; i < nw; i++)
		if (ptrace(PTRACE_POKETEXT, pid, base + 8 * i, words[i]) < 0)
			return -1;
	return 0;
}

/* Copies len bytes (a multiple of 8, addr aligned) into the child's
 * writable memory. */
static int write_mem(pid_t pid, unsigned long addr, const void *buf, size_t len)
{
	struct iovec local = { (void *)buf, len }, remote = { (void *)addr, len };
	const unsigned long *w = buf;
	size_t i;

	if (process_vm_writev(pid, &local, 1, &remote, 1, 0) == (ssize_t)len)
		return 0;
	for (i = 0; i < len / 8; i++)
		if (ptrace(PTRACE_POKEDATA, pid, addr + 8 * i, w[i]) < 0)
			return -1;
	return 0;
}

int trace_is_x86_64(pid_t pid)
{
	struct user_regs_struct r;
	struct iovec iov = { &r, sizeof(r) };

	/* The kernel gives a 32-bit task's registers in the i386 layout,
	 * which is shorter. */
	if (ptrace(PTRACE_GETREGSET, pid, NT_PRSTATUS, &iov) < 0)
		return -1;
	return iov.iov_len == sizeof(r);
}

unsigned long trace_rip(pid_t pid)
{
	struct user_regs_struct r;

	return ptrace(PTRACE_GETREGS, pid, 0, &r) < 0 ? 0 : r.rip;
}

/* The stop is a debug register when the machine gives one: it lives in
 * the thread's state, and no task created on the way (a process forked
 * by a library constructor, a thread) inherits it.  Otherwise an int3 in
 * the text, which every fork copies: see the int3 path below.
 *
 * A debug register the kernel accepts but the machine never fires (some
 * hypervisors) would let PROG run past the stop unverified: so the
 * register is first proven on the instruction the child is stopped at,
 * by a single step that must not execute it.
 *
 * SECFILTER_TEST_INT3 (tests only) skips the debug register, so that a
 * machine that has one exercises the int3 path too. */
#define DR_OFF(n) (offsetof(struct user, u_debugreg) + (n) * sizeof(long))
#define DR7_L0 1ul /* DR0 enabled for this task, on execution, length 1 */

static int set_dr(pid_t pid, int n, unsigned long v)
{
	return ptrace(PTRACE_POKEUSER, pid, DR_OFF(n), v) < 0 ? -1 : 0;
}

static int set_break(pid_t pid, unsigned long addr)
{
	if (set_dr(pid, 0, addr) == 0 && set_dr(pid, 7, DR7_L0) == 0)
		return 0;
	set_dr(pid, 7, 0);
	set_dr(pid, 0, 0);
	return -1;
}

/* 1: the breakpoint fired on the current instruction; 0: it did not (the
 * step executed it, or a signal came first: then *sig, to deliver).  The
 * first step out of the exec stop may be reported at the syscall's exit,
 * before any instruction: only TRAP_HWBKPT is the breakpoint. */
static int hw_fires(pid_t pid, unsigned long rip, int *sig)
{
	struct user_regs_struct r;
	siginfo_t si;
	int st, i, fired = 0;

	if (set_break(pid, rip) < 0)
		return 0;
	for (i = 0; i < 3; i++) {
		if (ptrace(PTRACE_SINGLESTEP, pid, 0, 0) < 0 || wait_retry(pid, &st, 0) < 0 ||
		    !WIFSTOPPED(st))
			return 0;
		if (WSTOPSIG(st) != SIGTRAP) {
			*sig = trace_stop_signal(pid, st);
			break;
		}
		if (ptrace(PTRACE_GETSIGINFO, pid, 0, &si) < 0 ||
		    ptrace(PTRACE_GETREGS, pid, 0, &r) < 0 || r.rip != rip)
			break;
		if (si.si_code == TRAP_HWBKPT) {
			fired = 1;
			break;
		}
	}
	if (set_dr(pid, 7, 0) < 0 || set_dr(pid, 0, 0) < 0)
		return 0;
	return fired;
}

static int plant_hw(pid_t pid, unsigned long addr, int *sig)
{
	const char *force = getenv("SECFILTER_TEST_INT3");
	unsigned long rip = trace_rip(pid);

	if (force && *force)
		return -1;
	/* At addr already: the proof would leave the flag that lets the
	 * instruction run once past a breakpoint (RF). */
	if (!rip || rip == addr || !hw_fires(pid, rip, sig))
		return -1;
	return set_break(pid, addr);
}

/* At a SIGTRAP stop: whether it is our breakpoint at addr.  An execution
 * breakpoint stops before the instruction, an int3 just past it. */
static int at_breakpoint(pid_t pid, unsigned long addr, int hw, struct user_regs_struct *r)
{
	siginfo_t si;

	if (ptrace(PTRACE_GETREGS, pid, 0, r) < 0)
		return 0;
	if (!hw)
		return r->rip == addr + 1;
	return r->rip == addr && ptrace(PTRACE_GETSIGINFO, pid, 0, &si) == 0 &&
	       si.si_code == TRAP_HWBKPT;
}

static int run_to_hw(pid_t pid, unsigned long addr, int sig, int *status)
{
	struct user_regs_struct r;
	int st;

	for (;;) {
		int rc = resume(pid, sig, &st, status);

		if (rc != 0)
			return rc;
		if (is_exec_event(st)) {
			/* Another image replaced the one we set the trap in,
			 * before that one reached it: nothing verified. */
			errno = EBUSY;
			return -1;
		}
		if (!(st >> 16) && WSTOPSIG(st) == SIGTRAP && at_breakpoint(pid, addr, 1, &r))
			break;
		sig = trace_stop_signal(pid, st);
	}
	return set_dr(pid, 7, 0) < 0 || set_dr(pid, 0, 0) < 0 ? -1 : 0;
}

/* The int3 path.  Every task created before PROG reaches the int3 is
 * traced (fork, vfork and clone events), so that none meets it untraced
 * and dies of SIGTRAP:
 * - a task with memory of its own (fork) copied the int3: at its first
 *   stop, before it ran an instruction, it gets the original byte back
 *   and is let go;
 * - a task sharing PROG's memory (a thread, vfork, posix_spawn's clone)
 *   shares the int3, which must stay until PROG reaches it: it runs
 *   traced, its own children treated the same way, until it execs (a
 *   new image, let go) or PROG reaches the int3 (the byte goes back,
 *   then each is stopped and let go).  One that reaches the int3 before
 *   PROG does is a program that runs its entry point on another task;
 *   it is not run (EBUSY), as it would not be with a debug register
 *   either: there, the stop would not hold for that task.
 * A new task is announced twice, in any order: by its creator's event
 * and by its own first stop.  Both are awaited before PROG goes on, as
 * a task left stopped under us would never run. */
enum { T_SHARED = 1, T_STOPPING = 2, T_ANNOUNCED = 4, T_SEEN = 8, T_GONE = 16 };

struct task {
	pid_t pid;
	int flags;
};

struct soft_trap {
	pid_t pid;          /* PROG */
	unsigned long addr; /* where the int3 is */
	unsigned char old;  /* the byte it replaced */
	struct task *t;
	size_t n, cap;
};

static struct task *task_of(struct soft_trap *s, pid_t pid)
{
	struct task *t;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->t[i].pid == pid)
			return &s->t[i];
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		void *p = realloc(s->t, cap * sizeof(*s->t));

		if (!p)
			return NULL;
		s->t = p;
		s->cap = cap;
	}
	t = &s->t[s->n++];
	t->pid = pid;
	t->flags = 0;
	return t;
}

/* Whether a task still holds up PROG: announced but not yet seen, or
 * traced and running. */
static int pending(const struct soft_trap *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		int f = s->t[i].flags;

		if (f & T_GONE)
			continue;
		if ((f & T_ANNOUNCED && !(f & T_SEEN)) || f & (T_SHARED | T_STOPPING))
			return 1;
	}
	return 0;
}

static int is_clone_event(int status)
{
	int e = status >> 16;

	return e == PTRACE_EVENT_FORK || e == PTRACE_EVENT_VFORK || e == PTRACE_EVENT_CLONE;
}

/* At a creator's fork/vfork/clone event stop. */
static int announce(struct soft_trap *s, pid_t creator)
{
	unsigned long child;
	struct task *t;

	if (ptrace(PTRACE_GETEVENTMSG, creator, 0, &child) < 0 ||
	    !(t = task_of(s, (pid_t)child)))
		return -1;
	t->flags |= T_ANNOUNCED;
	return 0;
}

/* A new task's first stop (SIGSTOP, before any instruction). */
static int first_stop(struct soft_trap *s, struct task *t, int reached)
{
	unsigned char now;
	long same;

	t->flags |= T_SEEN;
	same = syscall(SYS_kcmp, s->pid, t->pid, KCMP_VM, 0, 0);
	if (same < 0)
		return -1;
	if (same != 0) {
		/* Its own copy, taken before or after PROG got the byte
		 * back. */
		if (poke_bytes(t->pid, s->addr, &s->old, 1, &now) < 0 ||
		    (now != 0xcc && poke_bytes(t->pid, s->addr, &now, 1, NULL) < 0))
			return -1;
	} else if (!reached) {
		t->flags |= T_SHARED;
		return ptrace(PTRACE_CONT, t->pid, 0, 0) < 0 ? -1 : 0;
	}
	t->flags |= T_GONE;
	return ptrace(PTRACE_DETACH, t->pid, 0, 0) < 0 ? -1 : 0;
}

/* PROG is at the int3 with the byte back: the tasks sharing its memory
 * are stopped (by a SIGSTOP of ours, which is then dropped) to be let
 * go. */
static void stop_shared(struct soft_trap *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if ((s->t[i].flags & (T_SHARED | T_GONE)) == T_SHARED) {
			s->t[i].flags |= T_STOPPING;
			/* ESRCH: it is exiting, its exit is still to come. */
			syscall(SYS_tkill, s->t[i].pid, SIGSTOP);
		}
}

/* A stop of a traced task other than PROG.  0 or -1. */
static int other_stop(struct soft_trap *s, struct task *t, int st, int reached)
{
	struct user_regs_struct r;

	if (WIFEXITED(st) || WIFSIGNALED(st)) {
		t->flags |= T_GONE | T_SEEN;
		return 0;
	}
	if (!(t->flags & T_SEEN))
		return first_stop(s, t, reached);
	if (is_clone_event(st)) {
		if (announce(s, t->pid) < 0)
			return -1;
	} else if (is_exec_event(st) && !(t->flags & T_STOPPING)) {
		/* A new image of its own.  (A SIGSTOP of ours would still
		 * be pending across the exec: then it waits for it.) */
		t->flags |= T_GONE;
		return ptrace(PTRACE_DETACH, t->pid, 0, 0) < 0 ? -1 : 0;
	} else if (!(st >> 16) && WSTOPSIG(st) == SIGSTOP && t->flags & T_STOPPING) {
		t->flags |= T_GONE;
		return ptrace(PTRACE_DETACH, t->pid, 0, 0) < 0 ? -1 : 0;
	} else if (!reached && !(st >> 16) && WSTOPSIG(st) == SIGTRAP &&
		   at_breakpoint(t->pid, s->addr, 0, &r)) {
		errno = EBUSY;
		return -1;
	} else {
		return ptrace(PTRACE_CONT, t->pid, 0, trace_stop_signal(t->pid, st)) < 0 ? -1 : 0;
	}
	return ptrace(PTRACE_CONT, t->pid, 0, 0) < 0 ? -1 : 0;
}

static int run_to_soft(pid_t pid, unsigned long addr, int sig, int *status)
{
	static const unsigned char int3 = 0xcc;
	const long follow = PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE;
	struct soft_trap s = { pid, addr, 0, NULL, 0, 0 };
	struct user_regs_struct r;
	int st, rc = 0, reached = 0;
	pid_t w;

	if (ptrace(PTRACE_SETOPTIONS, pid, 0, spawn_options | follow) < 0 ||
	    poke_bytes(pid, addr, &int3, 1, &s.old) < 0)
		return -1;
	if (ptrace(PTRACE_CONT, pid, 0, sig) < 0)
		goto fail;
	while (!reached || pending(&s)) {
		if ((w = wait_retry(-1, &st, 0)) < 0)
			goto fail;
		if (w != pid) {
			struct task *t = task_of(&s, w);

			if (!t || other_stop(&s, t, st, reached) < 0)
				goto fail;
			continue;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			/* The tasks sharing its memory died with it but for
			 * a vfork child, which is let go as usual. */
			*status = st;
			rc = 1;
			if (!reached) {
				reached = 1;
				stop_shared(&s);
			}
			continue;
		}
		if (reached) {
			/* PROG stays at its stop until the others are let
			 * go; only SIGKILL gets it out of there. */
			continue;
		}
		if (is_exec_event(st)) {
			/* Another image replaced the one we set the trap in,
			 * before that one reached it: nothing verified. */
			errno = EBUSY;
			goto fail;
		}
		if (is_clone_event(st)) {
			if (announce(&s, pid) < 0 || ptrace(PTRACE_CONT, pid, 0, 0) < 0)
				goto fail;
			continue;
		}
		if (!(st >> 16) && WSTOPSIG(st) == SIGTRAP && at_breakpoint(pid, addr, 0, &r)) {
			r.rip = addr;
			if (poke_bytes(pid, addr, &s.old, 1, NULL) < 0 ||
			    ptrace(PTRACE_SETREGS, pid, 0, &r) < 0)
				goto fail;
			reached = 1;
			stop_shared(&s);
			continue;
		}
		if (ptrace(PTRACE_CONT, pid, 0, trace_stop_signal(pid, st)) < 0)
			goto fail;
	}
	free(s.t);
	if (rc == 0 && ptrace(PTRACE_SETOPTIONS, pid, 0, spawn_options) < 0)
		return -1;
	return rc;
fail:
	free(s.t);
	return -1;
}

int trace_run_to(pid_t pid, unsigned long addr, int *status)
{
	int sig = 0;

	if (plant_hw(pid, addr, &sig) == 0)
		return run_to_hw(pid, addr, sig, status);
	return run_to_soft(pid, addr, sig, status);
}

/* A syscall made in the child on its behalf, and the listener of the
 * kernel filter that may be told of it (-1: none). */
struct injected {
	pid_t pid;
	long nr;
	unsigned long a0;
	int listener;
};

/* Answers, while an injected call is under way, the notification the
 * kernel filter sends about it: the call is ours, not the program's, and
 * runs.  Anything else notified meanwhile is not possible (the child is
 * at its first instruction, with no other task) and is refused. */
static void answer_injected(const struct injected *inj)
{
	struct seccomp_notif n;
	struct seccomp_notif_resp resp;

	memset(&n, 0, sizeof(n));
	if (ioctl(inj->listener, SECCOMP_IOCTL_NOTIF_RECV, &n) < 0)
		return;
	memset(&resp, 0, sizeof(resp));
	resp.id = n.id;
	if (n.pid == (uint32_t)inj->pid && n.data.nr == inj->nr &&
	    n.data.args[0] == inj->a0) {
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	} else {
		resp.error = -EPERM;
	}
	ioctl(inj->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

/* Waits for the child's next stop; with a listener, answers the
 * notification of the injected call meanwhile. */
static int wait_step(const struct injected *inj, int *st)
{
	struct pollfd pf;

	if (!inj || inj->listener < 0)
		return wait_retry(inj ? inj->pid : -1, st, 0) < 0 ? -1 : 0;
	pf.fd = inj->listener;
	pf.events = POLLIN;
	for (;;) {
		pid_t w = waitpid(inj->pid, st, WNOHANG | __WALL);
		if (w == inj->pid)
			return 0;
		if (w < 0 && errno != EINTR)
			return -1;
		if (poll(&pf, 1, 10) > 0 && (pf.revents & POLLIN))
			answer_injected(inj);
	}
}

/* Single-steps the child over one instruction, keeping a signal that
 * arrives first.  0, or -1 when it died or ptrace failed. */
static int step_one(const struct injected *inj, int *pending_sig)
{
	int st, tries;

	/* A signal stop comes before the step; a fault of the instruction
	 * itself (SIGILL, SIGSEGV) would come back at every try. */
	for (tries = 0; tries < 64; tries++) {
		if (ptrace(PTRACE_SINGLESTEP, inj->pid, 0, 0) < 0)
			return -1;
		if (wait_step(inj, &st) < 0 || !WIFSTOPPED(st)) {
			errno = ESRCH;
			return -1;
		}
		if (WSTOPSIG(st) == SIGTRAP && !(st >> 16))
			return 0;
		if (trace_stop_signal(inj->pid, st))
			*pending_sig = WSTOPSIG(st);
	}
	errno = EFAULT;
	return -1;
}

/* Makes the stopped child execute syscall nr(a...) at its rip, then puts
 * its registers and code back.  Returns the syscall's result, or -errno
 * when the injection itself failed. */
static long inject_syscall(const struct injected *inj, const unsigned long a[3],
			   int *pending_sig)
{
	static const unsigned char syscall_insn[2] = { 0x0f, 0x05 };
	struct user_regs_struct saved, r;
	unsigned char old[2];
	long ret;

	if (ptrace(PTRACE_GETREGS, inj->pid, 0, &saved) < 0)
		return -errno;
	if (poke_bytes(inj->pid, saved.rip, syscall_insn, 2, old) < 0)
		return -errno;
	r = saved;
	r.rax = (unsigned long)inj->nr;
	r.orig_rax = -1ul;
	r.rdi = a[0];
	r.rsi = a[1];
	r.rdx = a[2];
	if (ptrace(PTRACE_SETREGS, inj->pid, 0, &r) < 0 || step_one(inj, pending_sig) < 0 ||
	    ptrace(PTRACE_GETREGS, inj->pid, 0, &r) < 0)
		return -errno;
	ret = (long)r.rax;
	if (r.rip != saved.rip + 2)
		ret = -EFAULT; /* something else ran: do not trust the result */
	if (poke_bytes(inj->pid, saved.rip, old, 2, NULL) < 0 ||
	    ptrace(PTRACE_SETREGS, inj->pid, 0, &saved) < 0)
		return -errno;
	return ret;
}

long trace_inject_seccomp(pid_t pid, const struct sock_filter *prog, unsigned len,
			  unsigned long flags, int *pending_sig)
{
	struct injected inj = { pid, SYS_seccomp, SECCOMP_SET_MODE_FILTER, -1 };
	size_t size = len * sizeof(*prog) + sizeof(struct sock_fprog);
	unsigned char buf[SF_INJECT_MAX];
	struct user_regs_struct regs;
	struct sock_fprog fprog;
	unsigned long base, a[3];

	if (size > sizeof(buf)) {
		errno = E2BIG;
		return -E2BIG;
	}
	if (ptrace(PTRACE_GETREGS, pid, 0, &regs) < 0)
		return -errno;
	/* The program and its header go below the stack pointer, past the
	 * red zone: at the first instruction of an image nothing lives
	 * there, and the kernel maps 128 KiB of stack below it. */
	base = (regs.rsp - 256 - size) & ~15ul;
	memcpy(buf, prog, len * sizeof(*prog));
	fprog.len = (unsigned short)len;
	fprog.filter = (struct sock_filter *)base;
	memcpy(buf + len * sizeof(*prog), &fprog, sizeof(fprog));
	if (write_mem(pid, base, buf, size) < 0)
		return -errno;
	a[0] = SECCOMP_SET_MODE_FILTER;
	a[1] = flags;
	a[2] = base + len * sizeof(*prog);
	return inject_syscall(&inj, a, pending_sig);
}

long trace_inject_close(pid_t pid, int fd, int listener, int *pending_sig)
{
	struct injected inj = { pid, SYS_close, (unsigned long)fd, listener };
	unsigned long a[3] = { (unsigned long)fd, 0, 0 };

	return inject_syscall(&inj, a, pending_sig);
}

unsigned long trace_auxv(pid_t pid, unsigned long type)
{
	unsigned long av[2], val = 0;
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fread(av, sizeof(av), 1, f) == 1 && av[0] != 0)
		if (av[0] == type) {
			val = av[1];
			break;
		}
	fclose(f);
	if (!val)
		errno = ENOENT;
	return val;
}
