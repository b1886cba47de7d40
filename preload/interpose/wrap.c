/* Hand-written wrappers: the variadic functions, the ones whose libc
 * version does a little more than one plain call, and the signal
 * functions that must not replace our SIGSYS handler when no dispatch
 * sees their rt_sigaction (trusted mode). */
#include <dlfcn.h>
#include <fcntl.h>
#include <linux/prctl.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "wrap.h"

/* Weak, as everything the library takes from libc (base.h). */
extern void *dlsym(void *, const char *) __attribute__((weak));

int sf_wrap_decide(const struct sf_policy *p, long nr, uint64_t a0, uint64_t a1,
		   uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uintptr_t ip,
		   long *res)
{
	struct sf_call c = { .nr = nr, .a = { a0, a1, a2, a3, a4, a5 }, .ip = ip };
	int d = sf_decide(p, (uint64_t)nr, c.a);

	return d == SF_ALLOW ? 0 : sf_act(p, &c, d, res);
}

/* open's mode argument exists only with O_CREAT or O_TMPFILE. */
static int has_mode(int flags)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
}

#define MODE_ARG(flags, last)                                   \
	({                                                      \
		unsigned long m_ = 0;                           \
		if (has_mode(flags)) {                          \
			va_list ap_;                            \
			va_start(ap_, last);                    \
			m_ = va_arg(ap_, unsigned int);         \
			va_end(ap_);                            \
		}                                               \
		m_;                                             \
	})

SF_WRAPPER_FIRST int open(const char *path, int flags, ...)
{
	unsigned long mode = MODE_ARG(flags, flags);

	return (int)sf_ret(sf_wrap6_cancel(SYS_openat, SF_U(AT_FDCWD), SF_P(path), SF_U(flags),
				    mode, 0, 0, SF_CALLER));
}

SF_TWIN(open64, open);

SF_WRAPPER_FIRST int openat(int dfd, const char *path, int flags, ...)
{
	unsigned long mode = MODE_ARG(flags, flags);

	return (int)sf_ret(sf_wrap6_cancel(SYS_openat, SF_U(dfd), SF_P(path), SF_U(flags),
				    mode, 0, 0, SF_CALLER));
}

SF_TWIN(openat64, openat);

/* _FORTIFY_SOURCE's open: glibc aborts when O_CREAT comes without a
 * mode; that case goes to glibc itself. */
#define OPEN_2(fn, dfd_expr)                                                  \
	{                                                                     \
		static int (*real)(int, const char *, int);                   \
		if (has_mode(flags)) {                                        \
			if (!real)                                            \
				real = sf_next_fn(#fn);                       \
			return real(dfd_expr, path, flags);                   \
		}                                                             \
		return (int)sf_ret(sf_wrap6_cancel(SYS_openat, SF_U(dfd_expr), SF_P(path), \
					    SF_U(flags), 0, 0, 0, SF_CALLER)); \
	}

SF_WRAPPER int __openat_2(int dfd, const char *path, int flags) OPEN_2(__openat_2, dfd)
SF_WRAPPER int __openat64_2(int dfd, const char *path, int flags) OPEN_2(__openat64_2, dfd)

static inline __attribute__((always_inline)) int fortify_open(const char *name, const char *path, int flags, uintptr_t ip)
{
	int (*real)(const char *, int);

	if (has_mode(flags)) {
		real = (int (*)(const char *, int))sf_next_fn(name);
		return real(path, flags);
	}
	return (int)sf_ret(sf_wrap6_cancel(SYS_openat, SF_U(AT_FDCWD), SF_P(path), SF_U(flags),
				    0, 0, 0, ip));
}

SF_WRAPPER int __open_2(const char *path, int flags)
{
	return fortify_open("__open_2", path, flags, SF_CALLER);
}

SF_WRAPPER int __open64_2(const char *path, int flags)
{
	return fortify_open("__open64_2", path, flags, SF_CALLER);
}

static inline __attribute__((always_inline)) int
fcntl_common(int fd, int cmd, unsigned long arg, uintptr_t ip)
{
	struct f_owner_ex ex;
	long r;

	/* glibc answers F_GETOWN with F_GETOWN_EX: a process group id does
	 * not fit F_GETOWN's negative-return convention. */
	/* the lock waits are cancellation points, as in glibc */
	if (cmd == F_SETLKW || cmd == F_OFD_SETLKW)
		return (int)sf_ret(sf_wrap6_cancel(SYS_fcntl, SF_U(fd), SF_U(cmd), arg, 0, 0, 0, ip));
	if (cmd != F_GETOWN)
		return (int)sf_ret(sf_wrap6(SYS_fcntl, SF_U(fd), SF_U(cmd), arg, 0, 0, 0, ip));
	r = sf_ret(sf_wrap6(SYS_fcntl, SF_U(fd), SF_U(F_GETOWN_EX), SF_P(&ex), 0, 0, 0, ip));
	if (r < 0)
		return (int)r;
	return ex.type == F_OWNER_PGRP ? -ex.pid : ex.pid;
}

/* fcntl64 is fcntl on x86-64.  The argument is read whatever cmd is,
 * as glibc does: a register, not memory. */
SF_WRAPPER_FIRST int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	unsigned long arg;

	va_start(ap, cmd);
	arg = va_arg(ap, unsigned long);
	va_end(ap);
	return fcntl_common(fd, cmd, arg, SF_CALLER);
}
SF_TWIN(fcntl64, fcntl);

