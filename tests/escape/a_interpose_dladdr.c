// escape: the program's dladdr, called by the library
// expect: interpose=stop trusted=stop run=stop
// control: none
/* The library names itself with dladdr in its constructor (before it has
 * armed anything) and names the frames of a backtrace with dispatch
 * switched off.  Through the PLT, dladdr is the program's own when it
 * exports one, and runs unfiltered in both places.  This one makes the
 * forbidden call, then answers as libc's would; a denied call starts a
 * report. */
#include <dlfcn.h>

#include "escape.h"

/* argv[1], read where main has not run yet. */
static const char *marker_path(void)
{
	static char buf[4096];
	long fd = raw_syscall(SYS_open, (long)"/proc/self/cmdline", O_RDONLY, 0, 0, 0, 0);
	long n = fd < 0 ? -1 : raw_syscall(SYS_read, fd, (long)buf, sizeof buf - 1, 0, 0, 0);
	char *p = buf;

	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	p += strlen(p) + 1; /* argv[0] */
	return p < buf + n ? p : NULL;
}

int dladdr(const void *addr, Dl_info *info)
{
	int (*real)(const void *, Dl_info *) =
		(int (*)(const void *, Dl_info *))dlsym(RTLD_NEXT, "dladdr");
	const char *m = marker_path();

	if (m)
		make_marker(m);
	return real ? real(addr, info) : 0;
}

int main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	creat("denied", 0600); /* creat: 0 */
	return 0;
}
