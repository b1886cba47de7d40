/* The objects loaded in the process, read from the dynamic loader's own
 * list, and symbols looked up in one of them: what dladdr, dlsym and
 * dl_iterate_phdr would tell, without calling them.
 *
 * Those are libc functions reached through the PLT, so a program that
 * exports its own dladdr or pthread_setcanceltype runs its code wherever
 * the library calls them: inside the reporter with dispatch off, or
 * between a wrapper's decision and its syscall.  Here nothing is asked of
 * anyone.  The loader is found from the auxiliary vector the kernel laid
 * on the initial stack (AT_BASE), its `_r_debug` in its own symbol table
 * and, through it, the list of every object of the main namespace.
 *
 * The list is read without the loader's lock (a signal handler must not
 * wait for it): a dlclose in another thread at the same moment can make
 * a report name a frame wrongly.  The lookups at start-up run before the
 * program has threads of its own. */
#include <elf.h>
#include <link.h>
#include <stddef.h>

#include "obj.h"

extern const Elf64_Ehdr __ehdr_start __attribute__((visibility("hidden")));

static uintptr_t at_base SF_HOT, at_phdr SF_HOT, at_phnum SF_HOT, at_vdso;
static uintptr_t at_ids[4] = { -1ul, -1ul, -1ul, -1ul }; /* AT_UID, AT_EUID, AT_GID, AT_EGID */
uintptr_t sf_start_lo SF_HOT, sf_start_hi SF_HOT;
static const char *argv0 SF_HOT;
static struct r_debug *rdebug SF_HOT;
static struct sf_obj libc SF_HOT;
static int libc_found SF_HOT;

/* libc's own, for the cancellable wrappers (wrap.h); NULL until found. */
int (*sf_setcanceltype)(int, int *) SF_HOT;

/* A dynamic entry's address: the loader relocates most of them in place,
 * the vDSO's stay offsets. */
static uintptr_t dyn_addr(uintptr_t bias, uintptr_t v)
{
	return v < bias ? v + bias : v;
}

static struct link_map *first(void)
{
	return rdebug ? rdebug->r_map : NULL;
}

/* The dynamic tables of an object. */
struct dyn {
	const Elf64_Sym *sym;
	const char *str;
	const uint32_t *gnu_hash, *hash;
	const uint16_t *versym;
	const char *soname;
};

static void read_dyn(const struct sf_obj *o, struct dyn *d)
{
	const Elf64_Dyn *e;
	uintptr_t soname = 0;
	int has_soname = 0;

	sf_memset(d, 0, sizeof *d);
	for (e = o->dyn; e && e->d_tag != DT_NULL; e++) {
		uintptr_t v = dyn_addr(o->bias, e->d_un.d_ptr);
		switch (e->d_tag) {
		case DT_SYMTAB: d->sym = (const Elf64_Sym *)v; break;
		case DT_STRTAB: d->str = (const char *)v; break;
		case DT_GNU_HASH: d->gnu_hash = (const uint32_t *)v; break;
		case DT_HASH: d->hash = (const uint32_t *)v; break;
		case DT_VERSYM: d->versym = (const uint16_t *)v; break;
		case DT_SONAME: soname = e->d_un.d_val; has_soname = 1; break;
		}
	}
	if (has_soname && d->str)
		d->soname = d->str + soname;
}

/* A definition the loader would bind a plain reference to: defined,
 * global or weak, not a hidden version, and not an IFUNC (whose address
 * is its resolver's). */
static int usable(const struct dyn *d, uint32_t i, const char *name)
{
	const Elf64_Sym *s = &d->sym[i];
	unsigned type = ELF64_ST_TYPE(s->st_info), bind = ELF64_ST_BIND(s->st_info);

	if (s->st_shndx == SHN_UNDEF || s->st_value == 0 ||
	    (type != STT_FUNC && type != STT_OBJECT) ||
	    (bind != STB_GLOBAL && bind != STB_WEAK))
		return 0;
	if (d->versym && (d->versym[i] & 0x8000))
		return 0;
	return sf_streq(d->str + s->st_name, name);
}

