/* Runs a command inside a new Landlock domain: a reader in a Landlock
 * sandbox may inspect (ptrace, /proc/PID/mem) only processes in the same
 * sandbox, so that show's refusal by a security module can be tested
 * without configuring one.  The domain restricts nothing else the tests
 * do: it only handles making block devices.
 *   cli_landlock CMD [ARG...]    exit 77 when Landlock is not available */
#include <errno.h>
#include <linux/landlock.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct landlock_ruleset_attr attr = {
		.handled_access_fs = LANDLOCK_ACCESS_FS_MAKE_BLOCK,
	};
	long fd;

	if (argc < 2) {
		fputs("usage: cli_landlock CMD [ARG...]\n", stderr);
		return 2;
	}
	fd = syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (fd < 0 && (errno == ENOSYS || errno == EOPNOTSUPP))
		return 77;
	if (fd < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_landlock_restrict_self, fd, 0) < 0) {
		perror("cli_landlock");
		return 1;
	}
	close((int)fd);
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
