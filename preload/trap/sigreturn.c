/* rt_sigreturn from a program's handler, checked against the policy like
 * any other call: sf_restorer_checked (base/raw.S), the restorer every
 * handler gets, calls the check this file registers. */
#include <sys/syscall.h>

#include "trap.h"


/* When a program handler returns. */
static void check_sigreturn(ucontext_t *uc)
{
	const struct sf_policy *p = sf_enforcing();
	struct sf_call c = { .nr = SYS_rt_sigreturn };
	int d;

	if (!p)
		return;
	d = sf_decide(p, SYS_rt_sigreturn, c.a);
	if (d == SF_ALLOW)
		return;
	c.ip = sf_rw_site_of((uintptr_t)uc->uc_mcontext.gregs[REG_RIP], uc);
	if (sf_handling_site && c.ip >= (uintptr_t)__start_sf_region &&
	    c.ip < (uintptr_t)__stop_sf_region)
		c.ip = sf_handling_site;
	sf_violation(&c, d, p);
	/* An errno or a trap has no caller to go back to (the handler's
	 * frame is gone either way): only log lets it through. */
	if (sf_call_action(p, &c, d) != SF_ACTION_LOG)
		sf_die();
}

/* In every copy of the library, before any handler can return through
 * the restorer: constructors run before the program's code, and until
 * the policy is in force there is nothing to check. */
__attribute__((constructor(101))) static void sigreturn_init(void)
{
	sf_on_sigreturn = check_sigreturn;
}
