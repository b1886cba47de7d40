/* The catch-all's fast path: syscall sites rewritten after their first
 * trap (rewrite.c, rwentry.S).  The hooks other files call. */
#ifndef SECFILTER_REWRITE_H
#define SECFILTER_REWRITE_H

#include "sf.h"

/* dispatch.c, for every Syscall User Dispatch trap, before the call is
 * handled: may rewrite the site so that its later calls skip the signal. */
void sf_rw_trapped(const struct sf_call *c);

/* dispatch.c: the program's call site for an address where a signal
 * interrupted a rewritten site's call (the address itself otherwise). */
uintptr_t sf_rw_site_of(uintptr_t ip, const ucontext_t *uc);

/* clone.c, around a fork-like clone: no rewrite is half done (a page
 * writable and executable, a lock held) in the child's copy of memory. */
int sf_rw_fork_begin(void);        /* 1: locked, to pass to sf_rw_fork_end */
void sf_rw_fork_end(int locked);
void sf_rw_concurrent(void);       /* a task may now run beside the others */

/* exec.c: "SECFILTER_REWRITE=0" when rewriting is off (the new image
 * keeps it off), else NULL. */
const char *sf_rw_env(void);

#endif
