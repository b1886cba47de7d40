// escape: libc's own open, openat, creat, syscall via dlsym
// expect: interpose=stop trusted=stop run=stop
/* The library's wrappers are found first; libc's own functions are one
 * dlsym(RTLD_NEXT) (or dlvsym, or a handle on libc.so.6) away, and their
 * syscall instructions are libc's. */
#include <dlfcn.h>

#include "escape.h"

int main(int argc, char **argv)
{
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	int (*o)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	int (*oat)(int, const char *, int, ...) =
		(int (*)(int, const char *, int, ...))dlvsym(RTLD_NEXT, "openat", "GLIBC_2.2.5");
	int (*cr)(const char *, mode_t) = (int (*)(const char *, mode_t))dlsym(libc, "creat");
	long (*sc)(long, ...) = (long (*)(long, ...))dlsym(libc, "syscall");

	(void)argc;
	/* each would do it; the first that is allowed leaves the marker */
	if (o)
		o(argv[1], O_WRONLY | O_CREAT, 0600);
	if (oat)
		oat(AT_FDCWD, argv[1], O_WRONLY | O_CREAT, 0600);
	if (cr)
		cr(argv[1], 0600);
	if (sc)
		sc(SYS_openat, AT_FDCWD, argv[1], O_WRONLY | O_CREAT, 0600);
	return 0;
}
