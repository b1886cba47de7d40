/* Symbol names for backtraces, read from the object's ELF file with raw
 * syscalls: nothing here may call malloc, since a violation may trap in
 * the middle of it (its first getrandom, a brk), and the dynamic symbol
 * table alone does not have `main` of a PIE nor static functions.  Each
 * call is first put to `may` (a kernel filter would kill the process for
 * a call it denies); a refused one is a name not found. */
#include <elf.h>

#include "obj.h"

/* The function symbol of one symbol table that contains rel. */
static const Elf64_Sym *find_in(const struct sf_symtab *t, uint64_t rel, const char **name)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		const Elf64_Sym *s = &t->sym[i];
		if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || s->st_value > rel ||
		    rel - s->st_value >= (s->st_size ? s->st_size : 1))
			continue;
		if (s->st_name >= t->strsize)
			continue;
		*name = t->str + s->st_name;
		return s;
	}
	return NULL;
}

/* The full table first, the dynamic one when the file is stripped. */
static const Elf64_Sym *lookup(const struct sf_mapped *m, uint64_t rel, const char **name)
{
	struct sf_symtab t;
	const Elf64_Sym *s;
	unsigned pass;

	for (pass = 0; pass < 2; pass++)
		if (sf_elf_symtab(m, pass ? SHT_DYNSYM : SHT_SYMTAB, &t) == 0 && t.str &&
		    (s = find_in(&t, rel, name)))
			return s;
	return NULL;
}

/* Writes "name+0xoff" for ip in the object at base read from path. */
int sf_elf_symbol(const char *path, uintptr_t base, uintptr_t ip, struct sf_buf *b,
		  sf_may_fn may)
{
	struct sf_mapped im;
	const Elf64_Ehdr *eh;
	const Elf64_Sym *s;
	const char *name = NULL;
	uint64_t rel;

	/* The loader names the main program as it was started: a relative
	 * path may no longer work from here. */
	if (sf_map_file(path, may, NULL, &im) < 0 &&
	    (path[0] == '/' || sf_map_file("/proc/self/exe", may, NULL, &im) < 0))
		return -1;
	eh = (const void *)im.p;
	rel = eh->e_type == ET_DYN ? ip - base : ip;
	s = lookup(&im, rel, &name);
	if (s) {
		sf_puts(b, name);
		sf_puts(b, "+0x");
		sf_putx(b, rel - s->st_value);
	}
	sf_unmap_file(&im, may);
	return s ? 0 : -1;
}
