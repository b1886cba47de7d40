/* The tool's side of files and ports (filter/landlock.h): the warnings
 * `check` gives for paths that do not exist, and the rulesets `run`
 * makes before it forks PROG, which PROG's child enters right before its
 * exec.
 *
 * Everything that can fail with a message (the kernel's ABI, the paths,
 * the rules) happens in run itself, before the fork; the child only
 * restricts itself with rulesets that exist already, so that what is
 * left to fail there is a bare errno. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock.h"
#include "secfilter.h"
#include "sflandlock.h"

static long ll_sys(long nr, long a0, long a1, long a2, long a3, long a4, long a5)
{
	long r = syscall(nr, a0, a1, a2, a3, a4, a5);

	return r < 0 ? -errno : r;
}

void landlock_warn_missing(const struct sf_policy *p)
{
	const struct sf_landlock *ll = p->landlock;
	struct stat st;
	uint32_t i;

	for (i = 0; ll && i < ll->nrules; i++) {
		const struct sf_ll_rule *r = &ll->rules[i];
		const char *path = ll->strings + r->path;

		if (r->net || stat(path, &st) == 0)
			continue;
		fprintf(stderr, "%s:%u: warning: '%s': %s; where the policy is enforced, a "
			"path that cannot be opened is skipped: nothing is granted beneath it\n",
			ll->strings + r->source, r->line, path, strerror(errno));
	}
}

static void warn_stderr(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "%s\n", msg);
}

/* The report destination the library appends to: it must exist before
 * the rulesets are made (Landlock grants on what it can open), so it is
 * made here if it does not, as the library would make it. */
static const char *log_file(void)
{
	const char *log = getenv("SECFILTER_LOG");
	int fd;

	if (!log || log[0] != '/')
		return NULL;
	fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	return log;
}

int landlock_prepare(const struct sf_policy *p, const char *library, struct sf_ll_fds *fds)
{
	struct sf_ll_extra extra[2];
	struct sf_ll_env env = { ll_sys, extra, 0, warn_stderr, NULL, 0 };
	struct sf_error err;
	const char *log;
	int rc;

	fds->n = 0;
	if (!p->landlock)
		return 0;
	/* What the library needs in every exec'd image: its file loadable
	 * (the loader reads and maps it), the reports' file writable.  Both
	 * are files: nothing beneath them.  In trusted mode run writes the
	 * reports itself, from outside. */
	if (library) {
		extra[env.nextra++] = (struct sf_ll_extra){ library,
							    SF_FS_READ_FILE | SF_FS_EXECUTE };
		if ((log = log_file()))
			extra[env.nextra++] = (struct sf_ll_extra){ log, SF_FS_WRITE_FILE };
	}
	/* trusted mode: the kernel's audit records of PROG's denials are
	 * their report (llaudit.c); exec'd images are recorded only when
	 * asked.  Interposition: the library reports them itself. */
	env.log = library ? 0 : SF_LL_LOG_NEW_EXEC_ON;
	memset(&err, 0, sizeof(err));
	rc = sf_ll_build(p->landlock, 0, &env, fds, &err);
	if (rc == 0)
		return 0;
	fputs(err.text, stderr);
	return EX_SF_FAIL;
}

int landlock_enter(const void *ctx)
{
	return sf_ll_restrict(ctx, ll_sys);
}

void landlock_release(struct sf_ll_fds *fds)
{
	sf_ll_close(fds, ll_sys);
}

char *landlock_fact(const struct sf_policy *p)
{
	size_t n = sf_ll_fact(p->landlock, p->landlock->nlayers, NULL, 0);
	char *fact = xmalloc(n + 1);

	sf_ll_fact(p->landlock, p->landlock->nlayers, fact, n + 1);
	return fact;
}
