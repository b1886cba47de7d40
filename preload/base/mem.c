/* sf_mem_* for the library: memory straight from the kernel, never from
 * the program's malloc (which would make brk/mmap calls through libc, i.e.
 * trapped and checked against the policy being built).
 *
 * Small blocks come from a bump allocator over 64 KiB chunks and go back to
 * per-size free lists; large ones are mapped and unmapped whole.  The
 * first chunk is static (.bss), and large blocks are cut from it too while
 * it lasts (never to be given back): a filtered process's start (the
 * policy block, the parser's arrays, the texts for exec and the state)
 * then maps nothing.  The lists
 * are guarded by a try-lock: a caller that finds it taken (another thread,
 * or a signal handler interrupting a policy apply) simply takes fresh
 * memory instead of waiting, so nothing here can deadlock. */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>

#include "mem.h"
#include "base.h"

#define CHUNK (64u << 10)
#define SMALL_MAX 2048u
#define NCLASS 8 /* 16, 32, ..., 2048 */

struct freeblk {
	struct freeblk *next;
};

static struct freeblk *freelist[NCLASS] SF_HOT;
static int list_lock SF_HOT;
static char arena[CHUNK] __attribute__((aligned(64)));
static char *bump_cur = arena, *bump_end = arena + CHUNK;
static int bump_lock SF_HOT;

static int in_arena(const void *p)
{
	return (const char *)p >= arena && (const char *)p < arena + CHUNK;
}

void *sf_pages(size_t n)
{
	long r = sf_sys(SYS_mmap, 0, (long)n, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return sf_is_err(r) ? NULL : (void *)r;
}

void sf_unpages(void *p, size_t n)
{
	sf_sys(SYS_munmap, (long)p, (long)n, 0, 0, 0, 0);
}

static size_t page_round(size_t n)
{
	return (n + 4095) & ~(size_t)4095;
}

static unsigned size_class(size_t n)
{
	unsigned c = 0;
	size_t s = 16;

	while (s < n) {
		s <<= 1;
		c++;
	}
	return c;
}

static void *from_list(unsigned c)
{
	struct freeblk *b = NULL;

	if (!sf_trylock(&list_lock))
		return NULL;
	b = freelist[c];
	if (b)
		freelist[c] = b->next;
	sf_unlock(&list_lock);
	if (b)
		sf_memset(b, 0, (size_t)16 << c);
	return b;
}

static void *from_bump(size_t sz)
{
	void *p = NULL;

	if (!sf_trylock(&bump_lock))
		return sf_pages(sz);
	if (bump_cur == NULL || (size_t)(bump_end - bump_cur) < sz) {
		char *c = sf_pages(CHUNK);
		if (c) {
			bump_cur = c;
			bump_end = c + CHUNK;
		}
	}
	if (bump_cur && (size_t)(bump_end - bump_cur) >= sz) {
		p = bump_cur;
		bump_cur += sz;
	}
	sf_unlock(&bump_lock);
	return p;
}

/* A large block from what is left of the static chunk, or NULL. */
static void *from_arena(size_t n)
{
	void *p = NULL;

	n = (n + 63) & ~(size_t)63;
	if (!sf_trylock(&bump_lock))
		return NULL;
	if (in_arena(bump_cur) && (size_t)(bump_end - bump_cur) >= n) {
		p = bump_cur;
		bump_cur += n;
	}
	sf_unlock(&bump_lock);
	return p;
}

void *sf_mem_alloc(size_t n)
{
	unsigned c;
	void *p;

	if (n == 0)
		n = 1;
	if (n > SMALL_MAX) {
		p = from_arena(n);
		return p ? p : sf_pages(page_round(n));
	}
	c = size_class(n);
	p = from_list(c);
	return p ? p : from_bump((size_t)16 << c);
}

void sf_mem_free(void *p, size_t n)
{
	struct freeblk *b = p;
	unsigned c;

	if (p == NULL)
		return;
	if (n == 0)
		n = 1;
	if (n > SMALL_MAX) {
		if (!in_arena(p))
			sf_unpages(p, page_round(n));
		return;
	}
	c = size_class(n);
	if (!sf_trylock(&list_lock))
		return; /* leaked: better than waiting in a signal handler */
	b->next = freelist[c];
	freelist[c] = b;
	sf_unlock(&list_lock);
}

/* The files a policy @includes, read with raw calls (see mem.h). */
int sf_file_read(const char *path, size_t max, char **text, size_t *len, size_t *size,
		 uint64_t id[2])
{
	long fd = sf_sys(SYS_openat, AT_FDCWD, (long)path,
			 O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0, 0, 0);
	struct stat st;
	size_t n = 0, cap;
	char *buf;
	long r;

	if (fd < 0)
		return (int)fd;
	r = sf_sys(SYS_fstat, fd, (long)&st, 0, 0, 0, 0);
	if (r == 0 && !S_ISREG(st.st_mode))
		r = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	cap = (size_t)st.st_size < max ? (size_t)st.st_size + 1 : max;
	buf = r == 0 ? sf_mem_alloc(cap) : NULL;
	if (r == 0 && !buf)
		r = -ENOMEM;
	while (r == 0 && n < cap) {
		long k = sf_sys(SYS_read, fd, (long)(buf + n), (long)(cap - n), 0, 0, 0);
		if (k == -EINTR)
			continue;
		if (k <= 0) {
			r = k;
			break;
		}
		n += (size_t)k;
	}
	sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
	if (r == 0 && n == cap && cap < max)
		r = -EAGAIN; /* it grew while being read */
	if (r < 0) {
		if (buf)
			sf_mem_free(buf, cap);
		return (int)r;
	}
	id[0] = (uint64_t)st.st_dev;
	id[1] = (uint64_t)st.st_ino;
	*text = buf;
	*len = n;
	*size = cap;
	return 0;
}

int sf_file_id(const char *path, uint64_t id[2])
{
	struct stat st;
	long r = sf_sys(SYS_newfstatat, AT_FDCWD, (long)path, (long)&st, 0, 0, 0);

	if (r < 0)
		return (int)r;
	id[0] = (uint64_t)st.st_dev;
	id[1] = (uint64_t)st.st_ino;
	return 0;
}

int sf_kernel_release(char *buf, size_t cap)
{
	struct utsname u;
	long r = sf_sys(SYS_uname, (long)&u, 0, 0, 0, 0, 0);
	size_t i;

	if (r < 0)
		return (int)r;
	if (cap == 0)
		return -EINVAL;
	for (i = 0; i + 1 < cap && u.release[i]; i++)
		buf[i] = u.release[i];
	buf[i] = '\0';
	return 0;
}

int sf_page_readable(uintptr_t page)
{
	uint64_t a[6];
	long nr = sf_page_probe(page, a);

	return sf_sys(nr, (long)a[0], (long)a[1], (long)a[2], (long)a[3], 0, 0) != -EFAULT;
}
