// escape: posix_spawn: the child creates it (a file action)
// expect: interpose=stop trusted=stop run=stop
/* posix_spawn's child shares the parent's memory until it execs; its
 * file actions run in it, on its own stack, before the exec. */
#include <spawn.h>

#include "escape.h"

extern char **environ;

int main(int argc, char **argv)
{
	posix_spawn_file_actions_t fa;
	char *args[] = { "/bin/true", NULL };
	pid_t pid;

	(void)argc;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 3, argv[1], O_WRONLY | O_CREAT, 0600);
	if (posix_spawn(&pid, args[0], &fa, NULL, args, environ) != 0)
		return 2;
	wait_children();
	return 0;
}
