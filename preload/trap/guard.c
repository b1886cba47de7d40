/* Trusted mode's SIGSYS guard, and the program's own SIGSYS disposition,
 * which the SIGSYS handler forwards what is not its own to. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>

#include "trap.h"

/* ---- the SIGSYS guard ----
 * Under trusted mode's filter a denied call traps (SECCOMP_RET_TRAP) and
 * our SIGSYS handler reports it and kills the process.  The program must
 * not take that handler away: through libc it reaches a shadow (wrap.c),
 * and a raw rt_sigaction(SIGSYS, act) -- the program's own, or glibc's
 * posix_spawn child resetting every handled signal to SIG_DFL before its
 * exec -- meets this small filter, installed before the policy's: it
 * answers "done" (SECCOMP_RET_ERRNO with 0) and changes nothing.  Only
 * two stubs change SIGSYS (guard.S): one installs the library's handler,
 * the other SIG_DFL, each from an action in the library's read-only data;
 * whoever calls them can do no more.  The filter knows them by where
 * their `syscall` instruction ends within its page, which is the same in
 * every build and every image (they begin a page of sf_region): an image
 * exec'd under the inherited guard installs its own handler the same
 * way, wherever its copy of the library was mapped.  libc's one
 * rt_sigaction site ends elsewhere in its page (0x11f in Debian 12's), as
 * does every other syscall instruction of the library (t_lib_region).
 * The stubs were once a page at a fixed address (0x5ec0f17e0000), the
 * same in every image: no other mapping is near it, and its first write
 * took three new page-table pages, 60-560 us of an image's start on a VM
 * whose host keeps the page tables (README, *Starting a process*).
 *
 * This keeps honest code from the handler (posix_spawn, a runtime that
 * sets every signal's handler); it is not a wall: a program that writes
 * its own code with a `syscall` ending at a stub's offset can install its
 * own, and then a denied call fails instead of killing -- it still never
 * runs (tests/escape/a_guard_page.c). */
#define GUARD_IP_INSTALL 27u /* page offsets after the stubs' syscalls */
#define GUARD_IP_DEFAULT 59u
/* a value no disposition has after an exec (SIG_DFL or SIG_IGN) */
#define GUARD_SENTINEL ((void *)0x5ec0f17e0000ul)

long sf_guard_stub_install(void); /* guard.S: sf_guard_act, sf_guard_dfl */
long sf_guard_stub_default(void);

/* Whether the stubs are where the filter expects them (a build whose
 * sf_region lost its alignment must not install a guard that refuses
 * its own handler). */
static int stubs_in_place(void)
{
	uintptr_t i = (uintptr_t)sf_guard_stub_install, d = (uintptr_t)sf_guard_stub_default;

	return (i & 4095) == 0 && d == i + 32;
}

static int guard_used SF_HOT;

/* Installs the library's handler through its stub: 0, or -errno. */
long sf_guard_handler(void)
{
	if (!stubs_in_place())
		return -ENOEXEC;
	guard_used = 1;
	return sf_guard_stub_install();
}

/* SIGSYS back to SIG_DFL (to die of a SIGSYS that is not ours, as the
 * program asked); in interposition mode, directly. */
long sf_guard_default(void)
{
	if (!guard_used)
		return sf_sys(SYS_rt_sigaction, SIGSYS, (long)&sf_guard_dfl, 0, 8, 0, 0);
	return sf_guard_stub_default();
}

/* Whether an earlier image's guard is in force here (an image exec'd in
 * trusted mode): it answers a raw rt_sigaction(SIGSYS) from outside the
 * stubs "done" and changes nothing, not even the old action it was asked
 * for, which keeps the value put there before the call (a sentinel: after
 * an exec SIGSYS is SIG_DFL or SIG_IGN).  In a first image the probe
 * takes effect and is undone (old: the disposition before it): one call
 * in an image of a trusted tree, two in a first. */
int sf_guard_inherited(const struct sf_ksigaction *old)
{
	static const struct sf_ksigaction probe = { (void *)SIG_IGN, SA_RESTORER, GUARD_SENTINEL,
						    0 };
	struct sf_ksigaction was = { GUARD_SENTINEL, 0, 0, 0 };

	if (sf_sys(SYS_rt_sigaction, SIGSYS, (long)&probe, (long)&was, 8, 0, 0) < 0)
		return 0;
	if (was.handler == GUARD_SENTINEL)
		return 1;
	sf_sys(SYS_rt_sigaction, SIGSYS, (long)old, 0, 8, 0, 0);
	return 0;
}


/* rt_sigaction(SIGSYS, act != NULL) from anywhere but the stubs: done,
 * nothing changed.  Every other call passes; the path of any syscall but
 * rt_sigaction reads only nr and arch, so the kernel caches it. */
int sf_guard_install(void)
{
	/* Offsets in struct seccomp_data: nr 0, arch 4, ip 8, args 16. */
	struct sock_filter prog[] = {
		/* 0 */ SF_LD(4), SF_JNE(AUDIT_ARCH_X86_64, 13),
		/* 2 */ SF_LD(0), SF_JNE(SYS_rt_sigaction, 11),
		/* 4 */ SF_LD(16), SF_JNE(SIGSYS, 9),       /* sig: an int, low half */
		/* 6 */ SF_LD(24), SF_JNE(0, 2),            /* act, low half */
		/* 8 */ SF_LD(28), BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 5, 0), /* act == NULL */
		/* 10 */ SF_LD(8), BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 4095),  /* ip in its page */
		/* 12 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, GUARD_IP_INSTALL, 2, 0),
		/* 13 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, GUARD_IP_DEFAULT, 1, 0),
		/* 14 */ SF_RET(SECCOMP_RET_ERRNO | 0),
		/* 15 */ SF_RET(SECCOMP_RET_ALLOW),
	};

	if (!guard_used)
		return -ENOENT;
	return (int)sf_seccomp_install(prog, sizeof prog / sizeof prog[0], 0);
}

static void set_mask(uint64_t set, uint64_t *old)
{
	sf_sys(SYS_rt_sigprocmask, SIG_SETMASK, (long)&set, (long)old, 8, 0, 0);
}

/* A SIGSYS that is not ours goes where the program wanted it. */
static void forward(int sig, siginfo_t *si, void *uc, int forced)
{
	struct sf_ksigaction a = sf_sigsys_shadow;
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
		sf_memset(&sf_sigsys_shadow, 0, sizeof sf_sigsys_shadow);
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

void sf_sigsys_to_program(siginfo_t *si, ucontext_t *uc, int forced)
{
	forward(SIGSYS, si, uc, forced);
}

/* Trusted mode's handler and SIG_DFL, which the guard's stubs install
 * (guard.S): relocated at load, then read-only. */
const struct sf_ksigaction sf_guard_act = { (void *)sf_sigsys,
					    SA_SIGINFO | SA_RESTORER | SA_RESTART | SA_ONSTACK,
					    (void *)sf_restorer_plain, 0 };

const struct sf_ksigaction sf_guard_dfl = { (void *)SIG_DFL, SA_RESTORER,
					    (void *)sf_restorer_plain, 0 };