SF_WRAPPER_FIRST int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	unsigned long arg;

	va_start(ap, req);
	arg = va_arg(ap, unsigned long);
	va_end(ap);
	return (int)sf_ret(sf_wrap6(SYS_ioctl, SF_U(fd), req, arg, 0, 0, 0, SF_CALLER));
}

SF_WRAPPER int prctl(int option, ...)
{
	va_list ap;
	unsigned long a[4];
	int i;

	va_start(ap, option);
	for (i = 0; i < 4; i++)
		a[i] = va_arg(ap, unsigned long);
	va_end(ap);
	/* Through the catch-all, which refuses it with a full context. */
	if (option == PR_SET_SYSCALL_USER_DISPATCH)
		return (int)sf_ret(sf_trap_syscall(SYS_prctl, option, (long)a[0], (long)a[1],
						   (long)a[2], (long)a[3], 0, SF_CALLER));
	return (int)sf_ret(sf_wrap6(SYS_prctl, SF_U(option), a[0], a[1], a[2], a[3], 0,
				    SF_CALLER));
}

static int check_rt_sigaction(const void *act, const void *oact, uintptr_t ip, long *res);

/* syscall(): ordinary calls take the fast path; the special ones (clone,
 * rt_sigreturn...) need the trap's full register context, so they are
 * issued from a `syscall` instruction outside the region and trap. */
SF_WRAPPER long syscall(long nr, ...)
{
	va_list ap;
	long a[6];
	int i;

	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_rt_sigaction && (int)a[0] == SIGSYS && sf_cfg.active) {
		long r;
		if (a[3] != 8)
			return sf_ret(-EINVAL);
		if (check_rt_sigaction((const void *)a[1], (const void *)a[2], SF_CALLER, &r))
			return sf_ret(r);
		return sf_ret(sf_shadow_rt_sigaction((const void *)a[1], (void *)a[2]));
	}
	if (sf_is_special(nr))
		return sf_ret(sf_trap_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5],
					      SF_CALLER));
	return sf_ret(sf_wrap6(nr, SF_U(a[0]), SF_U(a[1]), SF_U(a[2]), SF_U(a[3]),
			       SF_U(a[4]), SF_U(a[5]), SF_CALLER));
}

/* Shells exec through libc's exported execve: the catch-all's handling
 * (the library and the policy passed on, sf_exec) without its signal, a
 * trap fewer per command.  Where dispatch is not armed (no policy, or the
 * kernel filter of trusted mode, which follows the exec by itself), the
 * plain call. */
