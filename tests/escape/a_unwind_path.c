// escape: its own libunwind.so.8 on LD_LIBRARY_PATH
// expect: interpose=stop trusted=stop run=stop
/* The library used to dlopen("libunwind.so.8") in its constructor,
 * before enforcing: through the program's own search path.  The attempt
 * puts lib_fakeunwind.so there under that name and execs itself; the
 * fake library's constructor creates the marker if it is ever loaded. */
#include <stdio.h>

#include "escape.h"

int main(int argc, char **argv)
{
	char lib[4096], env_marker[4200], env_path[4200];
	char *envp[] = { env_marker, env_path, NULL };
	const char *dir = getenv("ESCAPE_DIR");

	if (argc > 2 && !strcmp(argv[2], "again"))
		return 0;
	if (!dir)
		return 2;
	snprintf(lib, sizeof lib, "%s/lib_fakeunwind.so", dir);
	if (symlink(lib, "libunwind.so.8") < 0)
		return 2;
	snprintf(env_marker, sizeof env_marker, "ESCAPE_MARKER=%s", argv[1]);
	snprintf(env_path, sizeof env_path, "LD_LIBRARY_PATH=.");
	execve(argv[0], (char *[]){ argv[0], argv[1], "again", NULL }, envp);
	return 2;
}
