/* Reading the program's memory where the kernel would: the arguments of
 * the calls the library rewrites (masks, sigaction structs, clone3's
 * struct, execve's envp).  A bad pointer there must be the kernel's
 * EFAULT, not a SIGSEGV inside the library.
 *
 * Readability is a property of pages, and the kernel tells it without
 * side effects: rt_sigprocmask with an invalid `how` reads its 8-byte set
 * (EFAULT if it cannot) and then refuses, changing nothing.  So each page
 * a range touches is probed once, at a word of its own, and the range is
 * then read directly.  One call per page, no pid to look up (a cached
 * one would name the parent after a fork), and a call every policy the
 * program can live with allows anyway.
 *
 * Not probed: the pages of the initial stack from argv's vector up to
 * its top (sf_start_lo to sf_start_hi, obj.h), where the kernel put the
 * start's arguments and environment, which a program that keeps environ
 * execs with (2 probes of each such exec).  They are one mapping with the
 * main thread's frames below them, and a call made on that stack (its
 * stack pointer within MAIN_REACH below argv) vouches for the frames
 * between its stack pointer and argv too: execv's vector built in main's
 * frame.  Nor the read-only segments of the main program and libc
 * (sf_in_image_ro), where the constant paths and words of
 * execl("/bin/true", ...) or system()'s "/bin/sh" lie.  A program that
 * unmaps or protects those and then passes a pointer into them crashes
 * in the library instead of getting EFAULT.
 *
 * In interposition mode only: under a kernel filter the library's own
 * calls are filtered too, and a probe the policy denies would kill the
 * program for a call it never made.  There the read is plain, as before:
 * a bad pointer crashes, which is not an unfiltered run. */
#include <errno.h>
#include <sys/syscall.h>

#include "trap.h"

#define PAGE 4096ul
#define PAGE_OF(p) ((uintptr_t)(p) & ~(PAGE - 1))

/* The pages of the program's stack the rewritten path has just written
 * its frame to (rewrite.c, sf_rw_decide), for the call it is handling:
 * readable without asking.  The sigaction struct or mask a libc function
 * passes lies on its own frame, just above: the 64 rt_sigaction calls of
 * a posix_spawn child were 64 probes. */
static __thread uintptr_t known_lo, known_hi;

void sf_user_known(uintptr_t lo, uintptr_t hi, uintptr_t *old)
{
	old[0] = known_lo;
	old[1] = known_hi;
	known_lo = lo;
	known_hi = hi;
}

/* The pages a caller found readable, probed no more.  A page found
 * readable stays so unless the program unmaps it meanwhile, its own race.
 * An environment's pointers lie in a page or two, its strings in a few
 * that alternate (make builds a child's environment from strings
 * scattered over its heap): with one page remembered, the 50 strings of
 * a posix_spawn child's environment were 31 probes, with 8 about 20 (its
 * heap pages alternate among more than 8), with 32 a probe a page. */
#define SEEN_PAGES 32

struct seen {
	uintptr_t page[SEEN_PAGES];
	unsigned next, last;
	uintptr_t stack_lo; /* the lowest page of the initial stack known mapped; 0: sf_start_lo's */
};

/* How far below argv a stack pointer is taken to be on the initial stack:
 * the kernel leaves at least 128 MiB below it before the first mapping
 * it places (mmap_base), so only the program's MAP_FIXED could put
 * another mapping this close. */
#define MAIN_REACH (8ul << 20)

static int page_readable(uintptr_t page, struct seen *s)
{
	unsigned i;

	if (sf_cfg.mode == SF_MODE_TRUSTED || (page >= known_lo && page <= known_hi && known_hi))
		return 1;
	/* The start's own argv and environment (what a program execs with
	 * when it keeps environ), on the initial stack: 2 probes of every
	 * such exec */
	if (page >= PAGE_OF(s->stack_lo ? s->stack_lo : sf_start_lo) &&
	    page <= PAGE_OF(sf_start_hi) && sf_start_hi)
		return 1;
	/* most strings lie in the page of the one before them */
	if (s->page[s->last] == page + 1)
		return 1;
	for (i = 0; i < SEEN_PAGES; i++)
		if (s->page[i] == page + 1) { /* +1: 0 is an empty slot */
			s->last = i;
			return 1;
		}
	if (!sf_in_image_ro(page) && !sf_page_readable(page))
		return 0;
	s->last = s->next++ % SEEN_PAGES;
	s->page[s->last] = page + 1;
	return 1;
}

static long read_cached(void *dst, const void *src, size_t n, struct seen *last)
{
	uintptr_t p;

	if (n == 0)
		return 0;
	if ((uintptr_t)src + n < (uintptr_t)src)
		return -EFAULT;
	for (p = PAGE_OF(src); p < (uintptr_t)src + n; p += PAGE)
		if (!page_readable(p, last))
			return -EFAULT;
	sf_memcpy(dst, src, n);
	return 0;
}

