/* Process start-up, for bench/b_start.sh: the median wall time of starting
 * a program and waiting for it, under several environments, interleaved.
 *   spawn ROUNDS N CONFIG... -- PROG [ARG...]
 * A CONFIG is a list of NAME=VALUE assignments separated by ';' (empty:
 * the environment as it is), added to this program's environment for the
 * child only.  Each of the ROUNDS rounds starts PROG N times under each
 * configuration, one start of each in turn, the first of the turn moving
 * by one each time: this VM's speed drifts over seconds, and blocks of N
 * starts a configuration took that drift for a difference (the library
 * enforcing 240 us over the empty one in a run, 140 in the next, minutes
 * apart).  A round's figure is the median of its N starts.  Prints, per
 * configuration, in microseconds: the median over the rounds of the wall
 * time and of the CPU time (user + system, from wait4) of a start; the
 * median over the rounds of the round's difference to the first
 * configuration, wall and CPU; then each round's wall median.  The CPU
 * time leaves out the time spent waiting for a CPU, which on a shared
 * machine is most of the noise.
 * posix_spawn (CLONE_VFORK) keeps this program's own cost per start small
 * and the same for every configuration; stdout and stderr of the child go
 * to /dev/null. */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

extern char **environ;

#define MAXCONF 8
#define MAXENV 512

static char **env_for(const char *conf)
{
	char **env = calloc(MAXENV, sizeof *env), *copy = strdup(conf), *tok, *save;
	size_t n = 0, i;

	for (tok = strtok_r(copy, ";", &save); tok && n < MAXENV / 2; tok = strtok_r(NULL, ";", &save))
		env[n++] = tok;
	for (i = 0; environ[i] && n < MAXENV - 1; i++) {
		size_t k, eq = strcspn(environ[i], "=");
		int shadowed = 0;
		for (k = 0; env[k] && k < n; k++)
			if (!strncmp(env[k], environ[i], eq + 1))
				shadowed = 1;
		if (!shadowed)
			env[n++] = environ[i];
	}
	env[n] = NULL;
	return env;
}

#include <sys/resource.h>

static double one(char **argv, char **env, posix_spawn_file_actions_t *fa, double *cpu)
{
	double t0 = now_ns();
	struct rusage ru;
	pid_t pid;
	int st;

	if (posix_spawn(&pid, argv[0], fa, NULL, argv, env) != 0) {
		perror("posix_spawn");
		exit(2);
	}
	wait4(pid, &st, 0, &ru);
	*cpu = ru.ru_utime.tv_sec * 1e6 + ru.ru_utime.tv_usec + ru.ru_stime.tv_sec * 1e6 +
	       ru.ru_stime.tv_usec;
	return (now_ns() - t0) / 1000;
}

int main(int argc, char **argv)
{
	int rounds, n, nconf = 0, r, c, i, k;
	char **env[MAXCONF], **prog;
	const char *names[MAXCONF];
	double *med[MAXCONF], *cmed[MAXCONF], *t, *u;
	posix_spawn_file_actions_t fa;

	if (argc < 5)
		goto usage;
	rounds = atoi(argv[1]);
	n = atoi(argv[2]);
	for (i = 3; i < argc && strcmp(argv[i], "--"); i++) {
		if (nconf == MAXCONF)
			goto usage;
		names[nconf] = argv[i];
		env[nconf++] = env_for(argv[i]);
	}
	if (i + 1 >= argc || rounds < 1 || n < 1 || nconf == 0)
		goto usage;
	prog = argv + i + 1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	t = calloc((size_t)n * (size_t)nconf, sizeof *t);
	u = calloc((size_t)n * (size_t)nconf, sizeof *u);
	for (c = 0; c < nconf; c++) {
		med[c] = calloc((size_t)rounds, sizeof *med[c]);
		cmed[c] = calloc((size_t)rounds, sizeof *cmed[c]);
	}
	for (c = 0; c < nconf; c++) /* warm the page cache */
		one(prog, env[c], &fa, &u[0]);
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < n; i++)
			for (k = 0; k < nconf; k++) {
				c = (i + k) % nconf;
				t[c * n + i] = one(prog, env[c], &fa, &u[c * n + i]);
			}
		for (c = 0; c < nconf; c++) {
			qsort(t + c * n, (size_t)n, sizeof *t, cmp_double);
			qsort(u + c * n, (size_t)n, sizeof *u, cmp_double);
			med[c][r] = t[c * n + n / 2];
			cmed[c][r] = u[c * n + n / 2];
		}
	}
	for (c = 0; c < nconf; c++) {
		double s[64], cs[64], d[64], cd[64];
		k = rounds < 64 ? rounds : 64;
		for (r = 0; r < k; r++) {
			s[r] = med[c][r];
			cs[r] = cmed[c][r];
			d[r] = med[c][r] - med[0][r];
			cd[r] = cmed[c][r] - cmed[0][r];
		}
		qsort(s, (size_t)k, sizeof *s, cmp_double);
		qsort(cs, (size_t)k, sizeof *cs, cmp_double);
		qsort(d, (size_t)k, sizeof *d, cmp_double);
		qsort(cd, (size_t)k, sizeof *cd, cmp_double);
		printf("%s\t%.1f\t%.1f\t%.1f\t%.1f", names[c][0] ? names[c] : "(none)", s[k / 2],
		       cs[k / 2], d[k / 2], cd[k / 2]);
		for (r = 0; r < rounds; r++)
			printf("\t%.1f", med[c][r]);
		printf("\n");
	}
	return 0;
usage:
	fprintf(stderr, "usage: spawn ROUNDS N CONFIG... -- PROG [ARG...]\n");
	return 2;
}
