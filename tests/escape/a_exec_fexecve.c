// escape: fexecve of a static binary
// expect: interpose=stop trusted=stop run=stop
#include <stdio.h>

#include "escape.h"

int main(int argc, char **argv)
{
	char prog[4096];
	char *args[] = { "static", argv[1], NULL };
	char *env[] = { NULL };
	int fd;

	(void)argc;
	snprintf(prog, sizeof prog, "%s/a_static-static", getenv("ESCAPE_DIR"));
	fd = open(prog, O_RDONLY);
	if (fork() == 0) {
		fexecve(fd, args, env);
		_exit(127);
	}
	wait_children();
	return 0;
}
