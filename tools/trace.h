/* ptrace plumbing for `run` and `learn`: start a program stopped under
 * ptrace, take it to its exec, run it to an address, and install a
 * seccomp filter in it from outside. */
#ifndef SECFILTER_TRACE_H
#define SECFILTER_TRACE_H

#include <linux/filter.h>
#include <sys/types.h>

#include "bpf.h"

/* Bytes trace_inject_seccomp writes below the stack pointer, at most. */
#define SF_INJECT_MAX (SF_BPF_MAX * sizeof(struct sock_filter) + sizeof(struct sock_fprog))

struct spawn {
	const char *path;   /* resolved PROG */
	char *const *argv;
	char *const *envp;
	int no_new_privs;   /* set PR_SET_NO_NEW_PRIVS before the exec */
	int keep_fd;        /* an fd to pass to PROG (its CLOEXEC is cleared), or -1 */
	long options;       /* ptrace options; EXITKILL and TRACEEXEC are added */
	/* called in the child right before its exec, after no_new_privs:
	 * 0, or -errno (a setup failure); may be NULL */
	int (*before_exec)(const void *ctx);
	const void *before_exec_ctx;
};

/* Why a spawned child ended before its exec completed. */
struct spawn_fail {
	int stage; /* SPAWN_SETUP (prctl/ptrace in the child) or SPAWN_EXEC */
	int err;   /* its errno */
};
enum { SPAWN_NONE, SPAWN_SETUP, SPAWN_EXEC };

/* Forks a child that places itself under our ptrace and stops before its
 * execve.  The child is killed if we die, at any point and after we let it
 * go too (a death signal, SIGKILL; and PTRACE_O_EXITKILL while traced).
 * Returns its pid, stopped, with
 * *errfd the read end of the pipe that reports a failed exec; or -1. */
pid_t trace_spawn(const struct spawn *s, int *errfd);

/* Reads what the child sent on errfd before it died (stage SPAWN_NONE if
 * nothing). */
void trace_spawn_failure(int errfd, struct spawn_fail *f);

/* Resumes the child (PTRACE_CONT) until its execve has replaced the image.
 * 0: at the PTRACE_EVENT_EXEC stop.  1: it ended first, *status says how.
 * -1: ptrace failed (errno). */
int trace_until_exec(pid_t pid, int *status);

/* Runs the stopped child (started by trace_spawn) until it is about to
 * execute the instruction at addr, by a hardware execution breakpoint
 * there, or an int3 when no debug register fires.  Either way no other
 * process meets the stop: a process forked on the way runs on, with its
 * copy of the code as it was; a task sharing the child's memory that
 * reaches addr first is a failure (EBUSY).  Signals on the way are
 * delivered unchanged.  0: stopped there, code, debug registers, rip and
 * ptrace options as they were, no other task traced.  1: it ended first
 * (*status).  -1: failure (errno); the child is still stopped or dead,
 * tasks it created may still be traced (PTRACE_O_EXITKILL ends them with
 * us). */
int trace_run_to(pid_t pid, unsigned long addr, int *status);

/* In a child stopped by trace_run_to, makes it call seccomp(
 * SECCOMP_SET_MODE_FILTER, flags, prog) as if it had done so itself, then
 * puts its registers and code back.  A signal that arrives meanwhile is
 * kept in *pending_sig for the caller to deliver when resuming.  Returns
 * the syscall's result (0, the listener's fd in the child with
 * SECCOMP_FILTER_FLAG_NEW_LISTENER, or -errno). */
long trace_inject_seccomp(pid_t pid, const struct sock_filter *prog, unsigned len,
			  unsigned long flags, int *pending_sig);

/* The same for close(fd), once the filter is in: when it notifies
 * listener (our copy of its fd, or -1) of this close, the close is let
 * run.  Returns close's result. */
long trace_inject_close(pid_t pid, int fd, int listener, int *pending_sig);

/* An auxiliary vector entry of a stopped child (AT_ENTRY...), 0 if none
 * (errno says why: ENOENT when the vector has no such entry). */
unsigned long trace_auxv(pid_t pid, unsigned long type);

/* Whether a stopped child runs in 64-bit mode (an i386 or x32-only
 * image does not): 1, 0, or -1 when ptrace fails. */
int trace_is_x86_64(pid_t pid);

/* The instruction pointer of a stopped child, 0 on failure (errno). */
unsigned long trace_rip(pid_t pid);

/* The signal a stop should pass on when resuming: WSTOPSIG, or 0 for a
 * ptrace event stop or a group-stop (which have no signal to deliver). */
int trace_stop_signal(pid_t pid, int status);

/* waitpid() that retries on EINTR (forwarded signals interrupt it). */
pid_t wait_retry(pid_t pid, int *status, int flags);

#endif
