// escape: exec with LD_AUDIT naming the program's module
// expect: interpose=stop trusted=stop run=stop
// control: plain
/* An audit module runs before anything else the new image loads, the
 * library included. */
#include "escape.h"

int main(int argc, char **argv)
{
	char var[4096];
	char *env[] = { var, NULL };
	char *args[] = { "/bin/true", NULL };

	(void)argc;
	(void)argv;
	snprintf(var, sizeof var, "LD_AUDIT=%s/lib_evil.so", getenv("ESCAPE_DIR"));
	if (fork() == 0) {
		execve(args[0], args, env);
		_exit(127);
	}
	wait_children();
	return 0;
}
