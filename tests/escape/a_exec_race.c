// escape: swap dynamic/static file between probe and exec
// expect: interpose=stop trusted=stop run=stop
/* The library decides what the new image is before the exec: a path
 * looked up twice (probe, then exec) can name two files.  Here "t" and
 * "u" (symlinks to /bin/true and the static program) are exchanged
 * without pause while children exec "t", up to 300 times or 3 s.
 * Before the exec went by descriptor, this won within a few tries. */
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

#include "escape.h"

int main(int argc, char **argv)
{
	char prog[4096];
	char *args[] = { "t", argv[1], NULL };
	struct stat st;
	time_t end = time(NULL) + 3;
	pid_t swapper;
	int i;

	(void)argc;
	snprintf(prog, sizeof prog, "%s/a_static-static", getenv("ESCAPE_DIR"));
	if (symlink("/bin/true", "t") < 0 || symlink(prog, "u") < 0)
		return 2;
	swapper = fork();
	if (swapper == 0)
		for (;;)
			syscall(SYS_renameat2, AT_FDCWD, "t", AT_FDCWD, "u", 2 /* RENAME_EXCHANGE */);
	for (i = 0; i < 300 && time(NULL) < end && stat(argv[1], &st) < 0; i++) {
		pid_t p = fork();
		if (p == 0) {
			execve("t", args, NULL);
			_exit(127);
		}
		waitpid(p, NULL, 0);
	}
	kill(swapper, SIGKILL);
	wait_children();
	printf("%d tries\n", i);
	return 0;
}