SF_WRAPPER_FIRST int execve(const char *path, char *const argv[], char *const envp[])
{
	struct sf_call c = { .nr = SYS_execve, .a = { SF_P(path), SF_P(argv), SF_P(envp) },
			     .ip = SF_CALLER, .uc = NULL };

	if (!__atomic_load_n(&sf_armed, __ATOMIC_ACQUIRE))
		return (int)sf_ret(sf_sc6(SYS_execve, (long)path, (long)argv, (long)envp, 0, 0, 0));
	return (int)sf_ret(sf_handle(&c));
}

/* For vfork (vfork.S): decides the call.  Where dispatch is armed, blocks
 * every signal (no handler of the program may run in the child before it
 * is armed) and returns the mask to restore, with how = 1; how = 2 when
 * the policy's action means the call is not issued, word then being its
 * result (-errno); how = 0: a plain vfork. */
struct sf_vfork_plan {
	uint64_t word, how;
};


struct sf_vfork_plan sf_vfork_prepare(uintptr_t ip) __attribute__((used));
struct sf_vfork_plan sf_vfork_prepare(uintptr_t ip)
{
	struct sf_vfork_plan plan = { 0, 0 };
	uint64_t all = ~0ull;
	long r;

	/* Log mode counts each process's violations in a table of its own
	 * (logsum.c), which a vfork child would share with its parent: there
	 * the call is the catch-all's, a fork. */
	if (sf_cfg.action == SF_ACT_LOG && __atomic_load_n(&sf_armed, __ATOMIC_ACQUIRE)) {
		struct sf_call c = { .nr = SYS_vfork, .ip = ip, .uc = NULL };
		plan.word = (uint64_t)sf_handle(&c);
		plan.how = 2;
		return plan;
	}
	if (sf_wrap_check(SYS_vfork, 0, 0, 0, 0, 0, 0, ip, &r)) {
		plan.word = (uint64_t)r;
		plan.how = 2;
		return plan;
	}
	sf_in_vfork = 1; /* vfork.S clears it in the parent */
	if (!__atomic_load_n(&sf_armed, __ATOMIC_ACQUIRE))
		return plan;
	sf_sys(SYS_rt_sigprocmask, SIG_SETMASK, (long)&all, (long)&plan.word, 8, 0, 0);
	plan.word &= ~SF_SIGSYS_BIT;
	plan.how = 1;
	return plan;
}

long sf_vfork_errno(long r) __attribute__((used));
long sf_vfork_errno(long r)
{
	return sf_ret(r);
}

/* glibc's isatty is tcgetattr, i.e. one TCGETS ioctl; errno as it sets. */
SF_WRAPPER_FIRST int isatty(int fd)
{
	char termios[64];
	long r = sf_wrap6(SYS_ioctl, SF_U(fd), TCGETS, SF_P(termios), 0, 0, 0, SF_CALLER);

	return sf_ret(r) == 0;
}

/* glibc's _exit: exit_group, then exit if that came back (a policy that
 * answers it with an errno), then a crash (hlt: SIGSEGV).  Wrapped, a
 * shell's forked children end without a trap, whose signal frame was a
 * page of their stack copied on write: dash ends every subshell and
 * pipeline builtin with _exit.  (exit() reaches glibc's own _exit,
 * unwrapped.)  Log mode's summary goes out first, as the trap path sends
 * it (sf_logsum_before). */
static inline __attribute__((always_inline)) void exit_call(long nr, int status, uintptr_t ip)
{
	long r;

	if (sf_wrap_check(nr, SF_U(status), 0, 0, 0, 0, 0, ip, &r))
		return;
	sf_logsum_before(nr);
	sf_sc6(nr, status, 0, 0, 0, 0, 0);
}

/* At the head of sf_region (SF_REGION_FIRST): the one wrapper a forked
 * child of a shell is sure to call. */
