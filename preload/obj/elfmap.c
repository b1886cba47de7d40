/* An object's file mapped read-only, whole, with raw syscalls (no libc,
 * no allocation): the reporter's symbols (elfsym.c) and source lines
 * (srcline.c), the rewriter's function bounds and unwind tables
 * (rewrite/rewrite.c).  Each call is first put to `may` when given: under
 * a kernel filter a denied call would kill the process on the spot. */
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "obj.h"

static long sys(sf_may_fn may, long nr, long a0, long a1, long a2, long a3, long a4, long a5)
{
	const uint64_t a[6] = { (uint64_t)a0, (uint64_t)a1, (uint64_t)a2,
				(uint64_t)a3, (uint64_t)a4, (uint64_t)a5 };

	if (may && !may(nr, a))
		return -1;
	return sf_sys(nr, a0, a1, a2, a3, a4, a5);
}

int sf_map_file(const char *path, sf_may_fn may, const struct sf_file_id *same,
		struct sf_mapped *m)
{
	const uint64_t unmap[6] = { 0, 0, 0, 0, 0, 0 };
	struct stat st;
	long fd, r = -1;

	/* What is mapped must be unmapped again. */
	if (may && !may(SYS_munmap, unmap))
		return -1;
	fd = sys(may, SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return -1;
	if (sys(may, SYS_fstat, fd, (long)&st, 0, 0, 0, 0) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size >= (off_t)sizeof(Elf64_Ehdr) &&
	    (!same || ((uint64_t)st.st_dev == same->dev && (uint64_t)st.st_ino == same->ino)))
		r = sys(may, SYS_mmap, 0, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	sys(may, SYS_close, fd, 0, 0, 0, 0, 0);
	if (r == -1 || sf_is_err(r))
		return -1;
	m->p = (const unsigned char *)r;
	m->size = (size_t)st.st_size;
	return 0;
}

void sf_unmap_file(const struct sf_mapped *m, sf_may_fn may)
{
	sys(may, SYS_munmap, (long)m->p, (long)m->size, 0, 0, 0, 0);
}

int sf_elf_symtab(const struct sf_mapped *m, uint32_t type, struct sf_symtab *t)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m->p;
	const Elf64_Shdr *sh;
	unsigned i;

	if (eh->e_ident[EI_MAG0] != ELFMAG0 || eh->e_ident[EI_MAG1] != ELFMAG1 ||
	    eh->e_ident[EI_MAG2] != ELFMAG2 || eh->e_ident[EI_MAG3] != ELFMAG3 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof *sh ||
	    !sf_in_mapped(m, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof *sh))
		return -1;
	sh = (const Elf64_Shdr *)(m->p + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != type || !sf_in_mapped(m, sh[i].sh_offset, sh[i].sh_size))
			continue;
		t->sym = (const Elf64_Sym *)(m->p + sh[i].sh_offset);
		t->n = sh[i].sh_size / sizeof *t->sym;
		t->str = NULL;
		t->strsize = 0;
		if (sh[i].sh_link < eh->e_shnum &&
		    sf_in_mapped(m, sh[sh[i].sh_link].sh_offset, sh[sh[i].sh_link].sh_size)) {
			t->str = (const char *)m->p + sh[sh[i].sh_link].sh_offset;
			t->strsize = sh[sh[i].sh_link].sh_size;
		}
		return 0;
	}
	return -1;
}
