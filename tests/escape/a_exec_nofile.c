// escape: exec with no descriptor left for the loader to open the library
// expect: interpose=stop trusted=stop run=stop
// control: plain
/* RLIMIT_NOFILE at 3 with 0, 1 and 2 open: the new image's loader cannot
 * open the preloaded library (EMFILE) and goes on without it, and a
 * program that needs no library (h_nolibc) closes its stdin and has the
 * slot for its forbidden open.  The
 * library's exec opens the target close-on-exec first: if that open
 * succeeds, its slot is free again in the new image; if it fails, the
 * image gets the kernel filter (or no exec at all). */
#include "escape.h"

#include <sys/resource.h>

int main(int argc, char **argv)
{
	char prog[4096];
	char *args[] = { escape_path(prog, sizeof prog, "h_nolibc"), argv[1], NULL };
	struct rlimit r = { 3, 3 };
	extern char **environ;

	(void)argc;
	if (fork() == 0) {
		if (setrlimit(RLIMIT_NOFILE, &r) < 0)
			_exit(2);
		execve(args[0], args, environ);
		_exit(127);
	}
	wait_children();
	return 0;
}