#define EXIT_WRAPPER(name)                                      \
	SF_EXPORT SF_REGION_FIRST __attribute__((noreturn)) void name(int status) \
	{                                                       \
		exit_call(SYS_exit_group, status, SF_CALLER);   \
		exit_call(SYS_exit, status, SF_CALLER);         \
		for (;;)                                        \
			__asm__ volatile("hlt");                \
	}
EXIT_WRAPPER(_exit)
EXIT_WRAPPER(_Exit)

/* Returns the error number rather than setting errno, as glibc's does.
 * glibc refuses the thread CPU clock itself (the kernel would say
 * EOPNOTSUPP) and names the process CPU clock as the kernel's CPU clock of
 * pid 0, which is what strace shows and a policy must match. */
#define SF_PROCESS_CPUCLOCK (-6) /* MAKE_PROCESS_CPUCLOCK(0, CPUCLOCK_SCHED) */

SF_WRAPPER int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req,
			       struct timespec *rem)
{
	long r;

	if (clk == CLOCK_THREAD_CPUTIME_ID)
		return EINVAL;
	if (clk == CLOCK_PROCESS_CPUTIME_ID)
		clk = SF_PROCESS_CPUCLOCK;
	r = sf_wrap6_cancel(SYS_clock_nanosleep, SF_U(clk), SF_U(flags), SF_P(req), SF_P(rem),
			    0, 0, SF_CALLER);
	return sf_is_err(r) ? (int)-r : 0;
}

/* glibc's fstat refuses a negative descriptor before the call:
 * newfstatat(AT_FDCWD, "", AT_EMPTY_PATH) would stat the working
 * directory. */
SF_WRAPPER_FIRST int fstat(int fd, struct stat *buf)
{
	return (int)sf_ret(sf_fstat(fd, buf, SF_CALLER));
}
SF_TWIN(fstat64, fstat);

/* glibc refuses an offset that is not a multiple of the page size before
 * the call (EINVAL): a policy answering mmap with an errno must not hide
 * that. */
SF_WRAPPER_FIRST void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (off & 4095)
		return (void *)sf_ret(-EINVAL);
	return (void *)sf_ret(sf_wrap6(SYS_mmap, SF_P(addr), len, SF_U(prot), SF_U(flags),
				       SF_U(fd), SF_U(off), SF_CALLER));
}
SF_TWIN(mmap64, mmap);

struct statx; /* <sys/stat.h> would clash with this file's fstat */

/* glibc's statx falls back to fstatat when the kernel answers ENOSYS.
 * When the policy answers it so, glibc's own statx runs: its call traps
 * and is answered there (and counted once), and the program gets what
 * glibc makes of it. */
SF_WRAPPER int statx(int fd, const char *path, int flags, unsigned int mask, struct statx *buf)
{
	static int (*real)(int, const char *, int, unsigned int, struct statx *);
	const struct sf_policy *p = sf_enforcing();
	struct sf_call c = { .nr = SYS_statx, .a = { SF_U(fd), SF_P(path), SF_U(flags),
						    SF_U(mask), SF_P(buf), 0 } };
	int d;

	if (p && (!p->sys[SYS_statx].allowed || p->sys[SYS_statx].chain)) {
		d = sf_decide(p, SYS_statx, c.a);
		if (d != SF_ALLOW && sf_call_action(p, &c, d) == ENOSYS) {
			if (!real)
				real = sf_next_fn("statx");
			return real(fd, path, flags, mask, buf);
		}
	}
	return (int)sf_ret(sf_wrap6(SYS_statx, c.a[0], c.a[1], c.a[2], c.a[3], c.a[4], 0,
				    SF_CALLER));
}

/* A NULL path is EINVAL in glibc, not the kernel's "the descriptor
 * itself" (that is futimens). */
SF_WRAPPER int utimensat(int dfd, const char *path, const struct timespec *times, int flags)
{
	if (!path)
		return (int)sf_ret(-EINVAL);
	return (int)sf_ret(sf_wrap6(SYS_utimensat, SF_U(dfd), SF_P(path), SF_P(times),
				    SF_U(flags), 0, 0, SF_CALLER));
}

