/* The DWARF line table, read in place (dwline.h).
 *
 * Each unit of .debug_line is a header (the files) and a program for a
 * small state machine that emits rows (address, file, line); rows of one
 * sequence rise in address, and an address belongs to the last row at or
 * below it.  The program is run once per unit, keeping the best row for
 * the address; nothing is stored.  What the format allows and this does
 * not read (compressed sections, DWARF 5's data16 for anything but MD5,
 * vendor forms) makes the lookup fail, never the process. */
#include <elf.h>

#include "dwline.h"
#include "leb128.h"

struct rd {
	const unsigned char *p, *end;
	int bad;
};

static uint64_t u(struct rd *r, unsigned n)
{
	uint64_t v = 0;
	unsigned i;

	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = 1;
		return 0;
	}
	for (i = 0; i < n; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

/* A LEB128 in place; bad (and 0) past the end. */
static struct sf_leb leb(struct rd *r)
{
	struct sf_leb l = { 0, 0, 0 };

	while (!r->bad) {
		if (r->p >= r->end) {
			r->bad = 1;
			break;
		}
		if (!sf_leb_add(&l, *r->p++))
			break;
	}
	return l;
}

static uint64_t uleb(struct rd *r)
{
	return leb(r).v;
}

static int64_t sleb(struct rd *r)
{
	struct sf_leb l = leb(r);

	return r->bad ? 0 : sf_leb_signed(&l);
}

/* A NUL-terminated string in place. */
static const char *str(struct rd *r)
{
	const unsigned char *s = r->p;

	while (r->p < r->end && *r->p)
		r->p++;
	if (r->p >= r->end) {
		r->bad = 1;
		return "";
	}
	r->p++;
	return (const char *)s;
}

struct sect {
	const unsigned char *p;
	size_t n;
};

struct sects {
	struct sect line, line_str, str;
};

static const char *str_at(const struct sect *s, uint64_t off)
{
	size_t i;

	if (!s->p || off >= s->n)
		return NULL;
	for (i = (size_t)off; i < s->n; i++)
		if (!s->p[i])
			return (const char *)s->p + off;
	return NULL;
}

/* ---- the header's files ---- */

#define MAX_FORMATS 8
#define DW_LNCT_path 1
#define DW_LNCT_directory_index 2

struct unit {
	int version, offset64;
	unsigned addr_size, min_len, line_range, opcode_base;
	int line_base;
	int default_stmt;
	const unsigned char *std_lengths;
	/* v2-4: the lists, in place; v5: the entries and their formats */
	struct rd dirs, files;
	uint64_t ndirs, nfiles;
	unsigned dir_fmt_n, file_fmt_n;
	uint64_t dir_fmt[MAX_FORMATS][2], file_fmt[MAX_FORMATS][2];
	const struct sects *s;
};

/* Reads one attribute of form form; *text is set for string forms,
 * *num for the others. */
static void form(struct rd *r, const struct unit *un, uint64_t f, const char **text, uint64_t *num)
{
	*text = NULL;
	*num = 0;
	switch (f) {
	case 0x08: *text = str(r); break;                                    /* string */
	case 0x1f: *text = str_at(&un->s->line_str, u(r, un->offset64 ? 8 : 4)); break; /* line_strp */
	case 0x0e: *text = str_at(&un->s->str, u(r, un->offset64 ? 8 : 4)); break;      /* strp */
	case 0x0f: *num = uleb(r); break;                                    /* udata */
	case 0x0b: *num = u(r, 1); break;                                    /* data1 */
	case 0x05: *num = u(r, 2); break;                                    /* data2 */
	case 0x06: *num = u(r, 4); break;                                    /* data4 */
	case 0x07: *num = u(r, 8); break;                                    /* data8 */
	case 0x1e: u(r, 8); u(r, 8); break;                                  /* data16 */
	case 0x09: { uint64_t n = uleb(r);                                   /* block */
		if ((uint64_t)(r->end - r->p) < n) r->bad = 1; else r->p += n; break; }
	default: r->bad = 1;
	}
}

/* Entry i of a v5 list: its path and directory index. */
static int entry5(const struct unit *un, struct rd list, uint64_t count, unsigned nfmt,
		  const uint64_t (*fmt)[2], uint64_t i, const char **path, uint64_t *dir)
{
	uint64_t k;
	unsigned f;

	if (i >= count)
		return -1;
	*path = NULL;
	*dir = 0;
	for (k = 0; k <= i && !list.bad; k++)
		for (f = 0; f < nfmt; f++) {
			const char *t;
			uint64_t n;
			form(&list, un, fmt[f][1], &t, &n);
			if (k == i && fmt[f][0] == DW_LNCT_path)
				*path = t;
			if (k == i && fmt[f][0] == DW_LNCT_directory_index)
				*dir = n;
		}
	return list.bad || !*path ? -1 : 0;
}

/* Entry i (0-based) of a v2-4 list of strings (dirs: followed by nothing;
 * files: by three ulebs). */
static const char *entry4(struct rd list, uint64_t i, int files, uint64_t *dir)
{
	uint64_t k;

	for (k = 0;; k++) {
		const char *s = str(&list);
		uint64_t d = 0;
		if (list.bad || !*s)
			return NULL;
		if (files) {
			d = uleb(&list);
			uleb(&list);
			uleb(&list);
		}
		if (k == i) {
			*dir = d;
			return list.bad ? NULL : s;
		}
	}
}

static int has_slash(const char *s)
{
	for (; *s; s++)
		if (*s == '/')
			return 1;
	return 0;
}

/* "dir/name:line": the directory only when the name is relative and the
 * directory is not the compilation's own (entry 0). */
static void put_place(struct sf_out *o, const struct unit *un, uint64_t file, uint64_t line)
{
	const char *name = NULL, *dname = NULL;
	uint64_t dir = 0, ignored;

	if (un->version >= 5) {
		if (entry5(un, un->files, un->nfiles, un->file_fmt_n, un->file_fmt, file, &name,
			   &dir) < 0)
			name = NULL;
		if (name && !has_slash(name) && dir &&
		    entry5(un, un->dirs, un->ndirs, un->dir_fmt_n, un->dir_fmt, dir, &dname,
			   &ignored) < 0)
			dname = NULL;
	} else if (file) {
		name = entry4(un->files, file - 1, 1, &dir);
		if (name && !has_slash(name) && dir)
			dname = entry4(un->dirs, dir - 1, 0, &ignored);
	}
	if (!name) {
		sf_out_str(o, "?");
	} else {
		if (dname && *dname) {
			sf_out_str(o, dname);
			sf_out_str(o, "/");
		}
		sf_out_str(o, name);
	}
	sf_out_str(o, ":");
	sf_out_u64(o, line, 10);
}

static int read_formats(struct rd *r, unsigned *n, uint64_t (*fmt)[2])
{
	unsigned i;

	*n = (unsigned)u(r, 1);
	if (*n > MAX_FORMATS)
		return -1;
	for (i = 0; i < *n; i++) {
		fmt[i][0] = uleb(r);
		fmt[i][1] = uleb(r);
	}
	return r->bad ? -1 : 0;
}

/* Skips a v5 list (count entries of the formats). */
static void skip_list(struct rd *r, const struct unit *un, uint64_t count, unsigned nfmt,
		      const uint64_t (*fmt)[2])
{
	uint64_t k;
	unsigned f;

	for (k = 0; k < count && !r->bad; k++)
		for (f = 0; f < nfmt; f++) {
			const char *t;
			uint64_t n;
			form(r, un, fmt[f][1], &t, &n);
		}
}

/* Parses a unit's header at r (up to its program); 0 or -1. */
static int header(struct rd *r, struct unit *un, const unsigned char **prog)
{
	uint64_t hlen;
	const unsigned char *hstart;
	unsigned i;

	un->version = (int)u(r, 2);
	if (un->version < 2 || un->version > 5)
		return -1;
	un->addr_size = 8;
	if (un->version >= 5) {
		un->addr_size = (unsigned)u(r, 1);
		u(r, 1); /* segment selector size */
	}
	hlen = u(r, un->offset64 ? 8 : 4);
	hstart = r->p;
	if (r->bad || hlen > (uint64_t)(r->end - r->p))
		return -1;
	*prog = hstart + hlen;
	un->min_len = (unsigned)u(r, 1);
	if (un->version >= 4)
		u(r, 1); /* maximum operations per instruction: 1 on x86 */
	un->default_stmt = (int)u(r, 1);
	un->line_base = (int)(signed char)u(r, 1);
	un->line_range = (unsigned)u(r, 1);
	un->opcode_base = (unsigned)u(r, 1);
	if (r->bad || !un->line_range || !un->opcode_base)
		return -1;
	un->std_lengths = r->p;
	for (i = 1; i < un->opcode_base; i++)
		u(r, 1);
	if (un->version >= 5) {
		if (read_formats(r, &un->dir_fmt_n, un->dir_fmt) < 0)
			return -1;
		un->ndirs = uleb(r);
		un->dirs = *r;
		skip_list(r, un, un->ndirs, un->dir_fmt_n, un->dir_fmt);
		if (read_formats(r, &un->file_fmt_n, un->file_fmt) < 0)
			return -1;
		un->nfiles = uleb(r);
		un->files = *r;
		skip_list(r, un, un->nfiles, un->file_fmt_n, un->file_fmt);
	} else {
		un->dirs = *r;
		while (!r->bad && *str(r))
			;
		un->files = *r;
	}
	return r->bad ? -1 : 0;
}

struct row {
	uint64_t addr, file, line;
	int valid;
};

/* Runs one unit's program; on a row range that holds addr, writes its
 * place and returns 0. */
static int run(struct rd *r, struct unit *un, uint64_t addr, struct sf_out *o)
{
	struct row st = { 0, 1, 1, 0 }, prev = { 0, 0, 0, 0 };

	while (r->p < r->end && !r->bad) {
		unsigned op = (unsigned)u(r, 1);
		int emit = 0, end = 0;

		if (op >= un->opcode_base) {
			unsigned adj = op - un->opcode_base;
			st.addr += (uint64_t)(adj / un->line_range) * un->min_len;
			st.line += (uint64_t)(int64_t)(un->line_base + (int)(adj % un->line_range));
			emit = 1;
		} else if (op == 0) { /* extended */
			uint64_t len = uleb(r);
			const unsigned char *next = r->p + (len <= (uint64_t)(r->end - r->p) ? len : 0);
			unsigned sub;
			if (!len || len > (uint64_t)(r->end - r->p))
				return -1;
			sub = (unsigned)u(r, 1);
			if (sub == 1) { /* end_sequence */
				emit = end = 1;
			} else if (sub == 2) { /* set_address */
				st.addr = u(r, un->addr_size <= 8 ? un->addr_size : 8);
			}
			r->p = next;
		} else {
			switch (op) {
			case 1: emit = 1; break;                                  /* copy */
			case 2: st.addr += uleb(r) * un->min_len; break;         /* advance_pc */
			case 3: st.line += (uint64_t)sleb(r); break;             /* advance_line */
			case 4: st.file = uleb(r); break;                        /* set_file */
			case 8: st.addr += (uint64_t)((255 - un->opcode_base) / un->line_range) *
					   un->min_len; break;                   /* const_add_pc */
			case 9: st.addr += u(r, 2); break;                       /* fixed_advance_pc */
			default: {
				unsigned k, n = un->std_lengths[op - 1];
				for (k = 0; k < n; k++)
					uleb(r);
			}
			}
		}
		if (!emit)
			continue;
		if (prev.valid && prev.addr <= addr && addr < st.addr) {
			put_place(o, un, prev.file, prev.line);
			return 0;
		}
		prev = st;
		prev.valid = !end;
		if (end) {
			st.addr = 0;
			st.file = 1;
			st.line = 1;
		}
	}
	return -1;
}

static const Elf64_Shdr *section(const unsigned char *im, size_t size, const char *name)
{
	const Elf64_Ehdr *eh = (const void *)im;
	const Elf64_Shdr *sh, *strs;
	unsigned i;

	if (size < sizeof *eh || eh->e_ident[EI_MAG0] != ELFMAG0 || eh->e_ident[EI_MAG1] != ELFMAG1 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shoff > size ||
	    (uint64_t)eh->e_shnum * sizeof *sh > size - eh->e_shoff || eh->e_shstrndx >= eh->e_shnum)
		return NULL;
	sh = (const void *)(im + eh->e_shoff);
	strs = &sh[eh->e_shstrndx];
	if (strs->sh_offset > size || strs->sh_size > size - strs->sh_offset)
		return NULL;
	for (i = 0; i < eh->e_shnum; i++) {
		const char *n = (const char *)im + strs->sh_offset + sh[i].sh_name;
		const char *want = name;
		if (sh[i].sh_name >= strs->sh_size)
			continue;
		while (*want && (const unsigned char *)n < im + strs->sh_offset + strs->sh_size &&
		       *n == *want) {
			n++;
			want++;
		}
		if (*want || *n || sh[i].sh_type == SHT_NOBITS)
			continue;
		if (sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset)
			return NULL;
		return &sh[i];
	}
	return NULL;
}

static struct sect sect_of(const unsigned char *im, size_t size, const char *name)
{
	const Elf64_Shdr *s = section(im, size, name);
	struct sect out = { NULL, 0 };

	/* compressed (SHF_COMPRESSED): not read here */
	if (s && !(s->sh_flags & SHF_COMPRESSED)) {
		out.p = im + s->sh_offset;
		out.n = (size_t)s->sh_size;
	}
	return out;
}

int sf_elf_line(const unsigned char *image, size_t size, uint64_t addr, struct sf_out *o)
{
	struct sects s;
	struct rd all;

	s.line = sect_of(image, size, ".debug_line");
	if (!s.line.p)
		return -1;
	s.line_str = sect_of(image, size, ".debug_line_str");
	s.str = sect_of(image, size, ".debug_str");
	all.p = s.line.p;
	all.end = s.line.p + s.line.n;
	all.bad = 0;
	while (all.p < all.end && !all.bad) {
		struct unit un = { 0 };
		struct rd r;
		const unsigned char *prog;
		uint64_t len = u(&all, 4);

		un.s = &s;
		if (len == 0xffffffffu) {
			un.offset64 = 1;
			len = u(&all, 8);
		}
		if (all.bad || len > (uint64_t)(all.end - all.p))
			return -1;
		r.p = all.p;
		r.end = all.p + len;
		r.bad = 0;
		all.p += len;
		if (header(&r, &un, &prog) < 0 || prog > r.end)
			continue;
		r.p = prog;
		if (run(&r, &un, addr, o) == 0)
			return 0;
	}
	return -1;
}

size_t sf_elf_build_id(const unsigned char *image, size_t size, unsigned char *id, size_t cap)
{
	const Elf64_Shdr *s = section(image, size, ".note.gnu.build-id");
	const unsigned char *p;
	uint32_t namesz, descsz, type;
	size_t i;

	if (!s || s->sh_size < 12)
		return 0;
	p = image + s->sh_offset;
	namesz = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	descsz = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
	type = (uint32_t)p[8] | (uint32_t)p[9] << 8 | (uint32_t)p[10] << 16 | (uint32_t)p[11] << 24;
	if (type != NT_GNU_BUILD_ID || namesz != 4 ||
	    12 + 4 + (uint64_t)descsz > s->sh_size)
		return 0;
	for (i = 0; i < descsz && i < cap; i++)
		id[i] = p[16 + i];
	return i;
}
