/* setlocale without the catch-all's traps.
 *
 * A program started under a UTF-8 locale calls setlocale(LC_ALL, ""), and
 * libc loads the locale's dozen files through its own internal openat,
 * newfstatat, mmap and close, which no wrapper sees: 74 traps in a
 * filtered `sed` under C.UTF-8, about 40 us of its start, and a third of
 * what the shell loop of b_start paid (issue 9).  Rewriting those four
 * sites costs a short process more than their traps (README, Starting a
 * process).
 *
 * So when the policy in force simply allows (`1`: no filter, no action)
 * every call that loading a locale makes (`loading` below), the wrapper
 * runs libc's own setlocale with this thread's dispatch off: whatever
 * libc does in there is a call the policy would have allowed, decided in
 * one check before instead of at each trap.  Only libc's code may run
 * meanwhile:
 *   - libc calls malloc, free, calloc and realloc through its PLT: the
 *     window opens only when those bind to libc's own (a program or a
 *     preload defining malloc would otherwise run unfiltered);
 *   - every signal stays blocked for its length (a handler is the
 *     program's code);
 *   - other threads keep their dispatch, which is per thread.
 * Dispatch comes back before the signals do, or the process dies: it
 * never goes on unfiltered.  Only the environment's locale (name "")
 * is loaded so, once per category; everything else takes the plain
 * path: a query (NULL), a name of the program's own, trusted mode (whose
 * kernel filter sees libc's calls at no extra cost), and any policy under
 * which one of those calls has a filter or an action, whose traps decide
 * each one.  A policy narrowed by another thread (secfilter_apply) during
 * the window applies to this thread from its end, like a call already in
 * the kernel.  t_lib_locale checks that every call made in a window is
 * one of `loading`. */
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <sys/syscall.h>

#include "wrap.h"

/* What libc's setlocale may call, measured with strace under C.UTF-8, a
 * missing locale, LOCPATH, aliases and composite names (glibc 2.36), and
 * read from its sources: the files (the locale archive, each category's
 * file, locale.alias through stdio), malloc's and free's (the first
 * malloc of a process asks getrandom for its tcache key), and the
 * futex of its lock.  None of them is special (special.c). */
static const unsigned short loading[] = {
	SYS_openat, SYS_read, SYS_newfstatat, SYS_mmap, SYS_munmap, SYS_close,
	SYS_brk, SYS_mprotect, SYS_madvise, SYS_getrandom, SYS_futex,
};

static int loading_allowed(const struct sf_policy *p)
{
	unsigned i;

	for (i = 0; i < sizeof loading / sizeof loading[0]; i++) {
		const struct sf_sysrule *r = &p->sys[loading[i]];
		if (!r->allowed || r->chain)
			return 0;
	}
	return 1;
}

/* Whether libc's allocator is the one libc calls.  The objects loaded at
 * start decide it, and they come before any dlopen'ed one in the scope:
 * asked once. */
static int libc_allocates(void)
{
	static const char *const names[] = { "malloc", "free", "calloc", "realloc" };
	static int known = -1;
	int k = __atomic_load_n(&known, __ATOMIC_RELAXED);

	if (k < 0) {
		k = sf_libc_binds(names, sizeof names / sizeof names[0]);
		__atomic_store_n(&known, k, __ATOMIC_RELAXED);
	}
	return k;
}

/* The categories whose environment's locale was loaded in a window: a
 * window costs five calls (0.55 us), and libc keeps what it loaded, so
 * asking for it again loads nothing.  Bit LC_ALL: every category.  Read
 * and written by most programs as they start: SF_HOT, where a .bss page
 * of its own was two faults (read, then written). */
static unsigned windowed SF_HOT;

static int first_load(int category)
{
	unsigned w = __atomic_load_n(&windowed, __ATOMIC_RELAXED);

	return category >= 0 && category < 32 && !(w & (1u << LC_ALL | 1u << category));
}

static int is_c(const char *v)
{
	return !*v || sf_streq(v, "C") || sf_streq(v, "POSIX");
}

/* Whether the environment may name a locale with files, as libc reads it
 * for a category (LC_ALL, else LC_<category>, else LANG): under C, POSIX
 * or nothing (a container's usual environment) setlocale("") loads none,
 * and a window would be five calls for nothing. */
static int env_names_files(void)
{
	const char *all = NULL;
	int other = 0;
	char **e;

	if (!sf_libc_bound() || !environ)
		return 0;
	for (e = environ; *e; e++) {
		const char *v = *e;
		if (v[0] != 'L')
			continue;
		if (sf_startswith(v, "LC_ALL="))
			all = v + 7;
		else if (sf_startswith(v, "LANG="))
			other |= !is_c(v + 5);
		else if (sf_startswith(v, "LC_")) {
			while (*v && *v != '=')
				v++;
			other |= *v && !is_c(v + 1);
		}
	}
	return all && *all ? !is_c(all) : other;
}

SF_EXPORT char *setlocale(int category, const char *name)
{
	/* SF_HOT: most programs call it once, at start */
	static char *(*real)(int, const char *) SF_HOT;
	const struct sf_policy *p = sf_enforcing();
	uint64_t all = ~0ull, old;
	char *r;

	if (!real)
		real = (char *(*)(int, const char *))sf_next_fn("setlocale");
	if (!real) { /* no libc: nothing a program could have called */
		if (sf_libc_bound())
			errno = ENOSYS;
		return NULL;
	}
	/* Only "" (the locale the environment names, what a program asks
	 * for as it starts) loads files in the window: a name of the
	 * program's own ("C" around a printf, in a loop) is most often
	 * one libc has already, which costs no trap.  Reading its first
	 * byte here faults, if it does, where libc would have, with the
	 * program's signals as they are. */
	if (!name || !p || name[0] || !first_load(category) || sf_cfg.mode != SF_MODE_INTERPOSE ||
	    !__atomic_load_n(&sf_armed, __ATOMIC_ACQUIRE) || !loading_allowed(p) ||
	    !env_names_files() || !libc_allocates())
		return real(category, name);
	sf_sys(SYS_rt_sigprocmask, SIG_SETMASK, (long)&all, (long)&old, 8, 0, 0);
	sf_disarm();
	r = real(category, name);
	if (sf_arm() != 0)
		sf_die();
	sf_sys(SYS_rt_sigprocmask, SIG_SETMASK, (long)&old, 0, 8, 0, 0);
	__atomic_or_fetch(&windowed, 1u << category, __ATOMIC_RELAXED);
	return r;
}
