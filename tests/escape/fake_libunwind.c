/* A fake libunwind.so.8 (and, generally, any library the secfilter
 * library might load): its constructor makes a directory at the marker.
 * The Makefile installs it as $ESCAPE_DIR/fakelibs/libunwind.so.8, where
 * a_fake_libunwind_* point the loader's search path. */
#include "escape.h"

__attribute__((constructor)) static void ctor(int argc, char **argv, char **envp)
{
	char marker[4096];

	(void)envp;
	if (argc > 1)
		raw_syscall(SYS_mkdirat, AT_FDCWD, (long)argv[1], 0700, 0, 0, 0);
	else if (marker_from_cmdline(marker, sizeof marker) == 0)
		raw_syscall(SYS_mkdirat, AT_FDCWD, (long)marker, 0700, 0, 0, 0);
}
