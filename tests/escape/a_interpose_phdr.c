// escape: the program's dl_iterate_phdr, during a report
// expect: interpose=stop trusted=stop run=stop
// control: none
/* The same as a_interpose_dladdr for the unwinder of the reporter's
 * backtrace: libunwind found the unwind tables with dl_iterate_phdr, and
 * called every libc function it used (mmap, write, pipe2...) through its
 * PLT too.  The library's own unwinder (preload/obj/unw.c) calls nothing
 * outside the library. */
#include <link.h>

#include "escape.h"

static const char *marker;

int dl_iterate_phdr(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data)
{
	(void)cb;
	(void)data;
	make_marker(marker);
	return 0;
}

int main(int argc, char **argv)
{
	(void)argc;
	marker = argv[1];
	creat("denied", 0600); /* creat: 0 */
	return 0;
}
