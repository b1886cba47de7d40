// escape: clone3 thread (CLONE_VM|CLONE_THREAD), new stack
// expect: interpose=stop trusted=stop run=stop
#include <linux/sched.h>
#include <sched.h>

#include "escape.h"

int main(int argc, char **argv)
{
	struct clone_args ca = { .flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
					  CLONE_THREAD | CLONE_SYSVSEM };

	(void)argc;
	child_marker = argv[1];
	return marker_child_done(clone3_run(&ca, marker_child), 1);
}
