/* The runtime API (secfilter.h) and the publication of a new policy.
 *
 * A policy block is immutable.  secfilter_apply builds the new block from
 * the current one and publishes it with one compare-and-swap on sf_cur,
 * retrying when another thread won the race; the hot path then sees it with
 * one load of sf_enforce.  Old blocks are never freed: a thread may still
 * be deciding against one (a handful of bytes per apply, and applies are
 * rare). */
#include <errno.h>
#include <fcntl.h>
#include <linux/prctl.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "mem.h"
#include "secfilter.h"
#include "entry.h"

/* secfilter_error(): per thread, initial-exec TLS (a pointer only: the
 * static TLS surplus is small). */
static __thread char *err_text;
static __thread size_t err_cap;

struct state_head {
	char magic[16];
	uint32_t version;
	uint32_t length;
	uint64_t generation;
};

static void *state_map SF_HOT;
static size_t state_size SF_HOT;
static uint64_t generation SF_HOT;
static int state_lock SF_HOT;

/* Arming rounds are serialized by arm_lock (publish.c keeps the acks). */
static int arm_lock;

static const char *skip_pending_line(const char *text)
{
	static const char line[] = "on_next_syscall: 1\n";

	return sf_startswith(text, line) ? text + sizeof line - 1 : text;
}

/* The kernel's limit on one environment string (MAX_ARG_STRLEN). */
#define SF_ENV_STRING_MAX (32 * 4096)

/* The length of p's origin map, 0 when it has no filter and no Landlock
 * rule or when the string would be past the kernel's limit, which would
 * make the exec fail (the image then cites the short form's origins). */
static size_t origins_len(const struct sf_policy *p, size_t prefix)
{
	size_t n = p->nfilters || p->landlock ? sf_policy_print_origins(p, NULL, 0) : 0;

	return prefix + n > SF_ENV_STRING_MAX ? 0 : n;
}

/* "SECFILTER_POLICY=<text>" for exec: in the new image the policy is in
 * force, so a pending marker is dropped.  The text is the policy's short
 * form: what every exec'd image parses (for '*: 1', one rule rather than
 * the canonical 383).  Right after it, in the same allocation (one
 * pointer, published at once), "SECFILTER_ORIGINS=<map>" (filter/policy.h)
 * that gives the image's filters their source's lines and texts back, and
 * its Landlock rules their source's lines: empty when the policy has
 * neither, and there all the same, to tell
 * the image its policy was handed on (it does not warn again). */
static char *env_text(const struct sf_policy *p, const char *text, size_t len, const char *origins)
{
	static const char prefix[] = "SECFILTER_POLICY=", oprefix[] = "SECFILTER_ORIGINS=";
	const char *body = skip_pending_line(text);
	size_t blen = len - (size_t)(body - text);
	size_t olen = origins ? sf_strlen(origins) : origins_len(p, sizeof oprefix);
	size_t size = sizeof prefix + blen + sizeof oprefix + olen;
	char *s = sf_mem_alloc(size), *o;

	if (!s)
		return NULL;
	sf_memcpy(s, prefix, sizeof prefix - 1);
	sf_memcpy(s + sizeof prefix - 1, body, blen);
	s[sizeof prefix - 1 + blen] = '\0';
	o = s + sizeof prefix + blen;
	sf_memcpy(o, oprefix, sizeof oprefix);
	if (origins)
		sf_memcpy(o + sizeof oprefix - 1, origins, olen + 1);
	else if (olen)
		sf_policy_print_origins(p, o + sizeof oprefix - 1, olen + 1);
	return s;
}

/* An image's first state, when it is small (`*: 1` and what it removes,
 * most learned policies): from the library's allocator, on pages the start
 * has touched already, which costs no call, no page fault and no mapping
 * of its own.  Never given back: a later state must not be written where a
 * reader may still be reading this one. */
#define FIRST_STATE_MAX 2048
static void *first_state SF_HOT;

static struct state_head *first_state_block(size_t n)
{
	void *h, *none = NULL;

