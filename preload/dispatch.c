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

#include "ksig.h"
#include "notify.h"
#include "rewrite.h"
#include "sf.h"

const struct sf_policy *sf_cur SF_HOT;
const struct sf_policy *sf_enforce SF_HOT;
const struct sf_policy *sf_kpol SF_HOT;

/* The program's own SIGSYS disposition: it may set one, but the kernel's
 * stays ours.  Written by rt_sigaction(SIGSYS) from any thread; a torn
 * read here is no worse than the race the program has with itself. */
static struct sf_ksigaction shadow_sigsys SF_HOT;

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
	return sf_issue(c);
}

/* The site of the trapped call this thread is handling, 0 if none: a
 * program handler run meanwhile (its signal arrived while we issued the
 * call) was, as the program sees it, interrupted there. */
static __thread uintptr_t handling_site;

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
	uintptr_t outer = handling_site;
	struct sf_call c;
	uint64_t xfeatures;
	int ok;

	sf_call_of_trap(&c, si, uc);
	sf_rw_trapped(&c);
	handling_site = c.ip;
	uc->uc_mcontext.gregs[REG_RAX] = sf_handle(&c);
	handling_site = outer;
	if (!c.plain)
		return;
	xfeatures = fast_return_xfeatures(uc, &ok);
	if (ok)
		sf_trap_return(uc, xfeatures);
}

static void set_mask(uint64_t set, uint64_t *old)
{
	sf_sys(SYS_rt_sigprocmask, SIG_SETMASK, (long)&set, (long)old, 8, 0, 0);
}

/* A SIGSYS that is not ours goes where the program wanted it. */
static void forward(int sig, siginfo_t *si, void *uc, int forced)
{
	struct sf_ksigaction a = shadow_sigsys;
	uint64_t old;

	if (a.handler == (void *)SIG_IGN && !forced)
		return;
	if (a.handler == (void *)SIG_DFL || a.handler == (void *)SIG_IGN) {
		sf_guard_default();
		sf_sys(SYS_tgkill, sf_sys(SYS_getpid, 0, 0, 0, 0, 0, 0),
		       sf_sys(SYS_gettid, 0, 0, 0, 0, 0, 0), SIGSYS, 0, 0, 0);
		return; /* dies on the way out of this handler */
	}
	if (a.flags & SA_RESETHAND)
		sf_memset(&shadow_sigsys, 0, sizeof shadow_sigsys);
	/* The kernel would block SIGSYS itself during the handler (or the
	 * program's sa_mask may name it): here that would make the handler's
	 * first trapped call fatal. */
	a.mask &= ~SF_SIGSYS_BIT;
	sf_sys(SYS_rt_sigprocmask, SIG_BLOCK, (long)&a.mask, (long)&old, 8, 0, 0);
	if (a.flags & SA_SIGINFO)
		((void (*)(int, siginfo_t *, void *))a.handler)(sig, si, uc);
	else
		((void (*)(int))a.handler)(sig);
	set_mask(old, NULL);
}

static int is_arm_request(const siginfo_t *si)
{
	return si->si_code == SI_QUEUE && si->si_value.sival_int == SF_ARM_MAGIC &&
	       si->si_pid == (pid_t)sf_sys(SYS_getpid, 0, 0, 0, 0, 0, 0);
}

static void sf_sigsys(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	if (si->si_code == SYS_USER_DISPATCH) {
		trap(si, uc);
	} else if (si->si_code == SYS_SECCOMP && sf_cfg.mode == SF_MODE_TRUSTED) {
		sf_report_trusted(si, uc);
	} else if (sf_cfg.mode == SF_MODE_TRUSTED && sf_notify_die_request(si, uc)) {
		return; /* the listener's kill: the call's restart dies (notify.c) */
	} else if (is_arm_request(si)) {
		if (sf_arm() == 0)
			sf_ack_arm();
	} else {
		forward(sig, si, ucv, 0);
	}
}

void sf_sigsys_to_program(siginfo_t *si, ucontext_t *uc, int forced)
{
	forward(SIGSYS, si, uc, forced);
}

/* Trusted mode's handler and SIG_DFL, which the guard's stubs install
 * (trusted.c, raw.S): relocated at load, then read-only. */
const struct sf_ksigaction sf_guard_act = { (void *)sf_sigsys,
					    SA_SIGINFO | SA_RESTORER | SA_RESTART | SA_ONSTACK,
					    (void *)sf_restorer_plain, 0 };
const struct sf_ksigaction sf_guard_dfl = { (void *)SIG_DFL, SA_RESTORER,
					    (void *)sf_restorer_plain, 0 };

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
	shadow_sigsys = old;
	return 0;
}

/* rt_sigaction(SIGSYS, act, oact) as the program sees it.  The shadow
 * belongs to the copy of the library whose handler is installed. */
long sf_sigsys_shadow_action(const uint64_t *act, uint64_t *oact)
{
	struct sf_ksigaction old = shadow_sigsys;

	if (sf_authority)
		return sf_authority->shadow(act, oact);
	if (act)
		sf_memcpy(&shadow_sigsys, act, sizeof shadow_sigsys);
	if (oact)
		sf_memcpy(oact, &old, sizeof old);
	return 0;
}

/* Called by sf_restorer_checked when a program handler returns. */
void sf_check_sigreturn(ucontext_t *uc) __attribute__((used));
void sf_check_sigreturn(ucontext_t *uc)
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
	if (handling_site && c.ip >= (uintptr_t)__start_sf_region &&
	    c.ip < (uintptr_t)__stop_sf_region)
		c.ip = handling_site;
	sf_violation(&c, d, p);
	/* An errno or a trap has no caller to go back to (the handler's
	 * frame is gone either way): only log lets it through. */
	if (sf_call_action(p, &c, d) != SF_ACTION_LOG)
		sf_die();
}
