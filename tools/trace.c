/* ptrace plumbing shared by `run` and `learn` (see trace.h). */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trace.h"

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

	/* Until the tracer has set PTRACE_O_EXITKILL nothing else ties our
	 * life to it: without this, a secfilter killed right now would leave
	 * a child that goes on to exec PROG untraced and unfiltered. */
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
	raise(SIGSTOP);
	/* EXITKILL holds from here; a death signal would outlive the exec
	 * and tie PROG's life to ours after we detach. */
	prctl(PR_SET_PDEATHSIG, 0);
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
	if (ptrace(PTRACE_SETOPTIONS, pid, 0,
		   s->options | PTRACE_O_EXITKILL | PTRACE_O_TRACEEXEC) < 0)
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
 * the thread's state, so a process forked on the way (by a library
 * constructor) does not inherit it, where it would inherit an int3 in
 * the text and die of SIGTRAP.  Otherwise an int3.
 *
 * A debug register the kernel accepts but the machine never fires (some
 * hypervisors) would let PROG run past the stop unverified: so the
 * register is first proven on the instruction the child is stopped at,
 * by a single step that must not execute it. */
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
	unsigned long rip = trace_rip(pid);

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

int trace_run_to(pid_t pid, unsigned long addr, int *status, int *soft)
{
	static const unsigned char int3 = 0xcc;
	struct user_regs_struct r;
	unsigned char old;
	int st, sig = 0, hw = plant_hw(pid, addr, &sig) == 0;

	if (soft)
		*soft = !hw;
	if (!hw && poke_bytes(pid, addr, &int3, 1, &old) < 0)
		return -1;
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
		if (!(st >> 16) && WSTOPSIG(st) == SIGTRAP && at_breakpoint(pid, addr, hw, &r))
			break;
		sig = trace_stop_signal(pid, st);
	}
	if (hw)
		return set_dr(pid, 7, 0) < 0 || set_dr(pid, 0, 0) < 0 ? -1 : 0;
	if (poke_bytes(pid, addr, &old, 1, NULL) < 0)
		return -1;
	r.rip = addr;
	return ptrace(PTRACE_SETREGS, pid, 0, &r) < 0 ? -1 : 0;
}

/* Single-steps the child over one instruction, keeping a signal that
 * arrives first.  0, or -1 when it died or ptrace failed. */
static int step_one(pid_t pid, int *pending_sig)
{
	int st, tries;

	/* A signal stop comes before the step; a fault of the instruction
	 * itself (SIGILL, SIGSEGV) would come back at every try. */
	for (tries = 0; tries < 64; tries++) {
		if (ptrace(PTRACE_SINGLESTEP, pid, 0, 0) < 0)
			return -1;
		if (wait_retry(pid, &st, 0) < 0 || !WIFSTOPPED(st)) {
			errno = ESRCH;
			return -1;
		}
		if (WSTOPSIG(st) == SIGTRAP && !(st >> 16))
			return 0;
		if (trace_stop_signal(pid, st))
			*pending_sig = WSTOPSIG(st);
	}
	errno = EFAULT;
	return -1;
}

long trace_inject_seccomp(pid_t pid, const struct sock_filter *prog, unsigned len,
			  int *pending_sig)
{
	static const unsigned char syscall_insn[2] = { 0x0f, 0x05 };
	struct user_regs_struct saved, r;
	unsigned char old[2];
	size_t size = len * sizeof(*prog) + sizeof(struct sock_fprog);
	unsigned char buf[SF_INJECT_MAX];
	struct sock_fprog fprog;
	unsigned long base;
	long ret;

	if (size > sizeof(buf)) {
		errno = E2BIG;
		return -E2BIG;
	}
	if (ptrace(PTRACE_GETREGS, pid, 0, &saved) < 0)
		return -errno;
	/* The program and its header go below the stack pointer, past the
	 * red zone: at the first instruction of an image nothing lives
	 * there, and the kernel maps 128 KiB of stack below it. */
	base = (saved.rsp - 256 - size) & ~15ul;
	memcpy(buf, prog, len * sizeof(*prog));
	fprog.len = (unsigned short)len;
	fprog.filter = (struct sock_filter *)base;
	memcpy(buf + len * sizeof(*prog), &fprog, sizeof(fprog));
	if (write_mem(pid, base, buf, size) < 0)
		return -errno;
	if (poke_bytes(pid, saved.rip, syscall_insn, 2, old) < 0)
		return -errno;
	r = saved;
	r.rax = SYS_seccomp;
	r.orig_rax = -1ul;
	r.rdi = SECCOMP_SET_MODE_FILTER;
	r.rsi = 0;
	r.rdx = base + len * sizeof(*prog);
	if (ptrace(PTRACE_SETREGS, pid, 0, &r) < 0 || step_one(pid, pending_sig) < 0 ||
	    ptrace(PTRACE_GETREGS, pid, 0, &r) < 0)
		return -errno;
	ret = (long)r.rax;
	if (r.rip != saved.rip + 2)
		ret = -EFAULT; /* something else ran: do not trust the result */
	if (poke_bytes(pid, saved.rip, old, 2, NULL) < 0 ||
	    ptrace(PTRACE_SETREGS, pid, 0, &saved) < 0)
		return -errno;
	return ret;
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
	return val;
}
