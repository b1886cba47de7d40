/* file:line for a frame of a backtrace, in the process, at report time.
 *
 * The object's file is mapped read-only with raw syscalls and its DWARF
 * line table read in place (filter/dwline.c): no allocation, no library
 * loaded, nothing that a trapped malloc or a policy that denies dlopen
 * could stop.  When the file has no line table, its separate debug file
 * is tried where Debian's -dbgsym packages put it, by build id
 * (/usr/lib/debug/.build-id/XX/YYYY.debug).  Every call is one the
 * policy lets the library make (may): under a kernel filter a denied one
 * would kill the process on the spot, so then no line is shown. */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "dwline.h"
#include "sf.h"

#define DEBUG_DIR "/usr/lib/debug/.build-id/"

struct mapped {
	const unsigned char *p;
	size_t n;
};

static int map(const char *path, struct mapped *m, int (*may)(long nr, long a0))
{
	struct stat st;
	long fd, r;

	if (!may(SYS_openat, AT_FDCWD) || !may(SYS_fstat, 0) || !may(SYS_mmap, 0) ||
	    !may(SYS_close, 0) || !may(SYS_munmap, 0))
		return -1;
	fd = sf_sys(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return -1;
	r = sf_sys(SYS_fstat, fd, (long)&st, 0, 0, 0, 0);
	if (r == 0 && S_ISREG(st.st_mode) && st.st_size > 64)
		r = sf_sys(SYS_mmap, 0, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	else
		r = -1;
	sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
	if (r == -1 || sf_is_err(r))
		return -1;
	m->p = (const unsigned char *)r;
	m->n = (size_t)st.st_size;
	return 0;
}

static void unmap(struct mapped *m)
{
	sf_unpages((void *)m->p, m->n);
}

/* " at FILE:LINE" for addr (the object's own address) into o. */
static int lookup(const struct mapped *m, uint64_t addr, struct sf_out *o)
{
	size_t start = o->len;

	sf_out_str(o, " at ");
	if (sf_elf_line(m->p, m->n, addr, o) == 0)
		return 0;
	o->len = start;
	return -1;
}

int sf_src_line(const char *path, uint64_t addr, struct sf_buf *b,
		int (*may)(long nr, long a0))
{
	static const char hex[] = "0123456789abcdef";
	struct sf_out o = { b->p + b->len, b->cap > b->len ? b->cap - b->len : 0, 0 };
	struct mapped m, dbg;
	unsigned char id[64];
	char dpath[sizeof DEBUG_DIR + 2 * sizeof id + 8];
	size_t n, i, k;
	int rc;

	if (map(path, &m, may) < 0)
		return -1;
	rc = lookup(&m, addr, &o);
	if (rc < 0 && (n = sf_elf_build_id(m.p, m.n, id, sizeof id)) >= 2) {
		k = 0;
		for (i = 0; DEBUG_DIR[i]; i++)
			dpath[k++] = DEBUG_DIR[i];
		for (i = 0; i < n; i++) {
			dpath[k++] = hex[id[i] >> 4];
			dpath[k++] = hex[id[i] & 15];
			if (i == 0)
				dpath[k++] = '/';
		}
		sf_memcpy(dpath + k, ".debug", 7);
		if (map(dpath, &dbg, may) == 0) {
			rc = lookup(&dbg, addr, &o);
			unmap(&dbg);
		}
	}
	unmap(&m);
	if (rc < 0 || sf_out_end(&o) >= o.cap) {
		if (b->len < b->cap)
			b->p[b->len] = '\0'; /* b stays what it was */
		return -1;
	}
	b->len += o.len;
	return 0;
}
