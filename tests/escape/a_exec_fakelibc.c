// escape: exec with LD_LIBRARY_PATH to a fake libc.so.6
// expect: interpose=limit trusted=stop run=stop
// control: plain
/* The libraries of the new image, libc included, are found through
 * LD_LIBRARY_PATH, and the loader relocates libc first: an IFUNC
 * resolver there runs before any constructor.  Interposition keeps
 * LD_LIBRARY_PATH (doc/security.md: a limit, like the image's own RUNPATH). */
#include "escape.h"

int main(int argc, char **argv)
{
	char lib[4096];
	char *env[] = { "LD_LIBRARY_PATH=.", NULL };
	char *args[] = { "/bin/true", NULL };

	(void)argc;
	(void)argv;
	snprintf(lib, sizeof lib, "%s/lib_evil.so", getenv("ESCAPE_DIR"));
	if (symlink(lib, "libc.so.6") < 0)
		return 2;
	if (fork() == 0) {
		execve(args[0], args, env);
		_exit(127);
	}
	wait_children();
	return 0;
}
