// escape: execve of /proc/self/fd/N, a static binary
// expect: interpose=stop trusted=stop run=stop
#include <stdio.h>

#include "escape.h"

int main(int argc, char **argv)
{
	char prog[4096], path[64];
	char *args[] = { path, argv[1], NULL };
	int fd;

	(void)argc;
	snprintf(prog, sizeof prog, "%s/a_static-static", getenv("ESCAPE_DIR"));
	fd = open(prog, O_RDONLY);
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	if (fork() == 0) {
		execve(path, args, NULL);
		_exit(127);
	}
	wait_children();
	return 0;
}
