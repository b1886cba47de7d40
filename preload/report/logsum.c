/* Log mode in the library: each (syscall, rule) reported once, the rest
 * counted, and a summary when the process ends.
 *
 * The table is mapped on the first violation (nothing for a process that
 * has none) and holds up to LOG_ENTRIES (syscall, decision) pairs with the
 * observation of their calls (filter/decode.h); more are counted only.
 * When the process calls exit_group, or executes another program, its
 * summary goes out: to `secfilter run` as datagrams when run supervises
 * the tree (SECFILTER_SUPERVISOR; run writes one summary for all of it),
 * else to SECFILTER_LOG, as the lines to add to the policy.
 *
 * Threads record concurrently: an entry's key is claimed with a
 * compare-and-swap, its count is atomic, its observation is updated under
 * a spin that gives up rather than wait long (a value may then be missing
 * from the summary, never a call from the count).  A forked child starts
 * with an empty table: the table remembers whose it is. */
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <linux/prctl.h>

#include "fnv.h"
#include "report.h"
#include "vreport.h"

#define LOG_ENTRIES 128
#define FREE_KEY 0
#define SPIN_MAX 100000

struct entry {
	uint64_t key;  /* (nr + 1) << 32 | (uint32_t)decision; FREE_KEY: unused */
	int lock;
	struct sf_vsum v;
};

/* A kind of Landlock denial: the rule that would allow it (add:), its
 * first call.  Claimed by its hash (compare-and-swap), then its text is
 * written and it is marked ready. */
#define LL_ENTRIES 32
#define LL_FIX_CAP 1024
struct ll_entry {
	uint64_t hash; /* FREE_KEY: unused */
	int ready;
	long nr;
	uint64_t calls;
	char fix[LL_FIX_CAP];
};

struct table {
	long owner;    /* the pid it counts for */
	uint64_t lost; /* calls of pairs that found no room */
	struct entry e[LOG_ENTRIES];
	struct ll_entry ll[LL_ENTRIES];
};

static struct table *table SF_HOT;
int sf_logsum_active SF_HOT;

static long self_pid(void)
{
	long pid = sf_may_sys(SYS_getpid, 0, 0, 0, 0);

	return pid < 0 ? 0 : pid;
}

/* This process's table, made or emptied for it when it is another's. */
static struct table *mine(void)
{
	struct table *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
	long pid = self_pid();
	unsigned i;

	/* A vfork child shares its parent's memory: the table is the
	 * parent's, and so would be a new one.  Its calls are reported in
	 * full. */
	if (sf_in_vfork)
		return NULL;

