/* What `secfilter show` and the library's own arming rounds read: the
 * `where` block, and the threads that armed themselves on request. */
#include <sys/syscall.h>

#include "state.h"

/* Threads that armed themselves on request, by tid (written by the
 * SIGSYS handler: an atomic slot, no lock).  Arming rounds (entry/api.c) are
 * serialized and start from an empty list. */
#define ACK_CAP 4096
static long ack_tids[ACK_CAP];
static unsigned ack_n;

/* Where `secfilter show` finds what this image publishes (tools/cmd_show.c
 * reads it through /proc/PID/mem): in the library's writable data, which
 * show finds among the process's file-backed writable mappings by the
 * magic.  The state and the counts themselves begin with magics of their
 * own; the counts and an image's first state are in our .bss, a later
 * state in an anonymous mapping: a memfd named for /proc/PID/maps cost 4
 * calls and a shared-memory page each, about 15 us of a trusted image's
 * start (measured 2026-12-04), an anonymous mapping one call and a
 * mapping more to copy at every fork.  Addresses 0 while
 * nothing is published.  The size is stored before the address: a reader
 * that meets a new address with the old size either finds the header
 * does not fit and reads again, or reads the new text, whose length its
 * own header bounds within its own mapping. */
struct sf_where {
	char magic[16];       /* "secfilter-where" */
	uint32_t version;     /* 1 */
	uint32_t reserved;
	uint64_t state;       /* the state mapping (struct state_head) */
	uint64_t state_size;
	uint64_t counts;      /* action.c's counts, a header and counters */
};

static struct sf_where where __attribute__((aligned(16))) = { "secfilter-where", 1, 0, 0, 0, 0 };

void sf_where_state(const void *m, size_t size)
{
	__atomic_store_n(&where.state_size, (uint64_t)size, __ATOMIC_RELEASE);
	__atomic_store_n(&where.state, (uint64_t)(uintptr_t)m, __ATOMIC_RELEASE);
}

void sf_where_counts(const void *c)
{
	__atomic_store_n(&where.counts, (uint64_t)(uintptr_t)c, __ATOMIC_RELEASE);
}

void sf_ack_arm(void)
{
	unsigned i = __atomic_fetch_add(&ack_n, 1, __ATOMIC_ACQ_REL);

	if (i < ACK_CAP)
		__atomic_store_n(&ack_tids[i], sf_sys(SYS_gettid, 0, 0, 0, 0, 0, 0),
				 __ATOMIC_RELEASE);
}

int sf_arm_acked(long tid)
{
	unsigned n = __atomic_load_n(&ack_n, __ATOMIC_ACQUIRE), i;

	for (i = 0; i < n && i < ACK_CAP; i++)
		if (__atomic_load_n(&ack_tids[i], __ATOMIC_ACQUIRE) == tid)
			return 1;
	return 0;
}

void sf_arm_acks_reset(void)
{
	__atomic_store_n(&ack_n, 0, __ATOMIC_RELEASE);
}
