// escape: a fake libc.so.6 on the program's DT_RUNPATH
// expect: interpose=limit trusted=stop run=stop
/* The program's own libc comes from its RUNPATH ($ORIGIN/fakelibc,
 * Makefile): a copy of libc with one more dependency, whose constructor
 * creates the marker (fake_marker.c).  In the program's namespace that is
 * a library of its own (a limit for interposition).  The audit namespace
 * in which trusted mode starts looks for the secfilter library's
 * dependencies on that RUNPATH too -- before the filter -- unless the
 * library names libc by absolute path, as it does (with the soname, this
 * attempt escapes trusted mode). */
#include "escape.h"

int main(void)
{
	return 0;
}
