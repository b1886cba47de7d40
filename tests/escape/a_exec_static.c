// escape: execve of a static binary
// expect: interpose=stop trusted=stop run=stop
#include <stdio.h>

#include "escape.h"

int main(int argc, char **argv)
{
	char prog[4096];

	(void)argc;
	snprintf(prog, sizeof prog, "%s/a_static-static", getenv("ESCAPE_DIR"));
	if (fork() == 0) {
		char *args[] = { prog, argv[1], NULL };
		execve(prog, args, NULL);
		_exit(127);
	}
	wait_children();
	return 0;
}
