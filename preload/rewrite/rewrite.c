/* The catch-all without a signal: a syscall site that has trapped often
 * enough (REWRITE_AT) is rewritten so that its later calls reach the
 * policy decision through a jump, not through SIGSYS (issue 10).  Anything not proven safe keeps
 * the trap, which stays the catch-all.
 *
 * How a site is rewritten
 *
 * A trap gives the address after a `syscall` (0f 05) the program really
 * executed.  The rewriter finds the function around it in the object's
 * file (.eh_frame's FDE ranges, else the symbol table), decodes that
 * function's instructions forward from its first byte (x86dec.c) and
 * must land exactly on the `syscall`: the instruction boundaries before
 * the site are then known.  It picks a start s among the last few
 * instructions before the `syscall`, all of which it can run elsewhere
 * (register moves, immediates, TLS and stack loads, conditional jumps,
 * lea of a rip-relative address; nothing that calls, returns, jumps
 * away, reads memory from rip or may fault elsewhere than on the stack),
 * and replaces the 5 bytes at s with `jmp rel32` to a trampoline: a copy
 * of the displaced instructions (conditional jumps and lea re-aimed at
 * their original targets), then the way into the library (rwentry.S),
 * which decides with the trap path's own decision (sf_decision), issues
 * the call from the allowed region and jumps back to the address after
 * the original `syscall`.  zpoline and lazypoline make `syscall` a
 * `call *%rax` into a trampoline at address 0, which needs
 * vm.mmap_min_addr=0; this needs neither that nor any privilege.
 *
 * Why no jump can go wrong
 *
 * 2 bytes of `syscall` have no room for 5, so the jump covers the
 * instructions before it and sometimes the `syscall` itself.  Rather
 * than proving that nothing jumps into the replaced bytes (indirect
 * jumps, landing pads, return addresses, other threads stopped there and
 * signal frames all could), the rewrite makes every instruction boundary
 * inside them safe to land on:
 *   - bytes from s+5 on are unchanged (the jump may reach past the
 *     syscall: glibc's `xor %eax,%eax; syscall` at a function's start);
 *   - for a boundary b inside [s, s+5), the jump's bytes from b to s+5
 *     are exactly the original bytes there: the trampoline is placed
 *     where the jump's displacement has those bytes as its high bytes
 *     (e.g. `mov %rbx,%rdi; syscall`, Go's: the displacement's top two
 *     bytes are 0f 05, a trampoline 84.9 MB ahead).  Whoever lands at b
 *     runs the original instructions and the original `syscall`, which
 *     traps as before;
 *   - s itself now jumps to the trampoline, which runs the same
 *     instructions and then the same decision.
 * So any control transfer to any instruction boundary behaves as it did,
 * whether it comes from a jump, a return, a thread paused there or a
 * sigreturn.  The original `syscall` stays executable at its address
 * (when the jump covers it, through those displacement bytes), and the
 * fast path falls back to it for everything it does not itself allow:
 * every call the policy does not simply allow, whatever its action (kill,
 * log, trap, an errno), and clone/fork/execve/rt_sigreturn (they need a
 * trap frame).  The report, its ip, its backtrace and the errno of a bad
 * pointer are then those of the trap, by construction.
 *
 * How the bytes change while other threads run them
 *
 * The bytes that change (the opcode and the free part of the
 * displacement) must lie in one naturally aligned 8- or 16-byte block,
 * replaced by one locked compare-and-exchange: another CPU fetches the
 * old instruction or the new one, never a mixture, and the old one is
 * still correct.  The trampoline is written first (and every CPU running
 * the process serialized with membarrier), the site published last.  The
 * code page is made writable for that one store, with every signal
 * blocked, then given back its protection as /proc/self/maps showed it;
 * no page stays writable and executable.  Only private, file-backed,
 * non-writable code mappings are rewritten, whose file (same device and
 * inode) provides the pristine bytes that were decoded; the bytes in
 * memory must equal them.  A fork waits for a rewrite in progress
 * (sf_rw_fork_begin), so a child never inherits a half-done one.
 * Trampolines live in pages of our own, mapped with MAP_FIXED_NOREPLACE
 * in a gap of the address space within reach of the site, away from the
 * heap's and the main stack's room to grow; they are never freed.
 *
 * Rewriting is per process and per site: threads and forked children
 * share or copy the rewritten code and read the policy in force at each
 * call; exec starts a clean image.  SECFILTER_REWRITE=0 turns it off
 * (and exec passes that on). */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <linux/prctl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sched.h>

#include "leb128.h"
#include "rewrite.h"
#include "x86dec.h"

#define PAGE 4096ul
#define PAGE_DOWN(a) ((uintptr_t)(a) & ~(PAGE - 1))
#define USER_TOP 0x7ffffffff000ul
#define LOW_LIMIT 0x100000ul          /* no trampoline below 1 MiB */
#define HEAP_ROOM (32ul << 20)        /* left free above the brk heap */
#define STACK_ROOM_MIN (256ul << 20)  /* left free below the main stack */

/* ---- the switch ---- */

#define REWRITE_AT 32 /* the default: see trapped_enough */

static int rw_off SF_HOT;   /* SECFILTER_REWRITE=0; written by many starts */
static unsigned rw_at = REWRITE_AT; /* SECFILTER_REWRITE=N */
static int rw_full SF_HOT;  /* the site table is full: no more rewriting */
/* -1 until the first placement needs it. */
static int have_cx16 = -1;

/* Whether cmpxchg16b exists.  cpuid exits to the hypervisor in a VM
 * (6.4 us on the Intel VM here, 15 on the PVM one: two thirds of
 * rewrite_in's perf samples in a sed rewriting early).  glibc's loader
 * ran it already and keeps the raw registers of leaf 1, which libc
 * returns (__x86_get_cpuid_feature_leaf, glibc 2.33 on: a read of the
 * loader's data, no syscall); the address is from libc's own symbol
 * table, not what the program interposes.  Without it, cpuid. */
struct cpuid_leaf {
	unsigned cpuid[4], active[4]; /* eax, ebx, ecx, edx */
};

