// escape: a jump into the library's own syscall instruction
// expect: interpose=limit trusted=stop run=stop
/* A syscall instruction inside the library's region always runs: that is
 * what lets the library make its own calls. */
#include <stdio.h>

#include "escape.h"

int main(int argc, char **argv)
{
	void *g = library_gadget();

	(void)argc;
	if (!g) { /* not under the library: the call as it is */
		make_marker(argv[1]);
		return 0;
	}
	gadget_syscall(g, SYS_openat, AT_FDCWD, (long)argv[1], O_WRONLY | O_CREAT, 0600);
	return 0;
}
