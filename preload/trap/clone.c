/* New tasks.  Dispatch is per task and not inherited, so every child must
 * arm itself before it runs a single instruction of the program:
 *
 * - without a new stack and without CLONE_VM (fork): the child returns
 *   into this very handler on its copy of the stack, arms, and returns to
 *   the program;
 * - with a new stack (pthread_create, posix_spawn, a raw clone or clone3
 *   given one, sharing memory or not): the child cannot return through
 *   the handler's frame, which is not on its stack (and a fork-like child
 *   would return through whatever word the program put at the top of the
 *   new one).  We copy the trap frame onto the new stack and start the
 *   child there; it arms and rt_sigreturns into the program with the
 *   program's registers, the new stack pointer and a result of 0 (clone.S,
 *   sf_clone_thread);
 * - vfork-like without a new stack: the child would run on, and clobber,
 *   the stack this handler is using.  CLONE_VM is dropped: the child gets
 *   a copy of memory, the parent still waits for its exec or exit;
 * - CLONE_VM without a stack and without CLONE_VFORK cannot be followed.
 *
 * All signals are blocked from just before the clone until the child is
 * armed, so no handler of the program can run in an unarmed child. */
#include <errno.h>
#include <linux/sched.h>
#include <sched.h>
#include <stddef.h>
#include <sys/syscall.h>

#include "trap.h"

#ifndef CLONE_CLEAR_SIGHAND
#define CLONE_CLEAR_SIGHAND 0x100000000ULL
#endif

struct clone_req {
	uint64_t flags;
	uint64_t stack_lo, stack_top; /* 0 when the child keeps our stack */
	struct clone_args ca;         /* clone3: our copy of the program's */
	size_t ca_size;
};

/* clone3's struct as the kernel checks it before creating anything: too
 * large, too small, not there, or longer than ours with a tail that is
 * not zero.  We pass on our copy with our size (the kernel zero-fills what
 * a newer struct adds). */
static long read_clone_args(const struct sf_call *c, struct clone_req *r)
{
	const unsigned char *u = (const unsigned char *)c->a[0];
	unsigned char tail[64]; /* the handler may be on a small stack */
	size_t usize = c->a[1], off, n, i;
	long e;

	if (usize > 4096)
		return -E2BIG;
	if (usize < CLONE_ARGS_SIZE_VER0)
		return -EINVAL;
	if (!u)
		return -EFAULT;
	r->ca_size = usize < sizeof r->ca ? usize : sizeof r->ca;
	if ((e = sf_user_read(&r->ca, u, r->ca_size)) < 0)
		return e;
	for (off = sizeof r->ca; off < usize; off += n) {
		n = usize - off < sizeof tail ? usize - off : sizeof tail;
		if ((e = sf_user_read(tail, u + off, n)) < 0)
			return e;
		for (i = 0; i < n; i++)
			if (tail[i])
				return -E2BIG;
	}
	return 0;
}

static long read_request(const struct sf_call *c, struct clone_req *r)
{
	long e;

	sf_memset(r, 0, sizeof *r);
	switch (c->nr) {
	case SYS_fork:
		r->flags = SIGCHLD;
		break;
	case SYS_vfork:
		r->flags = CLONE_VM | CLONE_VFORK | SIGCHLD;
		break;
	case SYS_clone:
		r->flags = (uint32_t)c->a[0]; /* the kernel ignores the rest */
		r->stack_top = c->a[1];
		break;
	case SYS_clone3:
		if ((e = read_clone_args(c, r)) < 0)
			return e;
		/* The kernel's check, before we change stack_size below. */
		if ((r->ca.stack == 0) != (r->ca.stack_size == 0))
			return -EINVAL;
		r->flags = r->ca.flags;
		r->stack_lo = r->ca.stack;
		r->stack_top = r->ca.stack ? r->ca.stack + r->ca.stack_size : 0;
		break;
	}
	return 0;
}

/* CLONE_CLEAR_SIGHAND would also reset our SIGSYS handler: we strip it
 * and do the same in the child, sparing SIGSYS (whose program-visible
 * disposition is the shadow, reset here too unless the child shares
 * memory with its parent, whose shadow it is). */
static void clear_handlers(int own_shadow)
{
	static const uint64_t dfl[4] = { 0, SA_RESTORER, (uint64_t)sf_restorer_checked, 0 };
	int sig;

	for (sig = 1; sig <= 64; sig++) {
		struct sf_ksigaction old;
		if (sig == SIGKILL || sig == SIGSTOP || sig == SIGSYS)
			continue;
		if (sf_sys(SYS_rt_sigaction, sig, 0, (long)&old, 8, 0, 0) < 0)
			continue;
		if (old.handler != (void *)SIG_IGN && old.handler != (void *)SIG_DFL)
			sf_sys(SYS_rt_sigaction, sig, (long)dfl, 0, 8, 0, 0);
	}
	if (own_shadow)
		sf_sigsys_shadow_action(dfl, NULL);
}

/* What the child of sf_clone_thread does before it returns to the
 * program. */
#define CHILD_CLEAR 1       /* CLONE_CLEAR_SIGHAND was asked for */
#define CHILD_OWN_MEMORY 2  /* no CLONE_VM */

void sf_clone_child(unsigned long how)
{
	if (sf_arm() != 0)
		sf_die();
	if (how & CHILD_CLEAR)
		clear_handlers((how & CHILD_OWN_MEMORY) != 0);
}

