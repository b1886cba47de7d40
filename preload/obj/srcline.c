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
#include "dwline.h"
#include "obj.h"

#define DEBUG_DIR "/usr/lib/debug/.build-id/"

/* " at FILE:LINE" for addr (the object's own address) into o. */
static int lookup(const struct sf_mapped *m, uint64_t addr, struct sf_out *o)
{
	size_t start = o->len;

	sf_out_str(o, " at ");
	if (sf_elf_line(m->p, m->size, addr, o) == 0)
		return 0;
	o->len = start;
	return -1;
}

int sf_src_line(const char *path, uint64_t addr, struct sf_buf *b,
		sf_may_fn may)
{
	static const char hex[] = "0123456789abcdef";
	struct sf_out o = { b->p + b->len, b->cap > b->len ? b->cap - b->len : 0, 0 };
	struct sf_mapped m, dbg;
	unsigned char id[64];
	char dpath[sizeof DEBUG_DIR + 2 * sizeof id + 8];
	size_t n, i, k;
	int rc;

	if (sf_map_file(path, may, NULL, &m) < 0)
		return -1;
	rc = lookup(&m, addr, &o);
	if (rc < 0 && (n = sf_elf_build_id(m.p, m.size, id, sizeof id)) >= 2) {
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
		if (sf_map_file(dpath, may, NULL, &dbg) == 0) {
			rc = lookup(&dbg, addr, &o);
			sf_unmap_file(&dbg, may);
		}
	}
	sf_unmap_file(&m, may);
	if (rc < 0 || sf_out_end(&o) >= o.cap) {
		if (b->len < b->cap)
			b->p[b->len] = '\0'; /* b stays what it was */
		return -1;
	}
	b->len += o.len;
	return 0;
}
