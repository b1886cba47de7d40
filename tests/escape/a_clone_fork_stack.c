// escape: clone fork-like (no CLONE_VM), new stack
// expect: interpose=stop trusted=stop run=stop
/* The child of a raw clone(SIGCHLD, stack) starts on the new stack.  A
 * library that issues the clone from its handler and returns with `ret`
 * sends the child through the word on top of that stack, chosen here to
 * be the forbidden act, before it has armed anything. */
#include <signal.h>
#include <sys/mman.h>

#include "escape.h"

static const char *marker;

static void child(void)
{
	make_marker(marker);
	raw_exit(0);
}

int main(int argc, char **argv)
{
	size_t size = 64 << 10;
	char *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t *top = (uintptr_t *)(stack + size) - 2;

	(void)argc;
	marker = argv[1];
	top[0] = (uintptr_t)child;
	if (clone_run(SYS_clone, SIGCHLD, (long)top, 0, 0, 0, child) < 0)
		return 2;
	wait_children();
	return 0;
}