static long fork_like(struct sf_call *c, struct clone_req *r)
{
	int clear = 0, locked;
	uint64_t old;
	long ret;

	if (c->nr == SYS_vfork) {
		c->nr = SYS_clone;
		c->a[0] = CLONE_VFORK | SIGCHLD;
		c->a[1] = c->a[2] = c->a[3] = c->a[4] = 0;
	} else if (c->nr == SYS_clone) {
		c->a[0] &= ~(uint64_t)CLONE_VM;
	} else if (c->nr == SYS_clone3) {
		clear = (r->ca.flags & CLONE_CLEAR_SIGHAND) != 0;
		r->ca.flags &= ~(uint64_t)(CLONE_VM | CLONE_CLEAR_SIGHAND);
		c->a[0] = (uint64_t)&r->ca;
		c->a[1] = r->ca_size;
	}
	/* Asked here, once in the parent, so that a child that execs finds it
	 * (open_target) in memory the fork copied: asked in each child, it
	 * was two page faults of each (the vDSO's note, and the cache's page
	 * written). */
	(void)sf_kernel_version();
	old = sf_block_all();
	locked = sf_rw_fork_begin();
	ret = sf_sys(c->nr, (long)c->a[0], (long)c->a[1], (long)c->a[2],
		     (long)c->a[3], (long)c->a[4], (long)c->a[5]);
	sf_rw_fork_end(locked);
	if (ret == 0) {
		if (sf_arm() != 0)
			sf_die();
		if (clear)
			clear_handlers(1);
	}
	sf_restore_mask(old);
	return ret;
}

/* The bytes a child given a new stack uses before it returns to the
 * program: the frame copy_frame lays below the top, alignment included,
 * and the calls of sf_clone_child below that. */
static size_t frame_size(const ucontext_t *uc)
{
	const void *fp = uc->uc_mcontext.fpregs;

	return (fp ? sf_fpstate_size(fp) + 64 : 0) + SF_KUCONTEXT_SIZE + 16 + 512;
}

/* Lays a copy of the trap frame (the ucontext and the xsave area it points
 * to, 64-byte aligned) just below top; returns the child's stack pointer. */
static uint64_t copy_frame(const ucontext_t *uc, uint64_t top)
{
	const void *fp = uc->uc_mcontext.fpregs;
	size_t fsize = fp ? sf_fpstate_size(fp) : 0;
	uint64_t at = top;
	ucontext_t *cu;
	void *cfp = NULL;

	if (fp) {
		at = (at - fsize) & ~(uint64_t)63;
		cfp = (void *)at;
		sf_memcpy(cfp, fp, fsize);
	}
	at = (at - SF_KUCONTEXT_SIZE) & ~(uint64_t)15;
	cu = (ucontext_t *)at;
	sf_memcpy(cu, uc, SF_KUCONTEXT_SIZE);
	cu->uc_mcontext.fpregs = cfp;
	cu->uc_mcontext.gregs[REG_RSP] = (greg_t)top;
	cu->uc_mcontext.gregs[REG_RAX] = 0;
	cu->uc_stack.ss_sp = NULL;
	cu->uc_stack.ss_size = 0;
	cu->uc_stack.ss_flags = SS_DISABLE;
	return at;
}

static long new_stack(struct sf_call *c, struct clone_req *r)
{
	unsigned long how = 0;
	uint64_t sp, old;
	long ret;

	if (!c->uc)
		return -ENOSYS; /* wrappers never get here; see sf_clone */
	if (r->flags & CLONE_CLEAR_SIGHAND)
		how |= CHILD_CLEAR;
	if (!(r->flags & CLONE_VM))
		how |= CHILD_OWN_MEMORY;
	/* A stack the child could not use: natively the child would crash
	 * on it; here the copy would crash the parent. */
	if (sf_user_writable((void *)(r->stack_top - frame_size(c->uc)),
			     frame_size(c->uc)) < 0)
		return -EFAULT;
	if ((r->flags & (CLONE_VM | CLONE_VFORK)) == CLONE_VM)
		sf_rw_concurrent();
	sp = copy_frame(c->uc, r->stack_top);
	if (c->nr == SYS_clone3) {
		r->ca.flags &= ~(uint64_t)CLONE_CLEAR_SIGHAND;
		r->ca.stack_size = sp - r->stack_lo;
		c->a[0] = (uint64_t)&r->ca;
		c->a[1] = r->ca_size;
	} else {
		c->a[1] = sp;
	}
	old = sf_block_all();
	ret = sf_clone_thread(c->nr, (long)c->a[0], (long)c->a[1], (long)c->a[2],
			      (long)c->a[3], (long)c->a[4], how);
	/* A child sharing our memory has exec'd or exited: what its exec
	 * mapped is ours to unmap. */
	if (ret > 0 && (r->flags & (CLONE_VM | CLONE_VFORK)) == (CLONE_VM | CLONE_VFORK))
		sf_exec_reap();
	sf_restore_mask(old);
	return ret;
}

long sf_clone(struct sf_call *c)
{
	struct clone_req r;
	long e = read_request(c, &r);

	if (e < 0)
		return e;
	if (r.flags & CLONE_NEWUSER) /* the parent's too: it is simpler */
		sf_exec_note(c);
	if (r.stack_top)
		return new_stack(c, &r);
	if (!(r.flags & CLONE_VM))
		return fork_like(c, &r);
	if (r.flags & CLONE_VFORK)
		return fork_like(c, &r);
	sf_violation(c, SF_DENY_UNFOLLOWABLE, sf_enforcing());
	return -EPERM;
}
