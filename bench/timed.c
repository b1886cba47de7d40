/* Runs a command and writes its wall time and the CPU time (user + system)
 * of it and of every descendant it waited for, in microseconds, and its
 * exit status:
 *   timed FILE CMD [ARG...]   ->   "WALL CPU STATUS" in FILE
 * For bench/b_start.sh.  On a machine shared with other work the wall time
 * also counts the time spent waiting for a CPU; the CPU time does not, and
 * moves less from run to run. */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

int main(int argc, char **argv)
{
	struct rusage ru;
	double t0;
	pid_t pid;
	FILE *out;
	int st;

	if (argc < 3) {
		fprintf(stderr, "usage: timed FILE CMD [ARG...]\n");
		return 2;
	}
	t0 = now_ns();
	pid = fork();
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return 2;
	getrusage(RUSAGE_CHILDREN, &ru);
	out = fopen(argv[1], "w");
	if (!out)
		return 2;
	fprintf(out, "%.0f %.0f %d\n", (now_ns() - t0) / 1000,
		ru.ru_utime.tv_sec * 1e6 + ru.ru_utime.tv_usec + ru.ru_stime.tv_sec * 1e6 +
			ru.ru_stime.tv_usec,
		WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	return fclose(out) != 0;
}
