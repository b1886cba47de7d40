// escape: swap dynamic/static file between probe and exec
// expect: interpose=stop trusted=stop run=stop
/* The library decides what the new image is before the exec: a path
 * looked up twice (probe, then exec) can name two files.  Here "t" and
 * "u" (symlinks to /bin/true and the static program) are exchanged
 * without pause while children exec "t", up to 300 times or 3 s.
 * Before the exec went by descriptor, this won within a few tries. */
#include "escape.h"

static char *args[] = { "t", NULL, NULL };

static void exec_t(void)
{
	execve("t", args, NULL);
	_exit(127);
}

int main(int argc, char **argv)
{
	char prog[4096];
	pid_t swapper;

	(void)argc;
	args[1] = argv[1];
	if (symlink("/bin/true", "t") < 0 ||
	    symlink(escape_path(prog, sizeof prog, "a_static-static"), "u") < 0)
		return 2;
	swapper = fork();
	if (swapper == 0)
		for (;;)
			syscall(SYS_renameat2, AT_FDCWD, "t", AT_FDCWD, "u", 2 /* RENAME_EXCHANGE */);
	exec_race(argv[1], swapper, exec_t);
	return 0;
}
