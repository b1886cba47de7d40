// escape: clone fork-like (no CLONE_VM), new stack
// expect: interpose=stop trusted=stop run=stop
/* The child of a raw clone(SIGCHLD, stack) starts on the new stack.  A
 * library that issues the clone from its handler and returns with `ret`
 * sends the child through the word on top of that stack, chosen here to
 * be the forbidden act, before it has armed anything. */
#include <signal.h>

#include "escape.h"

int main(int argc, char **argv)
{
	(void)argc;
	child_marker = argv[1];
	return marker_child_done(clone_run(SYS_clone, SIGCHLD, (long)child_stack_top(marker_child),
					   0, 0, 0, marker_child), 0);
}
