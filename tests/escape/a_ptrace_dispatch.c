// escape: a tracer switches its child's dispatch off (ptrace)
// expect: interpose=stop trusted=stop run=stop
// control: plain
/* PTRACE_SET_SYSCALL_USER_DISPATCH_CONFIG (Linux 6.4) is prctl's
 * PR_SET_SYSCALL_USER_DISPATCH done by a tracer to its tracee: here to a
 * child, filtered like its parent, that then makes the call. */
#include <signal.h>
#include <sys/ptrace.h>

#include "escape.h"

struct sud_config {
	unsigned long long mode, selector, offset, len;
};

int main(int argc, char **argv)
{
	struct sud_config off = { 0, 0, 0, 0 }; /* PR_SYS_DISPATCH_OFF */
	pid_t pid;
	int st;

	(void)argc;
	pid = fork();
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		make_marker(argv[1]);
		raw_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
		return 2;
	ptrace((enum __ptrace_request)0x4210, pid, (void *)sizeof off, &off);
	ptrace(PTRACE_DETACH, pid, 0, 0);
	wait_children();
	return 0;
}
