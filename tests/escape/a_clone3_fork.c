// escape: clone3 fork-like (no CLONE_VM), new stack
// expect: interpose=stop trusted=stop run=stop
#include <linux/sched.h>
#include <signal.h>

#include "escape.h"

int main(int argc, char **argv)
{
	struct clone_args ca = { .exit_signal = SIGCHLD };

	(void)argc;
	child_marker = argv[1];
	return marker_child_done(clone3_run(&ca, marker_child), 0);
}
