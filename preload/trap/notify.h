/* Trusted mode's listener (notify.c): the process that hears of the
 * policy's kills through the kernel filter (SECCOMP_RET_USER_NOTIF) and
 * reports them from outside the program, whatever the policy lets the
 * program do. */
#ifndef SECFILTER_NOTIFY_H
#define SECFILTER_NOTIFY_H

#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ucontext.h>

#include "policy.h"
#include "vreport.h"

struct sf_prog;
struct sf_error;
struct sf_out;

#define SF_NOTIFY_FLAGS (SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_TSYNC_ESRCH)


/* The library found call c denied (decision d of p) and would report it
 * and kill: where the kernel's filter denies it too and a listener hears
 * it, the call is made as it is, for the listener to report and end the
 * process (the report is then the same whatever the policy lets the
 * process do).  Returns only when nobody heard it, 0.  For a call log
 * mode lets through (a rule's log), 1 when the listener will hear it
 * when it is made, and report it: the library then does not. */
struct sf_call;
int sf_notify_reissue(const struct sf_call *c, int d, const struct sf_policy *p);

/* The first image of a trusted tree, before its Landlock layers and
 * before it compiles its policy p: where a listener can hear its kills,
 * starts it (outside the layers: it reads the tree's /proc files) and
 * sets sf_notify_wanted.  No file may stay open from here to
 * sf_notify_load: the listener is told the fd number the filter's will
 * have. */
void sf_notify_start(const struct sf_policy *p);

/* Loads prog (compiled from p) as sf_trusted_load does; while
 * sf_notify_wanted, with the listener started before and handed the
 * filter's fd after, or, where it cannot be, compiled again for the
 * library's handler.  0 or -errno (err filled in). */
int sf_notify_load(struct sf_prog *prog, const struct sf_policy *p, struct sf_error *err);

/* The SIGSYS handler, for a SIGSYS the listener sent: the listener has
 * reported the call and the process is to die of SIGSYS, as the
 * kernel's kill would make it; the thread adds the report's backtrace,
 * as far as the policy lets it.  1 when it was that (the caller then
 * sets SIGSYS to SIG_DFL: the call's restart ends the process). */
int sf_notify_die_request(const siginfo_t *si, ucontext_t *uc);

#endif
