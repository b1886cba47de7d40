// escape: clone3 thread (CLONE_VM|CLONE_THREAD), new stack
// expect: interpose=stop trusted=stop run=stop
#include <linux/sched.h>
#include <sched.h>
#include <sys/mman.h>
#include <time.h>

#include "escape.h"

static const char *marker;
static volatile int done;

static void child(void)
{
	make_marker(marker);
	done = 1;
	raw_exit(0);
}

int main(int argc, char **argv)
{
	size_t size = 64 << 10;
	char *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct clone_args ca = { .flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
					  CLONE_THREAD | CLONE_SYSVSEM };
	int i;

	(void)argc;
	marker = argv[1];
	ca.stack = (uintptr_t)stack;
	ca.stack_size = size - 16;
	*(uintptr_t *)(stack + size - 16) = (uintptr_t)child;
	if (clone_run(SYS_clone3, (long)&ca, sizeof ca, 0, 0, 0, child) < 0)
		return 2;
	for (i = 0; i < 500 && !done; i++) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	return 0;
}
