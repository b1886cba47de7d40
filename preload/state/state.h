/* libsecfilter.so's third floor (HACKING.md): what the library knows and
 * decides.  The settings, the policy in force and what publishes it, the
 * program's SIGSYS disposition, the decision on a call and the action it
 * gets, whether the library may make a call itself.  Every floor above
 * reads it; it calls only obj/ and base/ (and filter/'s evaluator). */
#ifndef SECFILTER_STATE_H
#define SECFILTER_STATE_H

#include "eval.h"
#include "ksig.h"
#include "obj.h"
#include "policy.h"

/* settings.c: the settings, read once by the constructor (entry/init.c). */
#define SF_SUPERVISOR_MAX 100 /* an abstract socket name: sun_path less its 0 */
enum sf_action { SF_ACT_KILL, SF_ACT_LOG };
enum sf_logkind { SF_LOG_STDERR, SF_LOG_SYSLOG, SF_LOG_FILE };
enum sf_mode { SF_MODE_INTERPOSE, SF_MODE_TRUSTED };

struct sf_settings {
	int active;           /* a policy was given: the library is not inert */
	enum sf_action action;
	/* SECFILTER_ACTION=log-full: log mode's reports in full, as when
	 * SECFILTER_LOG is a file; else a line each (report/report.c) */
	int log_full;
	enum sf_logkind log;
	enum sf_mode mode;
	const char *log_path; /* SF_LOG_FILE: in env_log */
	/* What exec passes on, "SECFILTER_ACTION=kill"...: copies, since the
	 * program may overwrite its environment strings (setproctitle).  The
	 * long ones are the allocator's, NULL until set: sf_str() reads them.
	 * (They were 4 KiB arrays here: three pages every start faulted in
	 * for strings of a few dozen bytes.) */
	char env_action[32], env_mode[32];
	const char *env_log;        /* "SECFILTER_LOG=..." */
	const char *env_audit;      /* "LD_AUDIT=<lib_path>": trusted mode */
	const char *lib_path;       /* absolute path of this library */
	/* SECFILTER_SUPERVISOR, set by `secfilter run`: NULL when unset, and
	 * then supervisor is NULL (supervise.c). */
	const char *env_supervisor;
	const char *supervisor;
};
extern struct sf_settings sf_cfg;
/* An address on the main thread's stack (its initial environment array),
 * 0 before the constructor: where the rewriter keeps away from.  The
 * environment as the loader handed it to the constructors (settings.c). */
uintptr_t sf_main_stack_hint(void);
extern char **sf_env_start;
/* Whether the start's LD_PRELOAD names a secfilter library. */
int sf_preloaded(void);

/* policy.c: the policy in force.  sf_cur is the latest block (possibly pending);
 * sf_enforce is the same block when it is enforced here, else NULL: the
 * hot path reads only sf_enforce.  Blocks are never freed: a reader on
 * another thread may still be deciding against an old one. */
extern const struct sf_policy *sf_cur;
extern const struct sf_policy *sf_enforce;
/* sf_cur, parsed first when the start deferred it (sf_policy_defer):
 * what everything that reads the tree calls.  The hot path's sf_enforce
 * is not: nothing reads it in an image that defers (trusted mode's
 * authority neither arms dispatch nor wraps), and handing a copy the
 * state parses first (entry/audit.c).  text and the origin map that came
 * with it (or NULL): the library's copies, kept. */
const struct sf_policy *sf_policy_now(void);
void sf_policy_defer(const char *text, const char *origins);
/* Trusted mode: the policy of the newest kernel filter, set before that
 * filter is installed and before sf_cur follows (entry/api.c).  A call the new
 * filter denies traps in between, and its report must name the rule that
 * denied it, which the older sf_cur may not have.  NULL: sf_cur's. */
extern const struct sf_policy *sf_kpol;
/* What exec passes on: "SECFILTER_POLICY=<canonical text, not pending>",
 * then, after its NUL, "SECFILTER_ORIGINS=<map>" (entry/api.c). */
extern const char *sf_env_policy;

/* The signal mask an exec'd image's constructor restores, in hex: the
 * exec path runs, and execs, with every signal blocked (trap/exec.c). */
#define SF_SIGMASK_VAR "SECFILTER_SIGMASK"

/* The origins that follow a published SECFILTER_POLICY. */
static inline const char *sf_env_origins(const char *env_policy)
{
	return env_policy + sf_strlen(env_policy) + 1;
}

