/* The library as an rtld audit module: LD_AUDIT=/path/libsecfilter.so.
 *
 * glibc loads audit modules first, each in a link-map namespace of its
 * own with its own copy of libc, and calls their la_version before it
 * loads any library of the program, relocates anything or runs any
 * initializer.  A kernel filter installed there covers all of the
 * program's code: its preinit array, its libraries' IFUNC resolvers and
 * constructors, whatever its RPATH, RUNPATH or LD_LIBRARY_PATH finds.
 * sf_boot_trusted (init.c) does that work, in trusted mode only; in any
 * other case la_version returns 0 and rtld unloads this copy.
 *
 * Before la_version rtld has loaded this copy's own dependencies, and in
 * an audit namespace it looks for them on the program's DT_RPATH,
 * DT_RUNPATH and LD_LIBRARY_PATH, before any filter exists: so the
 * library's one dependency, libc, is named by its absolute path, fixed at
 * build time (Makefile), and the library loads nothing else before the
 * filter.
 *
 * la_objopen sees every object loaded into the program's namespace.  A
 * copy of this very library (the same build id) gets the authority's
 * table and state written into its .bss before its first instruction
 * runs, so that its wrappers, its API and its shadow of SIGSYS agree with
 * the authority from the start (sf.h, struct sf_authority). */
#include <elf.h>
#include <link.h>

#include "sf.h"

const struct sf_authority *sf_authority SF_HOT;
static int is_authority SF_HOT;

extern const ElfW(Ehdr) __ehdr_start __attribute__((visibility("hidden")));

/* Returns the audit interface version we speak (1: la_objopen is all we
 * use), or 0 when this copy has nothing to do. */
SF_EXPORT unsigned la_version(unsigned version)
{
	(void)version;
	is_authority = sf_boot_trusted();
	return is_authority ? 1 : 0;
}

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

static int same_build(const ElfW(Ehdr) *eh, uintptr_t bias)
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

/* The copy's instance of one of our variables: the same build lays it at
 * the same offset from the load address (both copies start at 0). */
#define IN_COPY(map, var) \
	((__typeof__(&(var)))((map)->l_addr + ((uintptr_t)&(var) - (uintptr_t)&__ehdr_start)))

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

static void hand_off(struct link_map *map)
{
	if (!map->l_addr || map->l_addr == (uintptr_t)&__ehdr_start || !sf_our_name(map->l_name) ||
	    !same_build((const ElfW(Ehdr) *)map->l_addr, map->l_addr))
		return;
	*IN_COPY(map, sf_cfg) = sf_cfg; /* its strings stay ours */
	*IN_COPY(map, sf_cur) = sf_cur;
	*IN_COPY(map, sf_enforce) = sf_enforce;
	*IN_COPY(map, sf_authority) = &sf_authority_iface;
}

SF_EXPORT unsigned la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	(void)lmid;
	(void)cookie;
	if (is_authority)
		hand_off(map);
	return 0; /* no symbol binding callbacks */
}
