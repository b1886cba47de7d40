/* This image: its build id, which the copies of the library in one
 * process compare (entry/audit.c) and trusted mode's mark names
 * (trap/trusted.c), the names its file goes by, and the memory a loader
 * needs to map it. */
#include <elf.h>
#include <link.h>

#include "obj.h"

extern const ElfW(Ehdr) __ehdr_start __attribute__((visibility("hidden")));

/* The NT_GNU_BUILD_ID note of the object whose ELF header is eh and whose
 * addresses are offset by bias; NULL if none. */
static const unsigned char *build_id(const ElfW(Ehdr) *eh, uintptr_t bias, unsigned *len)
{
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)((const char *)eh + eh->e_phoff);
	unsigned i;

	for (i = 0; i < eh->e_phnum; i++) {
		const char *p = (const char *)(bias + ph[i].p_vaddr), *end = p + ph[i].p_memsz;
		if (ph[i].p_type != PT_NOTE)
			continue;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
			const char *name = p + sizeof *n;
			const unsigned char *desc =
				(const unsigned char *)name + ((n->n_namesz + 3) & ~3u);
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && name[0] == 'G' &&
			    name[1] == 'N' && name[2] == 'U' && name[3] == '\0') {
				*len = n->n_descsz;
				return desc;
			}
			p = (const char *)desc + ((n->n_descsz + 3) & ~3u);
		}
	}
	return NULL;
}

const unsigned char *sf_self_build_id(unsigned *len)
{
	return build_id(&__ehdr_start, (uintptr_t)&__ehdr_start, len);
}

int sf_same_build(const ElfW(Ehdr) *eh, uintptr_t bias)
{
	const unsigned char *mine, *theirs;
	unsigned a = 0, b = 0, i;

	if (eh->e_ident[EI_MAG0] != ELFMAG0 || eh->e_ident[EI_MAG1] != ELFMAG1 ||
	    eh->e_ident[EI_MAG2] != ELFMAG2 || eh->e_ident[EI_MAG3] != ELFMAG3 ||
	    eh->e_type != ET_DYN || eh->e_phentsize != sizeof(ElfW(Phdr)))
		return 0;
	mine = build_id(&__ehdr_start, (uintptr_t)&__ehdr_start, &a);
	theirs = build_id(eh, bias, &b);
	if (!mine || !theirs || a != b)
		return 0;
	for (i = 0; i < a && mine[i] == theirs[i]; i++)
		;
	return i == a;
}

/* Whether the file's name is one of ours (libsecfilter.so, .so.1...): only
 * then is its ELF header looked for at l_addr, where the library, linked
 * from address 0, has it (another object's first segment may start
 * elsewhere).  A copy renamed otherwise is not handed off: its constructor
 * then refuses.  init.c asks it of LD_AUDIT's value too. */
int sf_our_name(const char *path)
{
	static const char base[] = "libsecfilter.so";
	const char *s, *name = path;
	unsigned i;

	for (s = path; s && *s; s++)
		if (*s == '/')
			name = s + 1;
	for (i = 0; name && base[i] && name[i] == base[i]; i++)
		;
	return name && !base[i];
}

void sf_elf_load_size(const Elf64_Phdr *ph, unsigned phnum, uint64_t *span, uint64_t *writable)
{
	uint64_t lo = ~0ull, hi = 0;
	unsigned i;

	*writable = 0;
	for (i = 0; i < phnum; i++) {
		uint64_t a, b;
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (ph[i].p_vaddr > (1ull << 47) || ph[i].p_memsz > (1ull << 47)) {
			*span = *writable = 1ull << 48; /* no image: more than any limit allows */
			return;
		}
		a = ph[i].p_vaddr & ~4095ull;
		b = (ph[i].p_vaddr + ph[i].p_memsz + 4095) & ~4095ull;
		lo = a < lo ? a : lo;
		hi = b > hi ? b : hi;
		if (ph[i].p_flags & PF_W)
			*writable += b - a;
	}
	*span = hi > lo ? hi - lo : 0;
}

void sf_self_load_size(uint64_t *span, uint64_t *writable)
{
	sf_elf_load_size((const Elf64_Phdr *)((const char *)&__ehdr_start + __ehdr_start.e_phoff),
			 __ehdr_start.e_phnum, span, writable);
}
