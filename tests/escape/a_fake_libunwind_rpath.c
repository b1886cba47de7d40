// escape: a fake libunwind.so.8 on the program's DT_RPATH, loaded by secfilter
// expect: interpose=stop trusted=stop run=stop
// policy: *: 1; io_uring_setup: 0; mkdir: 0; mkdirat: 0
// control: none
/* The program's DT_RPATH ($ORIGIN/fakelibs, Makefile) is searched for
 * every dlopen in the process, the library's dlopen of libunwind.so.8
 * included: the fake's constructor makes a directory at the marker (the
 * policy forbids mkdir, not opening files, so that the library does load
 * its unwinder in every mode).  The library opened it before it armed;
 * its own unwinder (preload/obj/unw.c) loads nothing, so no mode opens it. */
#include "escape.h"

int main(void)
{
	return 0;
}
