// escape: clone3 fork-like (no CLONE_VM), new stack
// expect: interpose=stop trusted=stop run=stop
#include <linux/sched.h>
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
	struct clone_args ca = { .exit_signal = SIGCHLD };

	(void)argc;
	marker = argv[1];
	/* The word at the top, for a child that would return through it. */
	ca.stack = (uintptr_t)stack;
	ca.stack_size = size - 16;
	*(uintptr_t *)(stack + size - 16) = (uintptr_t)child;
	if (clone_run(SYS_clone3, (long)&ca, sizeof ca, 0, 0, 0, child) < 0)
		return 2;
	wait_children();
	return 0;
}