	if (!t) {
		struct table *n = sf_may(SYS_mmap, 0) ? sf_pages(sizeof *t) : NULL;
		if (!n)
			return NULL;
		n->owner = pid;
		if (!__atomic_compare_exchange_n(&table, &t, n, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
			sf_unpages(n, sizeof *n);
		else
			t = n;
		__atomic_store_n(&sf_logsum_active, 1, __ATOMIC_RELEASE);
	}
	if (t->owner != pid) { /* a forked child: its parent's counts are not its own */
		for (i = 0; i < LOG_ENTRIES; i++)
			t->e[i].key = FREE_KEY;
		for (i = 0; i < LL_ENTRIES; i++)
			t->ll[i].hash = FREE_KEY;
		t->lost = 0;
		t->owner = pid;
	}
	return t;
}

int sf_logsum_record(const struct sf_call *c, int d)
{
	struct table *t = mine();
	uint64_t key = ((uint64_t)(c->nr + 1) << 32) | (uint32_t)d;
	unsigned i, spins, start = (unsigned)((key * 0x9e3779b97f4a7c15ull) >> 57) % LOG_ENTRIES;

	if (!t)
		return 1; /* nowhere to count: every call is reported */
	for (i = 0; i < LOG_ENTRIES; i++) {
		struct entry *e = &t->e[(start + i) % LOG_ENTRIES];
		uint64_t k = __atomic_load_n(&e->key, __ATOMIC_ACQUIRE);
		int fresh = 0;

		if (k == FREE_KEY) {
			uint64_t want = FREE_KEY;
			e->lock = 1; /* until the entry is set up */
			if (__atomic_compare_exchange_n(&e->key, &want, key, 0, __ATOMIC_ACQ_REL,
							__ATOMIC_ACQUIRE)) {
				e->v.nr = c->nr;
				e->v.decision = d;
				e->v.calls = 0;
				sf_obs_init(&e->v.obs);
				sf_unlock(&e->lock);
				fresh = 1;
				k = key;
			} else {
				k = want;
			}
		}
		if (k != key)
			continue;
		__atomic_fetch_add(&e->v.calls, 1, __ATOMIC_RELAXED);
		for (spins = 0; spins < SPIN_MAX; spins++)
			if (sf_trylock(&e->lock)) {
				sf_obs_add(&e->v.obs, c->nr, c->a);
				sf_unlock(&e->lock);
				break;
			}
		return fresh;
	}
	__atomic_fetch_add(&t->lost, 1, __ATOMIC_RELAXED);
	return 0;
}

int sf_logsum_landlock(long nr, const char *fix, size_t n)
{
	struct table *t = mine();
	uint64_t h = sf_fnv1a(SF_FNV1A_BASIS, fix, n) | 1; /* never FREE_KEY */
	unsigned i;

	if (!t || n >= LL_FIX_CAP)
		return 1; /* nowhere to count it: reported every time */
	for (i = 0; i < LL_ENTRIES; i++) {
		struct ll_entry *e = &t->ll[(h + i) % LL_ENTRIES];
		uint64_t k = __atomic_load_n(&e->hash, __ATOMIC_ACQUIRE), want = FREE_KEY;

		if (k == FREE_KEY && __atomic_compare_exchange_n(&e->hash, &want, h, 0, __ATOMIC_ACQ_REL,
								 __ATOMIC_ACQUIRE)) {
			e->nr = nr;
			e->calls = 1;
			sf_memcpy(e->fix, fix, n);
			e->fix[n] = '\0';
			__atomic_store_n(&e->ready, 1, __ATOMIC_RELEASE);
			return 1;
		}
		if (k == FREE_KEY)
			k = want;
		/* the same hash, and (once written) the same text */
		if (k == h && (!__atomic_load_n(&e->ready, __ATOMIC_ACQUIRE) ||
			       (sf_strlen(e->fix) == n && memcmp(e->fix, fix, n) == 0))) {
			__atomic_fetch_add(&e->calls, 1, __ATOMIC_RELAXED);
			return 0;
		}
	}
	return 1;
}

/* The pairs recorded, compacted, in a scratch copy. */
static size_t collect(const struct table *t, struct sf_vsum *out)
{
	size_t n = 0;
	unsigned i;

	for (i = 0; i < LOG_ENTRIES; i++)
		if (__atomic_load_n(&t->e[i].key, __ATOMIC_ACQUIRE) != FREE_KEY)
			out[n++] = t->e[i].v;
	return n;
}

static void comm_of(char comm[17])
{
	comm[0] = '?';
	comm[1] = '\0';
	sf_may_sys(SYS_prctl, PR_GET_NAME, (long)comm, 0, 0);
	comm[16] = '\0';
}

/* To run: "log NR DECISION COMM\n" and the observation, one datagram per
 * pair.  0 when every one was queued. */
static int tell_supervisor(const struct sf_vsum *v, size_t n, const struct ll_entry *ll,
			   const char *comm)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *name = sf_cfg.supervisor;
	size_t len = name ? sf_strlen(name) : 0, i;
	char msg[2048];
	long fd;
	int rc = 0;

	if (!len || len >= sizeof sa.sun_path - 1 || !sf_may(SYS_socket, AF_UNIX) ||
	    !sf_may(SYS_sendto, 0))
		return -1;
	sf_memcpy(sa.sun_path + 1, name, len);
	fd = sf_sys(SYS_socket, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, 0, 0, 0);
	if (fd < 0)
		return -1;
	for (i = 0; i < n && rc == 0; i++) {
		struct sf_out o = { msg, sizeof msg, 0 };
		sf_out_str(&o, "log ");
		sf_out_s64(&o, v[i].nr);
		sf_out_str(&o, " ");
		sf_out_s64(&o, v[i].decision);
		sf_out_str(&o, " ");
		sf_out_str(&o, comm);
		sf_out_str(&o, "\n");
		{
			struct sf_obs ob = v[i].obs;
			ob.calls = v[i].calls; /* the count, not the observed */
			sf_obs_format(&o, &ob);
		}
		if (sf_out_end(&o) >= sizeof msg ||
		    sf_sys(SYS_sendto, fd, (long)msg, (long)o.len, MSG_DONTWAIT, (long)&sa,
			   (long)(__builtin_offsetof(struct sockaddr_un, sun_path) + 1 + len)) < 0)
			rc = -1;
	}
	/* "landlock NR CALLS COMM\nFIX" for each kind of Landlock denial */
	for (i = 0; i < LL_ENTRIES && rc == 0; i++) {
		struct sf_out o = { msg, sizeof msg, 0 };
		if (!__atomic_load_n(&ll[i].ready, __ATOMIC_ACQUIRE))
			continue;
		sf_out_str(&o, "landlock ");
		sf_out_s64(&o, ll[i].nr);
		sf_out_str(&o, " ");
		sf_out_u64(&o, ll[i].calls, 10);
		sf_out_str(&o, " ");
		sf_out_str(&o, comm);
		sf_out_str(&o, "\n");
		sf_out_str(&o, ll[i].fix);
		if (sf_out_end(&o) >= sizeof msg ||
		    sf_sys(SYS_sendto, fd, (long)msg, (long)o.len, MSG_DONTWAIT, (long)&sa,
			   (long)(__builtin_offsetof(struct sockaddr_un, sun_path) + 1 + len)) < 0)
			rc = -1;
	}
	sf_may_sys(SYS_close, fd, 0, 0, 0);
	return rc;
}

/* The summary, as run writes it (tools/treelog.c), for one process. */
static void write_summary(const struct sf_vsum *v, size_t n, const struct ll_entry *ll,
			  uint64_t lost, const char *comm)
{
	size_t cap = 64u << 10, i, k;
	char *buf = sf_may(SYS_mmap, 0) ? sf_pages(cap) : NULL;
	uint64_t total = lost;
	unsigned kinds = 0, denied = 0;
	struct sf_out o;

	if (!buf)
		return;
	o = (struct sf_out){ buf, cap, 0 };
	for (i = 0; i < n; i++) {
		total += v[i].calls;
		for (k = 0; k < i && v[k].nr != v[i].nr; k++)
			;
		kinds += k == i;
	}
	sf_out_str(&o, "secfilter: ");
	sf_out_str(&o, comm);
	sf_out_str(&o, "[");
	sf_out_s64(&o, self_pid());
	sf_out_str(&o, "]: log mode: ");
	for (i = 0; i < LL_ENTRIES; i++)
		denied += __atomic_load_n(&ll[i].ready, __ATOMIC_ACQUIRE) != 0;
	if (n || lost) {
		sf_out_u64(&o, total, 10);
		sf_out_str(&o, total == 1 ? " call" : " calls");
		sf_out_str(&o, " the policy denies ran, of ");
		sf_out_u64(&o, kinds, 10);
		sf_out_str(&o, kinds == 1 ? " system call" : " system calls");
		sf_out_str(&o, " (each reported once)");
	}
	if (denied) { /* Landlock has no log mode: those failed */
		sf_out_str(&o, n || lost ? "; Landlock denied " : "Landlock denied ");
		sf_out_u64(&o, denied, 10);
		sf_out_str(&o, denied == 1 ? " kind of access" : " kinds of access");
		sf_out_str(&o, " (log mode cannot let them through)");
	}
	sf_out_str(&o, "; these lines let them run:\n");
	for (i = 0; i < n; i++) {
		char fix[4096];
		struct sf_out fo = { fix, sizeof fix, 0 };
		uint64_t calls = sf_vsum_fix(&fo, sf_policy_now(), v, n, i);
		size_t w;

		if (!calls || sf_out_end(&fo) >= sizeof fix || !fo.len)
			continue;
		sf_out_str(&o, "    ");
		sf_out_str(&o, fix);
		for (w = fo.len; w < 40; w++)
			sf_out_str(&o, " ");
		sf_out_str(&o, "  # ");
		sf_out_u64(&o, calls, 10);
		sf_out_str(&o, calls == 1 ? " call: " : " calls: ");
		sf_out_str(&o, comm);
		sf_out_str(&o, "\n");
	}
	for (i = 0; i < LL_ENTRIES; i++) {
		size_t w;

		if (!__atomic_load_n(&ll[i].ready, __ATOMIC_ACQUIRE))
			continue;
		sf_out_str(&o, "    ");
		sf_out_str(&o, ll[i].fix);
		for (w = sf_strlen(ll[i].fix); w < 40; w++)
			sf_out_str(&o, " ");
		sf_out_str(&o, "  # denied by Landlock ");
		sf_out_u64(&o, ll[i].calls, 10);
		sf_out_str(&o, ll[i].calls == 1 ? " time: " : " times: ");
		sf_out_str(&o, comm);
		sf_out_str(&o, "\n");
	}
	if (lost) {
		sf_out_str(&o, "    # and ");
		sf_out_u64(&o, lost, 10);
		sf_out_str(&o, " calls of more kinds than the library counts\n");
	}
	if (sf_out_end(&o) < cap)
		sf_log_emit(buf, o.len);
	sf_unpages(buf, cap);
}

void sf_logsum_flush(void)
{
	struct table *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
	struct sf_vsum *v;
	char comm[17];
	size_t n, size = LOG_ENTRIES * sizeof(struct sf_vsum);
	uint64_t lost;
	unsigned i;
	int ll = 0;

	if (!t || t->owner != self_pid())
		return;
	v = sf_may(SYS_mmap, 0) ? sf_pages(size) : NULL;
	if (!v)
		return;
	n = collect(t, v);
	lost = t->lost;
	for (i = 0; i < LL_ENTRIES && !ll; i++)
		ll = __atomic_load_n(&t->ll[i].ready, __ATOMIC_ACQUIRE);
	if (n || lost || ll) {
		/* as a report is made: dispatch off, signals blocked, so that
		 * its calls are the library's, not counted as the program's
		 * (and not trapped) */
		uint64_t all = ~0ull, old = 0;
		const struct sf_policy *cur = sf_policy_now();
		int interpose = sf_cfg.mode == SF_MODE_INTERPOSE || (cur && cur->pending);
		int masked = sf_may(SYS_rt_sigprocmask, SIG_SETMASK);

		if (masked)
			sf_sys(SYS_rt_sigprocmask, SIG_SETMASK, (long)&all, (long)&old, 8, 0, 0);
		if (interpose)
			sf_disarm();
		comm_of(comm);
		if (tell_supervisor(v, n, t->ll, comm) != 0)
			write_summary(v, n, t->ll, lost, comm);
		if (interpose && sf_arm() != 0)
			sf_die();
		if (masked)
			sf_sys(SYS_rt_sigprocmask, SIG_SETMASK, (long)&old, 0, 8, 0, 0);
	}
	/* told once: a failed exec goes on counting afresh */
	for (n = 0; n < LOG_ENTRIES; n++)
		t->e[n].key = FREE_KEY;
	for (i = 0; i < LL_ENTRIES; i++) {
		t->ll[i].ready = 0;
		t->ll[i].hash = FREE_KEY;
	}
	t->lost = 0;
	sf_unpages(v, size);
}
