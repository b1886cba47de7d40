/* libsecfilter.so's lowest floor (HACKING.md): the raw syscalls and the
 * allowed region, the library's own string and memory functions, the
 * formatter, pages from the kernel.  It calls nothing of the library's
 * above it.
 *
 * The library lives inside other people's processes.  Once dispatch is
 * armed, every syscall made outside the library's own code region traps,
 * so the library never enters the kernel through libc: it uses the raw
 * stubs below, whose `syscall` instructions all lie in one ELF section
 * (sf_region), the Syscall User Dispatch allowed region. */
#ifndef SECFILTER_BASE_H
#define SECFILTER_BASE_H

#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
#include <linux/filter.h>


/* errno is libc's thread-local variable itself, bound by the loader like
 * any TLS symbol: the errno macro would call __errno_location through the
 * PLT, i.e. whatever the program exports under that name.
 *
 * The library needs no library (Makefile): as an audit module it would
 * otherwise bring a second libc into its namespace, about a quarter of
 * trusted mode's start-up.  What it takes from libc is weak: the copy in
 * the program's namespace binds it to the program's libc, the copy in an
 * audit namespace leaves it unbound and must not touch it (a weak TLS
 * symbol left unbound would be the thread pointer's own first word). */
#undef errno
extern __thread int errno __asm__("errno") __attribute__((weak));
extern char **environ __attribute__((weak));

/* Whether libc's symbols are bound in this copy. */
static inline int sf_libc_bound(void)
{
	return &environ != 0;
}

#define SF_EXPORT __attribute__((visibility("default")))
/* Small variables every start writes: in the library's .data, next to
 * the page that ld.so writes anyway (clearing .bss's first part), rather
 * than scattered over .bss between other files' arrays, where each
 * faulted a page in (two faults when read before written). */
#define SF_HOT __attribute__((section(".data.sf_hot")))
/* A page-aligned table, zero at start: in .lbss, after .bss, so that no
 * page alignment moves .bss off the page .data ends in.  That page is
 * one every start faults in anyway (the loader zeroes its tail), and the
 * allocator's arena (mem.c) now begins in it. */
#define SF_PAGE_BSS __attribute__((section(".lbss.sf_page"), aligned(4096)))
/* Zero at start and seldom used: out of that page too. */
#define SF_COLD_BSS __attribute__((section(".lbss.sf_cold")))
/* Code whose syscall instructions are allowed: it must never be inlined
 * into a caller outside the region, nor split into a cold part elsewhere. */
#define SF_REGION_IN(sec) __attribute__((section(sec), noinline, \
	optimize("no-reorder-blocks-and-partition")))
#define SF_REGION SF_REGION_IN("sf_region")

#define SF_SIGSYS_BIT (1ull << (SIGSYS - 1))
/* glibc's internal signals (SIGCANCEL, SIGSETXID): its pthread_sigmask
 * never blocks them, and neither do our wrappers of it. */
#define SF_GLIBC_INTERNAL_BITS ((1ull << 31) | (1ull << 32))

/* The region's bounds, from the linker. */
extern char __start_sf_region[] __attribute__((visibility("hidden")));
extern char __stop_sf_region[] __attribute__((visibility("hidden")));

/* raw.S: the region's out-of-line stubs. */
long sf_sys(long nr, long a0, long a1, long a2, long a3, long a4, long a5);
/* The same through int $0x80: an i386 call (log mode lets one proceed). */
long sf_sys32(long nr, long a0, long a1, long a2, long a3, long a4, long a5);
/* A syscall made with the stack pointer at sp (16-byte aligned). */
long sf_sys_from(uintptr_t sp, long nr, long a0, long a1);
/* Restorers: the checked one is given to the program's handlers; the
 * plain one returns from our own SIGSYS handler.  The checked one calls
 * sf_on_sigreturn with the frame's ucontext when it is set (sud.c: the
 * trap floor's check, trap/sigreturn.c). */
void sf_restorer_checked(void);
void sf_restorer_plain(void);
extern void (*sf_on_sigreturn)(ucontext_t *uc);
/* A `syscall` instruction OUTSIDE the region: the wrappers send calls that
 * need a full trap context (clone, rt_sigreturn...) through it. */
long sf_trap_syscall(long nr, long a0, long a1, long a2, long a3, long a4, long a5,
		     uintptr_t site);
extern char sf_trap_syscall_ret[];
/* Back to a trapped context without rt_sigreturn (trap/dispatch.c says
 * when it may). */
