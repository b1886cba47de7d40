/* What the library does with a call the policy does not let run (the
 * actions of secfilter(7)): fail it with an errno without issuing it, send
 * SIGSYS to the program as seccomp's RET_TRAP would, report it and let it
 * run (log), or report it and kill the process.  The wrappers (wrap.c) and
 * the catch-all (dispatch.c) come here with their decision; so does the
 * handler of the kernel filter's traps in trusted mode.
 *
 * Errno returns are counted, per syscall, in a table `secfilter show`
 * reads beside the policy's (in the library's .bss, found through api.c's
 * `where`: a 32-byte header, then one 64-bit counter per syscall number
 * and one for the numbers outside the table).  It is set up at the first
 * errno return, in either mode: no call is needed for it (a mapping of
 * its own cost a call, and under a kernel filter had to be made before
 * the filter, in every image), and most processes never return one, so
 * never touch its pages. */
#include <errno.h>
#include <linux/audit.h>
#include <sys/syscall.h>

#include "bpf.h"
#include "trap.h"

struct counts {
	char magic[16];    /* "secfilter-count" */
	uint32_t version;  /* 1 */
	uint32_t n;        /* counters: SF_NR_COUNT + 1 */
	uint64_t reserved;
	uint64_t errno_returns[SF_NR_COUNT + 1];
};

static struct counts *counts SF_HOT;
static struct counts the_counts;

static void counts_init(void)
{
	if (__atomic_load_n(&counts, __ATOMIC_ACQUIRE))
		return;
	/* Two threads' (or a thread's and its signal handler's) first errnos
	 * may both get here: they write the same header, and one publishes. */
	sf_memcpy(the_counts.magic, "secfilter-count", 16);
	the_counts.version = 1;
	the_counts.n = SF_NR_COUNT + 1;
	if (__atomic_compare_exchange_n(&counts, &(struct counts *){ NULL }, &the_counts, 0,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		sf_where_counts(&the_counts);
}

static void count_errno(long nr)
{
	struct counts *c = __atomic_load_n(&counts, __ATOMIC_ACQUIRE);

	if (!c) {
		counts_init();
		c = __atomic_load_n(&counts, __ATOMIC_ACQUIRE);
	}
	if (c)
		__atomic_fetch_add(&c->errno_returns[(unsigned long)nr < SF_NR_COUNT ? nr
						     : SF_NR_COUNT], 1, __ATOMIC_RELAXED);
}

/* seccomp's RET_TRAP, from the library: the call is not issued, the
 * program's SIGSYS handler gets si_code SYS_SECCOMP, the number, the
 * architecture and the call site, in the call's own frame with rax set
 * back to the number (the kernel's rollback); what it leaves in rax is
 * the call's result.  No handler (or SIG_IGN): the process dies of
 * SIGSYS, as a forced signal does. */
static long trap_to_program(struct sf_call *c)
{
	siginfo_t si;

	sf_memset(&si, 0, sizeof si);
	si.si_signo = SIGSYS;
	si.si_code = SYS_SECCOMP;
	si.si_call_addr = (void *)c->ip;
	si.si_syscall = (int)c->nr;
	si.si_arch = c->i386 ? AUDIT_ARCH_I386 : AUDIT_ARCH_X86_64;
	c->uc->uc_mcontext.gregs[REG_RAX] = c->nr;
	sf_sigsys_to_program(&si, c->uc, 1);
	return c->uc->uc_mcontext.gregs[REG_RAX];
}

int sf_act(const struct sf_policy *p, struct sf_call *c, int d, long *res)
{
	unsigned a = sf_call_action(p, c, d);

	if (a >= 1 && a <= SF_ERRNO_MAX) {
		count_errno(c->nr);
		*res = -(long)a;
		return 1;
	}
	if (a == SF_ACTION_TRAP) {
		/* A wrapper has no frame to hand the program: the call goes
		 * again through a `syscall` outside the region, and traps. */
		if (!c->uc) {
			*res = sf_trap_syscall(c->nr, (long)c->a[0], (long)c->a[1], (long)c->a[2],
					       (long)c->a[3], (long)c->a[4], (long)c->a[5], c->ip);
			return 1;
		}
		sf_violation(c, d, p); /* reports */
		*res = trap_to_program(c);
		return 1;
	}
	sf_violation(c, d, p); /* kill: does not return; log: reported */
	return 0;
}

/* A SIGSYS from the kernel filter that is not its kill (trusted mode): the
 * policy's `default: trap`, reported, or a filter of the program's own;
 * either way the program's handler gets it as the kernel sent it. */
void sf_kernel_trap(siginfo_t *si, ucontext_t *uc)
{
	const struct sf_policy *p = sf_kernel_policy(); /* the kernel's: it trapped */
	struct sf_call c;
	int d;

	sf_call_of_trap(&c, si, uc);
	if (p && !p->pending && si->si_errno == 0) {
		d = sf_kernel_decision(p, &c);
		if (d != SF_ALLOW && sf_call_action(p, &c, d) == SF_ACTION_TRAP)
			sf_violation(&c, d, p);
	}
	sf_sigsys_to_program(si, uc, 1);
}
