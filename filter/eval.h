/* The userspace evaluator: decides a (syscall number, six registers) against
 * a policy block.  No allocation, no locks, no libc: it runs on the preload
 * library's per-syscall hot path and inside its signal handler.
 *
 * Dispatch is one array index; a syscall allowed with `1` costs that and two
 * compares.  Filters are a chain of tests (struct sf_test), each an interval
 * or bit test on the register as the argument's type reads it. */
#ifndef SECFILTER_EVAL_H
#define SECFILTER_EVAL_H

#include "policy.h"

#define SF_ALLOW (-1)      /* permitted */
#define SF_NOT_IN_SET (-2) /* denied: the syscall is not in S */
/* Any value >= 0 is the index in p->filters of the filter that denied. */

static inline int sf_test_true(const struct sf_test *t, const uint64_t *args)
{
	uint64_t x = args[t->arg] << t->shift;

	if (t->sign)
		x = (uint64_t)((int64_t)x >> t->shift);
	else
		x >>= t->shift;
	if (t->bits)
		return (x & t->lo) != 0;
	/* Signed types compare in the unsigned domain with bit 63 flipped,
	 * which preserves order; lo was flipped the same way. */
	if (t->sign)
		x ^= 1ull << 63;
	return x - t->lo <= t->span;
}

/* Returns SF_ALLOW, SF_NOT_IN_SET, or the denying filter's index.  Does not
 * look at p->pending: whether the policy is in force is the caller's call. */
static inline int sf_decide(const struct sf_policy *p, uint64_t nr,
			    const uint64_t args[SF_MAX_ARGS])
{
	const struct sf_sysrule *r;
	int32_t i;

	if (nr >= SF_NR_COUNT)
		return SF_NOT_IN_SET;
	r = &p->sys[nr];
	if (!r->allowed)
		return SF_NOT_IN_SET;
	if (!r->nfilters)
		return SF_ALLOW;
	i = (int32_t)p->filters[r->first].test;
	while (i >= 0) {
		const struct sf_test *t = &p->tests[i];
		i = t->next[sf_test_true(t, args)];
	}
	return i == SF_ALLOW ? SF_ALLOW : -(i + 2);
}

#endif
