/* What `secfilter learn` knows about the policy it is writing: for each
 * syscall what the runs observed of its arguments (filter/decode.h), the
 * calls per program, and what policies merged into it said; the commands
 * of the runs.  Filled by tracing (cmd_learn.c), by merging a policy or a
 * log of violations (learned.c), and written out as one policy. */
#ifndef SECFILTER_LEARNED_H
#define SECFILTER_LEARNED_H

#include <stdint.h>
#include <stdio.h>

#include "decode.h"
#include "learnfs.h"

#define LP_PROGS 64 /* programs named in comments; the rest are "others" */

/* What the result says about one syscall, once every source is in: it is
 * allowed when any of these is set, and then with the widest of them. */
struct lrule {
	uint8_t any;      /* with 1 (a merged policy had it so) */
	uint8_t has_obs;  /* obs holds calls (a run, a log, a learned rule) */
	uint16_t ret;     /* only `return E` (a merged policy), when nothing else */
	uint16_t fail;    /* the else action of opaque */
	char *opaque;     /* a merged filter that sf_obs_of_filters could not
			     read: kept as written, or'ed with obs */
	struct sf_obs obs;
	struct sf_pairs pairs;            /* of setsockopt's level and optname */
	uint64_t calls;                   /* counted in runs, logs, comments */
	uint32_t by_prog[LP_PROGS + 1];   /* [LP_PROGS]: others */
};

/* What a run did that makes some calls a matter of timing (learned.c has
 * the families of calls each one brings). */
enum {
	LT_THREADS = 1, /* created a thread */
	LT_HANDLER = 2, /* installed a signal handler */
	LT_ALARM = 4,   /* installed a handler for SIGALRM */
	LT_SLEEPS = 8,  /* slept with a timeout (learned_call sees it) */
};

struct learned {
	enum sf_argmode mode;
	struct lrule r[SF_NR_COUNT];
	char progs[LP_PROGS][17];
	unsigned nprogs;
	char **commands;  /* of the runs, shell-quoted, oldest first */
	unsigned ncommands;
	uint16_t dflt;    /* a merged policy's default action (0: kill) */
	int pending;      /* a merged policy's on_next_syscall: 1 */
	uint64_t tasks;
	uint64_t foreign; /* calls through another ABI */
	uint64_t unknown[SF_NR_COUNT]; /* numbers the table lacks */
	unsigned triggers; /* LT_*: what some run did that makes calls timing's */
	unsigned runs;    /* runs traced here, logs and learned policies merged */
	/* Files and ports (fs., net.): what the runs used and the merged
	 * policies grant, their union written out (learnfs.h).  A merged
	 * policy without fs. (net.) rules restricts no file (port): nor
	 * does the union, which fs_free (net_free) says. */
	struct fs_uses fs;
	uint8_t ports[65536]; /* SF_NET_BIND | SF_NET_CONNECT, per TCP port */
	int fs_said;          /* runs and policies that restrict files */
	char *fs_free, *net_free; /* the first policy that does not, or NULL */
};

void learned_init(struct learned *l, enum sf_argmode mode);
void learned_free(struct learned *l);

/* A program's index for by_prog (its comm, as the kernel names it). */
unsigned learned_prog(struct learned *l, const char *comm);
/* One call seen by a run. */
void learned_call(struct learned *l, long nr, const uint64_t a[6], unsigned prog);
/* The command line of a run, quoted so that a shell reads it back. */
void learned_command(struct learned *l, char *const *argv);
char *shell_quote(char *const *argv);

/* Merges a file: a policy (learned or not), or a log of violations as
 * the library and `run --log` write them (secfilter(1), REPORTS).
 * Returns 0, or an exit status after saying why. */
int learned_merge_file(struct learned *l, const char *path);

/* On standard error, after a run: the calls allowed because their
 * trigger was seen, whether the runs made them, and that others may
 * remain. */
void learned_timing_note(const struct learned *l);

/* "# 32 calls: ls 30, sh 2": r's count and who made the calls. */
void learned_count_comment(FILE *f, const struct learned *l, const struct lrule *r);

/* The policy text (malloc'd), checked to parse. */
char *learned_policy(const struct learned *l, size_t *len);

#endif