static uint32_t gnu_hash(const char *s)
{
	uint32_t h = 5381;

	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

static uint32_t elf_hash(const char *s)
{
	uint32_t h = 0, g;

	for (; *s; s++) {
		h = (h << 4) + (unsigned char)*s;
		g = h & 0xf0000000;
		if (g)
			h ^= g >> 24;
		h &= ~g;
	}
	return h;
}

/* name in the tables d of object o. */
static void *dyn_sym(const struct sf_obj *o, const struct dyn *dp, const char *name)
{
	const struct dyn d = *dp;
	uint32_t i;

	if (!d.sym || !d.str)
		return NULL;
	if (d.gnu_hash) {
		uint32_t nbuckets = d.gnu_hash[0], symoffset = d.gnu_hash[1];
		uint32_t bloom_size = d.gnu_hash[2], h = gnu_hash(name);
		const uint64_t *bloom = (const uint64_t *)(d.gnu_hash + 4);
		const uint32_t *buckets = d.gnu_hash + 4 + bloom_size * 2;
		const uint32_t *chain = buckets + nbuckets;
		uint64_t w;

		if (nbuckets == 0 || bloom_size == 0)
			return NULL;
		/* The Bloom filter first, as the loader does: an object without
		 * the name mostly says so there, in words the loader's own
		 * lookups have read, without its chains and symbols (pages of
		 * their own, each a fault the first time). */
		w = bloom[(h / 64) % bloom_size];
		if (!((w >> (h % 64)) & (w >> ((h >> d.gnu_hash[3]) % 64)) & 1))
			return NULL;
		for (i = buckets[h % nbuckets]; i >= symoffset && i != 0; i++) {
			uint32_t h2 = chain[i - symoffset];
			if ((h | 1) == (h2 | 1) && usable(&d, i, name))
				return (void *)(o->bias + d.sym[i].st_value);
			if (h2 & 1)
				break;
		}
		return NULL;
	}
	if (d.hash) {
		uint32_t nbucket = d.hash[0];
		const uint32_t *bucket = d.hash + 2, *chain = bucket + nbucket;

		if (nbucket == 0)
			return NULL;
		for (i = bucket[elf_hash(name) % nbucket]; i != STN_UNDEF; i = chain[i])
			if (usable(&d, i, name))
				return (void *)(o->bias + d.sym[i].st_value);
	}
	return NULL;
}

void *sf_obj_sym(const struct sf_obj *o, const char *name)
{
	struct dyn d;

	read_dyn(o, &d);
	return dyn_sym(o, &d, name);
}

/* Whether plain references to each of names[0..n) bind to libc's own
 * definitions: the first object on the loader's list that defines the
 * name (the main program, the preloaded objects, then the libraries in
 * the order they were loaded: the global scope's order, for everything
 * loaded at start) is libc.  Each object's tables are read once. */
int sf_libc_binds(const char *const *names, unsigned n)
{
	unsigned found = 0, i;
	uint32_t done = 0; /* bit i: names[i] found in libc */
	struct link_map *l;

	if (!libc_found || n > 32)
		return 0;
	for (l = first(); l && found < n; l = l->l_next) {
		struct sf_obj o = { .bias = l->l_addr, .dyn = (const Elf64_Dyn *)l->l_ld };
		int is_libc = o.dyn == libc.dyn;
		struct dyn d;

		read_dyn(&o, &d);
		for (i = 0; i < n; i++) {
			if (done >> i & 1 || !dyn_sym(&o, &d, names[i]))
				continue;
			if (!is_libc)
				return 0; /* another object's comes first */
			done |= 1u << i;
			found++;
		}
	}
	return found == n;
}

/* By DT_SONAME: only the dynamic section is needed (no program headers,
 * none of fill's probing). */
int sf_obj_soname(const char *soname, struct sf_obj *o)
{
	struct link_map *l;
	struct dyn d;

	for (l = first(); l; l = l->l_next) {
		sf_memset(o, 0, sizeof *o);
		o->bias = l->l_addr;
		o->dyn = (const Elf64_Dyn *)l->l_ld;
		o->name = l->l_name;
		read_dyn(o, &d);
		if (d.soname && sf_streq(d.soname, soname))
			return 0;
	}
	return -1;
}

/* This copy of the library's name on the program's list: the entry whose
 * load address is our ELF header's (linked from 0, the library's bias is
 * that address), found without reading any object's headers -- each
 * probe of them is a syscall at every start.  NULL when this copy is not
 * on the list (the one rtld loads for LD_AUDIT). */
const char *sf_obj_self(void)
{
	struct link_map *l;

	for (l = first(); l; l = l->l_next)
		if (l->l_addr == (uintptr_t)&__ehdr_start)
			return l->l_name;
	return NULL;
}

/* The loader's entry: at AT_BASE, or where _r_debug says it is when the
 * loader was started as a program (AT_BASE 0). */
const char *sf_loader_path(void)
{
	uintptr_t base = at_base ? at_base : rdebug ? rdebug->r_ldbase : 0;
	struct link_map *l;

	for (l = first(); l && base; l = l->l_next)
		if (l->l_addr == base)
			return l->l_name;
	return NULL;
}

/* A loader started as a program (ld.so PROG) is not in the auxv: it has
 * made it describe PROG, with AT_BASE 0.  It still writes the address of
 * its _r_debug into PROG's DT_DEBUG, the last one if there are several
 * (as it reads them): the one to believe. */
static struct r_debug *from_dt_debug(void)
{
	const Elf64_Phdr *ph = (const Elf64_Phdr *)at_phdr;
	const Elf64_Dyn *d = NULL, *e;
	uintptr_t bias = 0, v = 0;
	unsigned i;

	if (!ph) /* the kernel's, like AT_BASE */
		return NULL;
	for (i = 0; i < at_phnum; i++)
		if (ph[i].p_type == PT_PHDR)
			bias = at_phdr - ph[i].p_vaddr;
	for (i = 0; i < at_phnum; i++)
		if (ph[i].p_type == PT_DYNAMIC)
			d = (const Elf64_Dyn *)(bias + ph[i].p_vaddr);
	for (e = d; e && e->d_tag != DT_NULL; e++)
		if (e->d_tag == DT_DEBUG)
			v = e->d_un.d_ptr;
	return (struct r_debug *)v;
}

/* The loader's _r_debug, from its own symbol table: a reference of ours
 * to _r_debug would bind to whatever the program exports under that
 * name. */
static struct r_debug *find_rdebug(void)
{
	struct sf_obj ld;
	Elf64_Ehdr eh;
	unsigned i;

	sf_memset(&ld, 0, sizeof ld);
	if (!at_base)
		return from_dt_debug();
	/* The kernel mapped it there: no probe needed. */
	sf_memcpy(&eh, (const void *)at_base, sizeof eh);
	if (eh.e_ident[EI_MAG0] != ELFMAG0 || eh.e_phentsize != sizeof(Elf64_Phdr))
		return NULL;
	ld.bias = at_base;
	ld.phdr = (const Elf64_Phdr *)(at_base + eh.e_phoff);
	ld.phnum = eh.e_phnum;
	for (i = 0; i < ld.phnum; i++)
		if (ld.phdr[i].p_type == PT_DYNAMIC)
			ld.dyn = (const Elf64_Dyn *)(at_base + ld.phdr[i].p_vaddr);
	return ld.dyn ? sf_obj_sym(&ld, "_r_debug") : NULL;
}

/* Whether addr lies in one of the object's segments mapped without write
 * permission (its text and read-only data). */
static int in_ro(const struct sf_obj *o, uintptr_t addr)
{
	unsigned i;

	for (i = 0; i < o->phnum; i++) {
		const Elf64_Phdr *ph = &o->phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_R) && !(ph->p_flags & PF_W) &&
		    addr - (o->bias + ph->p_vaddr) < ph->p_filesz)
			return 1;
	}
	return 0;
}

