/* The kernel's view of signal structures (not glibc's). */
#ifndef SECFILTER_KSIG_H
#define SECFILTER_KSIG_H

#include <signal.h>
#include <stdint.h>

#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000
#endif

/* si_code values of SIGSYS (asm-generic/siginfo.h, not in glibc 2.36). */
#ifndef SYS_SECCOMP
#define SYS_SECCOMP 1
#endif
#ifndef SYS_USER_DISPATCH
#define SYS_USER_DISPATCH 2
#endif

#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1u << 31) /* linux/signal.h; not in glibc 2.36 */
#endif

/* struct sigaction as rt_sigaction reads it on x86-64. */
struct sf_ksigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;
};

/* The kernel's struct ucontext ends with an 8-byte sigmask; glibc's
 * ucontext_t is longer.  Copies of a frame take this much. */
#define SF_KUCONTEXT_SIZE (offsetof(ucontext_t, uc_sigmask) + 8)

#endif
