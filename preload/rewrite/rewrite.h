/* libsecfilter.so's sixth floor (HACKING.md): the catch-all's fast path,
 * syscall sites rewritten after their first traps (rewrite.c, rwentry.S,
 * x86dec.c).  Above trap/ and the floors below it, which reach it only
 * through the hooks it registers in state/ (sf_rw_trapped,
 * sf_rw_site_hook) once its settings are read. */
#ifndef SECFILTER_REWRITE_H
#define SECFILTER_REWRITE_H

#include "trap.h"

/* rwentry.S: the way from a trampoline into the library and back. */
/* SECFILTER_REWRITE's value (NULL: unset) as the constructor's scan of
 * the environment found it (entry/init.c): when sf_rw_env_scanned, the
 * rewriter's settings need not scan it again. */
extern int sf_rw_env_scanned;
extern const char *sf_rw_env_value;

void sf_rw_entry(void);
void sf_rw_issue(void);
void sf_rw_done(void);
void sf_rw_fallback(void);

#endif
