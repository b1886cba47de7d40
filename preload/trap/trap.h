/* libsecfilter.so's fifth floor (HACKING.md): a call in flight.  The
 * SIGSYS handler (dispatch.c), the actions, the calls that need more than
 * re-issuing (special.c: signals, clone.c, exec.c), the program's memory
 * (user.c), trusted mode's kernel filter and its guard, the glue a new
 * thread starts in.  Above report/, state/, obj/ and base/. */
#ifndef SECFILTER_TRAP_H
#define SECFILTER_TRAP_H

#include <linux/filter.h>

#include "report.h"

/* dispatch.c: the catch-all, the SIGSYS handler. */
long sf_handle(struct sf_call *c); /* decide + special handling + issue */
/* known: SIGSYS's action now, when the caller has just read it (else NULL) */
int sf_install_sigsys(const struct sf_ksigaction *known);
void sf_sigsys(int sig, siginfo_t *si, void *ucv);
/* The site of the trapped call this thread is handling, 0 if none: a
 * program handler run meanwhile was, as the program sees it, interrupted
 * there (sigreturn.c). */
extern __thread uintptr_t sf_handling_site;

/* guard.c: trusted mode's SIGSYS guard, and the program's SIGSYS
 * disposition getting (si, uc) as if the kernel had sent it; forced: as
 * seccomp's RET_TRAP, which kills when it is SIG_IGN. */
void sf_sigsys_to_program(siginfo_t *si, ucontext_t *uc, int forced);
long sf_guard_handler(void);
long sf_guard_default(void);
int sf_guard_inherited(const struct sf_ksigaction *old);
int sf_guard_install(void);
/* What the guard's stubs install (guard.S): our handler, SIG_DFL. */
extern const struct sf_ksigaction sf_guard_act, sf_guard_dfl;

/* action.c: what a call the policy does not let run gets.  sf_act returns
 * 1 with *res the call's result when it is not to be issued (an errno, a
 * trap), 0 when it is to be issued (log); kill does not return. */
int sf_act(const struct sf_policy *p, struct sf_call *c, int d, long *res);
void sf_kernel_trap(siginfo_t *si, ucontext_t *uc); /* trusted: not our kill */

/* special.c: which calls need more than re-issuing (the syscall()
 * wrapper sends those through a trap), and the issuing of any call. */
int sf_is_special(long nr);
long sf_issue(struct sf_call *c);
long sf_shadow_rt_sigaction(const void *act, void *oact); /* 0 or -errno */
/* Gives a kernel sigaction our restorer and a mask without SIGSYS. */
void sf_rt_sigaction_fix(uint64_t *kact);

/* Every signal blocked, for a window no handler of the program may run
 * in (a fork's frame copy, an exec's checks); the mask it replaced. */
static inline uint64_t sf_block_all(void)
{
	uint64_t all = ~0ull, old = 0;

	sf_sys(SYS_rt_sigprocmask, SIG_SETMASK, (long)&all, (long)&old, 8, 0, 0);
	return old;
}

static inline void sf_restore_mask(uint64_t old)
{
	sf_sys(SYS_rt_sigprocmask, SIG_SETMASK, (long)&old, 0, 8, 0, 0);
}

/* clone.c */
long sf_clone(struct sf_call *c);

/* exec.c */
long sf_exec(struct sf_call *c);
/* c, about to be issued, may change what an exec asks about: the ids,
 * the user namespace, how the library looks (mounts, root, Landlock). */
void sf_exec_note(const struct sf_call *c);
void sf_exec_reap(void); /* after a CLONE_VM|CLONE_VFORK child: see exec.c */

/* frame.c: the size of a signal frame's vector state, and what it holds. */
size_t sf_fpstate_size(const void *fp);
uint64_t sf_fpstate_xfeatures(const void *fp);

/* clone.S: issues clone/clone3 for a child given a new stack: the child
 * starts with its stack pointer at a copied signal frame, calls
 * sf_clone_child(how) there (clone.c), and rt_sigreturns into the
 * program. */
long sf_clone_thread(long nr, long a0, long a1, long a2, long a3, long a4,
		     unsigned long how);
void sf_clone_child(unsigned long how);

/* cBPF statements of the filters trusted.c and guard.c write. */
#define SF_LD(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define SF_JNE(k, skip) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), 0, (skip))
#define SF_RET(k) BPF_STMT(BPF_RET | BPF_K, (k))
/* trusted.c: loads a seccomp filter (with no_new_privs); 0 or -errno. */
long sf_seccomp_install(const struct sock_filter *prog, unsigned len, unsigned long flags);

/* trusted.c: compile, then load (split so that the constructor can answer
 * the tool's handshake while it still may write), or both at once.
 * all_threads: trusted mode's filters go on every thread (TSYNC); the one
 * before the exec of a static binary on the calling thread only. */
struct sf_prog {
	struct sock_filter *insns;
	size_t size;
	unsigned len;
	int all_threads;
	uint64_t id; /* the id its mark answers (trusted.c), 0 for none */
	uint64_t text_id; /* and the id of the text a start read, when not its short form */
};
int sf_trusted_compile(const struct sf_policy *p, int all_threads,
		       struct sf_prog *out, struct sf_error *err);
/* A start: the id of the policy whose short form is text (prog->id, 0
 * when none), to ask the mark before compiling with compile_boot, which
 * keeps that id. */
void sf_trusted_boot_id(const char *text, size_t len, struct sf_prog *out);
/* The start's: on every thread, into static storage (trusted.c) */
int sf_trusted_compile_boot(const struct sf_policy *p, struct sf_prog *out,
			    struct sf_error *err);
/* Loads prog, compiled from p, and its mark (trusted.c) */
int sf_trusted_load(struct sf_prog *prog, const struct sf_policy *p, struct sf_error *err);
/* Whether a filter of prog's id is in force (its mark answers): 0, or
 * these bits */
#define SF_MARK_IN_FORCE 1
#define SF_MARK_MAY_UNBLOCK 2 /* its policy allows rt_sigprocmask(SIG_UNBLOCK) */
int sf_trusted_in_force(const struct sf_prog *prog);
int sf_trusted_install(const struct sf_policy *p, int all_threads, struct sf_error *err);
/* user.c: the program's memory as the kernel reads it: 0, or -EFAULT for
 * a bad pointer (checked in interposition mode). */
long sf_user_read(void *dst, const void *src, size_t n);
/* execve's path, argv and envp, strings included (whole, or their
 * first head bytes when head is not 0): the path's length */
long sf_user_exec_args(const char *path, char *const *argv, char *const *envp, size_t head,
		       uintptr_t sp);
long sf_user_str_rest(const char *s);
long sf_user_writable(void *p, size_t n);
/* Pages [lo, hi] (page addresses) are readable for the call being
 * handled: old gets what was known before, to put back (user.c). */
void sf_user_known(uintptr_t lo, uintptr_t hi, uintptr_t *old);

#endif
