// escape: exec under an address-space limit the library does not fit in
// expect: interpose=stop trusted=stop run=stop
// control: plain
/* The loader maps LD_PRELOAD's library before anything else of the
 * image's and goes on without it when the mapping fails ("failed to map
 * segment from shared object: ignored").  An RLIMIT_AS of 1 MiB leaves
 * room for a program that needs no library (h_nolibc, built from
 * h_interp.c) and none for the
 * library.  The library's exec gives such an image the kernel filter
 * (or fails, if even that cannot be built in 1 MiB); under a kernel
 * filter already the limit changes nothing.  The control runs without
 * the library: under it, even `*: 1` cannot be executed in that room. */
#include "escape.h"

#include <sys/resource.h>

int main(int argc, char **argv)
{
	char prog[4096];
	char *args[] = { escape_path(prog, sizeof prog, "h_nolibc"), argv[1], NULL };
	struct rlimit r = { 1 << 20, 1 << 20 };
	extern char **environ;

	(void)argc;
	if (fork() == 0) {
		if (setrlimit(RLIMIT_AS, &r) < 0)
			_exit(2);
		execve(args[0], args, environ);
		_exit(127);
	}
	wait_children();
	return 0;
}
