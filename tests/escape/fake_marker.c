/* The dependency added to a copy of libc (Makefile: a_fake_libc_runpath's
 * $ORIGIN/fakelibc/libc.so.6): initialized before libc, its constructor
 * creates the marker.  Were the secfilter library's own dependency on
 * libc looked for on the program's search path, the audit namespace in
 * which trusted mode starts would load that copy too, and run this before
 * la_version installs the filter.  No libc of its own (-nostdlib). */
#include "escape.h"

__attribute__((constructor)) static void ctor(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argc > 1)
		make_marker(argv[1]);
}
