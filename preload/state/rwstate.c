/* What the site rewriter (rewrite/) shares with the floors below it: its
 * setting as exec passes it on, the lock a fork waits for, and the hooks
 * the trap path calls it through.  The lock is only ever tried by the
 * rewriter (which then skips: the next trap tries again) and waited for
 * by fork, never held across anything that could wait for fork. */
#include <sys/syscall.h>

#include "state.h"

void (*sf_rw_trapped)(const struct sf_call *c) SF_HOT;
uintptr_t (*sf_rw_site_hook)(uintptr_t ip, const ucontext_t *uc) SF_HOT;

static char rw_env[32]; /* what exec passes on, if not the default */

const char *sf_rw_env(void)
{
	return rw_env[0] ? rw_env : NULL;
}

void sf_rw_set_env(unsigned n)
{
	struct sf_buf b = { rw_env, 0, sizeof rw_env };

	sf_puts(&b, "SECFILTER_REWRITE=");
	sf_putu(&b, n);
}

static int rw_lock;

int sf_rw_lock_try(void)
{
	return sf_trylock(&rw_lock);
}

void sf_rw_lock_release(void)
{
	sf_unlock(&rw_lock);
}

/* Set once another task may run this memory at the same time as the
 * forking one (a thread, a CLONE_VM child that is not a vfork, threads
 * the library found already running and armed: api.c): until
 * then no rewrite can be in progress when a fork starts, and the lock
 * is left alone.  Taking it wrote its page just before the fork and
 * again after, in the parent and in the child: two copy-on-write faults
 * per fork of a shell. */
static int rw_concurrent;

void sf_rw_concurrent(void)
{
	if (!__atomic_load_n(&rw_concurrent, __ATOMIC_RELAXED))
		__atomic_store_n(&rw_concurrent, 1, __ATOMIC_RELEASE);
}

int sf_rw_is_concurrent(void)
{
	return __atomic_load_n(&rw_concurrent, __ATOMIC_ACQUIRE);
}

int sf_rw_fork_begin(void)
{
	if (!sf_rw_is_concurrent())
		return 0;
	sf_lock(&rw_lock);
	return 1;
}

void sf_rw_fork_end(int locked)
{
	if (locked)
		sf_rw_lock_release();
}
