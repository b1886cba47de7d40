/* The userspace evaluator: decides a (syscall number, six registers) against
 * a policy block.  No allocation, no locks, no libc: it runs on the preload
 * library's per-syscall hot path and inside its signal handler.
 *
 * Dispatch is one array index; a syscall allowed with `1` costs that and two
 * compares.  Filters are a chain of tests (struct sf_test), each one
 * interval test on the register as the argument's type reads it. */
#ifndef SECFILTER_EVAL_H
#define SECFILTER_EVAL_H

#include "policy.h"

#define SF_ALLOW (-1)      /* permitted: the call runs */
#define SF_NOT_IN_SET (-2) /* denied: the syscall is not in S */
#define SF_RETURN (-3)     /* in S with `X: ACTION`: gets p->sys[nr].ret */
/* A 32-bit call (int $0x80): whatever the policy, denied, as the kernel
 * filter's architecture check denies it; the policy names x86-64's
 * calls, and i386's numbers mean other calls (its 20, getpid, is
 * x86-64's writev).  Its action is the policy's default. */
#define SF_DENY_I386 (-102)
/* Any value >= 0 is the index in p->filters of the filter that is false of
 * the call: it gets that filter's fail action.  sf_action() says what a
 * decision means. */

/* A test's exit (struct sf_test.next) for "filter k is false". */
#define SF_FILTER_EXIT(k) (-4 - (int32_t)(k))

static inline int sf_test_true(const struct sf_test *t, const uint64_t *args)
{
	return ((args[t->arg] - t->lo) & t->mask) <= t->span;
}

/* Returns SF_ALLOW, SF_NOT_IN_SET, SF_RETURN, or the index of the first
 * filter that is false.  Does not look at p->pending: whether the policy is
 * in force is the caller's call.
 *
 * A syscall with `return E` has a chain too (one test, always true, that
 * exits to SF_RETURN), so that allowed and not-in-set calls pay for no
 * check of their own. */
static inline int sf_decide(const struct sf_policy *p, uint64_t nr,
			    const uint64_t args[SF_MAX_ARGS])
{
	const struct sf_sysrule *r;
	const struct sf_test *t;

	if (nr >= SF_NR_COUNT)
		return SF_NOT_IN_SET;
	r = &p->sys[nr];
	if (!r->allowed)
		return SF_NOT_IN_SET;
	if (!r->chain)
		return SF_ALLOW;
	t = &p->tests[sf_rule_test(p, r)];
	if (r->conj) {
		/* The common shape, a conjunction: every test, no branch but
		 * the one on its length; the chain below then names the
		 * denier.  Short ones are straight-line code. */
		unsigned k, ok = 1;

		switch (r->conj) {
		default:
			for (k = 4; k < r->conj; k++)
				ok &= sf_test_true(&t[k], args);
			/* fall through */
		case 4: ok &= sf_test_true(&t[3], args); /* fall through */
		case 3: ok &= sf_test_true(&t[2], args); /* fall through */
		case 2: ok &= sf_test_true(&t[1], args); /* fall through */
		case 1: ok &= sf_test_true(&t[0], args);
		}
		if (ok)
			return SF_ALLOW;
	}
	for (;;) {
		int yes = sf_test_true(t, args);
		int32_t next;

		/* The tests lie in evaluation order: most often the exit taken
		 * is simply the following test, a predicted branch that lets
		 * the CPU run on into it without waiting for a load. */
		if (yes == t->fall) {
			t++;
			continue;
		}
		next = t->next[yes];
		if (next < 0)
			return next >= SF_RETURN ? next : SF_FILTER_EXIT(next);
		t = &p->tests[next];
	}
}

/* What decision d of sf_decide (for syscall nr) does to the call:
 * SF_ACTION_RUN, an errno, or dflt where the policy's default action
 * applies (p->dflt, or what the caller puts in its place: the preload
 * library's SECFILTER_ACTION=log). */
static inline unsigned sf_action_with(const struct sf_policy *p, uint64_t nr, int d,
				      unsigned dflt)
{
	if (d == SF_ALLOW)
		return SF_ACTION_RUN;
	if (d == SF_RETURN && nr < SF_NR_COUNT && p->sys[nr].ret)
		return p->sys[nr].ret;
	if (d >= 0 && (uint32_t)d < p->nfilters && p->filters[d].fail)
		return p->filters[d].fail;
	return dflt;
}

static inline unsigned sf_action(const struct sf_policy *p, uint64_t nr, int d)
{
	return sf_action_with(p, nr, d, p->dflt);
}

/* Log mode (SECFILTER_ACTION=log, run --log): every denial is reported
 * and runs -- the default action, and the kill and trap actions of the
 * policy's own rules; the errno returns and logs it asks for stay. */
static inline unsigned sf_action_log_mode(const struct sf_policy *p, uint64_t nr, int d)
{
	unsigned a = sf_action_with(p, nr, d, SF_ACTION_LOG);

	return a == SF_ACTION_KILL || a == SF_ACTION_TRAP ? SF_ACTION_LOG : a;
}

#endif
