/* Symbol names for backtraces, read from the object's ELF file with raw
 * syscalls: nothing here may call malloc, since a violation may trap in
 * the middle of it (its first getrandom, a brk), and the dynamic symbol
 * table alone does not have `main` of a PIE nor static functions.  Each
 * call is first put to `may` (a kernel filter would kill the process for
 * a call it denies); a refused one is a name not found. */
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "sf.h"

struct image {
	const unsigned char *p;
	size_t size;
};

static long sys(sf_may_fn may, long nr, long a0, long a1, long a2, long a3, long a4, long a5)
{
	const uint64_t a[6] = { (uint64_t)a0, (uint64_t)a1, (uint64_t)a2,
				(uint64_t)a3, (uint64_t)a4, (uint64_t)a5 };

	if (may && !may(nr, a))
		return -1;
	return sf_sys(nr, a0, a1, a2, a3, a4, a5);
}

static int map_file(const char *path, struct image *im, sf_may_fn may)
{
	struct stat st;
	long fd = sys(may, SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0);
	long r;

	if (fd < 0)
		return -1;
	r = sys(may, SYS_fstat, fd, (long)&st, 0, 0, 0, 0);
	if (r == 0 && st.st_size >= (off_t)sizeof(Elf64_Ehdr))
		r = sys(may, SYS_mmap, 0, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	else
		r = -1;
	sys(may, SYS_close, fd, 0, 0, 0, 0, 0);
	if (sf_is_err(r) || r == -1)
		return -1;
	im->p = (const unsigned char *)r;
	im->size = (size_t)st.st_size;
	return 0;
}

static int in_image(const struct image *im, uint64_t off, uint64_t len)
{
	return off <= im->size && len <= im->size - off;
}

/* The function symbol of one symbol table that contains rel. */
static const Elf64_Sym *find_in(const struct image *im, const Elf64_Shdr *tab,
				const Elf64_Shdr *strs, uint64_t rel, const char **name)
{
	const Elf64_Sym *syms = (const void *)(im->p + tab->sh_offset);
	size_t i, n = tab->sh_size / sizeof *syms;

	if (!in_image(im, tab->sh_offset, tab->sh_size) ||
	    !in_image(im, strs->sh_offset, strs->sh_size))
		return NULL;
	for (i = 0; i < n; i++) {
		const Elf64_Sym *s = &syms[i];
		if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || s->st_value > rel ||
		    rel - s->st_value >= (s->st_size ? s->st_size : 1))
			continue;
		if (s->st_name >= strs->sh_size)
			continue;
		*name = (const char *)im->p + strs->sh_offset + s->st_name;
		return s;
	}
	return NULL;
}

static const Elf64_Sym *lookup(const struct image *im, uint64_t rel, const char **name)
{
	const Elf64_Ehdr *eh = (const void *)im->p;
	const Elf64_Shdr *sh;
	const Elf64_Sym *s;
	unsigned i, pass;

	if (eh->e_ident[EI_MAG0] != ELFMAG0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    !in_image(im, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof *sh))
		return NULL;
	sh = (const void *)(im->p + eh->e_shoff);
	/* The full table first, the dynamic one when the file is stripped. */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < eh->e_shnum; i++) {
			uint32_t want = pass ? SHT_DYNSYM : SHT_SYMTAB;
			if (sh[i].sh_type != want || sh[i].sh_link >= eh->e_shnum)
				continue;
			s = find_in(im, &sh[i], &sh[sh[i].sh_link], rel, name);
			if (s)
				return s;
		}
	return NULL;
}

/* Writes "name+0xoff" for ip in the object at base read from path. */
int sf_elf_symbol(const char *path, uintptr_t base, uintptr_t ip, struct sf_buf *b,
		  sf_may_fn may)
{
	struct image im;
	const Elf64_Ehdr *eh;
	const Elf64_Sym *s;
	const char *name = NULL;
	uint64_t rel;

	/* The loader names the main program as it was started: a relative
	 * path may no longer work from here. */
	if (map_file(path, &im, may) < 0 &&
	    (path[0] == '/' || map_file("/proc/self/exe", &im, may) < 0))
		return -1;
	eh = (const void *)im.p;
	rel = eh->e_type == ET_DYN ? ip - base : ip;
	s = lookup(&im, rel, &name);
	if (s) {
		sf_puts(b, name);
		sf_puts(b, "+0x");
		sf_putx(b, rel - s->st_value);
	}
	sys(may, SYS_munmap, (long)im.p, (long)im.size, 0, 0, 0, 0);
	return s ? 0 : -1;
}