static inline const struct sf_policy *sf_enforcing(void)
{
	return __atomic_load_n(&sf_enforce, __ATOMIC_ACQUIRE);
}

/* The program's call site of a trap (the trampoline's site argument when
 * the call came through sf_trap_syscall). */
static inline uintptr_t sf_trap_site(const ucontext_t *uc)
{
	const greg_t *g = uc->uc_mcontext.gregs;

	if ((uintptr_t)g[REG_RIP] == (uintptr_t)sf_trap_syscall_ret)
		return ((const uintptr_t *)g[REG_RSP])[2];
	return (uintptr_t)g[REG_RIP];
}

/* One syscall as the program made it. */
struct sf_call {
	long nr;
	uint64_t a[6];
	uintptr_t ip;   /* where in the program it was issued */
	ucontext_t *uc; /* the trap frame, or NULL from a wrapper */
	int i386;       /* a 32-bit call (int $0x80): nr and a[] are i386's */
	int plain;      /* set by sf_handle for a trap: allowed and issued as made, no more */
};

#ifndef AUDIT_ARCH_X86_64
#define AUDIT_ARCH_X86_64 0xc000003eu /* linux/audit.h */
#endif

/* A syscall's six arguments from the saved registers r[], masked (an
 * i386 call's are 32 bits).  Inlined with constants: no table is read. */
static inline __attribute__((always_inline)) void sf_args_of(uint64_t a[6], const greg_t *g,
							     const int r[6], uint64_t mask)
{
	for (int i = 0; i < 6; i++)
		a[i] = (uint64_t)g[r[i]] & mask;
}

/* The call a SIGSYS reports (a dispatch trap or a kernel filter's).  The
 * kernel says which table the number is from (si_arch): a 32-bit call
 * (int $0x80) has its own numbers and its arguments in other registers. */
static inline void sf_call_of_trap(struct sf_call *c, const siginfo_t *si, ucontext_t *uc)
{
	const greg_t *g = uc->uc_mcontext.gregs;

	c->nr = si->si_syscall;
	c->i386 = si->si_arch != AUDIT_ARCH_X86_64;
	if (c->i386)
		sf_args_of(c->a, g, (const int[6]){ REG_RBX, REG_RCX, REG_RDX, REG_RSI, REG_RDI, REG_RBP },
			   0xffffffffu);
	else
		sf_args_of(c->a, g, (const int[6]){ REG_RDI, REG_RSI, REG_RDX, REG_R10, REG_R8, REG_R9 },
			   ~0ull);
	c->ip = sf_trap_site(uc);
	c->uc = uc;
	c->plain = 0;
}

/* Trusted mode started through LD_AUDIT (audit.c).  rtld loads the
 * library as an audit module, in a namespace of its own, before anything
 * of the program; that copy installs the kernel filter and becomes the
 * authority: it owns the policy, the SIGSYS handler and its shadow.  A
 * copy loaded into the program's namespace (LD_PRELOAD, -lsecfilter) is
 * handed this table before its first instruction runs and delegates
 * through it; sf_authority is NULL in the authority and without one. */
struct sf_authority {
	const struct sf_policy *const *cur;     /* the authority's sf_cur */
	int (*apply)(const char *policy);       /* secfilter_apply: 0, -errno */
	const char *(*error)(void);             /* secfilter_error */
	long (*shadow)(const uint64_t *act, uint64_t *oact);
	void (*violation)(const struct sf_call *c, int decision, const struct sf_policy *p);
};
extern const struct sf_authority *sf_authority;

/* Decisions of our own, beside eval.h's SF_ALLOW, SF_NOT_IN_SET, >= 0. */
#define SF_DENY_DISPATCH (-100) /* prctl(PR_SET_SYSCALL_USER_DISPATCH) and
				 * ptrace(PTRACE_SET_SYSCALL_USER_DISPATCH_CONFIG) */
#define SF_PTRACE_SET_SUD 0x4210 /* linux/ptrace.h, Linux 6.4 */
#define SF_DENY_UNFOLLOWABLE (-101) /* CLONE_VM, no stack, no CLONE_VFORK */

/* decide.c: SF_ALLOW or why not (p: the policy in force, sf_enforcing()). */
int sf_decision(const struct sf_policy *p, const struct sf_call *c);
/* What a call the policy does not let run gets (an SF_ACTION_*). */
unsigned sf_call_action(const struct sf_policy *p, const struct sf_call *c, int d);
/* Trusted mode: the policy's kernel filter is in force on this process
 * (installed here, or inherited across exec): the library's own calls
 * are judged by it too, so the optional ones ask sf_may first. */