/* Asked only where a readability probe would be made instead: a scan of
 * two program-header tables, where computing their ranges at start-up
 * cost every image about 240 instructions. */
int sf_in_image_ro(uintptr_t addr)
{
	struct sf_obj m = { 0 };
	unsigned i;

	if (libc_found && in_ro(&libc, addr))
		return 1;
	/* The main program's: its program headers lie in its image
	 * (PT_PHDR) when it has them at all. */
	m.phdr = (const Elf64_Phdr *)at_phdr;
	m.phnum = at_phnum < 256 ? (unsigned)at_phnum : 0;
	for (i = 0; i < m.phnum; i++)
		if (m.phdr[i].p_type == PT_PHDR) {
			m.bias = at_phdr - m.phdr[i].p_vaddr;
			return in_ro(&m, addr);
		}
	return 0;
}

/* The auxv follows the environment's NULL on the initial stack.  argv is
 * the one the loader hands to constructors, which still points there
 * (the environment may have moved: setenv in an earlier constructor).
 * unsetenv in one moves the stack's entries down in place, leaving more
 * NULLs before the auxv, whose first entry is never AT_NULL. */
int sf_objs_init(int argc, char **argv)
{
	char **p;
	const Elf64_auxv_t *a;

	if (rdebug)
		return 0;
	if (!argv || argc < 0)
		return -1;
	argv0 = argv[0];
	for (p = argv + argc + 1; *p; p++)
		;
	while (!*p)
		p++;
	for (a = (const Elf64_auxv_t *)p; a->a_type != AT_NULL; a++) {
		switch (a->a_type) {
		case AT_BASE: at_base = a->a_un.a_val; break;
		case AT_PHDR: at_phdr = a->a_un.a_val; break;
		case AT_PHNUM: at_phnum = a->a_un.a_val; break;
		case AT_SYSINFO_EHDR: at_vdso = a->a_un.a_val; break;
		case AT_UID: at_ids[0] = a->a_un.a_val; break;
		case AT_EUID: at_ids[1] = a->a_un.a_val; break;
		case AT_GID: at_ids[2] = a->a_un.a_val; break;
		case AT_EGID: at_ids[3] = a->a_un.a_val; break;
		case AT_EXECFN: /* the top: the rest is one mapping */
			sf_start_hi = a->a_un.a_val + sf_strlen((const char *)a->a_un.a_val);
			sf_start_lo = (uintptr_t)argv;
			break;
		}
	}
	rdebug = find_rdebug();
	return rdebug ? 0 : -1;
}

