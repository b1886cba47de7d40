// escape: exec with the program's LD_PRELOAD before ours
// expect: interpose=stop trusted=stop run=stop
// control: plain
/* A preloaded library is relocated (IFUNC resolvers) and initialized
 * before the library, whatever the order of LD_PRELOAD: this one comes
 * first, the library second. */
#include "escape.h"

int main(int argc, char **argv)
{
	char var[8192];
	const char *ours = getenv("LD_PRELOAD");
	char *env[] = { var, NULL };
	char *args[] = { "/bin/true", NULL };

	(void)argc;
	(void)argv;
	snprintf(var, sizeof var, "LD_PRELOAD=%s/lib_evil.so%s%s", getenv("ESCAPE_DIR"),
		 ours ? ":" : "", ours ? ours : "");
	if (fork() == 0) {
		execve(args[0], args, env);
		_exit(127);
	}
	wait_children();
	return 0;
}
