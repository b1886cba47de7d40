/* The fast path shared by the generated wrappers (build/gen/wrappers.c)
 * and the hand-written ones (wrap.c).
 *
 * A wrapper is an exported function placed in the region itself, so its
 * `syscall` instruction is inline and allowed: one load of the policy
 * pointer, one table index (plus the filter's tests), the syscall.  No
 * allocation, no lock; errno is written only on failure, by sf_ret. */
#ifndef SECFILTER_WRAP_H
#define SECFILTER_WRAP_H

/* libsecfilter.so's seventh floor (HACKING.md): the functions the library
 * exports in libc's name (wrap.c, dir.c, locale.c, the generated
 * wrappers.c, vfork.S).  Above rewrite/ and every floor below. */

#include <errno.h>
#include <pthread.h>
#include <sys/single_threaded.h>
#include <sys/syscall.h>

#include "rewrite.h"

/* Weak, as everything the library takes from libc (base.h). */
extern char __libc_single_threaded __attribute__((weak));

#define SF_WRAPPER SF_EXPORT SF_REGION
/* The wrappers a shell, make or a coreutil calls in every start (open,
 * fcntl, sigaction, execve...): placed with _exit at the head of
 * sf_region, inside the 64 KiB of text every start faults in anyway
 * (Makefile, hot.ld).  Further into sf_region they fell in the next
 * window: one more fault in every start of sh, and (execve) in every
 * forked child that execs. */
#define SF_REGION_FIRST SF_REGION_IN("sf_region.first")
#define SF_WRAPPER_FIRST SF_EXPORT SF_REGION_FIRST
/* x86-64's twins (open64, fcntl64...): the same function, one copy. */
#define SF_TWIN(name, of) SF_EXPORT extern __typeof(of) name __attribute__((alias(#of)))
#define SF_CALLER ((uintptr_t)__builtin_return_address(0))

/* Decides a call whose rule has filters (or that is not allowed): 0 to
 * issue it, or 1 with *res its result (an errno, a trap's). */
int sf_wrap_decide(const struct sf_policy *p, long nr, uint64_t a0, uint64_t a1,
		   uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uintptr_t ip,
		   long *res);

/* The hot path reads two bytes of the rule: a syscall allowed with `1`
 * costs a load, two compares and the call; anything else (filters, an
 * errno, a denial) is decided out of line.  Returns 1 when the call is not
 * to be issued, its result in *res. */
static inline __attribute__((always_inline)) int
sf_wrap_check(long nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
	      uint64_t a4, uint64_t a5, uintptr_t ip, long *res)
{
	const struct sf_policy *p = sf_enforcing();

	if (p && __builtin_expect((unsigned long)nr >= SF_NR_COUNT || !p->sys[nr].allowed ||
				  p->sys[nr].chain, 0))
		return sf_wrap_decide(p, nr, a0, a1, a2, a3, a4, a5, ip, res);
	return 0;
}

static inline __attribute__((always_inline)) long
sf_wrap6(long nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
	 uint64_t a4, uint64_t a5, uintptr_t ip)
{
	long r;

	if (sf_wrap_check(nr, a0, a1, a2, a3, a4, a5, ip, &r))
		return r;
	r = sf_sc6(nr, (long)a0, (long)a1, (long)a2, (long)a3, (long)a4, (long)a5);
	return sf_ll_seen(nr, r, a0, a1, a2, a3, a4, a5);
}

/* For the functions POSIX makes cancellation points (read, write, open,
 * nanosleep...).  pthread_cancel interrupts a thread blocked in one only
 * if the thread is asynchronously cancellable meanwhile: glibc's own
 * wrappers switch to that around the syscall once the process has
 * threads, and so must these, or pthread_join waits forever for a thread
 * blocked in read().  A cancellation already pending acts on the switch,
 * as in glibc.  The switch is libc's own pthread_setcanceltype, found in
 * libc's symbol table (objs.c): the one the PLT would call is whatever
 * the program exports under that name, run between the decision and the
 * syscall, where it could rewrite the registers the call is made with.
 * (Until the constructor has found it, no policy is in force.) */
static inline __attribute__((always_inline)) long
sf_wrap6_cancel(long nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
		uint64_t a4, uint64_t a5, uintptr_t ip)
{
	int (*setcanceltype)(int, int *);
	int old;
	long r;

	if (__builtin_expect(!&__libc_single_threaded || __libc_single_threaded, 1) ||
	    !(setcanceltype = sf_setcanceltype))
		return sf_wrap6(nr, a0, a1, a2, a3, a4, a5, ip);
	if (sf_wrap_check(nr, a0, a1, a2, a3, a4, a5, ip, &r))
		return r;
	setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old);
	r = sf_sc6(nr, (long)a0, (long)a1, (long)a2, (long)a3, (long)a4, (long)a5);
	setcanceltype(old, NULL);
	return sf_ll_seen(nr, r, a0, a1, a2, a3, a4, a5);
}

/* The one place where a wrapper sets errno. */
static inline __attribute__((always_inline)) long sf_ret(long r)
{
	if (__builtin_expect(sf_is_err(r), 0)) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

/* fstat as glibc 2.36 makes it (fstat, fdopendir): -errno or 0. */
static inline __attribute__((always_inline)) long sf_fstat(int fd, void *buf, uintptr_t ip)
{
	if (fd < 0)
		return -EBADF;
	return sf_wrap6(SYS_newfstatat, (uint64_t)fd, (uint64_t)(uintptr_t)"",
			(uint64_t)(uintptr_t)buf, 0x1000 /* AT_EMPTY_PATH */, 0, 0, ip);
}

#define SF_U(x) ((uint64_t)(x))
#define SF_P(x) ((uint64_t)(uintptr_t)(x))

/* wrap.c: libc's function, or before the constructor has run (no policy
 * in force yet), the next definition after ours. */
void *sf_next_fn(const char *name);

#endif