void sf_objs_libc(void)
{
	if (libc_found || !rdebug)
		return;
	libc_found = sf_obj_soname("libc.so.6", &libc) == 0;
	sf_setcanceltype = (int (*)(int, int *))sf_libc_sym("pthread_setcanceltype");
}

/* The kernel's version, from the "Linux" note of its vDSO (its
 * LINUX_VERSION_CODE: what glibc once read there too), with no call to
 * make.  0 when there is none to read. */
static uint32_t kernel_version;

/* Out of line: every fork asks (trap/clone.c), and what it runs once the
 * answer is known fits in the hot text, the reading does not. */
__attribute__((noinline)) static uint32_t read_kernel_version(void)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)at_vdso;
	unsigned i;

	if (!eh || eh->e_phentsize != sizeof(Elf64_Phdr))
		return 0;
	for (i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(at_vdso + eh->e_phoff) + i;
		const char *n = (const char *)(at_vdso + ph->p_offset), *end = n + ph->p_filesz;
		if (ph->p_type != PT_NOTE)
			continue;
		while (n + sizeof(Elf64_Nhdr) <= end) {
			const Elf64_Nhdr *nh = (const Elf64_Nhdr *)n;
			const char *name = n + sizeof *nh;
			const char *desc = name + ((nh->n_namesz + 3) & ~3u);
			if (nh->n_type == 0 && nh->n_namesz == 6 && sf_streq(name, "Linux") && nh->n_descsz >= 4 &&
			    desc + 4 <= end)
				return *(const uint32_t *)desc;
			n = desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
	return 0;
}

uint32_t sf_kernel_version(void)
{
	if (!kernel_version)
		kernel_version = read_kernel_version();
	return kernel_version;
}

const struct r_debug *sf_objs_rdebug(void)
{
	return rdebug;
}

int sf_start_ids(uint32_t ids[4])
{
	unsigned i;

	for (i = 0; i < 4; i++) {
		if (at_ids[i] > 0xffffffffu)
			return -1;
		ids[i] = (uint32_t)at_ids[i];
	}
	return 0;
}

int sf_objs_main(uintptr_t *phdr, unsigned *phnum, const char **name)
{
	*name = argv0;
	*phdr = at_phdr;
	*phnum = (unsigned)at_phnum;
	return at_phdr && at_phnum && at_phnum < 256 ? 0 : -1;
}

void *sf_libc_sym(const char *name)
{
	return libc_found ? sf_obj_sym(&libc, name) : NULL;
}
