/* Syscall User Dispatch on the calling thread: on (armed), off. */
#include <linux/prctl.h>
#include <sys/syscall.h>

#include "base.h"

int sf_armed SF_HOT;

int sf_arm(void)
{
	long r = sf_sys(SYS_prctl, PR_SET_SYSCALL_USER_DISPATCH,
			PR_SYS_DISPATCH_ON, (long)__start_sf_region,
			__stop_sf_region - __start_sf_region, 0, 0);
	/* A NULL selector means "always block" outside the region: no byte
	 * for the kernel to read on every call, nothing for the program to
	 * flip. */
	/* Stored only when it changes: in a fork child, the write alone
	 * would copy the page. */
	if (r == 0 && !__atomic_load_n(&sf_armed, __ATOMIC_ACQUIRE))
		__atomic_store_n(&sf_armed, 1, __ATOMIC_RELEASE);
	return (int)r;
}

void sf_disarm(void)
{
	sf_sys(SYS_prctl, PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_OFF,
	       0, 0, 0, 0);
}

/* The check of rt_sigreturn sf_restorer_checked makes (raw.S): the trap
 * floor's (trap/sigreturn.c), set by its constructor. */
void (*sf_on_sigreturn)(ucontext_t *uc) SF_HOT;
