/* libsecfilter.so's second floor (HACKING.md): ELF objects, the loaded
 * ones (the loader's list), their symbols, the unwinder (unw.h), source
 * lines, our own image.  Above base/ only. */
#ifndef SECFILTER_OBJ_H
#define SECFILTER_OBJ_H

#include "base.h"

/* objs.c: the loaded objects, from the loader's own list (see there). */
struct sf_obj {
	const char *name;       /* the loader's name */
	uintptr_t bias;         /* load bias */
	const Elf64_Phdr *phdr;
	unsigned phnum;
	const Elf64_Dyn *dyn;
};
int sf_objs_init(int argc, char **argv);  /* the constructor's arguments; 0 or -1 */
/* The addresses of the initial stack from argv's vector to the end of
 * the file name the kernel copied above everything else (AT_EXECFN, at
 * the top of the stack): one mapping, readable unless the program
 * unmapped or protected its own start's pages.  0 and 0 before
 * sf_objs_init. */
extern uintptr_t sf_start_lo, sf_start_hi;
/* Whether addr lies in a segment of the main program or libc mapped
 * without write permission (where the paths and words a program execs
 * with are, as constants): readable unless the program unmaps or
 * protects its own image. */
int sf_in_image_ro(uintptr_t addr);
/* The real and effective uid and gid this image was started with (the
 * auxiliary vector's AT_UID, AT_EUID, AT_GID, AT_EGID, as the process's
 * user namespace sees them): 0, or -1 when it did not give them. */
int sf_start_ids(uint32_t ids[4]);
/* self.c: what mapping an image's PT_LOAD segments takes, its whole span
 * and the writable part (page-rounded), for phdrs or for this library. */
void sf_elf_load_size(const Elf64_Phdr *ph, unsigned phnum, uint64_t *span, uint64_t *writable);
void sf_self_load_size(uint64_t *span, uint64_t *writable);
/* exe.c: what an exec runs besides the file it names.  A script's first
 * line as the kernel reads it (at most SF_SCRIPT_HEAD bytes, from after
 * "#!"): the interpreter's name and at most one argument, written into
 * line; 0, or -ENOEXEC. */
#define SF_SCRIPT_HEAD 256
long sf_script_line(const unsigned char *head, long n, char *line, const char **name,
		    const char **arg);
/* An ELF image's PT_INTERP, from head (n bytes read at 0) or fd: 1 with
 * the NUL-terminated name in interp, 0 when it has none (static), -1
 * when its headers are not an x86-64 image's we can read. */
int sf_elf_interp(long fd, const unsigned char *head, long n, char *interp, size_t cap);
void sf_objs_libc(void); /* then libc's entry, for sf_libc_sym and the wrappers */
const char *sf_obj_self(void); /* our file's name on the program's list */
int sf_obj_soname(const char *soname, struct sf_obj *o);
void *sf_obj_sym(const struct sf_obj *o, const char *name);
/* For the reporter's unwinder, which reads the list with checked reads:
 * the loader's _r_debug (NULL if not found), and the main program's
 * program headers from the auxiliary vector and its argv[0] (0, or -1
 * when the auxiliary vector did not give them). */
struct r_debug;
const struct r_debug *sf_objs_rdebug(void);
int sf_objs_main(uintptr_t *phdr, unsigned *phnum, const char **name);
const char *sf_loader_path(void); /* the loader that loaded this process */
/* The running kernel's version, (major << 16) + (minor << 8) + patch
 * (capped at 255); 0 when unknown. */
uint32_t sf_kernel_version(void);
#define SF_KERNEL(a, b) ((uint32_t)(a) << 16 | (uint32_t)(b) << 8)
/* A function of libc itself, never another object's. */
void *sf_libc_sym(const char *name);
/* 1 when references to every name bind to libc's own definition. */
int sf_libc_binds(const char *const *names, unsigned n);
extern int (*sf_setcanceltype)(int, int *);

/* elfsym.c: "name+0xoff" for ip in the object at base read from path.
 * may: whether a call may be made (NULL: any). */
int sf_elf_symbol(const char *path, uintptr_t base, uintptr_t ip, struct sf_buf *b,
		  sf_may_fn may);

