/* Files and ports for the tool's commands (tools/landlock.c). */
#ifndef SECFILTER_TOOL_LANDLOCK_H
#define SECFILTER_TOOL_LANDLOCK_H

#include "landlock.h"
#include "policy.h"

/* `check`: a warning on stderr for each fs. path that does not exist
 * (or cannot be looked at) here and now. */
void landlock_warn_missing(const struct sf_policy *p);

/* `run`, before it forks: the rulesets of all of p's layers, with
 * secfilter's own rules in each when library (the preload library's
 * path) is given: the library's file, the SECFILTER_LOG file.  Warnings for skipped paths go to
 * stderr.  0 (fds->n 0 when p has no fs./net. rules), or EX_SF_FAIL
 * after printing why (a right the kernel cannot restrict, no Landlock). */
int landlock_prepare(const struct sf_policy *p, const char *library, struct sf_ll_fds *fds);

/* In the child, before exec (struct spawn's before_exec): enters the
 * rulesets ctx (a struct sf_ll_fds).  0 or -errno. */
int landlock_enter(const void *ctx);

void landlock_release(struct sf_ll_fds *fds);

#endif
