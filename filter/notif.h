/* What a listener of a kernel filter (SECCOMP_RET_USER_NOTIF) does with
 * a notification: shared by `secfilter run --trusted` (tools/listen.c)
 * and the library's trusted mode (preload/notify.c), which must decide
 * and end a process alike.  The filter sends them the policy's kill (and,
 * in log mode, its log); the listener decides the call again with the
 * policy, reports it and then ends the process as the kernel's kill
 * would, or lets the call run.  Library-safe: no libc. */
#ifndef SECFILTER_NOTIF_H
#define SECFILTER_NOTIF_H

#include <stddef.h>
#include <stdint.h>

#include "policy.h"

/* Whether a listener has anything to hear under policy p: only kill and
 * log reach it (log: log mode, every default action), so a policy whose
 * denials all return an errno or trap has nothing to tell it. */
int sf_notif_useful(const struct sf_policy *p, int log);

/* A notified call: whether it is x86-64's (another architecture's call,
 * or an x32 one, has no rule: it is killed), sf_decide's decision, and
 * the action it gets (SF_ACTION_*, or an errno; SF_ACTION_RUN only for a
 * call the policy allows, which the filter never sends). */
struct sf_notif_verdict {
	int x86;
	int decision;
	unsigned action;
};

void sf_notif_judge(const struct sf_policy *p, int log, uint32_t arch, long nr,
		    const uint64_t a[6], struct sf_notif_verdict *v);

/* How to end a process whose thread waits in a notification, from that
 * thread's SigBlk, SigIgn and SigCgt (/proc/TID/status).  SIGSYS is the
 * kernel's kill (status 159); the thread's wait ends on it, and its
 * default action ends the process before the call returns. */
#define SF_KILL_UNMASK 1u  /* it blocks SIGSYS: unblock it first (ptrace) */
#define SF_KILL_HANDLED 2u /* it handles SIGSYS: a handler would run */
#define SF_KILL_SIGKILL 4u /* it ignores SIGSYS: only SIGKILL ends it */
unsigned sf_notif_kill_way(uint64_t blk, uint64_t ign, uint64_t cgt);

/* The value of field name in the text of a /proc/PID/status ("Tgid:\t12",
 * "SigBlk:\t0000000000000000", hex): 0, or -1 when it is not there. */
int sf_status_field(const char *text, size_t len, const char *name, int hex, uint64_t *v);

#endif
