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

#define SF_ALLOW (-1)      /* permitted */
#define SF_NOT_IN_SET (-2) /* denied: the syscall is not in S */
/* Any value >= 0 is the index in p->filters of the filter that denied. */

static inline int sf_test_true(const struct sf_test *t, const uint64_t *args)
{
	return ((args[t->arg] - t->lo) & t->mask) <= t->span;
}

/* Returns SF_ALLOW, SF_NOT_IN_SET, or the denying filter's index.  Does not
 * look at p->pending: whether the policy is in force is the caller's call. */
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
	if (!r->nfilters)
		return SF_ALLOW;
	t = &p->tests[r->test];
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
			return next == SF_ALLOW ? SF_ALLOW : -(next + 2);
		t = &p->tests[next];
	}
}

#endif