/* srcline.c: " at FILE:LINE" for address addr of the object in file path
 * (its own address: less its load bias), appended to b; 0, or -1 with b
 * unchanged when the file has no line for it or may refuses a call (NULL: any). */
int sf_src_line(const char *path, uint64_t addr, struct sf_buf *b,
		sf_may_fn may);

/* elfmap.c: a file mapped read-only, whole, when it is a regular file at
 * least an ELF header long; may (NULL: any) is asked before each call;
 * same (NULL: any) the device and inode it must have.  0 or -1. */
struct sf_mapped {
	const unsigned char *p;
	size_t size;
};
struct sf_file_id {
	uint64_t dev, ino;
};
int sf_map_file(const char *path, sf_may_fn may, const struct sf_file_id *same,
		struct sf_mapped *m);
void sf_unmap_file(const struct sf_mapped *m, sf_may_fn may);
static inline int sf_in_mapped(const struct sf_mapped *m, uint64_t off, uint64_t len)
{
	return off <= m->size && len <= m->size - off;
}
/* The first symbol table of the type (SHT_SYMTAB, SHT_DYNSYM) of a 64-bit
 * ELF file, checked to lie in it; str is NULL when its strings do not.
 * 0, or -1 when there is none. */
struct sf_symtab {
	const Elf64_Sym *sym;
	size_t n;
	const char *str;
	size_t strsize;
};
int sf_elf_symtab(const struct sf_mapped *m, uint32_t type, struct sf_symtab *t);

/* DW_EH_PE pointer encodings (.eh_frame, .eh_frame_hdr) as gcc and the
 * linker write them: the unwinder's (unw.c) and the rewriter's readers
 * fetch the bytes their own way and share what they mean. */
#define SF_PE_OMIT 0xff
#define SF_PE_INDIRECT 0x80
#define SF_PE_ALIGNED 0x50
#define SF_PE_SLEB128 0x09
/* The size of the value's format (enc & 0x0f): 2, 4 or 8 bytes, 0 for a
 * LEB128 (uleb128 0x01, sleb128 0x09), -1 for one not known. */
static inline int sf_pe_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case 0x00: case 0x04: case 0x0c: return 8; /* absptr, udata8, sdata8 */
	case 0x02: case 0x0a: return 2;            /* udata2, sdata2 */
	case 0x03: case 0x0b: return 4;            /* udata4, sdata4 */
	case 0x01: case 0x09: return 0;            /* uleb128, sleb128 */
	default: return -1;
	}
}

/* A fixed-size value read little-endian into raw's low bytes, as its
 * format means it (sdata2 and sdata4 are sign-extended). */
static inline uint64_t sf_pe_extend(uint8_t enc, uint64_t raw)
{
	if ((enc & 0x0f) == 0x0a)
		return (uint64_t)(int64_t)(int16_t)raw;
	if ((enc & 0x0f) == 0x0b)
		return (uint64_t)(int64_t)(int32_t)raw;
	return raw;
}

/* Adds the base the encoding names (enc & 0x70): the field's own address
 * (pcrel) or the data base (datarel, .eh_frame_hdr's); NULL for a base
 * the reader does not take.  0, or -1 for a base not taken or not known
 * (textrel, funcrel: not on x86-64). */
static inline int sf_pe_base(uint8_t enc, uint64_t *v, const uint64_t *pcrel,
			     const uint64_t *datarel)
{
	const uint64_t *base = NULL;

	switch (enc & 0x70) {
	case 0x00: return 0;
	case 0x10: base = pcrel; break;
	case 0x30: base = datarel; break;
	default: break;
	}
	if (!base)
		return -1;
	*v += *base;
	return 0;
}

/* self.c: this image.  Its NT_GNU_BUILD_ID (NULL if none), and whether a
 * file's name is one of ours (libsecfilter.so, .so.1...). */
const unsigned char *sf_self_build_id(unsigned *len);
int sf_our_name(const char *path);
/* Whether the object at eh (load bias `bias`) is this very build. */
int sf_same_build(const Elf64_Ehdr *eh, uintptr_t bias);

#endif
