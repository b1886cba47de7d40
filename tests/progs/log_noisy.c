/* A program that writes its own lines to standard error from a second
 * thread, in a loop, while its main thread makes system calls a log-mode
 * policy denies: the reports the library writes to the same file must
 * each arrive whole, never with one of the program's lines inside.
 *
 * Usage: log_noisy ROUNDS
 * Each round makes getppid, getpgrp, getuid, getgid, geteuid, getegid,
 * uname and sysinfo (raw calls: each through the trap path), while the
 * noise thread writes "noise N\n" lines with write(2) (its own, allowed).
 * Exit 0. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/sysinfo.h>
#include <unistd.h>

static volatile int done;
static volatile unsigned long written; /* lines the noise thread wrote */

static void *noise(void *arg)
{
	char line[32];
	unsigned long n = 0;

	(void)arg;
	while (!done) {
		int len = snprintf(line, sizeof line, "noise %lu\n", n++);
		if (write(2, line, (size_t)len) < 0)
			break;
		written = n;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static const long calls[] = { SYS_getppid, SYS_getpgrp, SYS_getuid, SYS_getgid,
				      SYS_geteuid, SYS_getegid };
	int rounds = argc > 1 ? atoi(argv[1]) : 1;
	struct utsname u;
	struct sysinfo si;
	pthread_t t;
	int r;
	size_t i;

	if (pthread_create(&t, NULL, noise, NULL) != 0)
		return 2;
	/* the noise under way before the first report: on a loaded machine
	 * the thread may otherwise not run before the rounds are over */
	while (!written)
		sched_yield();
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < sizeof calls / sizeof calls[0]; i++)
			syscall(calls[i]);
		syscall(SYS_uname, &u);
		syscall(SYS_sysinfo, &si);
	}
	done = 1;
	pthread_join(t, NULL);
	printf("noisy done\n");
	return 0;
}