static int cpu_cx16(void)
{
	const struct cpuid_leaf *(*get)(unsigned) =
		(const struct cpuid_leaf *(*)(unsigned))sf_libc_sym("__x86_get_cpuid_feature_leaf");
	const struct cpuid_leaf *leaf1 = get ? get(0) : NULL; /* 0: CPUID_INDEX_1 */
	unsigned a = 1, b, c = 0, d;

	if (leaf1)
		return (leaf1->cpuid[2] >> 13) & 1;
	__asm__("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	return (c >> 13) & 1;
}

static void rw_trapped(const struct sf_call *c);
static uintptr_t rw_site_of(uintptr_t ip, const ucontext_t *uc);

int sf_rw_env_scanned SF_HOT;
const char *sf_rw_env_value SF_HOT;

/* After sf_init (priority 101): a bad value ends a filtered program
 * before main, like any other bad setting.  The loader passes the
 * environment (environ may be unbound or not yet set: init.c). */
__attribute__((constructor)) static void rw_settings(int argc, char **argv, char **envp)
{
	static const char name[] = "SECFILTER_REWRITE=";
	const char *v = NULL;
	char **ep;

	(void)argc;
	(void)argv;
	if (sf_rw_env_scanned)
		v = sf_rw_env_value;
	for (ep = sf_rw_env_scanned ? NULL : envp; ep && *ep; ep++)
		if (**ep == 'S' && sf_startswith(*ep, name))
			v = *ep + sizeof name - 1;
	if (v) {
		const char *p = v;
		unsigned n = 0;
		while (*p >= '0' && *p <= '9' && n < 100000)
			n = n * 10 + (unsigned)(*p++ - '0');
		if (p != v && !*p && n < 100000) {
			rw_off = n == 0;
			rw_at = n;
			if (n != REWRITE_AT)
				sf_rw_set_env(n);
		} else if (!sf_cfg.active) {
			rw_off = 1;
		} else {
			char msg[160];
			struct sf_buf b = { msg, 0, sizeof msg - 1 };
			sf_puts(&b, "secfilter: SECFILTER_REWRITE: expected 0 (never) or N (a site is "
				    "rewritten at its Nth trap), got '");
			sf_putn(&b, v, sf_strlen(v) < 64 ? sf_strlen(v) : 64);
			sf_puts(&b, "'");
			msg[b.len] = '\0';
			sf_fatal(msg);
		}
	}
	/* The settings are read: rewriting may start (every start writes
	 * the hooks). */
	__atomic_store_n(&sf_rw_site_hook, rw_site_of, __ATOMIC_RELEASE);
	if (!rw_off)
		__atomic_store_n(&sf_rw_trapped, rw_trapped, __ATOMIC_RELEASE);
}

/* ---- one rewriter at a time; sites seen ----
 * The lock is only ever tried by the rewriter (which then skips: the
 * next trap tries again) and waited for by fork, never held across
 * anything that could wait for fork. */

/* Every site tried, rewritten or not: a site that cannot be rewritten
 * must not cost an analysis at each of its traps.  Open addressing,
 * written under the lock, read without it, and only for a site that has
 * trapped enough (seen[] below, which every trap writes): the pages the
 * hash scatters slots over are pages a process faults in (a filtered sed
 * touched 12 with 4096 and 1024 slots).  A process seldom has more than
 * a hundred sites (python3 importing ssl, asyncio and sqlite3: 112); one
 * whose table fills stops rewriting, and its sites keep trapping. */
#define NSITES 1024u
static uintptr_t sites[NSITES] SF_PAGE_BSS; /* 2 pages, not 3 */
static unsigned nsites;

static unsigned site_slot(uintptr_t a)
{
	return (unsigned)((a * 0x9e3779b97f4a7c15ull) >> 52) & (NSITES - 1);
}

static int site_known(uintptr_t a)
{
	unsigned i = site_slot(a), k;

	for (k = 0; k < NSITES; k++, i = (i + 1) & (NSITES - 1)) {
		uintptr_t v = __atomic_load_n(&sites[i], __ATOMIC_ACQUIRE);
		if (v == a)
			return 1;
		if (v == 0)
			return 0;
	}
	return 1;
}

static void site_add(uintptr_t a)
{
	unsigned i = site_slot(a);

	if (++nsites >= NSITES * 3 / 4)
		__atomic_store_n(&rw_full, 1, __ATOMIC_RELEASE);
	while (sites[i])
		i = (i + 1) & (NSITES - 1);
	__atomic_store_n(&sites[i], a, __ATOMIC_RELEASE);
}

/* A site is rewritten at its REWRITE_AT-th allowed trap, not its first:
 * a rewrite (a dozen calls, the code page copied on write, a trampoline
 * page, the object's file read for the decoding) costs about 8 traps in a
 * process that has rewritten before and more in a fresh one, whose pages
 * all fault in, and in a short-lived process most sites trap a few times
 * (a filtered `sed` starting: 11 sites, 28 traps at most; rewriting its
 * four locale sites at their second trap made its start 75 us slower).
 * Rewriting at the first trap made a shell loop of 750 processes 1.75x as
 * slow as without the library, against 1.28x with no rewriting at all
 * (CPU time, b_start's loop, 2026-12-03).  SECFILTER_REWRITE=N sets it.
 * Counted without the lock, from the SIGSYS handler: a lost count is one
 * more trap.  A crowded table counts nothing and rewrites at once.
 *
 * A slot is first touched by a write (the compare-and-exchange): a load
 * first faulted in the zero page and the store then faulted again, so
 * the 512 slots of 3 pages cost a filtered `sed` 6 page faults.  A page
 * of 256 slots cost it 1; these 64 (1 KiB) lie in the page of .data the
 * loader writes at every start, and cost none.  A filtered `sed` traps
 * at 11 sites; python3 importing ssl, asyncio and sqlite3 rewrites 112,
 * and once its 64 slots are crowded its further sites are rewritten at
 * their first trap, as in a crowded table of any size. */
#define NSEEN 64u
static struct {
	uintptr_t site;
	uint32_t n;
} seen[NSEEN] SF_HOT;

static int trapped_enough(uintptr_t a)
{
	unsigned i = site_slot(a) & (NSEEN - 1), k;

	for (k = 0; k < 16; k++, i = (i + 1) & (NSEEN - 1)) {
		uintptr_t v = 0;
		if (__atomic_compare_exchange_n(&seen[i].site, &v, a, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			v = a;
		if (v == a)
			return __atomic_add_fetch(&seen[i].n, 1, __ATOMIC_RELAXED) >= rw_at;
	}
	return 1;
}

/* ---- /proc/self/maps ---- */

struct row {
	uintptr_t lo, hi;
	int prot, shared;
	uint64_t off, dev, ino;
	const char *path; /* "" for an anonymous mapping */
};

static char maps[512 << 10];
static size_t maps_len;

static int read_maps(void)
{
	long fd = sf_sys(SYS_openat, AT_FDCWD, (long)"/proc/self/maps", O_RDONLY | O_CLOEXEC,
			 0, 0, 0);
	long r;

	if (fd < 0)
		return -1;
	maps_len = 0;
	do {
		r = sf_sys(SYS_read, fd, (long)(maps + maps_len), (long)(sizeof maps - 1 - maps_len),
			   0, 0, 0);
		if (r > 0)
			maps_len += (size_t)r;
	} while ((r > 0 || r == -EINTR) && maps_len < sizeof maps - 1);
	sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
	if (r != 0)
		return -1; /* an error, or too big to be read whole */
	maps[maps_len] = '\0';
	return 0;
}

static const char *hexnum(const char *p, uint64_t *v)
{
	uint64_t x = 0;
	const char *start = p;

	for (;; p++) {
		unsigned d;
		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (*p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else
			break;
		x = x << 4 | d;
	}
	*v = x;
	return p == start ? NULL : p;
}

static uint64_t encode_dev(uint64_t maj, uint64_t min)
{
	/* The kernel's encoding of a dev_t, as stat reports it. */
	return (min & 0xff) | (maj << 8) | ((min & ~0xfful) << 12);
}

/* One line, "lo-hi perms offset maj:min inode   path"; the path is cut
 * at its newline.  *pos moves to the next line.  0, or -1 at the end. */
static int next_row(size_t *pos, struct row *r)
{
	char *p = maps + *pos, *end;
	uint64_t lo, hi, maj, min, ino = 0;

	if (*pos >= maps_len)
		return -1;
	end = p;
	while (*end && *end != '\n')
		end++;
	*pos = (size_t)(end - maps) + 1; /* a second pass finds NULs */
	*end = '\0';
	if (!(p = (char *)hexnum(p, &lo)) || *p++ != '-' || !(p = (char *)hexnum(p, &hi)) ||
	    *p++ != ' ' || !p[0] || !p[1] || !p[2] || !p[3])
		return next_row(pos, r);
	r->lo = lo;
	r->hi = hi;
	r->prot = (p[0] == 'r' ? PROT_READ : 0) | (p[1] == 'w' ? PROT_WRITE : 0) |
		  (p[2] == 'x' ? PROT_EXEC : 0);
	r->shared = p[3] == 's';
	p += 4;
	if (*p++ != ' ' || !(p = (char *)hexnum(p, &r->off)) || *p++ != ' ' ||
	    !(p = (char *)hexnum(p, &maj)) || *p++ != ':' || !(p = (char *)hexnum(p, &min)) ||
	    *p++ != ' ')
		return next_row(pos, r);
	while (*p >= '0' && *p <= '9')
		ino = ino * 10 + (uint64_t)(*p++ - '0');
	while (*p == ' ')
		p++;
	r->ino = ino;
	r->dev = encode_dev(maj, min);
	r->path = p;
	return 0;
}

/* The rows of the last read, each parsed once: a rewrite looks at them
 * again for every placement it tries (like_rows), and parsing the text
 * each time was 1.5M instructions of a filtered `sed` (icount). */
#define MAX_ROWS 2048
static struct row rows[MAX_ROWS];
static unsigned nrows;

static int read_rows(void)
{
	size_t pos = 0;

	nrows = 0;
	if (read_maps() < 0)
		return -1;
	while (next_row(&pos, &rows[nrows]) == 0)
		if (++nrows == MAX_ROWS)
			return -1; /* not all of them: rewrite nothing */
	return 0;
}

/* What the site's mapping is, and where trampolines may go. */
struct space {
	struct row site;     /* the mapping holding the site */
	uintptr_t heap_lo, heap_hi, stack_lo;
	uint64_t self_dev, self_ino;
	int full;            /* rows, heap and stack read (a new page needs them) */
};

/* ---- one mapping at a time ----
 * Reading all of /proc/self/maps (the kernel formats every mapping, we
 * parse every line) to learn about the one that holds a site was most of
 * what a rewrite cost: enough that rewriting a site paid off only after
 * a hundred traps there.  PROCMAP_QUERY (Linux 6.11) answers for one
 * address.  Where the kernel has no such ioctl the full read stands in. */
struct pmq {
	uint64_t size, query_flags, query_addr;
	uint64_t vma_start, vma_end, vma_flags, vma_page_size, vma_offset, inode;
	uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
	uint64_t vma_name_addr, build_id_addr;
};
#define PROCMAP_QUERY_IOCTL _IOWR('f', 17, struct pmq)

static long qfd = -1;  /* /proc/self/maps for the queries of one rewrite */
static int pmq_none;   /* the kernel has no PROCMAP_QUERY */
static char qpath[4096];

/* The mapping holding addr, as a row (its path in path when asked). */
static int query_row(uintptr_t addr, struct row *r, char *path, size_t cap)
{
	struct pmq q;
	long e;

	sf_memset(&q, 0, sizeof q);
	q.size = sizeof q;
	q.query_addr = addr;
	if (path) {
		q.vma_name_addr = (uintptr_t)path;
		q.vma_name_size = (uint32_t)cap;
	}
	if ((e = sf_sys(SYS_ioctl, qfd, (long)PROCMAP_QUERY_IOCTL, (long)&q, 0, 0, 0)) < 0) {
		if (e == -ENOTTY || e == -EINVAL)
			pmq_none = 1;
		return -1;
	}
	r->lo = q.vma_start;
	r->hi = q.vma_end;
	r->prot = (q.vma_flags & 1 ? PROT_READ : 0) | (q.vma_flags & 2 ? PROT_WRITE : 0) |
		  (q.vma_flags & 4 ? PROT_EXEC : 0);
	r->shared = (q.vma_flags & 8) != 0;
	r->off = q.vma_offset;
	r->ino = q.inode;
	r->dev = encode_dev(q.dev_major, q.dev_minor);
	r->path = path && q.vma_name_size ? path : "";
	return 0;
}

/* Whether [lo, hi) lies in mappings like r (private, read-only code of
 * the same file), without a hole: our own mprotect calls may have split
 * one mapping into several. */
static int like_rows(uintptr_t lo, uintptr_t hi, const struct row *like)
{
	unsigned i;

	/* Within the row just asked about, and no other task to change the
	 * mappings since: asking again would tell the same. */
	if (lo >= like->lo && hi <= like->hi && !sf_rw_is_concurrent())
		return 1;
	if (qfd >= 0) {
		struct row r;
		while (lo < hi) {
			if (query_row(lo, &r, NULL, 0) < 0 || r.prot != like->prot || r.shared ||
			    r.dev != like->dev || r.ino != like->ino)
				return 0;
			lo = r.hi;
		}
		return 1;
	}

	for (i = 0; lo < hi && i < nrows; i++) {
		const struct row *r = &rows[i];
		if (r->hi <= lo || r->lo > lo)
			continue;
		if (r->prot != like->prot || r->shared || r->dev != like->dev || r->ino != like->ino)
			return 0;
		lo = r->hi;
	}
	return lo >= hi;
}

/* All the rows: for a new trampoline page, and where the kernel cannot
 * be asked about one address. */
static int full_survey(uintptr_t site, struct space *sp)
{
	struct row r;
	unsigned i;
	int found = 0;
	uintptr_t self = (uintptr_t)sf_rw_entry;

	sf_memset(sp, 0, sizeof *sp);
	if (read_rows() < 0)
		return -1;
	sp->full = 1;
	for (i = 0; i < nrows; i++) {
		r = rows[i];
		if (r.lo <= site && site < r.hi) {
			sp->site = r;
			found = 1;
		}
		if (r.lo <= self && self < r.hi) {
			sp->self_dev = r.dev;
			sp->self_ino = r.ino;
		}
		if (sf_streq(r.path, "[heap]")) {
			sp->heap_lo = r.lo;
			sp->heap_hi = r.hi;
		} else if (sf_streq(r.path, "[stack]")) {
			sp->stack_lo = r.lo;
		}
	}
	return found ? 0 : -1;
}

/* The rows of a full read answer for the rest of this rewrite too
 * (like_rows asks the kernel only while qfd is open). */
static int rows_instead(uintptr_t site, struct space *sp)
{
	if (qfd >= 0)
		sf_sys(SYS_close, qfd, 0, 0, 0, 0, 0);
	qfd = -1;
	return full_survey(site, sp);
}

static int survey(uintptr_t site, struct space *sp)
{
	static uint64_t self_dev, self_ino;
	struct row r;

	if (qfd < 0)
		return full_survey(site, sp);
	sf_memset(sp, 0, sizeof *sp);
	if (!self_ino) {
		if (query_row((uintptr_t)sf_rw_entry, &r, NULL, 0) < 0)
			return rows_instead(site, sp);
		self_dev = r.dev;
		self_ino = r.ino;
	}
	sp->self_dev = self_dev;
	sp->self_ino = self_ino;
	if (query_row(site, &sp->site, qpath, sizeof qpath) == 0)
		return 0;
	return pmq_none ? rows_instead(site, sp) : -1;
}

/* ---- the object's file ---- */

struct image {
	struct sf_mapped f;
	const Elf64_Ehdr *eh;
	const Elf64_Phdr *ph;
};

static int in_image(const struct image *im, uint64_t off, uint64_t len)
{
	return sf_in_mapped(&im->f, off, len);
}

/* The last file mapped, kept: the sites of a process are mostly in libc,
 * and mapping it again for each (and faulting in its headers and unwind
 * tables) was a good part of a rewrite.  Same device and inode as the
 * mapping: the same file; the bytes a rewrite replaces are compared with
 * the memory before they are (patch). */
static struct image cached;
static uint64_t cached_dev, cached_ino;

/* The file of a mapping, if it is still the one mapped. */
static int open_image(const struct row *r, struct image *im)
{
	const struct sf_file_id id = { r->dev, r->ino };

	if (cached.f.p && cached_dev == r->dev && cached_ino == r->ino) {
		*im = cached;
		return 0;
	}
	if (r->path[0] != '/' || sf_map_file(r->path, NULL, &id, &im->f) < 0)
		return -1;
	im->eh = (const Elf64_Ehdr *)im->f.p;
	if (im->eh->e_ident[EI_MAG0] != ELFMAG0 || im->eh->e_ident[EI_MAG1] != ELFMAG1 ||
	    im->eh->e_ident[EI_MAG2] != ELFMAG2 || im->eh->e_ident[EI_MAG3] != ELFMAG3 ||
	    im->eh->e_ident[EI_CLASS] != ELFCLASS64 || im->eh->e_machine != EM_X86_64 ||
	    im->eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    !in_image(im, im->eh->e_phoff, (uint64_t)im->eh->e_phnum * sizeof(Elf64_Phdr))) {
		sf_unmap_file(&im->f, NULL);
		return -1;
	}
	im->ph = (const Elf64_Phdr *)(im->f.p + im->eh->e_phoff);
	if (cached.f.p)
		sf_unmap_file(&cached.f, NULL);
	cached = *im;
	cached_dev = r->dev;
	cached_ino = r->ino;
	return 0;
}

/* The file offset of [va, va + len), all in one loaded segment. */
static int va_off(const struct image *im, uint64_t va, uint64_t len, uint64_t *off)
{
	unsigned i;

	for (i = 0; i < im->eh->e_phnum; i++) {
		const Elf64_Phdr *ph = &im->ph[i];
		if (ph->p_type == PT_LOAD && va >= ph->p_vaddr && va - ph->p_vaddr <= ph->p_filesz &&
		    len <= ph->p_filesz - (va - ph->p_vaddr) &&
		    in_image(im, ph->p_offset + (va - ph->p_vaddr), len)) {
			*off = ph->p_offset + (va - ph->p_vaddr);
			return 0;
		}
	}
	return -1;
}

/* The executable segment holding file offset off: its address there. */
static const Elf64_Phdr *code_seg(const struct image *im, uint64_t off, uint64_t *va)
{
	unsigned i;

	for (i = 0; i < im->eh->e_phnum; i++) {
		const Elf64_Phdr *ph = &im->ph[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && off >= ph->p_offset &&
		    off - ph->p_offset < ph->p_filesz && in_image(im, ph->p_offset, ph->p_filesz)) {
			*va = ph->p_vaddr + (off - ph->p_offset);
			return ph;
		}
	}
	return NULL;
}

static const uint8_t *at_va(const struct image *im, uint64_t va, uint64_t len)
{
	uint64_t off;

	return va_off(im, va, len, &off) == 0 ? im->f.p + off : NULL;
}

static uint64_t uleb(const uint8_t **p, const uint8_t *end)
{
	struct sf_leb l = { 0, 0, 0 };

	while (*p < end && sf_leb_add(&l, *(*p)++))
		;
	return l.v;
}

/* A DW_EH_PE-encoded value at va (the field's own address, for pcrel).
 * Only the encodings compilers emit in .eh_frame. */
static int eh_value(const struct image *im, uint64_t va, uint8_t enc, int pcrel_ok,
		    uint64_t *v, unsigned *size)
{
	int n = sf_pe_size(enc);
	const uint8_t *p;
	uint64_t x = 0;

	if ((n != 4 && n != 8) || (enc & SF_PE_INDIRECT) || !(p = at_va(im, va, (uint64_t)n)))
		return -1;
	sf_memcpy(&x, p, (size_t)n);
	x = sf_pe_extend(enc, x);
	if (sf_pe_base(enc, &x, pcrel_ok ? &va : NULL, NULL) < 0)
		return -1;
	*v = x;
	*size = (unsigned)n;
	return 0;
}

/* The FDE pointer encoding of the CIE at va ('R' in its augmentation). */
static int cie_enc(const struct image *im, uint64_t va, uint8_t *enc)
{
	const uint8_t *p = at_va(im, va, 8), *start, *end, *aug;
	uint32_t len, id;

	if (!p)
		return -1;
	sf_memcpy(&len, p, 4);
	sf_memcpy(&id, p + 4, 4);
	if (len == 0xffffffff || id != 0 || !(p = at_va(im, va, 4 + (uint64_t)len)))
		return -1;
	start = p;
	end = p + 4 + len;
	p += 8;
	if (p >= end || (*p != 1 && *p != 3))
		return -1;
	aug = ++p;
	while (p < end && *p)
		p++;
	if (p >= end)
		return -1;
	p++;
	*enc = 0x00; /* absptr unless said otherwise */
	if (aug[0] != 'z')
		return aug[0] == '\0' ? 0 : -1;
	uleb(&p, end);                 /* code alignment */
	uleb(&p, end);                 /* data alignment (its sign does not matter here) */
	if (aug[-1] == 1) p++; else uleb(&p, end); /* return address column */
	uleb(&p, end);                 /* augmentation length */
	for (aug++; *aug && p < end; aug++) {
		unsigned size;
		uint64_t ignored;
		switch (*aug) {
		case 'R': *enc = *p; return 0;
		case 'L': p++; break;
		case 'P': /* the personality routine: only its size matters */
			if (eh_value(im, va + (uint64_t)(p + 1 - start), *p & 0x0f, 0, &ignored, &size) < 0)
				return -1;
			p += 1 + size;
			break;
		case 'S': case 'B': break;
		default: return -1;
		}
	}
	return 0;
}

/* The range of the FDE covering va, from .eh_frame_hdr's sorted table. */
static int fde_bounds(const struct image *im, uint64_t va, uint64_t *lo, uint64_t *hi)
{
	const uint8_t *h = NULL, *t;
	uint64_t hdr = 0, fde, begin, range;
	uint32_t count, a, b;
	int32_t e[2];
	unsigned i, size;
	uint8_t enc;

	for (i = 0; i < im->eh->e_phnum; i++)
		if (im->ph[i].p_type == PT_GNU_EH_FRAME) {
			hdr = im->ph[i].p_vaddr;
			h = at_va(im, hdr, 12);
		}
	/* version 1; fde_count udata4; table datarel sdata4 */
	if (!h || h[0] != 1 || h[2] != 0x03 || h[3] != 0x3b)
		return -1;
	if ((h[1] & 0x0f) != 0x03 && (h[1] & 0x0f) != 0x0b)
		return -1; /* eh_frame_ptr of another size */
	sf_memcpy(&count, h + 8, 4);
	if (count == 0 || !(t = at_va(im, hdr + 12, (uint64_t)count * 8)))
		return -1;
	/* The last entry whose start is <= va. */
	for (a = 0, b = count; b - a > 1;) {
		uint32_t mid = a + (b - a) / 2;
		sf_memcpy(e, t + (uint64_t)mid * 8, 8);
		if (hdr + (uint64_t)(int64_t)e[0] <= va)
			a = mid;
		else
			b = mid;
	}
	sf_memcpy(e, t + (uint64_t)a * 8, 8);
	fde = hdr + (uint64_t)(int64_t)e[1];
	{
		const uint8_t *f = at_va(im, fde, 8);
		uint32_t len, cie;
		if (!f)
			return -1;
		sf_memcpy(&len, f, 4);
		sf_memcpy(&cie, f + 4, 4);
		if (len == 0xffffffff || cie == 0 || cie_enc(im, fde + 4 - cie, &enc) < 0)
			return -1;
		if (eh_value(im, fde + 8, enc, 1, &begin, &size) < 0 ||
		    eh_value(im, fde + 8 + size, enc & 0x0f, 0, &range, &size) < 0)
			return -1;
	}
	if (begin != hdr + (uint64_t)(int64_t)e[0] || va < begin || va - begin >= range)
		return -1;
	*lo = begin;
	*hi = begin + range;
	return 0;
}

/* The function symbol around va (the innermost one), .symtab first. */
static int sym_bounds(const struct image *im, uint64_t va, uint64_t *lo, uint64_t *hi)
{
	struct sf_symtab t;
	unsigned pass;
	size_t k;
	int found = 0;

	for (pass = 0; pass < 2 && !found; pass++) {
		if (sf_elf_symtab(&im->f, pass ? SHT_DYNSYM : SHT_SYMTAB, &t) < 0)
			continue;
		for (k = 0; k < t.n; k++) {
			const Elf64_Sym *s = &t.sym[k];
			if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || s->st_shndx == SHN_UNDEF ||
			    s->st_size == 0 || va < s->st_value || va - s->st_value >= s->st_size)
				continue;
			if (!found || s->st_value > *lo) {
				*lo = s->st_value;
				*hi = s->st_value + s->st_size;
			}
			found = 1;
		}
	}
	return found ? 0 : -1;
}

/* ---- which instructions may move to a trampoline ---- */

/* R_LEA: lea of a rip-relative address, its displacement re-aimed. */
enum { R_NO, R_COPY, R_JCC, R_LEA };

/* A memory operand that cannot fault anywhere but where it faults now:
 * TLS (fs, gs) or the stack pointer plus a displacement. */
static int safe_memory(const struct sf_insn *in)
{
	unsigned base, index;

	if (!in->has_modrm || sf_modrm_mod(in) == 3)
		return 1;
	if (in->pfx & (SF_PFX_FS | SF_PFX_GS))
		return 1;
	if (!in->has_sib)
		return 0;
	base = (in->sib & 7) | ((in->rex & 1) << 3);
	index = ((in->sib >> 3) & 7) | ((in->rex & 2) << 2);
	return base == 4 && index == 4 && !(sf_modrm_mod(in) == 0 && (in->sib & 7) == 5);
}

static int relocatable(const struct sf_insn *in)
{
	uint8_t op = in->op;
	unsigned reg = sf_modrm_reg(in);

	if (in->vex || (in->pfx & ~(SF_PFX_66 | SF_PFX_FS | SF_PFX_GS)))
		return R_NO;
	if (in->riprel)
		return in->map == SF_MAP_1 && op == 0x8d && !in->pfx ? R_LEA : R_NO;
	if (in->map == SF_MAP_1) {
		if (op >= 0x70 && op <= 0x7f)
			return in->pfx ? R_NO : R_JCC;
		if (op == 0x8d) /* lea: no memory access */
			return R_COPY;
		if (!safe_memory(in))
			return R_NO;
		if ((op < 0x40 && (op & 7) < 6) || op == 0x63 || op == 0x69 || op == 0x6b ||
		    (op >= 0x80 && op <= 0x8b && op != 0x82) || (op >= 0x90 && op <= 0x99) ||
		    op == 0xa8 || op == 0xa9 || (op >= 0xb0 && op <= 0xbf) || op == 0xc0 ||
		    op == 0xc1 || (op >= 0xd0 && op <= 0xd3))
			return R_COPY;
		if ((op == 0xc6 || op == 0xc7) && reg == 0)
			return R_COPY;
		if ((op == 0xf6 || op == 0xf7) && reg < 6)
			return R_COPY;
		if ((op == 0xfe || op == 0xff) && reg < 2)
			return R_COPY;
		return R_NO;
	}
	if (in->map == SF_MAP_0F) {
		if (op >= 0x80 && op <= 0x8f)
			return in->pfx ? R_NO : R_JCC;
		if ((op == 0xa3 || op == 0xab || op == 0xb3 || op == 0xbb) && sf_modrm_mod(in) != 3)
			return R_NO; /* a bit offset from a register reaches anywhere */
		if (!safe_memory(in))
			return R_NO;
		if ((op == 0x1f && reg == 0) || (op >= 0x40 && op <= 0x4f) || (op >= 0x90 && op <= 0x9f) ||
		    op == 0xa3 || op == 0xab || op == 0xb3 || op == 0xbb || (op == 0xba && reg >= 4) ||
		    (op >= 0xa4 && op <= 0xa5) || (op >= 0xac && op <= 0xad) || op == 0xaf ||
		    op == 0xb6 || op == 0xb7 || op == 0xbe || op == 0xbf || (op >= 0xc8 && op <= 0xcf))
			return R_COPY;
	}
	return R_NO;
}

/* ---- the site ---- */

static const char *why; /* the last refusal's reason (SF_RW_TRACE) */

#define BACK 8 /* instructions remembered before the syscall */

struct insn_at {
	uint64_t va;
	struct sf_insn in;
};

struct site {
	uintptr_t base;            /* runtime address = base + file address */
	uint64_t sys;              /* file address of the syscall instruction */
	const uint8_t *code;       /* the file's bytes of the code segment... */
	uint64_t code_va, code_end; /* ...at these file addresses */
	struct insn_at back[BACK]; /* the last instructions before it, in order */
	unsigned nback;
	int prot;                  /* the mapping's protection */
};

static const uint8_t *bytes_at(const struct site *st, uint64_t va)
{
	return st->code + (va - st->code_va);
}

/* Decodes forward from the function's first byte; the syscall must be an
 * instruction of its own, 0f 05, exactly at st->sys. */
static int sweep(struct site *st, uint64_t lo, uint64_t hi)
{
	struct insn_at ring[BACK];
	uint64_t va = lo;
	unsigned n = 0, k;

	if (lo < st->code_va || hi > st->code_end || st->sys < lo || st->sys + 2 > hi ||
	    st->sys - lo > (8u << 20))
		return -1;
	while (va < st->sys) {
		struct sf_insn in;
		uint64_t avail = st->code_end - va;
		if (!sf_x86_decode(bytes_at(st, va), avail < 15 ? avail : 15, &in))
			return -1;
		ring[n % BACK].va = va;
		ring[n % BACK].in = in;
		n++;
		va += in.len;
	}
	if (va != st->sys || bytes_at(st, va)[0] != 0x0f || bytes_at(st, va)[1] != 0x05)
		return -1;
	st->nback = n < BACK ? n : BACK;
	for (k = 0; k < st->nback; k++)
		st->back[k] = ring[(n - st->nback + k) % BACK];
	return 0;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	sf_memcpy(&v, p, 4);
	return v;
}

static void wr32(uint8_t *p, uint32_t v)
{
	sf_memcpy(p, &v, 4);
}

static void wr64(uint8_t *p, uint64_t v)
{
	sf_memcpy(p, &v, 8);
}

/* A branch's target, or the address a rip-relative lea computes, as a
 * file address. */
static uint64_t jcc_target(const struct site *st, const struct insn_at *ia)
{
	const uint8_t *b = bytes_at(st, ia->va);
	int64_t rel;

	if (ia->in.riprel)
		rel = (int32_t)rd32(b + ia->in.disp_off);
	else
		rel = ia->in.imm_len == 1 ? (int8_t)b[ia->in.imm_off] : (int32_t)rd32(b + ia->in.imm_off);
	return ia->va + ia->in.len + (uint64_t)rel;
}

/* One way of rewriting the site: the jump at s, over the instructions
 * back[first..] and possibly the syscall. */
struct plan {
	unsigned first;
	uint64_t s;          /* file address of the jump */
	unsigned fixed;      /* its last bytes that must stay as they are */
	uintptr_t t_lo, t_hi; /* where the trampoline may start (runtime) */
	uintptr_t blk;       /* the aligned block holding every byte that changes */
	unsigned blk_size;
	unsigned size;       /* the trampoline's size, at most */
};

static int make_plan(const struct site *st, unsigned first, struct plan *pl)
{
	uint64_t s = st->back[first].va, b;
	uintptr_t S;
	int64_t dlo, dhi;
	unsigned i, k, reloc = 0;

	pl->first = first;
	pl->s = s;
	S = st->base + s;
	/* The first boundary after s, if the jump covers it. */
	b = first + 1 < st->nback ? st->back[first + 1].va : st->sys;
	pl->fixed = b < s + 5 ? (unsigned)(s + 5 - b) : 0;
	if (pl->fixed == 0) {
		dlo = -(int64_t)0x80000000;
		dhi = 0x7fffffff;
	} else {
		/* Bytes b-s..4 of `e9 d0 d1 d2 d3` are the original ones: the
		 * high bytes of the displacement are given. */
		uint32_t f = 0;
		unsigned low = 8 * (unsigned)(b - s - 1);
		const uint8_t *o = bytes_at(st, s);
		for (k = (unsigned)(b - s); k < 5; k++)
			f |= (uint32_t)o[k] << (8 * (k - 1));
		dlo = (int32_t)f;
		dhi = dlo + (low ? (int64_t)((1ull << low) - 1) : 0);
	}
	if (dhi < 0 && (uintptr_t)-dhi > S + 5)
		return -1; /* the whole window is below address 0 */
	pl->t_lo = S + 5 + (uintptr_t)dlo;
	pl->t_hi = S + 5 + (uintptr_t)dhi;
	if (dlo < 0 && (uintptr_t)-dlo > S + 5)
		pl->t_lo = LOW_LIMIT;
	if (pl->t_lo < LOW_LIMIT)
		pl->t_lo = LOW_LIMIT;
	if (pl->t_hi > USER_TOP - PAGE)
		pl->t_hi = USER_TOP - PAGE;
	/* The trampoline's branches must reach their targets; a target
	 * inside the jump must be a boundary (it then runs the original). */
	for (i = first; i < st->nback; i++) {
		uint64_t tgt;
		uintptr_t rt;
		int kind = relocatable(&st->back[i].in);
		if (kind == R_COPY) {
			reloc += st->back[i].in.len;
			continue;
		}
		reloc += kind == R_JCC ? 6 : st->back[i].in.len;
		tgt = jcc_target(st, &st->back[i]);
		if (kind == R_JCC && tgt > s && tgt < s + 5) {
			int boundary = tgt == st->sys;
			for (k = first + 1; k < st->nback; k++)
				boundary |= tgt == st->back[k].va;
			if (!boundary)
				return -1;
		}
		rt = st->base + tgt;
		if (pl->t_lo < rt - 0x7fff0000ul && rt > 0x7fff0000ul)
			pl->t_lo = rt - 0x7fff0000ul;
		if (pl->t_hi > rt + 0x7fff0000ul)
			pl->t_hi = rt + 0x7fff0000ul;
	}
	if (pl->t_lo > pl->t_hi)
		return -1;
	pl->size = reloc + 7 + 6;
	/* Every byte that may change, in one naturally aligned block. */
	pl->blk = S & ~7ul;
	pl->blk_size = 8;
	if (S + 5 - pl->fixed > pl->blk + 8) {
		pl->blk = S & ~15ul;
		pl->blk_size = 16;
		if (have_cx16 < 0)
			have_cx16 = cpu_cx16();
		if (!have_cx16 || S + 5 - pl->fixed > pl->blk + 16)
			return -1;
	}
	return 0;
}

/* ---- trampoline pages ----
 * Each starts with the address of sf_rw_entry (the trampolines' jump
 * reads it), then trampolines, never freed nor moved. */

#define NTPAGES 1024u
#define TP_HEAD 16u

static struct tpage {
	uintptr_t at;
	unsigned used;
} tpages[NTPAGES];
static unsigned ntpages;

/* Where in the page at `at` (used bytes taken) a trampoline of `size`
 * bytes can start within [lo, hi]; 0 if nowhere. */
static uintptr_t fit(uintptr_t at, unsigned used, uintptr_t lo, uintptr_t hi, unsigned size)
{
	uintptr_t t = (at + used + 15) & ~15ul;

	if (t < lo)
		t = lo;
	if (t > hi || t + size > at + PAGE)
		return 0;
	return t;
}

/* The search for a new page: the free intervals of the address space
 * (from /proc/self/maps, less the room the brk heap and the main stack
 * grow into) are considered in turn, and the four pages nearest the site
 * that can hold the trampoline kept. */
struct hole_ctx {
	uintptr_t site, lo, hi;
	unsigned size;
	uintptr_t best[4]; /* candidate pages, nearest the site first */
	unsigned nbest;
};

static uintptr_t dist(uintptr_t a, uintptr_t b)
{
	return a > b ? a - b : b - a;
}

static void consider(struct hole_ctx *h, uintptr_t a, uintptr_t b)
{
	uintptr_t pmin, pmax, p;
	unsigned i, j;

	a = (a + PAGE - 1) & ~(PAGE - 1);
	b &= ~(PAGE - 1);
	if (b < a + PAGE)
		return;
	/* Pages of [a, b) that can hold a trampoline starting in [lo, hi]. */
	pmin = h->lo > PAGE ? PAGE_DOWN(h->lo) - PAGE : 0;
	pmax = PAGE_DOWN(h->hi);
	if (pmin < a)
		pmin = a;
	if (pmax > b - PAGE)
		pmax = b - PAGE;
	if (pmin > pmax)
		return;
	p = h->site < pmin ? pmin : h->site > pmax ? pmax : PAGE_DOWN(h->site);
	if (!fit(p, TP_HEAD, h->lo, h->hi, h->size)) {
		p += h->site < pmin ? PAGE : -PAGE;
		if (p < pmin || p > pmax || !fit(p, TP_HEAD, h->lo, h->hi, h->size))
			return;
	}
	for (i = 0; i < h->nbest && dist(h->best[i], h->site) <= dist(p, h->site); i++)
		;
	if (i >= 4)
		return;
	for (j = h->nbest < 4 ? h->nbest++ : 3; j > i; j--)
		h->best[j] = h->best[j - 1];
	h->best[i] = p;
}

/* [a, b) less the excluded zones. */
static void consider_free(struct hole_ctx *h, uintptr_t a, uintptr_t b,
			  const uintptr_t (*ex)[2], unsigned nex)
{
	unsigned i;

	for (i = 0; i < nex; i++) {
		if (ex[i][1] <= a || ex[i][0] >= b)
			continue;
		if (ex[i][0] > a)
			consider_free(h, a, ex[i][0], ex + i + 1, nex - i - 1);
		a = ex[i][1];
		if (a >= b)
			return;
	}
	consider(h, a, b);
}

static uintptr_t stack_room(void)
{
	struct rlimit rl;

	if (sf_sys(SYS_prlimit64, 0, RLIMIT_STACK, 0, (long)&rl, 0, 0) < 0 ||
	    rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (1ul << 40))
		return 1ul << 40;
	return rl.rlim_cur > STACK_ROOM_MIN ? rl.rlim_cur + (16ul << 20) : STACK_ROOM_MIN;
}

/* Maps the first of h's candidates that is still free; its index in
 * tpages, or -1. */
static int map_best(const struct hole_ctx *h)
{
	unsigned i;

	for (i = 0; i < h->nbest; i++) {
		long m = sf_sys(SYS_mmap, (long)h->best[i], PAGE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (sf_is_err(m))
			continue;
		if ((uintptr_t)m != h->best[i]) { /* a kernel that took it as a hint */
			sf_unpages((void *)m, PAGE);
			continue;
		}
		wr64((uint8_t *)m, (uint64_t)(uintptr_t)sf_rw_entry);
		tpages[ntpages].at = (uintptr_t)m;
		tpages[ntpages].used = TP_HEAD;
		return (int)ntpages++;
	}
	return -1;
}

/* The free intervals near the site, asked of the kernel one mapping at a
 * time (PROCMAP_QUERY's "covering or next"), instead of all of
 * /proc/self/maps: the full read and its parsing were most of what the
 * first rewrite of a process cost (120k instructions), which kept
 * rewriting from paying in short-lived processes.  Only the part of the
 * trampoline's reach within QUERY_SPAN of the site is walked, upward, at
 * most QUERY_MAX mappings, and only until past the site once a page is
 * found (libraries are packed, the gap below them is near).  The heap's
 * room is kept from the current break, the main stack's from an address
 * on it (its initial environment) with a margin for what it has grown
 * since.  0: candidates in h; 1: the whole reach was walked and has no
 * room; -1: ask the full read. */
#define QUERY_SPAN (64ul << 20)
#define QUERY_MAX 128
#define PROCMAP_QUERY_COVERING_OR_NEXT_VMA 0x10

static int holes_by_query(struct hole_ctx *h)
{
	uintptr_t ex[2][2], at, end, room, stack = sf_main_stack_hint();
	long brk = sf_sys(SYS_brk, 0, 0, 0, 0, 0, 0);
	unsigned n;
	int whole;

	if (qfd < 0 || !stack || brk <= 0)
		return -1;
	ex[0][0] = (uintptr_t)brk;
	ex[0][1] = (uintptr_t)brk + HEAP_ROOM;
	room = stack_room() + (64ul << 20);
	ex[1][0] = PAGE_DOWN(stack) > room ? PAGE_DOWN(stack) - room : 0;
	ex[1][1] = USER_TOP;
	if (ex[0][0] > ex[1][0])
		return -1; /* a heap above the stack: not the layout this knows */
	/* The reach near the site; a narrow one (the displacement's high
	 * bytes fixed) may lie far from it, and is walked whole. */
	at = h->site > QUERY_SPAN ? h->site - QUERY_SPAN : 0;
	at = at > h->lo ? at : h->lo;
	end = h->site + QUERY_SPAN < h->hi ? h->site + QUERY_SPAN : h->hi;
	if (at > end) {
		at = h->lo;
		end = h->hi - h->lo > 2 * QUERY_SPAN ? h->lo + 2 * QUERY_SPAN : h->hi;
	}
	whole = at == h->lo && end == h->hi;
	at = PAGE_DOWN(at > PAGE ? at - PAGE : at);
	at = at > LOW_LIMIT ? at : LOW_LIMIT;
	/* Upward from below the site, until past it with a page found. */
	for (n = 0; at <= end && n < QUERY_MAX && !(h->nbest && at > h->site); n++) {
		struct pmq q;
		long e;

		sf_memset(&q, 0, sizeof q);
		q.size = sizeof q;
		q.query_flags = PROCMAP_QUERY_COVERING_OR_NEXT_VMA;
		q.query_addr = at;
		e = sf_sys(SYS_ioctl, qfd, (long)PROCMAP_QUERY_IOCTL, (long)&q, 0, 0, 0);
		if (e == -ENOENT) /* nothing mapped above */
			q.vma_start = q.vma_end = USER_TOP;
		else if (e < 0 || q.vma_end <= at)
			return -1;
		if (q.vma_start > at)
			consider_free(h, at, q.vma_start < end + PAGE ? q.vma_start : end + PAGE,
				      (const uintptr_t (*)[2])ex, 2);
		at = q.vma_end;
	}
	if (h->nbest)
		return 0;
	return whole && at > end ? 1 : -1;
}

/* A new trampoline page near the site; its index in tpages, or -1. */
static int new_tpage(struct space *sp, uintptr_t site, const struct plan *pl)
{
	struct hole_ctx h = { site, pl->t_lo, pl->t_hi, pl->size, { 0 }, 0 };
	uintptr_t ex[2][2], prev = LOW_LIMIT;
	unsigned nex = 0;
	const struct row *r;
	unsigned k;
	int i;

	if (ntpages >= NTPAGES)
		return -1;
	if (!sp->full) {
		i = holes_by_query(&h);
		if (i == 1)
			return -1; /* the whole reach walked: no room */
		if (i == 0 && (i = map_best(&h)) >= 0)
			return i;
	}
	h.nbest = 0;
	if (!sp->full) {
		struct row keep = sp->site;
		if (full_survey(site, sp) < 0)
			return -1;
		sp->site = keep; /* its path is qpath's, which the rows do not hold */
	}
	if (sp->heap_hi)
		ex[nex][0] = sp->heap_lo, ex[nex][1] = sp->heap_hi + HEAP_ROOM, nex++;
	if (sp->stack_lo) {
		uintptr_t room = stack_room();
		ex[nex][0] = sp->stack_lo > room ? sp->stack_lo - room : 0;
		ex[nex][1] = USER_TOP;
		nex++;
	}
	if (nex == 2 && ex[0][0] > ex[1][0]) {
		uintptr_t t0 = ex[0][0], t1 = ex[0][1];
		ex[0][0] = ex[1][0], ex[0][1] = ex[1][1], ex[1][0] = t0, ex[1][1] = t1;
	}
	for (k = 0, r = rows; k < nrows; k++, r++) {
		if (r->lo >= USER_TOP)
			break;
		if (r->lo > prev)
			consider_free(&h, prev, r->lo, (const uintptr_t (*)[2])ex, nex);
		if (r->hi > prev)
			prev = r->hi;
	}
	if (prev < USER_TOP)
		consider_free(&h, prev, USER_TOP, (const uintptr_t (*)[2])ex, nex);
	return map_best(&h);
}

/* The trampoline's bytes for a start at t in page `at`; its length, or
 * 0 if a branch cannot reach.  After the displaced instructions:
 *	lea resume(%rip), %rcx
 *	jmp *at(%rip)		(sf_rw_entry) */
static unsigned tramp_code(const struct site *st, const struct plan *pl, uintptr_t t,
			   uintptr_t at, uint8_t *out)
{
	uintptr_t resume = st->base + st->sys + 2;
	unsigned k = 0, i;
	int64_t d;

	for (i = pl->first; i < st->nback; i++) {
		const struct insn_at *ia = &st->back[i];
		int kind = relocatable(&ia->in);
		if (kind == R_JCC) {
			d = (int64_t)(st->base + jcc_target(st, ia) - (t + k + 6));
			if (d != (int32_t)d)
				return 0;
			out[k++] = 0x0f;
			out[k++] = (uint8_t)(0x80 | (ia->in.op & 0x0f));
			wr32(out + k, (uint32_t)d);
			k += 4;
		} else if (kind == R_LEA) {
			d = (int64_t)(st->base + jcc_target(st, ia) - (t + k + ia->in.len));
			if (d != (int32_t)d)
				return 0;
			sf_memcpy(out + k, bytes_at(st, ia->va), ia->in.len);
			wr32(out + k + ia->in.disp_off, (uint32_t)d);
			k += ia->in.len;
		} else {
			sf_memcpy(out + k, bytes_at(st, ia->va), ia->in.len);
			k += ia->in.len;
		}
	}
	d = (int64_t)(resume - (t + k + 7));
	if (d != (int32_t)d)
		return 0;
	out[k++] = 0x48;
	out[k++] = 0x8d;
	out[k++] = 0x0d;
	wr32(out + k, (uint32_t)d);
	k += 4;
	out[k++] = 0xff;
	out[k++] = 0x25;
	wr32(out + k, (uint32_t)(int32_t)((int64_t)at - (int64_t)(t + k + 4)));
	k += 4;
	return k;
}

static void must_protect(uintptr_t at, int prot)
{
	int i;

	for (i = 0; i < 3; i++)
		if (sf_sys(SYS_mprotect, (long)at, PAGE, prot, 0, 0, 0) == 0)
			return;
	/* A page would stay writable and executable. */
	sf_fatal("secfilter: cannot restore the protection of a rewritten page");
}

/* Every CPU running this process fetches instructions anew; with no
 * other task running this memory, only this one runs the new code, and
 * x86 orders a task's own code writes with its fetches. */
static void sync_cores(void)
{
	if (!sf_rw_is_concurrent())
		return;
	if (sf_sys(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0, 0, 0, 0) ==
		    -EPERM &&
	    sf_sys(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0, 0, 0,
		   0) == 0)
		sf_sys(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0, 0, 0, 0);
}

/* Writes the trampoline: a fresh page is still only writable, a used one
 * is made writable for the copy (its other trampolines stay runnable). */
static int tramp_put(struct tpage *tp, int fresh, uintptr_t t, const uint8_t *code, unsigned n)
{
	if (!fresh && sf_sys(SYS_mprotect, (long)tp->at, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
			     0, 0, 0) < 0)
		return -1;
	sf_memcpy((void *)t, code, n);
	if (fresh && sf_sys(SYS_mprotect, (long)tp->at, PAGE, PROT_READ | PROT_EXEC, 0, 0, 0) < 0)
		return -1;
	if (!fresh)
		must_protect(tp->at, PROT_READ | PROT_EXEC);
	tp->used = (unsigned)(t + n - tp->at);
	return 0;
}

static int cas16(void *p, uint64_t olo, uint64_t ohi, uint64_t nlo, uint64_t nhi)
{
	unsigned char ok;

	__asm__ volatile("lock cmpxchg16b %1\n\tsete %0"
			 : "=q"(ok), "+m"(*(volatile unsigned __int128 *)p), "+a"(olo), "+d"(ohi)
			 : "b"(nlo), "c"(nhi)
			 : "memory", "cc");
	return ok;
}

/* Replaces the block's bytes in one locked store, the page writable for
 * that store only. */
static int patch(const struct site *st, const struct plan *pl, const uint8_t *jmp)
{
	uintptr_t S = st->base + pl->s, pg = PAGE_DOWN(pl->blk);
	uintptr_t end = S + 5 > st->base + st->sys + 2 ? S + 5 : st->base + st->sys + 2;
	const uint8_t *orig = bytes_at(st, pl->s);
	uint64_t w[2];
	unsigned i;
	int ok = 1;

	if (sf_sys(SYS_mprotect, (long)pg, PAGE, st->prot | PROT_WRITE, 0, 0, 0) < 0)
		return -1;
	for (i = 0; i < end - S; i++)
		ok &= ((volatile const uint8_t *)S)[i] == orig[i];
	if (ok) {
		uint64_t old[2];
		old[0] = ((volatile const uint64_t *)pl->blk)[0];
		old[1] = pl->blk_size == 16 ? ((volatile const uint64_t *)pl->blk)[1] : 0;
		w[0] = old[0];
		w[1] = old[1];
		for (i = 0; i < 5; i++)
			if (S + i >= pl->blk && S + i < pl->blk + pl->blk_size)
				((uint8_t *)w)[S + i - pl->blk] = jmp[i];
		if (pl->blk_size == 8)
			ok = __atomic_compare_exchange_n((uint64_t *)pl->blk, &old[0], w[0], 0,
							 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
		else
			ok = cas16((void *)pl->blk, old[0], old[1], w[0], w[1]);
	}
	must_protect(pg, st->prot);
	return ok ? 0 : -1;
}

static int try_plan(const struct site *st, struct space *sp, const struct plan *pl)
{
	uint8_t code[128], jmp[5];
	uintptr_t S = st->base + pl->s, t = 0;
	struct tpage *tp = NULL;
	unsigned i, n;
	int fresh = 0, k;
	int64_t d;

	if (pl->size > sizeof code || !like_rows(S, S + 5, &sp->site))
		return -1;
	for (i = 0; i < ntpages && !t; i++)
		if ((t = fit(tpages[i].at, tpages[i].used, pl->t_lo, pl->t_hi, pl->size)))
			tp = &tpages[i];
	if (!t) {
		why = "no room for a trampoline";
		if ((k = new_tpage(sp, S, pl)) < 0)
			return -1;
		tp = &tpages[k];
		fresh = 1;
		t = fit(tp->at, tp->used, pl->t_lo, pl->t_hi, pl->size);
	}
	if (!t || !(n = tramp_code(st, pl, t, tp->at, code)))
		return -1;
	d = (int64_t)(t - (S + 5));
	jmp[0] = 0xe9;
	wr32(jmp + 1, (uint32_t)d);
	if (d != (int32_t)d)
		return -1;
	for (i = 5 - pl->fixed; i < 5; i++)
		if (jmp[i] != bytes_at(st, pl->s)[i])
			return -1;
	why = "could not write";
	if (tramp_put(tp, fresh, t, code, n) < 0)
		return -1;
	sync_cores();
	return patch(st, pl, jmp);
}

/* The candidates, nearest the syscall first: each start is one more
 * instruction back, as long as every instruction can move. */
static int place(const struct site *st, struct space *sp)
{
	unsigned first;
	struct plan pl;

	why = "nothing movable before it";
	for (first = st->nback; first-- > 0;) {
		const struct insn_at *ia = &st->back[first];
		if (relocatable(&ia->in) == R_NO || st->sys - ia->va > 40)
			break;
		/* A jump reaching past the syscall covers it: its bytes from
		 * the syscall on are then the original ones (make_plan). */
		if (ia->va + 5 > st->code_end)
			continue;
		why = "no aligned block or reach";
		if (make_plan(st, first, &pl) == 0 && try_plan(st, sp, &pl) == 0)
			return 0;
	}
	return -1;
}

/* Everything under the lock, every signal blocked: static storage. */
static struct site the_site;
static struct space the_space;

/* How far past a fork's site its children's own sites are looked for. */
#define CHILD_REACH 256

/* A fork's child runs the rest of the function that forked (glibc's
 * _Fork: `mov $0x111,%eax; syscall`, set_robust_list) once, and no child
 * ever traps there often enough to have it rewritten: a shell loop's
 * children took 5 such traps an iteration, one each.  So the parent
 * rewrites them with its fork's site, and every later child inherits
 * them.  A site here has not trapped, so its `syscall` must follow
 * `mov $imm32,%eax`, as inline system calls do, on the linear decoding
 * that reached the fork's site, which did trap; each is then decoded from
 * the function's start and placed like any site.  st is the fork's. */
static void rewrite_children_sites(struct site *st, struct space *sp, uint64_t lo, uint64_t hi)
{
	uint64_t va = st->sys + 2, end = st->sys + 2 + CHILD_REACH, prev = 0;
	struct sf_insn in;

	while (va + 2 <= hi && va < end) {
		uint64_t avail = st->code_end - va;
		const uint8_t *b = bytes_at(st, va);
		if (!sf_x86_decode(b, avail < 15 ? avail : 15, &in))
			return;
		if (in.len == 2 && b[0] == 0x0f && b[1] == 0x05 && prev && bytes_at(st, prev)[0] == 0xb8 &&
		    va - prev == 5) {
			uintptr_t rip = st->base + va + 2;
			st->sys = va;
			if (!site_known(rip)) {
				if (sweep(st, lo, hi) == 0)
					(void)place(st, sp);
				site_add(rip);
			}
		}
		prev = va;
		va += in.len;
	}
}

/* forks: the site's call starts a child that runs on from it. */
static int rewrite_in(uintptr_t rip, int forks, struct site *st, struct space *sp)
{
	const struct row *r = &sp->site;
	const Elf64_Phdr *seg;
	struct image im;
	uint64_t va, lo = 0, hi = 0;
	int ret = -1;

	if (survey(rip - 2, sp) < 0)
		return -1;
	why = "not a private read-only code mapping of a file";
	if ((r->prot & (PROT_READ | PROT_WRITE | PROT_EXEC)) != (PROT_READ | PROT_EXEC) ||
	    r->shared || (r->dev == sp->self_dev && r->ino == sp->self_ino) ||
	    !like_rows(rip - 2, rip, r) || open_image(r, &im) < 0)
		return -1;
	why = "no function around it";
	seg = code_seg(&im, r->off + (rip - 2 - r->lo), &va);
	if (seg) {
		st->base = rip - 2 - va;
		st->sys = va;
		st->code = im.f.p + seg->p_offset;
		st->code_va = seg->p_vaddr;
		st->code_end = seg->p_vaddr + seg->p_filesz;
		st->prot = r->prot;
		if (fde_bounds(&im, va, &lo, &hi) == 0 || sym_bounds(&im, va, &lo, &hi) == 0) {
			why = "not decoded";
			if (sweep(st, lo, hi) == 0)
				ret = place(st, sp);
			if (ret == 0 && forks)
				rewrite_children_sites(st, sp, lo, hi);
		}
	}
	return ret;
}

static int rewrite(uintptr_t rip, int forks)
{
	int ret;

	/* The rewriter opens files and maps pages: under a seccomp filter
	 * the program installed, those calls would meet its verdict (a
	 * user notifier whose thread does not exist yet, a kill), which the
	 * program never asked for. */
	why = "the program has a seccomp filter";
	if (sf_sys(SYS_prctl, PR_GET_SECCOMP, 0, 0, 0, 0, 0) != 0)
		return -1;
	why = "no mapping";
	qfd = pmq_none ? -1
		       : sf_sys(SYS_openat, AT_FDCWD, (long)"/proc/self/maps", O_RDONLY | O_CLOEXEC,
				0, 0, 0);
	if (qfd < 0)
		qfd = -1;
	ret = rewrite_in(rip, forks, &the_site, &the_space);
	if (qfd >= 0)
		sf_sys(SYS_close, qfd, 0, 0, 0, 0, 0);
	qfd = -1;
	return ret;
}

/* ---- the hooks ---- */

/* Calls whose handling needs the trap's frame: at a rewritten site they
 * go back to the trap.  A clone that gives the child a new stack starts
 * the child from a copy of the frame (clone.c); clone3's request is in
 * memory, and glibc makes it only with one.  A fork-like clone (the
 * child keeps a copy of our stack) is made from wherever the call is, as
 * vfork's wrapper makes it, and its child returns the way the parent
 * does: trapped, it cost a signal frame 2.5 KiB below the stack's pages in
 * use, so two more pages copied on write in the parent and in the child
 * at every fork of a shell. */
static int needs_trap(const struct sf_call *c)
{
	switch (c->nr) {
	case SYS_rt_sigreturn: case SYS_execve: case SYS_execveat: case SYS_clone3:
		return 1;
	case SYS_clone:
		return c->a[1] != 0 || (c->a[0] & (CLONE_VM | CLONE_VFORK)) == CLONE_VM;
	default:
		return 0;
	}
}

/* A site is rewritten after a call the policy allowed: a denied one would
 * come back to the trap anyway. */
static void rw_trapped(const struct sf_call *c)
{
	uint64_t all = ~0ull, old;
	uintptr_t rip;

	if (__atomic_load_n(&rw_full, __ATOMIC_ACQUIRE) || !c->uc)
		return;
	rip = (uintptr_t)c->uc->uc_mcontext.gregs[REG_RIP];
	/* exit_group never comes back to its site, in this process or in a
	 * child: rewriting it (a survey of the maps, the file mapped, the
	 * trampoline, membarriers) was most of what a short-lived process
	 * spent in the library.  set_robust_list comes once per task (glibc's
	 * fork child, a new thread): counting it copied a page of seen[] in
	 * every forked child, which no rewrite would repay. */
	if (rip != c->ip || needs_trap(c) || c->nr == SYS_exit_group ||
	    c->nr == SYS_set_robust_list ||
	    sf_decision(sf_enforcing(), c) != SF_ALLOW || !trapped_enough(rip) ||
	    site_known(rip)) /* after the count: a short process never reads it */
		return;
	sf_sys(SYS_rt_sigprocmask, SIG_SETMASK, (long)&all, (long)&old, 8, 0, 0);
	if (sf_rw_lock_try()) {
		if (!site_known(rip)) {
			/* a clone not sent back to the trap (needs_trap) starts
			 * a child that runs on from the site, with its own memory */
			int r = rewrite(rip, c->nr == SYS_clone || c->nr == SYS_fork ||
						     c->nr == SYS_vfork);
#ifdef SF_RW_TRACE /* which sites were rewritten: for tuning the rewriter */
			char line[160];
			struct sf_buf b = { line, 0, sizeof line };
			sf_puts(&b, "secfilter: site ");
			sf_putx(&b, rip);
			sf_puts(&b, r == 0 ? " rewritten, nr " : " kept, nr ");
			sf_puti(&b, c->nr);
			if (r) {
				sf_puts(&b, ": ");
				sf_puts(&b, why);
			}
			sf_putc(&b, '\n');
			sf_write_all(2, line, b.len);
#endif
			(void)r;
			site_add(rip);
		}
		sf_rw_lock_release();
	}
	sf_sys(SYS_rt_sigprocmask, SIG_SETMASK, (long)&old, 0, 8, 0, 0);
}

/* Interrupted in sf_rw_issue's syscall (restarting, or done): the stack
 * holds the address after the site's syscall, the trap's ip. */
static uintptr_t rw_site_of(uintptr_t ip, const ucontext_t *uc)
{
	if (ip == (uintptr_t)sf_rw_issue || ip == (uintptr_t)sf_rw_done)
		return *(const uintptr_t *)uc->uc_mcontext.gregs[REG_RSP];
	return ip;
}

/* The fast path's decision, on the program's stack: the trap path's own
 * decision and special handling.  c is the registers sf_rw_entry saved
 * (ip is the site's resume address); the answer is where it goes next. */
_Static_assert(offsetof(struct sf_call, a) == 8 && offsetof(struct sf_call, ip) == 56 &&
		       offsetof(struct sf_call, uc) == 64 && offsetof(struct sf_call, i386) == 72 &&
		       sizeof(struct sf_call) == 80, "rwentry.S pushes a struct sf_call");
/* Words rwentry.S has written from c up: its ten, the alignment word if
 * any, then rbp and the flags at its frame pointer; the 12th starts at
 * the saved rbp or the saved flags, written either way. */
#define SF_RW_SAVED_WORDS 12

uintptr_t sf_rw_decide(struct sf_call *c) __attribute__((used));
uintptr_t sf_rw_decide(struct sf_call *c)
{
	if (needs_trap(c) || sf_decision(sf_enforcing(), c) != SF_ALLOW)
		return (uintptr_t)sf_rw_fallback;
	if (sf_is_special(c->nr)) {
		/* rwentry.S pushed this struct and, above it, three words at
		 * its frame pointer: every page from one to the other has
		 * just been written, and the arguments special.c reads are
		 * mostly in the last of them (the caller's frame).  A
		 * fork-like clone (needs_trap) reads nothing of the
		 * program's: no range to note, a write to this thread's TLS
		 * page, which after every fork is copied on write. */
		uintptr_t old[2];
		if (c->nr == SYS_clone || c->nr == SYS_fork || c->nr == SYS_vfork) {
			c->nr = sf_issue(c);
			return (uintptr_t)sf_rw_done;
		}
		sf_user_known((uintptr_t)c & ~4095ul,
			      (uintptr_t)((const uint64_t *)c + SF_RW_SAVED_WORDS) & ~4095ul, old);
		c->nr = sf_issue(c);
		sf_user_known(old[0], old[1], old);
		return (uintptr_t)sf_rw_done;
	}
	return (uintptr_t)sf_rw_issue;
}
