// escape: execveat(dirfd, name) of a static binary
// expect: interpose=stop trusted=stop run=stop
#include "escape.h"

int main(int argc, char **argv)
{
	int dir = open(getenv("ESCAPE_DIR"), O_RDONLY | O_DIRECTORY);
	char *args[] = { "a_static-static", argv[1], NULL };

	(void)argc;
	if (fork() == 0) {
		syscall(SYS_execveat, dir, "a_static-static", args, NULL, 0);
		_exit(127);
	}
	wait_children();
	return 0;
}
