/* Files and ports (filter/landlock.h) entered by the library itself: at
 * the start, in both of its ways of starting (the constructor; la_version
 * in trusted mode), before any code of the program, and by
 * secfilter_apply (a new layer, which can only narrow).  The domain is
 * the kernel's: inherited by every child and every exec'd image.
 *
 * An exec'd image already runs inside the domain it inherited, and each
 * landlock_restrict_self stacks one more layer (at most 16): so it enters
 * only the layers that are not in force yet.  What is in force it learns
 * from the fact exec hands it (SECFILTER_LANDLOCK, llfact.c), believed
 * only where it could not have been forged to skip a layer: see
 * doc/security.md, "Files and ports". */
#include <fcntl.h>
#include <linux/prctl.h>

#include "entry.h"

#include "landlock.h"

static long ll_sys(long nr, long a0, long a1, long a2, long a3, long a4, long a5)
{
	return sf_sys(nr, a0, a1, a2, a3, a4, a5);
}

/* The report's file must exist before the rulesets are made (a rule
 * grants on what can be opened): made as the library would make it. */
static void make_log_file(const char *path)
{
	long fd = sf_sys(SYS_openat, AT_FDCWD, (long)path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
			 0644, 0, 0);

	if (fd >= 0)
		sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
}

/* Layers first.. of ll in force in the calling thread, with what the
 * library needs in every image whatever the policy grants: its own file
 * loadable (LD_PRELOAD, LD_AUDIT name it in every exec'd image) and the
 * reports' file writable.  (Trusted mode's listener, which reads the
 * tree's /proc files to report a kill, is forked before the layers:
 * trap/notify.c.) */
static int enter(const struct sf_landlock *ll, unsigned first, struct sf_error *err)
{
	struct sf_ll_extra extra[2];
	struct sf_ll_env env = { ll_sys, extra, 0, NULL, NULL, 0 };

	extra[env.nextra++] = (struct sf_ll_extra){ sf_str(sf_cfg.lib_path),
						    SF_FS_READ_FILE | SF_FS_EXECUTE };
	if (sf_cfg.log == SF_LOG_FILE && sf_cfg.log_path) {
		make_log_file(sf_cfg.log_path);
		extra[env.nextra++] = (struct sf_ll_extra){ sf_cfg.log_path, SF_FS_WRITE_FILE };
	}
	/* interposition: the library reports what it sees, a kernel record
	 * of the same denial would only repeat it; trusted mode: the
	 * kernel's audit records are the only trace of what the library
	 * cannot see (LD_AUDIT alone), in exec'd images too */
	env.log = sf_cfg.mode == SF_MODE_TRUSTED ? SF_LL_LOG_NEW_EXEC_ON : SF_LL_LOG_SAME_EXEC_OFF;
	sf_memset(err, 0, sizeof *err);
	return sf_landlock_enforce(ll, first, &env, err);
}

/* The layers a fact from the environment says are entered, when it can be
 * believed.  A fact describes this policy's first layers (the hash) and
 * comes with no_new_privs, which every layer of ours sets and nothing
 * unsets: a process with the fact but without no_new_privs never entered
 * anything (a variable left over, or set by hand), and enters them all. */
static unsigned believed(const struct sf_landlock *ll, const char *fact)
{
	unsigned n = sf_ll_fact_entered(ll, fact);

	if (n && sf_sys(SYS_prctl, PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0, 0) != 1)
		return 0;
	return n;
}

void sf_ll_boot(const struct sf_policy *p, const char *fact, int all_inherited)
{
	const struct sf_landlock *ll = p->landlock;
	struct sf_error err;
	unsigned first;

	if (!ll || p->pending)
		return;
	first = all_inherited ? ll->nlayers : believed(ll, fact);
	if (first < ll->nlayers) {
		/* an inherited kernel filter (trusted mode) may deny the calls */
		if (sf_kernel_on && (!sf_may(SYS_landlock_create_ruleset, 0) ||
				     !sf_may(SYS_landlock_restrict_self, 0) ||
				     !sf_may(SYS_prctl, PR_SET_NO_NEW_PRIVS)))
			sf_fatal("secfilter: the policy's fs./net. rules are not in force and the "
				 "filter in force denies the Landlock calls that would enter them");
		if (enter(ll, first, &err) < 0)
			sf_apply_error(&err);
	}
	sf_ll_set_entered(ll, ll->nlayers);
	sf_ll_watch = 1;
}

int sf_ll_narrow(const struct sf_policy *p, struct sf_error *err)
{
	const struct sf_landlock *ll = p->landlock;
	unsigned first = sf_ll_entered();
	int r;

	if (!ll || p->pending || ll->nlayers <= first)
		return 0;
	if ((r = enter(ll, first, err)) < 0)
		return r;
	sf_ll_set_entered(ll, ll->nlayers);
	sf_ll_watch = 1;
	return 0;
}
