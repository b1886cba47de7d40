// escape: a tracer rewrites registers after the decision
// expect: interpose=limit trusted=stop run=stop
/* The child's openat(marker, O_WRONLY) is allowed; at its syscall-entry
 * stop, which comes after the library's decision, the tracer adds
 * O_CREAT.  The kernel filter runs after the tracer's stop and sees the
 * change; no userspace filter can. */
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/user.h>

#include "escape.h"

int main(int argc, char **argv)
{
	pid_t pid;
	int st, sig;

	(void)argc;
	pid = fork();
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		open(argv[1], O_WRONLY); /* allowed */
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
		return 2;
	ptrace(PTRACE_SETOPTIONS, pid, 0, (void *)PTRACE_O_TRACESYSGOOD);
	for (sig = 0;;) {
		struct user_regs_struct r;
		if (ptrace(PTRACE_SYSCALL, pid, 0, (void *)(long)sig) < 0 ||
		    waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
			break;
		sig = 0;
		if (WSTOPSIG(st) != (SIGTRAP | 0x80)) {
			sig = WSTOPSIG(st); /* delivered as it came (the library's SIGSYS) */
			continue;
		}
		if (ptrace(PTRACE_GETREGS, pid, 0, &r) < 0)
			continue;
		if (r.orig_rax == SYS_openat && r.rsi == (unsigned long)argv[1] &&
		    !(r.rdx & O_CREAT)) {
			r.rdx |= O_CREAT;
			r.r10 = 0600;
			ptrace(PTRACE_SETREGS, pid, 0, &r);
		}
	}
	wait_children();
	return 0;
}