/* ---- SIGSYS belongs to the library ----
 * With dispatch armed, the rt_sigaction of libc's sigaction() traps and
 * special.c keeps the program's SIGSYS disposition in a shadow.  In
 * trusted mode nothing traps, so these functions do the same for SIGSYS
 * before libc is reached.  Other signals go to libc untouched. */

/* libc's own definition, found in its symbol table (objs.c): dlsym is
 * a libc function the program may export too.  Before our constructor
 * has looked (another library's constructor calling signal()), no policy
 * is in force and dlsym may answer. */
void *sf_next_fn(const char *name)
{
	void *f = sf_libc_sym(name);

	if (!f && !sf_cfg.active && dlsym)
		f = dlsym(RTLD_NEXT, name);
	return f;
}

/* ---- signal masks and actions on the fast path ----
 * The same special handling as for a trapped rt_sigaction/rt_sigprocmask
 * (special.c), without the trap.  Inert, they are glibc's own. */

static int internal_signal(int sig)
{
	return sig == 32 || sig == 33; /* SIGCANCEL, SIGSETXID */
}

/* glibc never lets a program block its internal signals; the library
 * never lets it block SIGSYS. */
static inline __attribute__((always_inline)) long mask_call(int how, const sigset_t *set, sigset_t *old, uintptr_t ip)
{
	uint64_t copy;

	if (set) {
		sf_memcpy(&copy, set, sizeof copy);
		copy &= ~SF_GLIBC_INTERNAL_BITS;
		if (sf_cfg.active && how != SIG_UNBLOCK)
			copy &= ~SF_SIGSYS_BIT;
	}
	return sf_wrap6(SYS_rt_sigprocmask, SF_U(how), set ? SF_P(&copy) : 0, SF_P(old), 8,
			0, 0, ip);
}

SF_WRAPPER_FIRST int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	return (int)sf_ret(mask_call(how, set, old, SF_CALLER));
}

SF_WRAPPER_FIRST int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	long r = mask_call(how, set, old, SF_CALLER);

	return sf_is_err(r) ? (int)-r : 0;
}

/* BSD's int masks of the first 32 signals, as glibc makes them (dash
 * clears its mask with sigsetmask(0) in every child it forks: trapped
 * inside libc, a signal frame and a trap per command of a script). */
static inline __attribute__((always_inline)) int old_mask_call(int how, int mask, uintptr_t ip)
{
	sigset_t set, old;
	long r;

	sf_memset(&set, 0, sizeof set);
	set.__val[0] = (unsigned int)mask;
	r = mask_call(how, &set, &old, ip);
	return sf_is_err(r) ? (int)sf_ret(r) : (int)(unsigned int)old.__val[0];
}

SF_WRAPPER int sigsetmask(int mask)
{
	return old_mask_call(SIG_SETMASK, mask, SF_CALLER);
}

SF_WRAPPER int sigblock(int mask)
{
	return old_mask_call(SIG_BLOCK, mask, SF_CALLER);
}

SF_WRAPPER int siggetmask(void)
{
	return old_mask_call(SIG_BLOCK, 0, SF_CALLER);
}

/* The program's rt_sigaction(SIGSYS) is still a call of its own: it is
 * checked against the policy like any other.  1 with *res its result when
 * the policy answers it (an errno). */
static int check_rt_sigaction(const void *act, const void *oact, uintptr_t ip, long *res)
{
	const struct sf_policy *p = sf_enforcing();

	if (!p)
		return 0;
	return sf_wrap_decide(p, SYS_rt_sigaction, SIGSYS, SF_P(act), SF_P(oact), 8, 0, 0, ip,
			      res);
}