extern int sf_kernel_on;
/* Trusted mode's listener (trap/notify.c): sf_notify_wanted while the
 * program being compiled and loaded sends the policy's kill to a
 * listener (its denied action and load flags); sf_notify_heard once the
 * kill of the policy in force goes to one (set in the first image when
 * the filter is handed over, in an exec'd one by the mark's answer). */
extern int sf_notify_wanted, sf_notify_heard;
/* Whether the library's own calls are judged by its kernel filter now,
 * and the policy that filter enforces. */
int sf_kernel_filtered(void);
const struct sf_policy *sf_kernel_policy(void);
/* The kernel filter's decision on c under p (a trap's report). */
int sf_kernel_decision(const struct sf_policy *p, const struct sf_call *c);
/* Whether the library may make this call itself without being killed:
 * always, but under its own kernel filter only when the policy allows it.
 * sf_may judges the first argument alone (the others 0). */
int sf_may_call(long nr, const uint64_t a[6]);
int sf_may(long nr, long a0);
/* A call of the library's own (a report's), made unless the kernel
 * filter in force would deny it, which would kill: its result, or
 * -EPERM when not made. */
long sf_may_sys(long nr, long a0, long a1, long a2, long a3);

/* policy.c: set from libc's vfork() until it returns in the parent
 * (interpose/wrap.c, vfork.S): the child shares the parent's memory, log
 * mode's table included, and must not flush the parent's summary at its
 * exec or exit. */
extern int sf_in_vfork;

/* policy.c: the program's own SIGSYS disposition (it may set one, but the
 * kernel's stays ours).  rt_sigaction(SIGSYS, act, oact) as the program
 * sees it: the shadow belongs to the copy of the library whose handler is
 * installed. */
extern struct sf_ksigaction sf_sigsys_shadow;
long sf_sigsys_shadow_action(const uint64_t *act, uint64_t *oact);

/* publish.c: where `secfilter show` finds the state mapping and the errno
 * counts (action.c). */
void sf_where_counts(const void *c);
void sf_where_state(const void *m, size_t size);
/* Threads that armed themselves on request, by tid (written by the SIGSYS
 * handler; arming rounds start from an empty list, entry/api.c). */
#define SF_ARM_MAGIC 0x5ecf17e1
void sf_ack_arm(void);
int sf_arm_acked(long tid);
void sf_arm_acks_reset(void);

/* rwstate.c: what the site rewriter (rewrite/) shares with the floors
 * below it.  Its settings: sf_rw_env, "SECFILTER_REWRITE=N" for exec when
 * not the default, else NULL. */
const char *sf_rw_env(void);
void sf_rw_set_env(unsigned n);
/* Around a fork-like clone (trap/clone.c): no rewrite is half done (a page
 * writable and executable, a lock held) in the child's copy of memory. */
int sf_rw_fork_begin(void);        /* 1: locked, to pass to sf_rw_fork_end */
void sf_rw_fork_end(int locked);
void sf_rw_concurrent(void);       /* a task may now run beside the others */
int sf_rw_is_concurrent(void);
/* One rewriter at a time: tried by the rewriter, waited for by fork. */
int sf_rw_lock_try(void);
void sf_rw_lock_release(void);
/* The rewriter's hooks, set once its settings are read (rewrite.c): for
 * every Syscall User Dispatch trap, before the call is handled, may
 * rewrite the site so that its later calls skip the signal (NULL: never);
 * and the program's call site for an address where a signal interrupted
 * a rewritten site's call. */
extern void (*sf_rw_trapped)(const struct sf_call *c);
extern uintptr_t (*sf_rw_site_hook)(uintptr_t ip, const ucontext_t *uc);
static inline uintptr_t sf_rw_site_of(uintptr_t ip, const ucontext_t *uc)
{
	uintptr_t (*f)(uintptr_t, const ucontext_t *) =
		__atomic_load_n(&sf_rw_site_hook, __ATOMIC_ACQUIRE);

	return f ? f(ip, uc) : ip;
}

/* llfact.c: the Landlock layers of the policy this process has entered
 * (filter/landlock.h), and "SECFILTER_LANDLOCK=..." saying so for exec;
 * NULL while none is. */
struct sf_landlock;
void sf_ll_set_entered(const struct sf_landlock *ll, unsigned n);
unsigned sf_ll_entered(void);
const char *sf_ll_env(void);

#endif