long sf_user_read(void *dst, const void *src, size_t n)
{
	struct seen none = { { 0 }, 0, 0, 0 };

	return read_cached(dst, src, n, &none);
}

/* Whether [p, p+n) can be written, for the frame a clone child starts
 * from: 0 or -EFAULT.  rt_sigprocmask writes the current mask at each
 * page probed (the caller overwrites the range anyway). */
long sf_user_writable(void *p, size_t n)
{
	uintptr_t a = (uintptr_t)p, q;

	if (n == 0)
		return 0;
	if (a + n < a)
		return -EFAULT;
	for (q = a; q < a + n; q = PAGE_OF(q) + PAGE)
		if (sf_sys(SYS_rt_sigprocmask, SIG_BLOCK, 0, (long)q, 8, 0, 0) == -EFAULT)
			return -EFAULT;
	/* The last word too: the probe at q wrote 8 bytes from q only. */
	if (n >= 8 && sf_sys(SYS_rt_sigprocmask, SIG_BLOCK, 0, (long)(a + n - 8), 8, 0, 0) == -EFAULT)
		return -EFAULT;
	return 0;
}

/* Whether the string at s can be read up to its NUL: 0 or -EFAULT.  A
 * word at a time (an exec's environment is a few KiB, every byte of it
 * looked at): an aligned word never straddles a page, so it reads nothing
 * the page's probe did not vouch for. */
#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

static long str_ok(const char *s, struct seen *last)
{
	for (;;) {
		const char *end = (const char *)(PAGE_OF(s) + PAGE);
		const sf_word *w;

		if (!page_readable(PAGE_OF(s), last))
			return -EFAULT;
		for (; s < end && ((uintptr_t)s & 7); s++)
			if (*s == '\0')
				return 0;
		for (w = (const sf_word *)s; (const char *)w < end; w++)
			if ((*w - ONES) & ~*w & HIGHS) /* a zero byte in it */
				return 0;
		s = end;
	}
}

/* The first n bytes of the string at s (fewer if it ends before): 0 or
 * -EFAULT.  Its page only, unless those bytes run into the next one. */
static long head_ok(const char *s, size_t n, struct seen *last)
{
	const char *end = (const char *)(PAGE_OF(s) + PAGE);

	if (!page_readable(PAGE_OF(s), last))
		return -EFAULT;
	if ((size_t)(end - s) >= n)
		return 0;
	for (; s < end; s++)
		if (*s == '\0')
			return 0;
	return page_readable(PAGE_OF(end), last) ? 0 : -EFAULT;
}

/* An execve vector (argv, envp): its pointers and its strings, whole
 * (head 0) or their first head bytes.  0 or -EFAULT.  NULL is a valid
 * empty vector for Linux. */
static long vec_ok(char *const *v, size_t head, struct seen *seen)
{
	uintptr_t vpage = 1; /* no page's address */
	char *s;
	long r;

	if (!v)
		return 0;
	for (;; v++) {
		/* a pointer in the page of the one before it: read (the
		 * strings between make it miss the last page seen) */
		if (PAGE_OF(v) == vpage && PAGE_OF((uintptr_t)v + sizeof s - 1) == vpage)
			s = *v;
		else if ((r = read_cached(&s, v, sizeof s, seen)) < 0)
			return r;
		vpage = PAGE_OF(v);
		if (!s)
			return 0;
		if ((r = head ? head_ok(s, head, seen) : str_ok(s, seen)) < 0)
			return r;
	}
}

/* execve's path (its length, or -EFAULT), argv and envp, with the pages
 * found readable shared: argv's strings lie beside envp's.  sp: the
 * program's stack pointer at the call. */
long sf_user_exec_args(const char *path, char *const *argv, char *const *envp, size_t head,
		       uintptr_t sp)
{
	struct seen seen = { { 0 }, 0, 0, 0 };
	long r;

	if (sf_start_hi && sp <= sf_start_lo && sf_start_lo - sp < MAIN_REACH)
		seen.stack_lo = sp;

	if (!path || (r = str_ok(path, &seen)) < 0 || (r = vec_ok(envp, head, &seen)) < 0 ||
	    (r = vec_ok(argv, head, &seen)) < 0)
		return -EFAULT;
	return (long)sf_strlen(path);
}

/* The whole of a string whose first page a check of its head found
 * readable: 0 or -EFAULT, asking about the pages after that one only. */
long sf_user_str_rest(const char *s)
{
	struct seen seen = { { PAGE_OF(s) + 1 }, 1, 0, 0 };

	return str_ok(s, &seen);
}
