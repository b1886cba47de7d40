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
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "mem.h"
#include "secfilter.h"
#include "sf.h"
#include "unw.h"

const char *sf_env_policy;

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

static void *state_map;
static size_t state_size;
static uint64_t generation;
static int state_lock;

static int arm_acks;

static const char *skip_pending_line(const char *text)
{
	static const char line[] = "on_next_syscall: 1\n";

	return sf_startswith(text, line) ? text + sizeof line - 1 : text;
}

/* "SECFILTER_POLICY=<text>" for exec: in the new image the policy is in
 * force, so a pending marker is dropped. */
static char *env_text(const char *text, size_t len)
{
	static const char prefix[] = "SECFILTER_POLICY=";
	const char *body = skip_pending_line(text);
	size_t blen = len - (size_t)(body - text);
	char *s = sf_mem_alloc(sizeof prefix + blen);

	if (!s)
		return NULL;
	sf_memcpy(s, prefix, sizeof prefix - 1);
	sf_memcpy(s + sizeof prefix - 1, body, blen);
	s[sizeof prefix - 1 + blen] = '\0';
	return s;
}

static void *new_state_mapping(const char *text, size_t len, size_t *size)
{
	struct state_head *h;
	long fd, r;

	*size = (sizeof *h + len + 4095) & ~(size_t)4095;
	fd = sf_sys(SYS_memfd_create, (long)"secfilter-state", MFD_CLOEXEC, 0, 0, 0, 0);
	if (fd < 0)
		return NULL;
	r = sf_sys(SYS_ftruncate, fd, (long)*size, 0, 0, 0, 0);
	if (r == 0)
		r = sf_sys(SYS_mmap, 0, (long)*size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE, fd, 0);
	sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
	if (sf_is_err(r))
		return NULL;
	h = (struct state_head *)r;
	sf_memcpy(h->magic, "secfilter-state", 16);
	h->version = 1;
	h->length = (uint32_t)len;
	sf_memcpy(h + 1, text, len);
	return h;
}

/* `secfilter show PID` reads this mapping through /proc/PID/mem. */
static void *swap_state(void *m, size_t size, size_t *old_size)
{
	void *old = state_map;

	((struct state_head *)m)->generation = ++generation;
	*old_size = state_size;
	state_map = m;
	state_size = size;
	return old;
}

static void spin_lock(int *l)
{
	while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
		sf_sys(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
}

/* After sf_cur became p: the hot path, exec's environment and the state
 * mapping follow.  Publications are serialized, and one whose block is no
 * longer sf_cur steps aside (the newer one's publisher does the work), so
 * an older, wider block can never be published last. */
int sf_publish(const struct sf_policy *p)
{
	size_t len = sf_policy_print(p, NULL, 0), size = 0, old_size = 0;
	char *text = sf_mem_alloc(len + 1);
	char *env = NULL;
	void *m = NULL, *old = NULL;

	if (text) {
		sf_policy_print(p, text, len + 1);
		env = env_text(text, len);
		m = new_state_mapping(text, len, &size);
		sf_mem_free(text, len + 1);
	}
	if (!m || !env) {
		if (m)
			sf_unpages(m, size);
		return -ENOMEM;
	}
	spin_lock(&state_lock);
	if (__atomic_load_n(&sf_cur, __ATOMIC_ACQUIRE) == p) {
		__atomic_store_n(&sf_env_policy, env, __ATOMIC_RELEASE);
		__atomic_store_n(&sf_enforce, p->pending ? NULL : p, __ATOMIC_RELEASE);
		old = swap_state(m, size, &old_size);
	} else {
		old = m;
		old_size = size;
	}
	__atomic_store_n(&state_lock, 0, __ATOMIC_RELEASE);
	if (old)
		sf_unpages(old, old_size);
	return 0;
}

void sf_ack_arm(void)
{
	__atomic_add_fetch(&arm_acks, 1, __ATOMIC_RELEASE);
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
 * were asked, or -errno. */
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
			if (tid <= 0 || seen(tids, *n, tid) || *n == cap)
				continue;
			tids[(*n)++] = tid;
			asked += ask_to_arm(pid, tid);
		}
	}
	sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
	return r < 0 ? r : asked;
}

