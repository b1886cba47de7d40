/* Syscalls that cannot simply be re-issued: they would switch the
 * catch-all off, block the signal it lives on, or start a task or an image
 * that must be armed before it runs program code.  They are handled here
 * the same whichever way they arrive (trap, wrapper, syscall()). */
#include <errno.h>
#include <linux/prctl.h>
#include <stddef.h>
#include <sys/syscall.h>

#include "trap.h"

/* The calls an exec must hear of (exec.c, sf_exec_note): set*id, a new
 * user or mount namespace, mounts, a new root, a Landlock domain. */
#define SF_EXEC_NOTED                                                                  \
	case SYS_setuid: case SYS_setgid: case SYS_setreuid: case SYS_setregid:        \
	case SYS_setresuid: case SYS_setresgid: case SYS_unshare: case SYS_setns:      \
	case SYS_landlock_restrict_self: case SYS_mount: case SYS_umount2:             \
	case SYS_move_mount: case SYS_mount_setattr: case SYS_pivot_root: case SYS_chroot

int sf_is_special(long nr)
{
	switch (nr) {
	case SYS_rt_sigaction: case SYS_rt_sigprocmask: case SYS_rt_sigreturn:
	case SYS_rt_sigsuspend: case SYS_ppoll: case SYS_pselect6:
	case SYS_epoll_pwait: case SYS_epoll_pwait2: case SYS_io_pgetevents:
	case SYS_signalfd: case SYS_signalfd4:
	case SYS_clone: case SYS_clone3: case SYS_fork: case SYS_vfork:
	case SYS_execve: case SYS_execveat: case SYS_prctl: case SYS_sigaltstack:
	case SYS_ptrace:
	SF_EXEC_NOTED:
		return 1;
	default:
		return 0;
	}
}

static long issue(const struct sf_call *c)
{
	return sf_sys(c->nr, (long)c->a[0], (long)c->a[1], (long)c->a[2],
		      (long)c->a[3], (long)c->a[4], (long)c->a[5]);
}

/* Gives a program handler a restorer inside the region (glibc's, in libc,
 * would trap on return) and keeps SIGSYS out of its mask. */
void sf_rt_sigaction_fix(uint64_t *kact)
{
	struct sf_ksigaction *k = (struct sf_ksigaction *)kact;

	k->flags |= SA_RESTORER;
	k->restorer = sf_restorer_checked;
	k->mask &= ~SF_SIGSYS_BIT;
}

/* The program's rt_sigaction(SIGSYS) acts on a shadow (dispatch.c), in
 * the kernel's order: the new action is read before anything changes,
 * the old one written after.  Whether oact can be written the kernel says
 * by writing there itself (the real action, which the shadow then
 * replaces); not under a kernel filter, which would judge that call. */
long sf_shadow_rt_sigaction(const void *uact, void *uoact)
{
	struct sf_ksigaction act, old;
	long r;

	if (uact && (r = sf_user_read(&act, uact, sizeof act)) < 0)
		return r;
	sf_sigsys_shadow_action(uact ? (const uint64_t *)&act : NULL, (uint64_t *)&old);
	if (!uoact)
		return 0;
	if (sf_cfg.mode != SF_MODE_TRUSTED &&
	    (r = sf_sys(SYS_rt_sigaction, SIGSYS, 0, (long)uoact, 8, 0, 0)) < 0)
		return r;
	sf_memcpy(uoact, &old, sizeof old);
	return 0;
}

static long do_rt_sigaction(struct sf_call *c)
{
	struct sf_ksigaction k;
	long r;

	if ((int)c->a[0] == SIGSYS)
		return c->a[3] != 8 ? -EINVAL
				    : sf_shadow_rt_sigaction((const void *)c->a[1], (void *)c->a[2]);
	if (c->a[1] == 0)
		return issue(c);
	if ((r = sf_user_read(&k, (const void *)c->a[1], sizeof k)) < 0)
		return r;
	sf_rt_sigaction_fix((uint64_t *)&k);
	c->a[1] = (uint64_t)&k;
	return issue(c);
}

/* A blocked SIGSYS at trap time kills the process: every mask that
 * reaches the kernel loses it.  The copy lives on this frame. */
static long with_mask(struct sf_call *c, int set_arg, int size_arg)
{
	uint64_t copy;
	long r;

	if (c->a[set_arg] && c->a[size_arg] == 8) {
		if ((r = sf_user_read(&copy, (const void *)c->a[set_arg], 8)) < 0)
			return r;
		copy &= ~SF_SIGSYS_BIT;
		c->a[set_arg] = (uint64_t)&copy;
	}
	return issue(c);
}

/* pselect6 and io_pgetevents pass {mask pointer, size} in a struct. */
static long with_mask_struct(struct sf_call *c, int arg)
{
	struct { uint64_t set, size; } s;
	uint64_t copy;
	long r;

	if (c->a[arg]) {
		if ((r = sf_user_read(&s, (const void *)c->a[arg], sizeof s)) < 0)
			return r;
		if (s.set && s.size == 8) {
			if ((r = sf_user_read(&copy, (const void *)s.set, 8)) < 0)
				return r;
			copy &= ~SF_SIGSYS_BIT;
			s.set = (uint64_t)&copy;
			c->a[arg] = (uint64_t)&s;
		}
	}
	return issue(c);
}

