/* The policy in force and who enforces it: the latest block (sf_cur), the
 * one enforced here (sf_enforce), the kernel filter's (sf_kpol), what exec
 * passes on, the authority this copy delegates to (trusted mode through
 * LD_AUDIT), and the program's own SIGSYS disposition. */
#include "state.h"

#include "landlock.h"

const struct sf_policy *sf_cur SF_HOT;
const struct sf_policy *sf_enforce SF_HOT;
const struct sf_policy *sf_kpol SF_HOT;
const char *sf_env_policy SF_HOT;
const struct sf_authority *sf_authority SF_HOT;
int sf_in_vfork SF_HOT;

/* The program's own SIGSYS disposition: it may set one, but the kernel's
 * stays ours.  Written by rt_sigaction(SIGSYS) from any thread; a torn
 * read here is no worse than the race the program has with itself. */
struct sf_ksigaction sf_sigsys_shadow SF_HOT;

/* rt_sigaction(SIGSYS, act, oact) as the program sees it.  The shadow
 * belongs to the copy of the library whose handler is installed. */
long sf_sigsys_shadow_action(const uint64_t *act, uint64_t *oact)
{
	struct sf_ksigaction old = sf_sigsys_shadow;

	if (sf_authority)
		return sf_authority->shadow(act, oact);
	if (act)
		sf_memcpy(&sf_sigsys_shadow, act, sizeof sf_sigsys_shadow);
	if (oact)
		sf_memcpy(oact, &old, sizeof old);
	return 0;
}

/* ---- a policy parsed at its first use ----
 * An image exec'd in trusted mode under a filter of its very text (the
 * mark, trap/trusted.c, confirmed the text's id) enforces nothing itself:
 * the kernel does.  Its start then needs no tree (entry/init.c), and the
 * text is parsed when something first asks for sf_cur: a report, the
 * API, log mode, a copy handed the state.  Two threads, or a thread and
 * a signal handler interrupting it, may parse at once: each parses its
 * own tree (the allocator takes no lock anyone waits for), the first to
 * publish wins, the others free theirs.  The text parsed to this very
 * tree in the ancestor that installed the filter (same build, same text);
 * a parse that fails all the same (out of memory) ends the process: it
 * must not run on deciding with no policy. */
struct deferred {
	const char *text;    /* the library's copy: the environment is the program's */
	size_t len;
	const char *origins; /* the map handed on with it (a copy), or NULL */
};
static struct deferred deferred_text SF_HOT;
static const struct deferred *deferred SF_HOT;
static int deferred_failed;

void sf_policy_defer(const char *text, const char *origins)
{
	deferred_text = (struct deferred){ text, sf_strlen(text), origins };
	__atomic_store_n(&deferred, &deferred_text, __ATOMIC_RELEASE);
}

__attribute__((noinline, cold)) static const struct sf_policy *parse_deferred(const struct deferred *d)
{
	struct sf_policy *p = NULL;
	const struct sf_policy *none = NULL;
	struct sf_error err;

	if (__atomic_load_n(&deferred_failed, __ATOMIC_ACQUIRE))
		return NULL; /* the process is on its way out */
	sf_memset(&err, 0, sizeof err);
	if (sf_policy_apply_diag(NULL, "SECFILTER_POLICY", SF_SRC_TEXT, SF_SYNTAX_SECFILTER, d->text,
				 d->len, &p, &err, NULL) < 0 || p->pending) {
		/* a report of a write the filter denies comes back here */
		char msg[sizeof err.text + 64];
		struct sf_buf b = { msg, 0, sizeof msg };

		__atomic_store_n(&deferred_failed, 1, __ATOMIC_RELEASE);
		sf_put_list(&b, (const char *const[]){ "secfilter: cannot parse the policy in force: ",
						       err.text[0] ? err.text : "it is pending", NULL });
		sf_fatal(msg);
	}
	/* a map that does not fit leaves the text's own, as at a start */
	if (d->origins)
		sf_policy_set_origins(&p, d->origins);
	/* Its layers are in force: the mark's policy entered them all
	 * before its filter (entry/landlock.c).  Idempotent: every racer
	 * writes the same fact. */
	if (p->landlock)
		sf_ll_set_entered(p->landlock, p->landlock->nlayers);
	if (!__atomic_compare_exchange_n(&sf_cur, &none, p, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		sf_policy_free(p);
		p = (struct sf_policy *)none; /* the first's */
	}
	/* as a start's publication sets it; an apply's later one replaces it */
	none = NULL;
	__atomic_compare_exchange_n(&sf_enforce, &none, p, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	return p;
}

const struct sf_policy *sf_policy_now(void)
{
	const struct sf_policy *p = __atomic_load_n(&sf_cur, __ATOMIC_ACQUIRE);
	const struct deferred *d;

	if (p || !(d = __atomic_load_n(&deferred, __ATOMIC_ACQUIRE)))
		return p;
	return parse_deferred(d);
}
