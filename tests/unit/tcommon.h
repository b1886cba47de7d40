/* Helpers shared by unit tests beyond tsupport's policy ones: files of
 * cases (tests/unit/cases) and their drivers, calls and their outcomes
 * written as text, the files of a corpus. */
#ifndef SECFILTER_TCOMMON_H
#define SECFILTER_TCOMMON_H

#include <glob.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"

/* Reads text as one front end does: 0 when it is accepted, else the
 * error's code with *err filled in. */
typedef int t_reader(const char *text, struct sf_error *err);

/* Calls fn for each case of the file at path (tests/unit/cases/NAME.tests):
 * a line each, of nfields fields separated by tabs, with \n \r \t \\ \xHH
 * as in C; blank lines and lines starting with # are skipped.  where is
 * "path:line", for messages.  Returns how many cases there were; fails
 * the test when the file cannot be read, has none, or a line has another
 * number of fields. */
typedef void t_case_fn(char **fields, void *ctx, const char *where);
unsigned t_each_case(const char *path, unsigned nfields, t_case_fn *fn, void *ctx);

/* Fails the test unless read refuses every input of the file at path
 * (tests/unit/cases/NAME.tests) with -EINVAL and an error text that starts
 * "source:LINE:COL: error: " and holds the case's message; prints each
 * case that is not so refused.  The file's cases (t_each_case) have three
 * fields: LINE:COL, the input, a part of the message. */
void t_refused_in(const char *path, const char *source, t_reader *read);

/* Readers of the front ends that give a policy: a minijail policy file
 * (named t.policy), an OCI profile on kernel 6.1.0 (named p.json). */
t_reader t_read_minijail, t_read_oci;

/* Every file matching one of the n patterns, in *files (globfree it);
 * fails the test if a pattern matches none. */
void t_glob(const char *const *patterns, size_t n, glob_t *files);

/* Reads a call "NAME(A0, A1, ...)" at s: NAME a syscall's name or
 * number, up to six arguments (the rest 0) as strtoull reads them.
 * Returns what follows the ')' and its spaces. */
const char *t_read_call(const char *s, long *nr, uint64_t args[6]);

/* Fails unless every call of calls gets its outcome under p (sf_action of
 * its decision); reports each call that does not.  calls: entries
 * "CALL OUTCOME" separated by ";": CALL as t_read_call reads it, OUTCOME
 * run, kill, trap, log, or an errno's name or number. */
void t_expect_outcomes(const struct sf_policy *p, const char *calls);

/* The whole file, NUL-terminated (malloc'd; *len its length unless len is
 * NULL); NULL when it cannot be opened. */
char *t_slurp(const char *path, size_t *len);

#endif
