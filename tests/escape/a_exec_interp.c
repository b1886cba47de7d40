// escape: exec of a program whose PT_INTERP is static
// expect: interpose=stop trusted=stop run=stop
/* A program with an interpreter is not necessarily one the library's
 * loader will load: this one names a static program (h_interp). */
#include <stdio.h>

#include "escape.h"

int main(int argc, char **argv)
{
	char prog[4096];

	(void)argc;
	snprintf(prog, sizeof prog, "%s/h_interp_user", getenv("ESCAPE_DIR"));
	if (fork() == 0) {
		char *args[] = { prog, argv[1], NULL };
		execve(prog, args, NULL);
		_exit(127);
	}
	wait_children();
	return 0;
}