static int wait_acks(int want)
{
	struct timespec ts = { 0, 1000000 };
	int i;

	for (i = 0; i < 5000; i++) {
		if (__atomic_load_n(&arm_acks, __ATOMIC_ACQUIRE) >= want)
			return 0;
		sf_sys(SYS_nanosleep, (long)&ts, 0, 0, 0, 0, 0);
	}
	return -ENOSYS;
}

/* A process that started without a policy: every existing thread must arm
 * itself.  Each is sent a SIGSYS carrying a magic value and arms in the
 * handler; scans repeat until one finds no thread it has not asked. */
int sf_arm_all_threads(void)
{
	size_t cap = 8192, n = 0;
	long *tids = sf_pages(cap * sizeof *tids);
	long pid = sf_sys(SYS_getpid, 0, 0, 0, 0, 0, 0);
	long asked;
	int want = __atomic_load_n(&arm_acks, __ATOMIC_ACQUIRE), r = 0;

	if (!tids)
		return -ENOMEM;
	r = sf_arm();
	tids[n++] = sf_sys(SYS_gettid, 0, 0, 0, 0, 0, 0);
	while (r == 0 && (asked = scan_tasks(tids, &n, cap, pid)) > 0) {
		want += (int)asked;
		r = wait_acks(want);
	}
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

static int fail(int e, const char *text)
{
	set_error(text);
	errno = e;
	return -1;
}

/* The first policy of a process that started unfiltered. */
static int start_enforcing(const struct sf_policy *p, const char **msg)
{
	if (sf_settings_from_env(msg) < 0)
		return -EINVAL;
	*msg = "secfilter_apply: cannot arm Syscall User Dispatch in every thread";
	sf_unwind_load();
	sf_cfg.active = 1;
	if (sf_cfg.mode == SF_MODE_TRUSTED)
		sf_guard_map();
	if (sf_install_sigsys() < 0)
		return -ENOSYS;
	if (sf_cfg.mode == SF_MODE_TRUSTED && !p->pending) {
		sf_guard_install(); /* the policy's filter follows, on every thread */
		return 0;
	}
	return sf_arm_all_threads();
}

/* In trusted mode every narrowing is also a kernel filter, on all threads. */
static int also_in_kernel(const struct sf_policy *p, struct sf_error *err)
{
	if (sf_cfg.mode != SF_MODE_TRUSTED || p->pending)
		return 0;
	return sf_trusted_install(p, SECCOMP_RET_TRAP, err);
}

SF_EXPORT int secfilter_apply(const char *policy)
{
	struct sf_error err;
	const struct sf_policy *cur;
	struct sf_policy *np;
	const char *msg;
	int r;

	set_error("");
	if (!policy)
		return fail(EINVAL, "secfilter_apply: NULL policy");
	for (;;) {
		cur = __atomic_load_n(&sf_cur, __ATOMIC_ACQUIRE);
		sf_memset(&err, 0, sizeof err);
		r = sf_policy_apply(cur, "<api>", policy, sf_strlen(policy), &np, &err);
		if (r < 0)
			return fail(-r, err.text);
		if (!cur && (r = start_enforcing(np, &msg)) < 0) {
			sf_policy_free(np);
			return fail(-r, msg);
		}
		if ((r = also_in_kernel(np, &err)) < 0) {
			sf_policy_free(np);
			return fail(-r, err.text);
		}
		if (__atomic_compare_exchange_n(&sf_cur, &cur, np, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			break;
		sf_policy_free(np); /* never published: nobody reads it */
	}
	if (sf_publish(np) < 0)
		return fail(ENOMEM, "secfilter_apply: out of memory");
	return 0;
}

SF_EXPORT const char *secfilter_error(void)
{
	return err_text ? err_text : "";
}

SF_EXPORT int secfilter_mode(void)
{
	const struct sf_policy *p = __atomic_load_n(&sf_cur, __ATOMIC_ACQUIRE);

	return p && !p->pending ? 2 : 0;
}
