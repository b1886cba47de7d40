// escape: the program's malloc, called by libc inside setlocale
// expect: interpose=stop trusted=stop run=stop
// policy: *: 1; io_uring_setup: 0; creat: 0
// env: LC_ALL=C.UTF-8
/* libc's setlocale allocates through its PLT, so a program that defines
 * malloc runs inside it.  The library lets setlocale load a locale with
 * dispatch off only when the allocator libc calls is libc's own
 * (preload/interpose/locale.c): here, the call below traps and is denied. */
#include <locale.h>

#include "escape.h"

static const char *marker;
static volatile int inside; /* stored around a call the compiler thinks cannot read it */
static char arena[1 << 20] __attribute__((aligned(16)));
static size_t used;

void *malloc(size_t n)
{
	void *p = arena + used;

	if (inside) {
		inside = 0;
		raw_syscall(SYS_creat, (long)marker, 0600, 0, 0, 0, 0);
	}
	used += (n + 31) & ~(size_t)15;
	if (used > sizeof arena)
		return NULL;
	((size_t *)p)[0] = n;
	return (char *)p + 16;
}

void free(void *p)
{
	(void)p;
}

void *calloc(size_t a, size_t b)
{
	void *p = malloc(a * b);

	if (p)
		memset(p, 0, a * b);
	return p;
}

void *realloc(void *p, size_t n)
{
	void *q = malloc(n);

	if (q && p) {
		size_t old = ((size_t *)p)[-2];
		memcpy(q, p, old < n ? old : n);
	}
	return q;
}

int main(int argc, char **argv)
{
	(void)argc;
	marker = argv[1];
	inside = 1;
	setlocale(LC_ALL, "");
	inside = 0;
	return 0;
}
