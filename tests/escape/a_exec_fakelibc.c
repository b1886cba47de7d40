// escape: exec with LD_LIBRARY_PATH to a fake libc.so.6
// expect: interpose=limit trusted=stop run=stop
// control: plain
/* The libraries of the new image, libc included, are found through
 * LD_LIBRARY_PATH, and the loader relocates libc first: an IFUNC
 * resolver there runs before any constructor.  Interposition keeps
 * LD_LIBRARY_PATH (doc/security.md: a limit, like the image's own RUNPATH). */
#include "escape.h"

int main(void)
{
	return exec_with_evil_library("libc.so.6");
}
