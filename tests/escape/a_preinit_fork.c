// escape: DT_PREINIT_ARRAY forks a child that creates the file later
// expect: interpose=limit trusted=stop run=stop
/* A child forked before the library arms is never armed: it waits until
 * its parent is surely filtered (main runs), then acts. */
#include "escape.h"

static int go[2];

static void early(int argc, char **argv, char **envp)
{
	char c;

	(void)envp;
	if (argc < 2 || pipe(go) != 0)
		return;
	if (fork() == 0) {
		/* until main has run in the parent */
		raw_syscall(SYS_read, go[0], (long)&c, 1, 0, 0, 0);
		make_marker(argv[1]);
		raw_syscall(SYS_exit_group, 0, 0, 0, 0, 0, 0);
	}
}

__attribute__((section(".preinit_array"), used)) static void (*const preinit)(int, char **, char **) = early;

int main(void)
{
	if (write(go[1], "g", 1) != 1)
		return 1;
	wait_children();
	return 0;
}