static void to_kernel(const struct sigaction *sa, struct sf_ksigaction *k)
{
	k->handler = (void *)sa->sa_handler;
	k->flags = (unsigned long)(unsigned)sa->sa_flags;
	k->restorer = NULL;
	sf_memcpy(&k->mask, &sa->sa_mask, sizeof k->mask);
}

static void from_kernel(const struct sf_ksigaction *k, struct sigaction *sa)
{
	sf_memset(sa, 0, sizeof *sa);
	sa->sa_handler = (sighandler_t)k->handler;
	sa->sa_flags = (int)(k->flags & ~(unsigned long)SA_RESTORER);
	sf_memcpy(&sa->sa_mask, &k->mask, sizeof k->mask);
}

static int shadow_sigaction(const struct sigaction *act, struct sigaction *oact,
			    uintptr_t ip)
{
	struct sf_ksigaction k, old;
	long r;

	if (check_rt_sigaction(act, oact, ip, &r))
		return (int)sf_ret(r);
	if (act)
		to_kernel(act, &k);
	sf_sigsys_shadow_action(act ? (const uint64_t *)&k : NULL, (uint64_t *)&old);
	if (oact)
		from_kernel(&old, oact);
	return 0;
}

/* glibc's sigaction, with our restorer (glibc's, in libc, would trap on
 * return) and SIGSYS kept out of the handler's mask. */
static inline __attribute__((always_inline)) int full_sigaction(int sig, const struct sigaction *act, struct sigaction *oact,
			  uintptr_t ip)
{
	struct sf_ksigaction k, ko;
	long r;

	if (sig <= 0 || sig >= 65 || internal_signal(sig))
		return (int)sf_ret(-EINVAL);
	if (sig == SIGSYS)
		return shadow_sigaction(act, oact, ip);
	if (act) {
		to_kernel(act, &k);
		sf_rt_sigaction_fix((uint64_t *)&k);
	}
	r = sf_ret(sf_wrap6(SYS_rt_sigaction, SF_U(sig), act ? SF_P(&k) : 0,
			    oact ? SF_P(&ko) : 0, 8, 0, 0, ip));
	if (r == 0 && oact) {
		from_kernel(&ko, oact);
		oact->sa_flags = (int)ko.flags;
		oact->sa_restorer = (void (*)(void))ko.restorer;
	}
	return (int)r;
}

SF_WRAPPER_FIRST int sigaction(int sig, const struct sigaction *act, struct sigaction *oact)
{
	static int (*real)(int, const struct sigaction *, struct sigaction *);

	if (sf_cfg.active)
		return full_sigaction(sig, act, oact, SF_CALLER);
	if (!real)
		real = sf_next_fn("sigaction");
	return real(sig, act, oact);
}

/* signal(): BSD semantics, as glibc's. */
static sighandler_t shadow_signal(sighandler_t h, int resethand, uintptr_t ip)
{
	struct sigaction sa, old;

	sf_memset(&sa, 0, sizeof sa);
	sa.sa_handler = h;
	sa.sa_flags = resethand ? (SA_RESETHAND | SA_NODEFER) : SA_RESTART;
	if (!resethand) /* sigaddset, without a call into libc */
		sa.sa_mask.__val[0] |= SF_SIGSYS_BIT;
	shadow_sigaction(&sa, &old, ip);
	return old.sa_handler;
}

/* signal and its variants: SIGSYS goes to the shadow, the rest to libc.
 * sysv_signal is the one-shot kind (SA_RESETHAND). */
#define SIGNAL_FN(name, resethand)                                    \
	SF_EXPORT sighandler_t name(int sig, sighandler_t h)          \
	{                                                             \
		static sighandler_t (*real)(int, sighandler_t);       \
		if (sig == SIGSYS && sf_cfg.active)                   \
			return shadow_signal(h, resethand, SF_CALLER); \
		if (!real)                                            \
			real = sf_next_fn(#name);                     \
		return real(sig, h);                                  \
	}

SIGNAL_FN(signal, 0)
SIGNAL_FN(bsd_signal, 0)
SIGNAL_FN(sysv_signal, 1)
