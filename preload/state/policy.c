/* The policy in force and who enforces it: the latest block (sf_cur), the
 * one enforced here (sf_enforce), the kernel filter's (sf_kpol), what exec
 * passes on, the authority this copy delegates to (trusted mode through
 * LD_AUDIT), and the program's own SIGSYS disposition. */
#include "state.h"

const struct sf_policy *sf_cur SF_HOT;
const struct sf_policy *sf_enforce SF_HOT;
const struct sf_policy *sf_kpol SF_HOT;
const char *sf_env_policy SF_HOT;
const struct sf_authority *sf_authority SF_HOT;
int sf_in_vfork SF_HOT;

/* The program's own SIGSYS disposition: it may set one, but the kernel's
 * stays ours.  Written by rt_sigaction(SIGSYS) from any thread; a torn
 * read here is no worse than the race the program has with itself. */
struct sf_ksigaction sf_sigsys_shadow SF_HOT;

/* rt_sigaction(SIGSYS, act, oact) as the program sees it.  The shadow
 * belongs to the copy of the library whose handler is installed. */
long sf_sigsys_shadow_action(const uint64_t *act, uint64_t *oact)
{
	struct sf_ksigaction old = sf_sigsys_shadow;

	if (sf_authority)
		return sf_authority->shadow(act, oact);
	if (act)
		sf_memcpy(&sf_sigsys_shadow, act, sizeof sf_sigsys_shadow);
	if (oact)
		sf_memcpy(oact, &old, sizeof old);
	return 0;
}