/* An rt_sigreturn from a restorer we did not install (a handler set up
 * before the library, a hand-made frame): load the frame it would have
 * restored into our own SIGSYS frame, which returns into it. */
static long emulate_sigreturn(struct sf_call *c)
{
	ucontext_t *uc = c->uc;
	const ucontext_t *fr;

	if (!uc)
		return -ENOSYS;
	fr = (const ucontext_t *)uc->uc_mcontext.gregs[REG_RSP];
	uc->uc_flags = fr->uc_flags;
	uc->uc_stack = fr->uc_stack;
	sf_memcpy(uc->uc_mcontext.gregs, fr->uc_mcontext.gregs,
		  sizeof uc->uc_mcontext.gregs);
	if (fr->uc_mcontext.fpregs && uc->uc_mcontext.fpregs)
		sf_memcpy(uc->uc_mcontext.fpregs, fr->uc_mcontext.fpregs,
			  sf_fpstate_size(fr->uc_mcontext.fpregs));
	else
		uc->uc_mcontext.fpregs = NULL;
	sf_memcpy(&uc->uc_sigmask, &fr->uc_sigmask, 8);
	*(uint64_t *)&uc->uc_sigmask &= ~SF_SIGSYS_BIT;
	return uc->uc_mcontext.gregs[REG_RAX];
}

/* A trapped call returns through rt_sigreturn, which restores the signal
 * mask and the alternate stack saved in the SIGSYS frame: a change the
 * call made must be written into the frame, or the return undoes it. */
static void keep_mask(ucontext_t *uc)
{
	uint64_t cur;

	if (sf_sys(SYS_rt_sigprocmask, SIG_BLOCK, 0, (long)&cur, 8, 0, 0) == 0)
		sf_memcpy(&uc->uc_sigmask, &cur, sizeof cur);
}

static long do_rt_sigprocmask(struct sf_call *c)
{
	int set = c->a[1] != 0;
	long r = c->a[0] == SIG_UNBLOCK ? issue(c) : with_mask(c, 1, 3);

	if (r == 0 && set && c->uc)
		keep_mask(c->uc);
	return r;
}

/* The frame's uc_stack is the program's alternate stack as it was when
 * the SIGSYS came (with SS_AUTODISARM the delivery itself has switched it
 * off): put it back first, so that the call sees and changes the
 * program's, then save the outcome in the frame. */
static long do_sigaltstack(struct sf_call *c)
{
	stack_t *fs, cur;
	uintptr_t sp;
	long r;

	if (!c->uc)
		return issue(c);
	/* Made from the program's stack: the handler may run on the
	 * alternate stack (SA_ONSTACK), where the kernel refuses to
	 * change it. */
	sp = ((uintptr_t)c->uc->uc_mcontext.gregs[REG_RSP] - 256) & ~(uintptr_t)15;
	fs = &c->uc->uc_stack;
	sf_sys_from(sp, SYS_sigaltstack, (long)fs, 0);
	r = sf_sys_from(sp, SYS_sigaltstack, (long)c->a[0], (long)c->a[1]);
	if (r == 0 && c->a[0] && sf_sys(SYS_sigaltstack, 0, (long)&cur, 0, 0, 0, 0) == 0) {
		fs->ss_sp = cur.ss_sp;
		fs->ss_size = cur.ss_size;
		fs->ss_flags = cur.ss_flags & (SS_DISABLE | SS_AUTODISARM);
	}
	return r;
}

/* Switching dispatch off would end the catch-all: sf_handle has reported
 * it as a violation whatever the policy says; in log mode it fails.  A
 * tracer can switch it off in a tracee (a filtered child) the same way. */
static long do_prctl(struct sf_call *c)
{
	if (c->a[0] == PR_SET_SYSCALL_USER_DISPATCH)
		return -EPERM;
	return issue(c);
}

static long do_ptrace(struct sf_call *c)
{
	if (c->a[0] == SF_PTRACE_SET_SUD)
		return -EPERM;
	return issue(c);
}

/* Issues a decided call from the region, rewritten first if it is one of
 * the calls above. */
long sf_issue(struct sf_call *c)
{
	switch (c->nr) {
	case SYS_rt_sigaction: return do_rt_sigaction(c);
	case SYS_rt_sigprocmask: return do_rt_sigprocmask(c);
	case SYS_rt_sigreturn: return emulate_sigreturn(c);
	case SYS_rt_sigsuspend: return with_mask(c, 0, 1);
	case SYS_ppoll: return with_mask(c, 3, 4);
	case SYS_epoll_pwait: return with_mask(c, 4, 5);
	case SYS_epoll_pwait2: return with_mask(c, 4, 5);
	case SYS_signalfd: case SYS_signalfd4: return with_mask(c, 1, 2);
	case SYS_pselect6: return with_mask_struct(c, 5);
	case SYS_io_pgetevents: return with_mask_struct(c, 5);
	case SYS_clone: case SYS_clone3: case SYS_fork: case SYS_vfork:
		return sf_clone(c);
	case SYS_execve: case SYS_execveat: return sf_exec(c);
	case SYS_prctl: return do_prctl(c);
	case SYS_ptrace: return do_ptrace(c);
	case SYS_sigaltstack: return do_sigaltstack(c);
	SF_EXEC_NOTED:
		sf_exec_note(c); /* what an exec asks about (exec.c) */
		return issue(c);
	default: return issue(c);
	}
}