	if (n > FIRST_STATE_MAX || __atomic_load_n(&first_state, __ATOMIC_ACQUIRE) ||
	    !(h = sf_mem_alloc(n)))
		return NULL;
	if (__atomic_compare_exchange_n(&first_state, &none, h, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
		return h;
	sf_mem_free(h, n); /* another thread's was first */
	return NULL;
}

/* NULL with *size 0 when the kernel filter in force would deny the call
 * it takes: then `secfilter show` has nothing to read, and nothing is
 * killed. */
static void *new_state_mapping(const char *text, size_t len, size_t *size)
{
	struct state_head *h;

	*size = 0;
	if ((h = first_state_block(sizeof *h + len)) != NULL) {
		*size = sizeof *h + len;
	} else {
		if (!sf_may(SYS_mmap, 0))
			return NULL;
		*size = (sizeof *h + len + 4095) & ~(size_t)4095;
		h = sf_pages(*size);
		if (!h)
			return NULL;
	}
	sf_memcpy(h->magic, "secfilter-state", 16);
	h->version = 2; /* the short form: show prints it canonically */
	h->length = (uint32_t)len;
	sf_memcpy(h + 1, text, len);
	return h;
}

static void drop_state(void *m, size_t size)
{
	if (m != first_state)
		sf_unpages(m, size);
}

/* `secfilter show PID` reads this mapping through /proc/PID/mem, from
 * where. */
static void *swap_state(void *m, size_t size, size_t *old_size)
{
	void *old = state_map;

	if (m)
		((struct state_head *)m)->generation = ++generation;
	*old_size = state_size;
	state_map = m;
	state_size = size;
	sf_where_state(m, size);
	return old;
}

/* What publishing p takes, made before a kernel filter that narrows the
 * process could refuse the calls (mmap). */
struct publication {
	const char *env;
	void *m;
	size_t size;
};

/* origins: the map to hand on with text, or NULL for p's own. */
static int prepare_text(const struct sf_policy *p, const char *text, size_t len,
			const char *origins, struct publication *pub)
{
	pub->env = env_text(p, text, len, origins);
	pub->m = new_state_mapping(text, len, &pub->size);
	if ((!pub->m && pub->size) || !pub->env) {
		if (pub->m)
			drop_state(pub->m, pub->size);
		return -ENOMEM;
	}
	return 0;
}

static int prepare(const struct sf_policy *p, struct publication *pub)
{
	/* Printed once when it fits here (`*: 1` and what it removes
	 * mostly do), else measured first: each print walks every number. */
	char small[512];
	size_t len = sf_policy_print_short(p, small, sizeof small);
	char *text = len < sizeof small ? small : sf_mem_alloc(len + 1);
	int r = -ENOMEM;

	pub->env = NULL;
	pub->m = NULL;
	pub->size = 0;
	if (text) {
		if (text != small)
			sf_policy_print_short(p, text, len + 1);
		r = prepare_text(p, text, len, NULL, pub);
		if (text != small)
			sf_mem_free(text, len + 1);
	}
	return r;
}

static void unprepare(const struct publication *pub)
{
	if (pub->m && sf_may(SYS_munmap, 0))
		drop_state(pub->m, pub->size);
}

/* After sf_cur became p: the hot path, exec's environment and the state
 * mapping follow.  Publications are serialized, and one whose block is no
 * longer sf_cur steps aside (the newer one's publisher does the work), so
 * an older, wider block can never be published last. */
static void commit(const struct sf_policy *p, const struct publication *pub)
{
	const char *env = pub->env;
	void *m = pub->m, *old = NULL;
	size_t size = pub->size, old_size = 0;

	sf_lock(&state_lock);
	if (__atomic_load_n(&sf_cur, __ATOMIC_ACQUIRE) == p) {
		__atomic_store_n(&sf_env_policy, env, __ATOMIC_RELEASE);
		__atomic_store_n(&sf_enforce, p->pending ? NULL : p, __ATOMIC_RELEASE);
		old = swap_state(m, size, &old_size);
	} else {
		old = m;
		old_size = size;
	}
	sf_unlock(&state_lock);
	if (old && old_size && sf_may(SYS_munmap, 0))
		drop_state(old, old_size);
}

int sf_publish(const struct sf_policy *p)
{
	struct publication pub;

	if (prepare(p, &pub) < 0)
		return -ENOMEM;
	commit(p, &pub);
	return 0;
}

/* An exec'd image's policy, parsed from text, the short form its parent
 * handed on with its origin map: parsing a short form and printing it
 * again gives the same text (the fuzzers check it), so the image hands on
 * what it was handed instead of printing it (about 8k instructions of
 * each exec'd start).  A text that is not a short form (set by hand, or
 * the user's own that trusted mode's images inherit: init.c) still means
 * p, and is handed on as it is.  origins NULL: p's own map. */
int sf_publish_handed(const struct sf_policy *p, const char *text, const char *origins)
{
	struct publication pub = { NULL, NULL, 0 };

	if (origins && sizeof "SECFILTER_ORIGINS=" + sf_strlen(origins) > SF_ENV_STRING_MAX)
		return sf_publish(p);
	if (prepare_text(p, text, sf_strlen(text), origins, &pub) < 0)
		return -ENOMEM;
	commit(p, &pub);
	return 0;
}

/* An image whose policy is parsed at its first use (init.c): what
 * `secfilter show` reads, the text it was handed, which parses to that
 * policy.  Nothing for exec (sf_env_policy): trusted mode's authority
 * never execs, the kernel does, and the image inherits the environment. */
int sf_publish_deferred(const char *text)
{
	size_t size, old_size;
	void *m = new_state_mapping(text, sf_strlen(text), &size);

	if (!m)
		return size ? -ENOMEM : 0;
	sf_lock(&state_lock);
	swap_state(m, size, &old_size);
	sf_unlock(&state_lock);
	return 0;
}

static int seen(const long *tids, size_t n, long tid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (tids[i] == tid)
			return 1;
	return 0;
}

static long parse_tid(const char *s)
{
	long v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v;
}

/* Whether thread tid blocks SIGSYS (/proc/self/task/TID/status, SigBlk):
 * such a thread never takes the request, and would die at its first trap
 * if it did.  0 when it cannot tell. */
static int blocks_sigsys(long tid)
{
	static const char key[] = "\nSigBlk:\t";
	char path[64], buf[2048];
	struct sf_buf b = { path, 0, sizeof path };
	const char *hex;
	long fd, n, i;

	sf_puts(&b, "/proc/self/task/");
	sf_putu(&b, (uint64_t)tid);
	sf_puts(&b, "/status");
	fd = sf_sys(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return 0;
	n = sf_sys(SYS_read, fd, (long)buf, sizeof buf - 1, 0, 0, 0);
	sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (i = 0; i < n; i++) {
		if (!sf_startswith(buf + i, key))
			continue;
		hex = buf + i + sizeof key - 1;
		return (sf_getx(&hex) & SF_SIGSYS_BIT) != 0;
	}
	return 0;
}

static int ask_to_arm(long pid, long tid)
{
	siginfo_t si;

	sf_memset(&si, 0, sizeof si);
	si.si_signo = SIGSYS;
	si.si_code = SI_QUEUE;
	si.si_pid = (pid_t)pid;
	si.si_uid = (uid_t)sf_sys(SYS_getuid, 0, 0, 0, 0, 0, 0);
	si.si_value.sival_int = SF_ARM_MAGIC;
	return sf_sys(SYS_rt_tgsigqueueinfo, pid, tid, SIGSYS, (long)&si, 0, 0) == 0;
}

/* Signals every thread of /proc/self/task not yet asked; returns how many
 * were asked, or -errno (-E2BIG: more threads than we can follow). */
static long scan_tasks(long *tids, size_t *n, size_t cap, long pid)
{
	char buf[4096];
	long fd, r, asked = 0;

	fd = sf_sys(SYS_openat, AT_FDCWD, (long)"/proc/self/task",
		    O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return fd;
	while ((r = sf_sys(SYS_getdents64, fd, (long)buf, sizeof buf, 0, 0, 0)) > 0) {
		long off = 0;
		while (off < r) {
			const char *d = buf + off;
			unsigned short reclen = *(const unsigned short *)(d + 16);
			long tid = parse_tid(d + 19);
			off += reclen;
			if (tid <= 0 || seen(tids, *n, tid))
				continue;
			if (*n == cap) {
				r = -E2BIG;
				goto out;
			}
			tids[(*n)++] = tid;
			asked += ask_to_arm(pid, tid);
		}
	}
out:
	sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
	return r < 0 ? r : asked;
}

/* Whether /proc/self/task lists a thread other than the caller (0 when
 * it cannot be read: without /proc the question cannot be asked).
 * unshare(CLONE_THREAD) answers first, in one call instead of five on
 * procfs at every start: the kernel refuses it (EINVAL) when the thread
 * group has another thread, and does nothing otherwise.  Any failure (a
 * container's seccomp profile may deny unshare) falls back to the list. */
int sf_other_threads(void)
{
	char buf[1024];
	long fd, r, self;
	int other = 0;

	if (sf_sys(SYS_unshare, CLONE_THREAD, 0, 0, 0, 0, 0) == 0)
		return 0;
	self = sf_sys(SYS_gettid, 0, 0, 0, 0, 0, 0);
	fd = sf_sys(SYS_openat, AT_FDCWD, (long)"/proc/self/task",
		    O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return 0;
	while (!other && (r = sf_sys(SYS_getdents64, fd, (long)buf, sizeof buf, 0, 0, 0)) > 0) {
		long off = 0;
		while (off < r) {
			long tid = parse_tid(buf + off + 19);
			off += *(const unsigned short *)(buf + off + 16);
			if (tid > 0 && tid != self)
				other = 1;
		}
	}
	sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
	return other;
}

/* Until every thread asked (tids[from..n)) has armed or is gone.  One
 * that still blocks SIGSYS after a while never will take the request
 * (-EDEADLK); a thread being born blocks every signal for a moment. */
static int wait_acks(const long *tids, size_t from, size_t n, long pid)
{
	struct timespec ts = { 0, 1000000 };
	size_t k;
	int i;

	for (i = 0; i < 5000; i++) {
		for (k = from; k < n; k++)
			if (!sf_arm_acked(tids[k]) &&
			    sf_sys(SYS_tgkill, pid, tids[k], 0, 0, 0, 0) != -ESRCH)
				break;
		if (k == n)
			return 0;
		if (i >= 100 && i % 50 == 0 && blocks_sigsys(tids[k]))
			return -EDEADLK;
		sf_sys(SYS_nanosleep, (long)&ts, 0, 0, 0, 0, 0);
	}
	return -ENOSYS;
}

/* Arms the calling thread and has every other thread of the process arm
 * itself: each is sent a SIGSYS carrying a magic value and arms in the
 * handler; scans repeat until one finds no thread it has not asked (a
 * thread may start another meanwhile).  -EDEADLK when a thread keeps
 * SIGSYS blocked. */
int sf_arm_all_threads(void)
{
	size_t cap = 8192, n = 0, from;
	long *tids = sf_pages(cap * sizeof *tids);
	long pid = sf_sys(SYS_getpid, 0, 0, 0, 0, 0, 0);
	long asked = 0;
	int r;

	if (!tids)
		return -ENOMEM;
	sf_lock(&arm_lock);
	sf_arm_acks_reset();
	r = sf_arm();
	tids[n++] = sf_sys(SYS_gettid, 0, 0, 0, 0, 0, 0);
	while (r == 0) {
		from = n;
		asked = scan_tasks(tids, &n, cap, pid);
		if (asked <= 0)
			break;
		sf_rw_concurrent(); /* the rewriter now shares the memory */
		r = wait_acks(tids, from, n, pid);
	}
	sf_unlock(&arm_lock);
	if (r == 0 && asked < 0)
		r = (int)asked;
	sf_unpages(tids, cap * sizeof *tids);
	return r == -EINVAL ? -ENOSYS : r;
}

static int set_error(const char *text)
{
	size_t n = sf_strlen(text);

	if (n + 1 > err_cap) {
		char *m = sf_mem_alloc(n + 1);
		if (!m)
			return -1;
		if (err_text)
			sf_mem_free(err_text, err_cap);
		err_text = m;
		err_cap = n + 1;
	}
	sf_memcpy(err_text, text, n + 1);
	return 0;
}

/* The first policy of a process that started unfiltered. */
static int start_enforcing(const struct sf_policy *p, const char **msg)
{
	int r;

	if (sf_settings_from_env(msg) < 0)
		return -EINVAL;
	*msg = "secfilter_apply: cannot arm Syscall User Dispatch in every thread";
	sf_cfg.active = 1;
	if (sf_install_sigsys(NULL) < 0)
		return -ENOSYS;
	if (sf_cfg.mode == SF_MODE_TRUSTED && !p->pending) {
		/* the policy's filter follows, on every thread */
		return sf_guard_install() < 0 ? -ENOSYS : 0;
	}
	r = sf_arm_all_threads();
	if (r == -EDEADLK) {
		*msg = "secfilter_apply: a thread blocks SIGSYS: it cannot be filtered";
		r = -ENOSYS;
	}
	return r;
}

/* In trusted mode every narrowing is also a kernel filter, on all threads:
 * 1 when it was installed.  sf_kpol names p first, so that a call the new
 * filter denies before sf_cur is p is reported with p's rule. */
static int also_in_kernel(const struct sf_policy *p, struct sf_error *err)
{
	const struct sf_policy *was;
	int r;

	if (sf_cfg.mode != SF_MODE_TRUSTED || p->pending)
		return 0;
	/* Refused, not killed, when the filter in force denies the calls
	 * that install one more (the narrowing could not hold). */
	if (!sf_may(SYS_prctl, PR_SET_NO_NEW_PRIVS) || !sf_may(SYS_seccomp, SECCOMP_SET_MODE_FILTER)) {
		struct sf_buf b = { err->text, 0, sizeof err->text };
		sf_puts(&b, "secfilter_apply: the policy in force denies prctl or seccomp, which a "
			    "narrowing in trusted mode is installed with");
		return -ENOSYS;
	}
	was = __atomic_exchange_n(&sf_kpol, p, __ATOMIC_ACQ_REL);
	r = sf_trusted_install(p, 1, err);
	if (r < 0) {
		__atomic_store_n(&sf_kpol, was, __ATOMIC_RELEASE);
		return r;
	}
	sf_kernel_on = 1;
	return 1;
}

/* secfilter_apply without errno: 0 or -errno, the message in this
 * thread's secfilter_error.  What the authority does for its delegates. */
static int apply_text(const char *policy)
{
	struct sf_error err;
	const struct sf_policy *cur;
	struct sf_policy *np;
	struct publication pub;
	const char *msg;
	int r, in_kernel;

	set_error("");
	if (!policy)
		return set_error("secfilter_apply: NULL policy"), -EINVAL;
	for (;;) {
		cur = sf_policy_now(); /* parsed first if the start deferred it */
		sf_memset(&err, 0, sizeof err);
		r = sf_policy_apply_src(cur, "<api>", SF_SRC_NO_INCLUDE, policy,
					sf_strlen(policy), &np, &err);
		if (r < 0)
			return set_error(err.text), r;
		if (prepare(np, &pub) < 0) {
			sf_policy_free(np);
			return set_error("secfilter_apply: out of memory"), -ENOMEM;
		}
		if (!cur && (r = start_enforcing(np, &msg)) < 0) {
			sf_policy_free(np);
			unprepare(&pub);
			return set_error(msg), r;
		}
		/* the layers it adds, before a kernel filter that may deny the
		 * calls; in force for good, like that filter */
		if ((r = sf_ll_narrow(np, &err)) < 0) {
			sf_policy_free(np);
			unprepare(&pub);
			return set_error(err.text), r;
		}
		if ((in_kernel = also_in_kernel(np, &err)) < 0) {
			sf_policy_free(np);
			unprepare(&pub);
			return set_error(err.text), in_kernel;
		}
		if (__atomic_compare_exchange_n(&sf_cur, &cur, np, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			break;
		/* never published; but a kernel filter made from it is in
		 * force for good, and sf_kpol may name it */
		if (!in_kernel)
			sf_policy_free(np);
		unprepare(&pub);
	}
	commit(np, &pub);
	return 0;
}

/* A delegate's policy follows the authority's after each apply: the
 * wrappers decide against it, secfilter_mode reads it. */
static int delegated_apply(const char *policy)
{
	int r = sf_authority->apply(policy);
	const struct sf_policy *p = __atomic_load_n(sf_authority->cur, __ATOMIC_ACQUIRE);

	set_error(sf_authority->error());
	__atomic_store_n(&sf_cur, p, __ATOMIC_RELEASE);
	__atomic_store_n(&sf_enforce, p && !p->pending ? p : NULL, __ATOMIC_RELEASE);
	return r;
}

SF_EXPORT int secfilter_apply(const char *policy)
{
	int r = sf_authority ? delegated_apply(policy) : apply_text(policy);

	if (r < 0) {
		errno = -r;
		return -1;
	}
	return 0;
}

SF_EXPORT const char *secfilter_error(void)
{
	return err_text ? err_text : "";
}

SF_EXPORT int secfilter_mode(void)
{
	const struct sf_policy *p = sf_policy_now();

	return p && !p->pending ? 2 : 0;
}

const struct sf_authority sf_authority_iface = {
	.cur = &sf_cur,
	.apply = apply_text,
	.error = secfilter_error,
	.shadow = sf_sigsys_shadow_action,
	.violation = sf_violation,
};
