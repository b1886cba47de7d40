/* The kernel back end: a policy block compiled to a classic-BPF seccomp
 * program (SPEC §4).  Reads the same tree as the evaluator and must decide
 * exactly as it does (tests/unit/test_bpf_diff.c shows it). */
#ifndef SECFILTER_BPF_H
#define SECFILTER_BPF_H

#include <linux/filter.h>

#include "policy.h"

#define SF_BPF_MAX 4096 /* BPF_MAXINSNS: the kernel refuses longer programs */

/* si_errno of the SIGSYS of a kill_action of SECCOMP_RET_TRAP | this: the
 * preload library's handler reports and kills.  `default: trap` traps with
 * data 0, as libseccomp's SCMP_ACT_TRAP, for the program to handle. */
#define SF_BPF_TRAP_KILL 0x5ecf

/* Kill actions for a supervisor listening on the filter (secfilter run
 * --trusted): SECCOMP_RET_USER_NOTIF sends the policy's kill and log to
 * it, which reports and kills or lets the call run; SF_BPF_NOTIFY_LOG is
 * log mode, every default action sent to it (its data bit is not the
 * kernel's: the program has plain SECCOMP_RET_USER_NOTIF). */
#define SF_BPF_NOTIFY_LOG (SECCOMP_RET_USER_NOTIF | 1)

/* Compiles p into out[0..cap) and sets *len.  Every path ends in
 * SECCOMP_RET_ALLOW or an action, the policy's default action or a rule's
 * (`X: ACTION`, `else ACTION`): kill_action for `kill` (the default:
 * SECCOMP_RET_KILL_PROCESS, or SECCOMP_RET_TRAP | SF_BPF_TRAP_KILL when a
 * handler reports), SECCOMP_RET_TRAP for `trap`, SECCOMP_RET_LOG for
 * `log`, SECCOMP_RET_ERRNO | E for `return E`.  A kill_action of
 * SECCOMP_RET_LOG is log mode (SECFILTER_ACTION=log, run --log): then the
 * default action, and every kill and trap, is SECCOMP_RET_LOG, whatever
 * the policy says (sf_action_log_mode); for SECCOMP_RET_USER_NOTIF and
 * SF_BPF_NOTIFY_LOG, where the log actions go to the supervisor too, see
 * above.
 * p->pending is ignored: the caller installs the program only when the
 * policy is to be in force.
 * Allocates nothing (out[0, cap) is also its scratch space).  Returns 0,
 * or -E2BIG (with err filled in) when the program would exceed cap or
 * SF_BPF_MAX instructions, or -EINVAL for a malformed block or a
 * kill_action of SECCOMP_RET_ALLOW. */
int sf_bpf_compile(const struct sf_policy *p, uint32_t kill_action,
		   struct sock_filter *out, unsigned cap, unsigned *len,
		   struct sf_error *err);

#endif