void sf_trap_return(ucontext_t *uc, uint64_t xfeatures) __attribute__((noreturn));

/* Inline raw syscalls, for SF_REGION functions only. */
static inline __attribute__((always_inline)) long
sf_sc6(long nr, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

static inline int sf_is_err(long r)
{
	return (unsigned long)r > -4096ul;
}

/* A set of n keys (never 0) in a zeroed array, probed from slot at: 1
 * when key is in it, else 0 and added (a full set answers 0 and adds
 * nothing).  Safe for threads and signal handlers racing on it: a slot
 * is claimed with a compare-and-swap. */
static inline int sf_seen(uint64_t *set, unsigned n, uint64_t key, unsigned at)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		uint64_t *e = &set[(at + i) % n], k = __atomic_load_n(e, __ATOMIC_ACQUIRE);

		if (k == 0 && __atomic_compare_exchange_n(e, &k, key, 0, __ATOMIC_ACQ_REL,
							  __ATOMIC_ACQUIRE))
			return 0;
		if (k == key)
			return 1;
	}
	return 0;
}

/* The library's one spinlock: an int, 0 when free.  sf_trylock never
 * waits; sf_lock yields between tries.  No lock is held across anything
 * that could wait for its holder (a signal handler, a fork). */
static inline int sf_trylock(int *l)
{
	return __atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE) == 0;
}

static inline void sf_lock(int *l)
{
	while (!sf_trylock(l))
		sf_sys(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
}

static inline void sf_unlock(int *l)
{
	__atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

/* sud.c: Syscall User Dispatch on the calling thread. */
int sf_arm(void);                 /* this thread; 0 or -errno */
/* Dispatch was armed in this process (and so is in each of its threads):
 * a wrapper of a call the catch-all handles specially does the same. */
extern int sf_armed;
void sf_disarm(void);

/* fmt.c: a tiny formatter, no stdio. */
struct sf_buf {
	char *p;
	size_t len, cap;
};
void sf_puts(struct sf_buf *b, const char *s);
void sf_put_list(struct sf_buf *b, const char *const *parts); /* up to a NULL */
void sf_putn(struct sf_buf *b, const char *s, size_t n);
void sf_putc(struct sf_buf *b, char c);
void sf_putu(struct sf_buf *b, uint64_t v);
void sf_puti(struct sf_buf *b, int64_t v);
void sf_putx(struct sf_buf *b, uint64_t v); /* hex, no 0x */
/* Lower-case hex digits at *s, read: their value, *s past them. */
uint64_t sf_getx(const char **s);
const char *sf_strerror(int e);
/* Memory read or written 8 bytes at a time (libc.c, user.c): any type
 * may lie there, at any alignment (fine on x86-64). */
typedef uint64_t __attribute__((may_alias, aligned(1))) sf_word;
size_t sf_strlen(const char *s);
int sf_streq(const char *a, const char *b);
int sf_startswith(const char *s, const char *prefix);
void *sf_memcpy(void *d, const void *s, size_t n); /* libc.c: its memcpy */
void *sf_memset(void *d, int c, size_t n); /* libc.c: its memset */
int sf_write_all(int fd, const char *s, size_t n); /* 0, or -errno: not all written */

void sf_fatal(const char *msg) __attribute__((noreturn)); /* exit 125 */
static inline const char *sf_str(const char *s)
{
	return s ? s : "";
}
/* Whether the library may make a call now (a kernel filter may forbid
 * it: state.h's sf_may_call); NULL for "any". */
typedef int (*sf_may_fn)(long nr, const uint64_t a[6]);

/* Pages from the kernel (mem.c). */
void *sf_pages(size_t n);
void sf_unpages(void *p, size_t n);

/* The probe itself, for any mode: whether the page at `page` can be
 * read (mem.c).  The caller decides whether it may make the call, whose
 * number and arguments sf_page_probe gives: rt_sigprocmask(-1, page + 8,
 * NULL, 8), at its second word (a set at address 0 would be no set at
 * all), which fails with EFAULT when it cannot read there. */
int sf_page_readable(uintptr_t page);
static inline long sf_page_probe(uintptr_t page, uint64_t a[6])
{
	a[0] = (uint64_t)-1;
	a[1] = page + 8;
	a[2] = 0;
	a[3] = 8;
	a[4] = a[5] = 0;
	return SYS_rt_sigprocmask;
}

#endif
