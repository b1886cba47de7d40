/* The catch-all: Syscall User Dispatch and the SIGSYS handler.
 *
 * Once a thread is armed, every syscall it makes outside the region traps
 * into sf_sigsys with the number in rax and the arguments in the saved
 * registers.  The handler decides, does what a few special calls need
 * (special.c), issues the call itself from the region and stores the
 * result in the saved rax, so the program resumes as if the kernel had
 * answered: through rt_sigreturn, or, for a call simply allowed, by
 * restoring the frame itself (trap(), sf_trap_return).
 *
 * The handler runs with SA_NODEFER and an empty sa_mask, i.e. with the
 * program's own signal mask: a trapped read() or wait4() must still be
 * interruptible by the program's signals, whose handlers may trap in
 * turn.  So it is re-entrant: it uses only its stack and atomics. */
#include <errno.h>
#include <linux/prctl.h>
#include <sys/syscall.h>

#include "bpf.h"
#include "notify.h"
#include "trap.h"

long sf_handle(struct sf_call *c)
{
	const struct sf_policy *p = sf_enforcing();
	int d = sf_decision(p, c);
	long r;

	if (d != SF_ALLOW && sf_act(p, c, d, &r))
		return r; /* not issued: an errno, or what a trap left */
	sf_logsum_before(c->nr); /* before the process is gone (exec: logsum.c) */
	c->plain = c->uc && d == SF_ALLOW && !c->i386 && !sf_is_special(c->nr);
	if (c->i386) /* as it was made */
		return sf_sys32(c->nr, (long)c->a[0], (long)c->a[1], (long)c->a[2],
				(long)c->a[3], (long)c->a[4], (long)c->a[5]);
	return sf_ll_seen(c->nr, sf_issue(c), c->a[0], c->a[1], c->a[2], c->a[3], c->a[4],
			  c->a[5]);
}

/* The site of the trapped call this thread is handling, 0 if none: a
 * program handler run meanwhile (its signal arrived while we issued the
 * call) was, as the program sees it, interrupted there. */
__thread uintptr_t sf_handling_site;

/* The way back from a trap, without rt_sigreturn when nothing needs it.
 * rt_sigreturn is a fifth of a trap's cost here (a loop of trapped
 * getppid: 853 ns a call with it, 712 without).  What it does that the program could see:
 * it reloads the registers and the vector state (sf_trap_return does),
 * and the signal mask and the alternate stack saved in the frame, which
 * our handler left as they were (SA_NODEFER, an empty sa_mask) unless the
 * call itself changed them -- those calls are special (special.c) and
 * keep rt_sigreturn, as does every call not simply allowed (an action may
 * have shown the frame to a program handler).  Then the frame must be as
 * the kernel builds it on the program's own stack (not on an alternate
 * one: sf_trap_return's slots must lie in it), there must be no shadow
 * stack (its token is rt_sigreturn's to check), and rcx and r11 must be
 * what `syscall` left there (not int $0x80). */
static int shadow_stack_on(void)
{
	unsigned long ssp = 0;

	__asm__ volatile("rdsspq %0" : "+r"(ssp)); /* a nop without one */
	return ssp != 0;
}

static uint64_t fast_return_xfeatures(const ucontext_t *uc, int *ok)
{
	const greg_t *g = uc->uc_mcontext.gregs;
	const void *fp = uc->uc_mcontext.fpregs;
	uintptr_t f = (uintptr_t)fp, sp = (uintptr_t)g[REG_RSP];

	*ok = 0;
	if (!f || g[REG_RCX] != g[REG_RIP] || g[REG_R11] != g[REG_EFL] || shadow_stack_on())
		return 0;
	*ok = sp > 216 && f <= sp - 216 && sp - 192 <= f + sf_fpstate_size(fp);
	return sf_fpstate_xfeatures(fp);
}

static void trap(const siginfo_t *si, ucontext_t *uc)
{
	uintptr_t outer = sf_handling_site;
	struct sf_call c;
	uint64_t xfeatures;
	int ok;

	void (*rewrite)(const struct sf_call *) = __atomic_load_n(&sf_rw_trapped, __ATOMIC_ACQUIRE);

	sf_call_of_trap(&c, si, uc);
	if (rewrite)
		rewrite(&c);
	sf_handling_site = c.ip;
	uc->uc_mcontext.gregs[REG_RAX] = sf_handle(&c);
	sf_handling_site = outer;
	if (!c.plain)
		return;
	xfeatures = fast_return_xfeatures(uc, &ok);
	if (ok)
		sf_trap_return(uc, xfeatures);
}

static int is_arm_request(const siginfo_t *si)
{
	return si->si_code == SI_QUEUE && si->si_value.sival_int == SF_ARM_MAGIC &&
	       si->si_pid == (pid_t)sf_sys(SYS_getpid, 0, 0, 0, 0, 0, 0);
}

void sf_sigsys(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	(void)sig; /* SIGSYS */
	if (si->si_code == SYS_USER_DISPATCH) {
		trap(si, uc);
	} else if (si->si_code == SYS_SECCOMP && sf_cfg.mode == SF_MODE_TRUSTED) {
		if (si->si_errno == SF_BPF_TRAP_KILL)
			sf_report_trusted(si, uc);
		sf_kernel_trap(si, uc); /* `default: trap`, or not ours */
	} else if (sf_cfg.mode == SF_MODE_TRUSTED && sf_notify_die_request(si, uc)) {
		/* the listener's kill: with SIGSYS back to SIG_DFL, the call's
		 * restart dies of it (notify.c) */
		sf_guard_default();
	} else if (is_arm_request(si)) {
		if (sf_arm() == 0)
			sf_ack_arm();
	} else {
		sf_sigsys_to_program(si, uc, 0);
	}
}

/* In trusted mode the handler runs with SIGSYS blocked: a call the policy
 * denies inside it (the report's write, the final kill) then makes the
 * kernel kill the process at once rather than recurse.
 * SA_RESTART: the SIGSYS that asks a thread to arm itself (api.c) may
 * interrupt a blocking call the program made; it must not fail with EINTR
 * because of us.  (A trap is not affected: the trapped call never started.)
 * SA_ONSTACK: on the thread's alternate stack when it has one.  Go gives
 * every thread one and runs goroutines on stacks of 2 KiB that a signal
 * frame of the trap (2.5 KiB with AVX-512 state) would overrun. */
int sf_install_sigsys(const struct sf_ksigaction *known)
{
	struct sf_ksigaction a = { 0 }, old;
	long r = 0;

	a.handler = (void *)sf_sigsys;
	a.flags = SA_SIGINFO | SA_RESTORER | SA_RESTART | SA_ONSTACK | SA_NODEFER;
	a.restorer = sf_restorer_plain;
	/* What the program had (SIG_IGN survives an exec) becomes its shadow:
	 * known, or read by the call that installs ours -- except through the
	 * guard's stub (trusted mode), which only installs. */
	if (known)
		old = *known;
	else if (sf_cfg.mode == SF_MODE_TRUSTED)
		r = sf_sys(SYS_rt_sigaction, SIGSYS, 0, (long)&old, 8, 0, 0);
	if (r == 0)
		r = sf_cfg.mode == SF_MODE_TRUSTED
			    ? sf_guard_handler()
			    : sf_sys(SYS_rt_sigaction, SIGSYS, (long)&a, known ? 0 : (long)&old, 8,
				     0, 0);
	if (r < 0)
		return (int)r;
	sf_sigsys_shadow = old;
	return 0;
}

