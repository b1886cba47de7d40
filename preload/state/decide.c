/* Decisions: whether a call may run (sf_decision, the trap path's and the
 * rewritten sites'), what a denied one gets (sf_call_action), and whether
 * the library may make a call itself under its own kernel filter
 * (sf_may_call). */
#include <errno.h>
#include <linux/prctl.h>
#include <sys/syscall.h>

#include "bpf.h"
#include "state.h"

/* A 32-bit call is a violation whatever the policy, as the kernel
 * filter's architecture check makes it: the policy names x86-64's calls,
 * and i386's numbers mean other calls (its openat, 295, is x86-64's
 * preadv).  Its action is the policy's default (action.c), as the
 * kernel filter's.  The rewritten sites' fast path asks it too. */
int sf_decision(const struct sf_policy *p, const struct sf_call *c)
{
	if (c->i386)
		return p ? SF_DENY_I386 : SF_ALLOW;
	if ((c->nr == SYS_prctl && c->a[0] == PR_SET_SYSCALL_USER_DISPATCH) ||
	    (c->nr == SYS_ptrace && c->a[0] == SF_PTRACE_SET_SUD))
		return SF_DENY_DISPATCH;
	return p ? sf_decide(p, (uint64_t)c->nr, c->a) : SF_ALLOW;
}

unsigned sf_call_action(const struct sf_policy *p, const struct sf_call *c, int d)
{
	unsigned dflt = p ? p->dflt : SF_ACTION_KILL;

	if (d == SF_DENY_UNFOLLOWABLE)
		return SF_ACTION_KILL;
	/* SECFILTER_ACTION=log turns every denial into a logged call: the
	 * default action, kill and trap; the errnos the policy asks for stay. */
	if (sf_cfg.action == SF_ACT_LOG)
		dflt = SF_ACTION_LOG;
	if (!p || d == SF_DENY_DISPATCH || d == SF_DENY_I386)
		return dflt;
	if (sf_cfg.action == SF_ACT_LOG)
		return sf_action_log_mode(p, (uint64_t)c->nr, d);
	return sf_action_with(p, (uint64_t)c->nr, d, dflt);
}

int sf_kernel_on SF_HOT;
int sf_notify_wanted SF_HOT;
int sf_notify_heard SF_HOT;

int sf_kernel_filtered(void)
{
	const struct sf_policy *p;

	if (!sf_kernel_on || sf_cfg.mode != SF_MODE_TRUSTED)
		return 0;
	p = sf_policy_now();
	return p && !p->pending;
}

/* The policy the kernel filter enforces: the newest installed, which
 * sf_cur follows a moment later (entry/api.c). */
const struct sf_policy *sf_kernel_policy(void)
{
	const struct sf_policy *k = __atomic_load_n(&sf_kpol, __ATOMIC_ACQUIRE);

	return k ? k : sf_policy_now();
}

/* The kernel filter's decision on c, as its program makes it: a 32-bit
 * call fails its architecture check whatever the policy. */
int sf_kernel_decision(const struct sf_policy *p, const struct sf_call *c)
{
	if (c->i386)
		return SF_DENY_I386;
	return p ? sf_decide(p, (uint64_t)c->nr, c->a) : SF_NOT_IN_SET;
}

/* Under a kernel filter a denied call kills the process on the spot. */
int sf_may_call(long nr, const uint64_t a[6])
{
	return !sf_kernel_filtered() || sf_decide(sf_kernel_policy(), (uint64_t)nr, a) == SF_ALLOW;
}

long sf_may_sys(long nr, long a0, long a1, long a2, long a3)
{
	const uint64_t a[6] = { (uint64_t)a0, (uint64_t)a1, (uint64_t)a2, (uint64_t)a3, 0, 0 };

	return sf_may_call(nr, a) ? sf_sys(nr, a0, a1, a2, a3, 0, 0) : -EPERM;
}

int sf_may(long nr, long a0)
{
	const uint64_t a[6] = { (uint64_t)a0, 0, 0, 0, 0, 0 };

	return sf_may_call(nr, a);
}
