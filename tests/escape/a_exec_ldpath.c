// escape: exec with LD_LIBRARY_PATH to a fake libunwind.so.8
// expect: interpose=stop trusted=stop run=stop
// control: none
/* The library opened libunwind.so.8 by name in its constructor, before it
 * armed anything: LD_LIBRARY_PATH, which the program sets for the image it
 * execs, decided which file that was.  The library's own unwinder
 * (preload/obj/unw.c) opens nothing.  (No control: only the library loaded
 * it.) */
#include "escape.h"

int main(int argc, char **argv)
{
	char lib[4096];
	char *env[] = { "LD_LIBRARY_PATH=.", NULL };
	char *args[] = { "/bin/true", NULL };

	(void)argc;
	(void)argv;
	snprintf(lib, sizeof lib, "%s/lib_evil.so", getenv("ESCAPE_DIR"));
	if (symlink(lib, "libunwind.so.8") < 0)
		return 2;
	if (fork() == 0) {
		execve(args[0], args, env);
		_exit(127);
	}
	wait_children();
	return 0;
}
