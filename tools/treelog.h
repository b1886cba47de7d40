/* What `secfilter run` tells about the violations of a whole tree of
 * processes: each one reported in full the first time its (syscall,
 * rule) is seen, later ones counted; at the end, in log mode, a summary:
 * the violations by syscall, with their counts and the programs that made
 * them, each as the policy line to add -- the lines together a policy
 * fragment that, appended, lets the same run go through.
 *
 * Reports go where the library's would (SECFILTER_LOG: stderr, syslog or
 * an absolute file path, appended; a file that cannot be opened is an
 * error before PROG starts). */
#ifndef SECFILTER_TREELOG_H
#define SECFILTER_TREELOG_H

#include <stdint.h>
#include <sys/types.h>

#include "learned.h"
#include "vreport.h"

enum { LOG_LINES = 1, LOG_FULL = 2 }; /* run --log, --log=full */

struct treelog {
	const struct sf_policy *p;
	int log;                  /* log mode (LOG_LINES, LOG_FULL): the calls ran */
	struct sf_vsum *e;
	size_t n, cap;
	struct learned *progs;    /* programs and their counts, per syscall */
	int fd;                   /* SECFILTER_LOG file, or 2; -1 syslog */
	struct treelog_ll *ll;    /* Landlock's denials, by their add: rule */
	size_t nll, llcap;
};

/* Landlock's denials of one kind: the rule that would allow them. */
struct treelog_ll {
	char *fix;
	char comm[17];            /* the first process denied it ("?": unknown) */
	uint64_t count;
};

/* 0, or -1 when SECFILTER_LOG names a file that cannot be opened (said). */
int treelog_init(struct treelog *t, const struct sf_policy *p, int log);
void treelog_free(struct treelog *t);

/* One denied call.  Writes its report when its (syscall, rule) is new
 * (c->read may be used), counts it either way.  A call let through
 * (c->logged) is said in log mode's one line, unless full reports were
 * asked for (LOG_FULL) or go to a file. */
void treelog_call(struct treelog *t, const struct sf_vcall *c);

/* What a process under the library counted in log mode (it wrote the
 * reports itself): o holds calls calls of nr that got decision d. */
void treelog_counted(struct treelog *t, long nr, int d, const char *comm, const struct sf_obs *o);

/* Text out, as reports go: in one write; a failure is said on standard
 * error, and the text written there, when that is not where it failed. */
void treelog_write(struct treelog *t, const char *s, size_t n);

/* count denials by Landlock whose add: rule is fix, by comm (NULL:
 * unknown): 1 when they are the first with that rule (report them), 0
 * for repeats.
 * Landlock has no log mode: the access failed, in log mode too; the
 * summary lists the rules with the syscalls'. */
int treelog_landlock(struct treelog *t, const char *fix, const char *comm, uint64_t count);

/* The summary of log mode (nothing when nothing was denied). */
void treelog_summary(struct treelog *t);

#endif
