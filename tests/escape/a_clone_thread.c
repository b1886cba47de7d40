// escape: raw clone thread (CLONE_VM|CLONE_THREAD)
// expect: interpose=stop trusted=stop run=stop
#include <sched.h>

#include "escape.h"

int main(int argc, char **argv)
{
	long flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
		     CLONE_SYSVSEM;

	(void)argc;
	child_marker = argv[1];
	return marker_child_done(clone_run(SYS_clone, flags, (long)child_stack_top(marker_child), 0,
					   0, 0, marker_child), 1);
}
