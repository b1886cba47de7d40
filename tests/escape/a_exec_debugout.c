// escape: exec with LD_DEBUG_OUTPUT: the loader creates a file
// expect: interpose=stop trusted=stop run=stop
// control: plain
/* With LD_DEBUG set, the new image's loader creates LD_DEBUG_OUTPUT.PID
 * before any library runs.  That file, renamed, is the marker. */
#include <dirent.h>
#include <stdio.h>

#include "escape.h"

int main(int argc, char **argv)
{
	char *env[] = { "LD_DEBUG=files", "LD_DEBUG_OUTPUT=dbg", NULL };
	char *args[] = { "/bin/true", NULL };
	struct dirent *d;
	DIR *dir;

	(void)argc;
	if (fork() == 0) {
		execve(args[0], args, env);
		_exit(127);
	}
	wait_children();
	dir = opendir(".");
	while (dir && (d = readdir(dir)))
		if (strncmp(d->d_name, "dbg.", 4) == 0)
			rename(d->d_name, argv[1]);
	return 0;
}
