/* Files and ports: how many of the policy's Landlock layers this process
 * has entered, and the fact exec hands the next image about them
 * (filter/landlock.h, SF_LL_FACT_VAR; trap/exec.c passes it on).
 *
 * Each count has a buffer of its own, written once before its pointer is
 * published: exec on another thread reads either the older fact or the
 * newer one, both true (the layers only add up). */
#include "state.h"

#include "landlock.h"

#define FACT_MAX (sizeof SF_LL_FACT_VAR + 24)

static char facts[SF_LL_MAX_LAYERS + 1][FACT_MAX];
static const char *fact_env;
static unsigned entered;

void sf_ll_set_entered(const struct sf_landlock *ll, unsigned n)
{
	if (!ll || n > SF_LL_MAX_LAYERS)
		return;
	sf_ll_fact(ll, n, facts[n], FACT_MAX);
	__atomic_store_n(&entered, n, __ATOMIC_RELEASE);
	__atomic_store_n(&fact_env, facts[n], __ATOMIC_RELEASE);
}

unsigned sf_ll_entered(void)
{
	return __atomic_load_n(&entered, __ATOMIC_ACQUIRE);
}

const char *sf_ll_env(void)
{
	return __atomic_load_n(&fact_env, __ATOMIC_ACQUIRE);
}
