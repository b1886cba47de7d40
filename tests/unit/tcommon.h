/* Helpers shared by unit tests beyond tsupport's policy ones: a driver for
 * tables of inputs a front end must refuse, reading files of a corpus. */
#ifndef SECFILTER_TCOMMON_H
#define SECFILTER_TCOMMON_H

#include <glob.h>
#include <stddef.h>

#include "policy.h"

/* Reads text as one front end does: 0 when it is accepted, else the
 * error's code with *err filled in. */
typedef int t_reader(const char *text, struct sf_error *err);

/* Fails the test unless read refuses every input of the file at path
 * (tests/unit/cases/NAME.tests) with -EINVAL and an error text that starts
 * "source:LINE:COL: error: " and holds the case's message; prints each
 * case that is not so refused.  The file has a case a line,
 * "LINE:COL<tab>INPUT<tab>MESSAGE", with \n \r \t \\ \xHH as in C; blank
 * lines and lines starting with # are skipped. */
void t_refused_in(const char *path, const char *source, t_reader *read);

/* Readers of the front ends that give a policy: a minijail policy file
 * (named t.policy), an OCI profile on kernel 6.1.0 (named p.json). */
t_reader t_read_minijail, t_read_oci;

/* Every file matching one of the n patterns, in *files (globfree it);
 * fails the test if a pattern matches none. */
void t_glob(const char *const *patterns, size_t n, glob_t *files);

/* Fails unless every call of calls gets its outcome under p (sf_action of
 * its decision); reports each call that does not.  calls: entries
 * "NAME(A0, A1, ...) OUTCOME" separated by ";": NAME a syscall's name or
 * number, up to four arguments (the rest 0) as strtoull reads them,
 * OUTCOME run, kill, trap, log, or an errno's name or number. */
void t_expect_outcomes(const struct sf_policy *p, const char *calls);

/* The whole file, NUL-terminated (malloc'd; *len its length unless len is
 * NULL); NULL when it cannot be opened. */
char *t_slurp(const char *path, size_t *len);

#endif
