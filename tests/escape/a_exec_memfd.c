// escape: a static binary copied into a memfd, then fexecve
// expect: interpose=stop trusted=stop run=stop
#include <stdio.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>

#include "escape.h"

int main(int argc, char **argv)
{
	char prog[4096];
	char *args[] = { "static", argv[1], NULL };
	char *env[] = { NULL };
	struct stat st;
	int in, mfd;

	(void)argc;
	snprintf(prog, sizeof prog, "%s/a_static-static", getenv("ESCAPE_DIR"));
	in = open(prog, O_RDONLY);
	mfd = memfd_create("x", 0);
	if (in < 0 || mfd < 0 || fstat(in, &st) < 0 ||
	    sendfile(mfd, in, NULL, (size_t)st.st_size) != st.st_size)
		return 2;
	if (fork() == 0) {
		fexecve(mfd, args, env);
		_exit(127);
	}
	wait_children();
	return 0;
}
