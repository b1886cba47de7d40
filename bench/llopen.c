/* What a Landlock domain adds to one open()+close() of a file, by the
 * shape of the ruleset:
 *   llopen FILE DIR [ROUNDS [OPENS]]
 * FILE is opened read-only; DIR is where the policy's rule for it is (for
 * the bench: the server's page and the directory learn granted).  Each
 * configuration runs in a child of its own (a domain cannot be left),
 * timing OPENS opens in 15 batches and keeping the median batch; a round
 * runs every configuration (forward in even rounds, backward in odd
 * ones), and gives each a ratio and a difference to the round's child
 * without a domain.  The medians over the rounds are printed: on a
 * machine shared with other work the absolute figures move, the
 * difference to a neighbour measured moments before or after much less.
 *
 * Landlock checks an open (hook_file_open in security/landlock/fs.c) by
 * walking from the file towards the root, one dentry at a time, until
 * every layer has a rule granting what the open asks: read_file, and
 * truncate whenever the ruleset handles it (an open always asks for it,
 * to record whether ftruncate may follow).  Where the rule lies sets the
 * walk's length; a right asked and granted nowhere on the way (truncate
 * beneath a read-only rule) takes the walk up to the root. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif
/* the uapi's values, for headers older than the running kernel */
#define LL_READ_FILE (1ull << 2)
#define LL_TRUNCATE (1ull << 14)
#define LL_RULE_PATH_BENEATH 1
#define LL_ABI5_FS ((1ull << 16) - 1) /* every right through ioctl_dev */
#define BATCHES 15
#define MAX_ROUNDS 99

struct ll_ruleset_attr {
	uint64_t handled_access_fs;
};

struct ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

struct conf {
	const char *name;
	int layers;      /* 0: no domain */
	int at_root;     /* the rule at / instead of DIR */
	int read_only;   /* read_file granted, truncate not */
	int no_truncate; /* truncate not handled */
};

static const struct conf confs[] = {
	{ "no domain", 0, 0, 0, 0 },
	{ "read_file,truncate at DIR (as learned)", 1, 0, 0, 0 },
	{ "the same, two layers", 2, 0, 0, 0 },
	{ "read_file,truncate at / (walk to the root)", 1, 1, 0, 0 },
	{ "read_file at DIR, truncate handled", 1, 0, 1, 0 },
	{ "read_file at DIR, truncate not handled", 1, 0, 1, 1 },
};
#define NCONF (int)(sizeof confs / sizeof confs[0])

static const char *file, *dir;

static void fail(const char *what)
{
	fprintf(stderr, "llopen: %s: %s\n", what, strerror(errno));
	_exit(1);
}

static void enter(const struct conf *c)
{
	int l;

	if (c->layers && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		fail("no_new_privs");
	for (l = 0; l < c->layers; l++) {
		struct ll_ruleset_attr attr = { LL_ABI5_FS & ~(c->no_truncate ? LL_TRUNCATE : 0) };
		struct ll_path_beneath_attr rule = { LL_READ_FILE | (c->read_only ? 0 : LL_TRUNCATE), -1 };
		long rfd = syscall(__NR_landlock_create_ruleset, &attr, sizeof attr, 0);

		if (rfd < 0)
			fail("landlock_create_ruleset (Landlock ABI 5 or later needed)");
		rule.parent_fd = open(c->at_root ? "/" : dir, O_PATH | O_CLOEXEC);
		if (rule.parent_fd < 0)
			fail(c->at_root ? "/" : dir);
		if (syscall(__NR_landlock_add_rule, rfd, LL_RULE_PATH_BENEATH, &rule, 0) ||
		    syscall(__NR_landlock_restrict_self, rfd, 0))
			fail("landlock rule");
		close(rule.parent_fd);
		close((int)rfd);
	}
}

/* ns per open+close in a child under c: the median of its batches */
static double measure(const struct conf *c, int opens)
{
	double r = -1;
	int p[2];
	pid_t pid;

	if (pipe(p))
		fail("pipe");
	pid = fork();
	if (pid < 0)
		fail("fork");
	if (pid == 0) {
		double v[BATCHES];
		int b, i;

		close(p[0]);
		enter(c);
		for (b = 0; b < BATCHES; b++) {
			double t0 = now_ns();
			for (i = 0; i < opens; i++) {
				int fd = open(file, O_RDONLY | O_CLOEXEC);
				if (fd < 0)
					fail(file);
				close(fd);
			}
			v[b] = (now_ns() - t0) / opens;
		}
		qsort(v, BATCHES, sizeof v[0], cmp_double);
		_exit(write(p[1], &v[BATCHES / 2], sizeof(double)) == sizeof(double) ? 0 : 1);
	}
	close(p[1]);
	if (read(p[0], &r, sizeof r) != sizeof r)
		r = -1;
	close(p[0]);
	waitpid(pid, NULL, 0);
	if (r < 0) {
		fprintf(stderr, "llopen: no figure for '%s'\n", c->name);
		exit(1);
	}
	return r;
}

/* dentries a walk from FILE to p visits, both counted (p an ancestor) */
static int visits(const char *p)
{
	const char *s;
	int n = 1;

	for (s = file + strlen(p); *s; s++)
		n += *s == '/' && s[1] && s[1] != '/';
	return n;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof v[0], cmp_double);
	return v[n / 2];
}

int main(int argc, char **argv)
{
	static double ns[NCONF][MAX_ROUNDS], ratio[NCONF][MAX_ROUNDS], diff[NCONF][MAX_ROUNDS];
	int rounds = argc > 3 ? atoi(argv[3]) : 9, opens = argc > 4 ? atoi(argv[4]) : 5000;
	int r, k, i;

	if (argc < 3 || rounds < 1 || rounds > MAX_ROUNDS || opens < 1) {
		fprintf(stderr, "usage: llopen FILE DIR [ROUNDS (1-%d) [OPENS]]\n", MAX_ROUNDS);
		return 2;
	}
	file = argv[1];
	dir = argv[2];
	if (file[0] != '/' || strncmp(file, dir, strlen(dir)) || file[strlen(dir)] != '/') {
		fprintf(stderr, "llopen: FILE must be an absolute path beneath DIR\n");
		return 2;
	}
	for (r = 0; r < rounds; r++) {
		for (k = 0; k < NCONF; k++) {
			i = r % 2 ? NCONF - 1 - k : k;
			ns[i][r] = measure(&confs[i], opens);
		}
		for (i = 0; i < NCONF; i++) {
			ratio[i][r] = ns[i][r] / ns[0][r];
			diff[i][r] = ns[i][r] - ns[0][r];
		}
	}
	printf("open+close of %s: %.0f ns without a domain; what a domain with its rule at %s\n"
	       "adds (the median of %d rounds' differences, each %d x %d opens a child); walk: the\n"
	       "dentries Landlock's check of an open visits, the file's and the rule's included\n",
	       file, median(ns[0], rounds), dir, rounds, BATCHES, opens);
	printf("%-46s %5s %7s %6s\n", "domain", "walk", "+ns", "ratio");
	for (i = 1; i < NCONF; i++) {
		const struct conf *c = &confs[i];
		/* to the root when nothing on the way grants all the open asks */
		int to_root = c->at_root || (c->read_only && !c->no_truncate);

		printf("%-46s %5d %+7.0f %6.3f\n", c->name, visits(to_root ? "" : dir),
		       median(diff[i], rounds), median(ratio[i], rounds));
	}
	return 0;
}
