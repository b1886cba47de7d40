/* The reporter's unwinder: DWARF call frame information, read from the
 * loaded objects themselves.
 *
 * libunwind did this before, dlopen'ed by every process that enforces a
 * policy: about 250 us of every filtered process start went into loading
 * it and liblzma, and it was found through the program's own library
 * search path (RPATH, RUNPATH, LD_LIBRARY_PATH), which the program
 * controls.  What a report needs is much less than libunwind: the
 * instruction pointers of the frames of one thread, from a signal's saved
 * registers or from the reporter's own frame.
 *
 * The objects are those of the loader's list (its _r_debug, which objs.c
 * finds in the loader's own symbol table), plus this
 * library (which the list does not hold when it is loaded in a namespace
 * of its own); each object's PT_GNU_EH_FRAME segment is the
 * .eh_frame_hdr, whose sorted table finds the FDE of a pc.  The FDE's and
 * its CIE's instructions give the caller's registers, including the
 * DWARF expressions that glibc's and gcc's CFI use: PLT entries (the CFA
 * depends on rip), and the signal trampolines (glibc's __restore_rt and
 * this library's sf_restorer_checked, raw.S), whose CFI loads every
 * register from the ucontext, so a backtrace crosses a program's signal
 * handler.  Code without CFI falls back to the frame pointer chain.
 *
 * The stack may be corrupt, and the program's memory is not ours: every
 * read is checked first.  The kernel says whether a page can be read
 * without side effects (user.c: rt_sigprocmask with an invalid `how`
 * reads its set, then refuses); a few pages found readable are kept per
 * walk.  Under a kernel filter that probe is itself judged: the caller
 * says whether it may be made (may), and an unreadable page ends the
 * walk.  Every loop is bounded: frames, CFA instructions, DWARF
 * expression steps, objects in the list, bytes of a symbol table. */
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <sys/syscall.h>

#include "obj.h"
#include "leb128.h"
#include "unw.h"

#define MAX_STEPS 64        /* frames one walk may take */
#define MAX_OBJECTS 1024    /* entries of the loader's list */
#define MAX_CFA_INSNS 4096  /* CFA instructions run for one frame */
#define MAX_OPS 256         /* DWARF expression operations evaluated */
#define EXPR_STACK 32
#define STATE_DEPTH 6       /* DW_CFA_remember_state nesting */
#define MAX_SCAN (1u << 20) /* .eh_frame bytes scanned without a table */
#define MAX_SYMS (1u << 20) /* dynamic symbols looked at */

#define PAGE 4096ul

/* ---- checked reads ---- */

static int page_ok(struct sf_unw *u, uintptr_t page)
{
	unsigned i;

	for (i = 0; i < u->npages; i++)
		if (u->page[i] == page)
			return 1;
	if (page == 0)
		return 0;
	if (u->may) {
		uint64_t a[6];
		long nr = sf_page_probe(page, a);
		if (!u->may(nr, a))
			return 0;
	}
	if (!sf_page_readable(page))
		return 0;
	if (u->npages < SF_UNW_PAGES) {
		u->page[u->npages++] = page;
	} else {
		u->page[u->next_page] = page;
		u->next_page = (u->next_page + 1) % SF_UNW_PAGES;
	}
	return 1;
}

static int rd(struct sf_unw *u, uintptr_t a, void *dst, size_t n)
{
	uintptr_t p, end = a + n;
	unsigned char *d = dst;
	size_t i;

	if (end < a)
		return -1;
	for (p = a & ~(PAGE - 1); p < end; p += PAGE)
		if (!page_ok(u, p))
			return -1;
	for (i = 0; i < n; i++)
		d[i] = ((const volatile unsigned char *)a)[i];
	return 0;
}

static int rd64(struct sf_unw *u, uintptr_t a, uint64_t *v)
{
	return rd(u, a, v, sizeof *v);
}

/* A string into buf (cut to cap - 1 bytes). */
static void rd_str(struct sf_unw *u, uintptr_t a, char *buf, size_t cap)
{
	size_t i;

	for (i = 0; i + 1 < cap; i++)
		if (rd(u, a + i, &buf[i], 1) < 0 || buf[i] == '\0')
			break;
	buf[i] = '\0';
}

/* A cursor over checked memory: a failed read sets bad and yields 0, so
 * a parser reads on and checks once. */
struct cur {
	struct sf_unw *u;
	uintptr_t p, end;
	int bad;
};

static void get(struct cur *c, void *dst, size_t n)
{
	if (c->bad || c->p + n > c->end || c->p + n < c->p || rd(c->u, c->p, dst, n) < 0) {
		c->bad = 1;
		sf_memset(dst, 0, n);
		return;
	}
	c->p += n;
}

/* An n-byte little-endian field (n <= 8). */
static uint64_t un(struct cur *c, size_t n)
{
	uint64_t v = 0;

	get(c, &v, n);
	return v;
}

static uint8_t u8(struct cur *c) { return (uint8_t)un(c, 1); }
static uint16_t u16(struct cur *c) { return (uint16_t)un(c, 2); }
static uint32_t u32(struct cur *c) { return (uint32_t)un(c, 4); }
static uint64_t u64(struct cur *c) { return un(c, 8); }

/* A LEB128 of at most 10 bytes; bad when it does not end there. */
static struct sf_leb leb(struct cur *c)
{
	struct sf_leb l = { 0, 0, 0 };
	int more;

	do
		more = sf_leb_add(&l, u8(c));
	while (more && !c->bad && l.shift < 70);
	if (more)
		c->bad = 1;
	return l;
}

static uint64_t uleb(struct cur *c)
{
	return leb(c).v;
}

static int64_t sleb(struct cur *c)
{
	struct sf_leb l = leb(c);

	return sf_leb_signed(&l);
}

/* A DW_EH_PE-encoded pointer at the cursor (obj.h). */
static uint64_t enc_ptr(struct cur *c, uint8_t enc, uintptr_t datarel)
{
	const uint64_t at = c->p, base = datarel;
	int n = sf_pe_size(enc);
	uint64_t v;

	if (enc == SF_PE_OMIT)
		return 0;
	if ((enc & 0x70) == SF_PE_ALIGNED) {
		c->p = (c->p + 7) & ~(uintptr_t)7;
		return u64(c);
	}
	if (n < 0) {
		c->bad = 1;
		return 0;
	}
	if (n == 0)
		v = (enc & 0x0f) == SF_PE_SLEB128 ? (uint64_t)sleb(c) : uleb(c);
	else
		v = sf_pe_extend(enc, un(c, (size_t)n));
	if (sf_pe_base(enc, &v, &at, &base) < 0) {
		c->bad = 1;
		return 0;
	}
	if ((enc & SF_PE_INDIRECT) && !c->bad && rd64(c->u, v, &v) < 0)
		c->bad = 1;
	return v;
}

/* ---- the loaded objects ---- */

struct obj {
	uintptr_t bias;
	uintptr_t phdr;
	unsigned phnum;
	uintptr_t lm;      /* its link_map, 0 for this library outside the list */
	uintptr_t hdr;     /* .eh_frame_hdr, 0 if none */
	uintptr_t hdr_end;
	uintptr_t dyn;     /* PT_DYNAMIC, 0 if none */
	int main;          /* the main program */
};

extern const Elf64_Ehdr __ehdr_start __attribute__((visibility("hidden")));

/* The program headers of the object at ehdr; 0 or -1. */
static int phdrs_at(struct sf_unw *u, uintptr_t ehdr, struct obj *o)
{
	Elf64_Ehdr eh;

	if (rd(u, ehdr, &eh, sizeof eh) < 0 || eh.e_ident[EI_MAG0] != ELFMAG0 ||
	    eh.e_ident[EI_MAG1] != ELFMAG1 || eh.e_ident[EI_MAG2] != ELFMAG2 ||
	    eh.e_ident[EI_MAG3] != ELFMAG3 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 || eh.e_phnum > 256)
		return -1;
	o->phdr = ehdr + eh.e_phoff;
	o->phnum = eh.e_phnum;
	return 0;
}

/* Whether pc is in an executable segment of o; fills hdr and dyn. */
static int contains(struct sf_unw *u, struct obj *o, uintptr_t pc)
{
	unsigned i;
	int in = 0;

	o->hdr = o->hdr_end = o->dyn = 0;
	for (i = 0; i < o->phnum; i++) {
		Elf64_Phdr ph;
		if (rd(u, o->phdr + i * sizeof ph, &ph, sizeof ph) < 0)
			return 0;
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
		    pc - o->bias >= ph.p_vaddr && pc - o->bias - ph.p_vaddr < ph.p_memsz)
			in = 1;
		else if (ph.p_type == PT_GNU_EH_FRAME) {
			o->hdr = o->bias + ph.p_vaddr;
			o->hdr_end = o->hdr + ph.p_memsz;
		} else if (ph.p_type == PT_DYNAMIC) {
			o->dyn = o->bias + ph.p_vaddr;
		}
	}
	return in;
}

/* The main program: its program headers from the auxiliary vector, or
 * its ELF header at the bias (a PIE) or at the default base. */
static int main_phdrs(struct sf_unw *u, uintptr_t bias, struct obj *o)
{
	uintptr_t phdr;
	unsigned phnum, i;
	const char *name;

	if (sf_objs_main(&phdr, &phnum, &name) == 0) {
		o->phdr = phdr;
		o->phnum = phnum;
		/* The bias the loader computed, checked against PT_PHDR. */
		for (i = 0; i < o->phnum; i++) {
			Elf64_Phdr ph;
			if (rd(u, o->phdr + i * sizeof ph, &ph, sizeof ph) < 0)
				return -1;
			if (ph.p_type == PT_PHDR && phdr - ph.p_vaddr != bias)
				return -1;
		}
		return 0;
	}
	return phdrs_at(u, bias ? bias : 0x400000, o);
}

/* The object holding pc: this library first, then the loader's list. */
static int find_obj(struct sf_unw *u, uintptr_t pc, struct obj *o)
{
	const struct r_debug *rdebug;
	struct link_map lm;
	uintptr_t p;
	unsigned n;

	sf_memset(o, 0, sizeof *o);
	if (phdrs_at(u, (uintptr_t)&__ehdr_start, o) == 0) {
		o->bias = (uintptr_t)&__ehdr_start; /* its first segment is at 0 */
		if (contains(u, o, pc))
			return 0;
	}
	rdebug = sf_objs_rdebug();
	if (!rdebug || rd64(u, (uintptr_t)&rdebug->r_map, &p) < 0)
		return -1;
	for (n = 0; p && n < MAX_OBJECTS; n++, p = (uintptr_t)lm.l_next) {
		char first;
		if (rd(u, p, &lm, sizeof lm) < 0)
			return -1;
		sf_memset(o, 0, sizeof *o);
		o->bias = lm.l_addr;
		o->lm = p;
		if (rd(u, (uintptr_t)lm.l_name, &first, 1) < 0)
			continue;
		if (n == 0 && first == '\0') {
			if (main_phdrs(u, lm.l_addr, o) < 0)
				continue;
			o->main = 1;
		} else if (phdrs_at(u, lm.l_addr, o) < 0) {
			continue;
		}
		if (contains(u, o, pc))
			return 0;
	}
	return -1;
}

int sf_unw_object(struct sf_unw *u, uintptr_t pc, char *name, size_t cap, uintptr_t *bias)
{
	struct obj o;
	struct link_map lm;
	uintptr_t phdr;
	unsigned phnum;
	const char *argv0;

	if (cap == 0 || find_obj(u, pc, &o) < 0)
		return -1;
	*bias = o.bias;
	name[0] = '\0';
	if (o.lm && rd(u, o.lm, &lm, sizeof lm) == 0)
		rd_str(u, (uintptr_t)lm.l_name, name, cap);
	else if (!o.lm && u->self_path)
		rd_str(u, (uintptr_t)u->self_path, name, cap);
	/* dladdr names the main program by argv[0]. */
	sf_objs_main(&phdr, &phnum, &argv0);
	if (name[0] == '\0' && argv0)
		rd_str(u, (uintptr_t)argv0, name, cap);
	return o.main;
}

/* ---- CIEs and FDEs ---- */

struct cie {
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra;
	uint8_t fde_enc;
	uint8_t aug_z;
	uint8_t signal;
	uintptr_t insns, end;
};

struct fde {
	uintptr_t pc_begin, pc_end;
	uintptr_t insns, end;
	struct cie cie;
};

/* One entry's length and where it ends; 0 for the terminator. */
static uint64_t entry_len(struct cur *c, uintptr_t *end)
{
	uint64_t len = u32(c);

	if (len == 0xffffffffu)
		len = u64(c);
	*end = c->p + len;
	if (*end < c->p)
		c->bad = 1;
	return len;
}

static int parse_cie(struct sf_unw *u, uintptr_t at, uintptr_t limit, struct cie *ci)
{
	struct cur c = { u, at, limit, 0 };
	char aug[8];
	unsigned n = 0, i;
	uint8_t version;
	uintptr_t aug_end = 0;

	sf_memset(ci, 0, sizeof *ci);
	if (entry_len(&c, &ci->end) == 0 || c.bad || ci->end > limit)
		return -1;
	c.end = ci->end;
	if (u32(&c) != 0) /* a CIE's id in .eh_frame */
		return -1;
	version = u8(&c);
	if (version != 1 && version != 3)
		return -1;
	for (;;) {
		char ch = (char)u8(&c);
		if (c.bad || ch == '\0')
			break;
		if (n == sizeof aug)
			return -1;
		aug[n++] = ch;
	}
	if (n >= 2 && aug[0] == 'e' && aug[1] == 'h')
		return -1; /* gcc 2's format */
	ci->code_align = uleb(&c);
	ci->data_align = sleb(&c);
	ci->ra = version == 1 ? u8(&c) : uleb(&c);
	ci->fde_enc = 0; /* absptr */
	if (n > 0 && aug[0] == 'z') {
		uint64_t alen = uleb(&c);
		ci->aug_z = 1;
		aug_end = c.p + alen;
		for (i = 1; i < n && !c.bad; i++) {
			switch (aug[i]) {
			case 'R': ci->fde_enc = u8(&c); break;
			case 'L': u8(&c); break;
			case 'P': enc_ptr(&c, u8(&c) & 0x7f, 0); break; /* not followed */
			case 'S': ci->signal = 1; break;
			case 'B': case 'G': break;
			default: i = n; break; /* unknown: the length skips it */
			}
		}
		c.p = aug_end;
	} else if (n > 0) {
		return -1; /* augmentation data we cannot skip */
	}
	/* The return address column is rip's on x86-64. */
	if (c.bad || c.p > ci->end || ci->ra != SF_UNW_RA)
		return -1;
	ci->insns = c.p;
	return 0;
}

/* The FDE at `at`; 0 if it covers pc. */
static int parse_fde(struct sf_unw *u, uintptr_t at, uintptr_t limit, uintptr_t pc, struct fde *f)
{
	struct cur c = { u, at, limit, 0 };
	uintptr_t id_at, cie_at;
	uint32_t id;
	uint64_t range;

	if (entry_len(&c, &f->end) == 0 || c.bad || f->end > limit)
		return -1;
	c.end = f->end;
	id_at = c.p;
	id = u32(&c);
	if (c.bad || id == 0)
		return -1; /* a CIE */
	cie_at = id_at - id;
	if (parse_cie(u, cie_at, limit, &f->cie) < 0)
		return -1;
	f->pc_begin = enc_ptr(&c, f->cie.fde_enc, 0);
	range = enc_ptr(&c, f->cie.fde_enc & 0x0f, 0);
	f->pc_end = f->pc_begin + range;
	if (f->cie.aug_z) {
		uint64_t alen = uleb(&c);
		c.p += alen;
	}
	if (c.bad || c.p > f->end)
		return -1;
	f->insns = c.p;
	return pc >= f->pc_begin && pc < f->pc_end ? 0 : -1;
}

/* The .eh_frame_hdr's table: (initial location, FDE) pairs sorted by
 * location, in the one encoding linkers write (datarel sdata4).  Without
 * it, a bounded scan of .eh_frame. */
static int find_fde(struct sf_unw *u, const struct obj *o, uintptr_t pc, struct fde *f)
{
	struct cur c = { u, o->hdr, o->hdr_end, 0 };
	uint8_t version, frame_enc, count_enc, table_enc;
	uintptr_t frame, table, p, end;
	uint64_t count, lo, hi;

	version = u8(&c);
	frame_enc = u8(&c);
	count_enc = u8(&c);
	table_enc = u8(&c);
	frame = enc_ptr(&c, frame_enc, o->hdr);
	if (c.bad || version != 1)
		return -1;
	if (count_enc != SF_PE_OMIT && table_enc == 0x3b) {
		count = enc_ptr(&c, count_enc, o->hdr);
		table = c.p;
		if (c.bad || count == 0 || count > (o->hdr_end - table) / 8)
			return -1;
		lo = 0;
		hi = count;
		while (hi - lo > 1) { /* the last entry whose location <= pc */
			uint64_t mid = lo + (hi - lo) / 2;
			int32_t loc;
			if (rd(u, table + mid * 8, &loc, 4) < 0)
				return -1;
			if (o->hdr + (intptr_t)loc <= pc)
				lo = mid;
			else
				hi = mid;
		}
		{
			int32_t ent[2];
			if (rd(u, table + lo * 8, ent, 8) < 0)
				return -1;
			p = o->hdr + (intptr_t)ent[1];
		}
		/* The FDE's end is unknown until its length is read: the
		 * object's address space bounds it. */
		return parse_fde(u, p, UINTPTR_MAX, pc, f);
	}
	/* A scan, each entry's length taking it to the next. */
	for (p = frame, end = frame + MAX_SCAN; p < end;) {
		struct cur e = { u, p, UINTPTR_MAX, 0 };
		uintptr_t next;
		if (entry_len(&e, &next) == 0 || e.bad || next <= p)
			return -1;
		if (parse_fde(u, p, UINTPTR_MAX, pc, f) == 0)
			return 0;
		p = next;
	}
	return -1;
}

/* ---- the CFA program ---- */

enum how { R_SAME, R_UNDEF, R_OFFSET, R_VAL_OFFSET, R_REG, R_EXPR, R_VAL_EXPR };

struct rule {
	uint8_t how;
	int64_t off;       /* OFFSET, VAL_OFFSET: from the CFA; REG: the register */
	uintptr_t expr;    /* EXPR, VAL_EXPR: the block */
	uint32_t len;
};

struct row {
	struct rule reg[SF_UNW_NREGS];
	int cfa_expr;      /* 0: reg + off; 1: expression */
	uint64_t cfa_reg;
	int64_t cfa_off;
	uintptr_t expr;
	uint32_t len;
};

/* Runs one instruction stream until the row for pc is complete.
 * 0, or -1 on anything it does not understand. */
static int run(struct sf_unw *u, const struct cie *ci, uintptr_t p, uintptr_t end,
	       uintptr_t loc, uintptr_t pc, struct row *row, const struct row *init,
	       unsigned *budget)
{
	struct cur c = { u, p, end, 0 };
	struct row saved[STATE_DEPTH];
	unsigned depth = 0;

	while (c.p < c.end && !c.bad) {
		uint8_t op = u8(&c), lo = op & 0x3f;
		uint64_t reg, delta = 0;
		int64_t off;
		struct rule *r = NULL;

		if ((*budget)-- == 0)
			return -1;
		switch (op >> 6) {
		case 1: /* advance_loc */
			delta = lo * ci->code_align;
			goto advance;
		case 2: /* offset */
			reg = lo;
			off = (int64_t)uleb(&c) * ci->data_align;
			if (reg < SF_UNW_NREGS)
				row->reg[reg] = (struct rule){ .how = R_OFFSET, .off = off };
			continue;
		case 3: /* restore */
			if (!init)
				return -1;
			if (lo < SF_UNW_NREGS)
				row->reg[lo] = init->reg[lo];
			continue;
		}
		switch (op) {
		case 0x00: /* nop */
			continue;
		case 0x01: /* set_loc */
			loc = enc_ptr(&c, ci->fde_enc, 0);
			if (loc > pc)
				return c.bad ? -1 : 0;
			continue;
		case 0x02: delta = u8(&c) * ci->code_align; goto advance;
		case 0x03: delta = u16(&c) * ci->code_align; goto advance;
		case 0x04: delta = u32(&c) * ci->code_align; goto advance;
		case 0x05: /* offset_extended */
		case 0x14: /* val_offset */
			reg = uleb(&c);
			off = (int64_t)uleb(&c) * ci->data_align;
			if (reg < SF_UNW_NREGS)
				row->reg[reg] = (struct rule){ .how = op == 0x05 ? R_OFFSET : R_VAL_OFFSET,
							      .off = off };
			continue;
		case 0x06: /* restore_extended */
			reg = uleb(&c);
			if (!init)
				return -1;
			if (reg < SF_UNW_NREGS)
				row->reg[reg] = init->reg[reg];
			continue;
		case 0x07: /* undefined */
		case 0x08: /* same_value */
			reg = uleb(&c);
			if (reg < SF_UNW_NREGS)
				row->reg[reg] = (struct rule){ .how = op == 0x07 ? R_UNDEF : R_SAME };
			continue;
		case 0x09: /* register */
			reg = uleb(&c);
			off = (int64_t)uleb(&c);
			if (reg < SF_UNW_NREGS)
				row->reg[reg] = (struct rule){ .how = R_REG, .off = off };
			continue;
		case 0x0a: /* remember_state */
			if (depth == STATE_DEPTH)
				return -1;
			saved[depth++] = *row;
			continue;
		case 0x0b: /* restore_state */
			if (depth == 0)
				return -1;
			*row = saved[--depth];
			continue;
		case 0x0c: /* def_cfa */
			row->cfa_expr = 0;
			row->cfa_reg = uleb(&c);
			row->cfa_off = (int64_t)uleb(&c);
			continue;
		case 0x0d: /* def_cfa_register */
			row->cfa_expr = 0;
			row->cfa_reg = uleb(&c);
			continue;
		case 0x0e: /* def_cfa_offset */
			row->cfa_off = (int64_t)uleb(&c);
			continue;
		case 0x0f: /* def_cfa_expression */
			row->cfa_expr = 1;
			row->len = (uint32_t)uleb(&c);
			row->expr = c.p;
			c.p += row->len;
			continue;
		case 0x10: /* expression */
		case 0x16: /* val_expression */
			reg = uleb(&c);
			off = (int64_t)uleb(&c);
			if (reg < SF_UNW_NREGS) {
				r = &row->reg[reg];
				*r = (struct rule){ .how = op == 0x10 ? R_EXPR : R_VAL_EXPR,
						    .expr = c.p, .len = (uint32_t)off };
			}
			c.p += (uint64_t)off;
			continue;
		case 0x11: /* offset_extended_sf */
		case 0x15: /* val_offset_sf */
			reg = uleb(&c);
			off = sleb(&c) * ci->data_align;
			if (reg < SF_UNW_NREGS)
				row->reg[reg] = (struct rule){
					.how = op == 0x11 ? R_OFFSET : R_VAL_OFFSET, .off = off };
			continue;
		case 0x12: /* def_cfa_sf */
			row->cfa_expr = 0;
			row->cfa_reg = uleb(&c);
			row->cfa_off = sleb(&c) * ci->data_align;
			continue;
		case 0x13: /* def_cfa_offset_sf */
			row->cfa_off = sleb(&c) * ci->data_align;
			continue;
		case 0x2e: /* GNU_args_size */
			uleb(&c);
			continue;
		case 0x2f: /* GNU_negative_offset_extended */
			reg = uleb(&c);
			off = -(int64_t)uleb(&c) * ci->data_align;
			if (reg < SF_UNW_NREGS)
				row->reg[reg] = (struct rule){ .how = R_OFFSET, .off = off };
			continue;
		default:
			return -1;
		}
	advance:
		if (c.bad)
			return -1;
		loc += delta;
		if (loc > pc)
			return 0;
	}
	return c.bad ? -1 : 0;
}

/* ---- DWARF expressions ---- */

static int reg_value(const uint64_t *regs, uint32_t valid, uint64_t r, uint64_t *v)
{
	if (r >= SF_UNW_NREGS || !(valid & (1u << r)))
		return -1;
	*v = regs[r];
	return 0;
}

/* The operations CFI uses: constants, the stack, arithmetic and
 * comparisons, branches, registers plus an offset, and dereferences. */
static int eval(struct sf_unw *u, const uint64_t *regs, uint32_t valid, uintptr_t p,
		uint32_t len, int push_cfa, uint64_t cfa, uint64_t *out)
{
	struct cur c = { u, p, p + len, 0 };
	uint64_t st[EXPR_STACK], a, b;
	unsigned sp = 0, ops = 0;

#define NEED(n) do { if (sp < (n)) return -1; } while (0)
#define PUSH(v) do { uint64_t v_ = (v); if (sp == EXPR_STACK) return -1; st[sp++] = v_; } while (0)
	if (c.end < c.p)
		return -1;
	if (push_cfa)
		PUSH(cfa);
	while (c.p < c.end) {
		uint8_t op = u8(&c);
		if (c.bad || ++ops > MAX_OPS)
			return -1;
		if (op >= 0x30 && op <= 0x4f) { /* lit0..lit31 */
			PUSH((uint64_t)(op - 0x30));
			continue;
		}
		if (op >= 0x70 && op <= 0x8f) { /* breg0..breg31 */
			int64_t off = sleb(&c);
			if (reg_value(regs, valid, op - 0x70, &a) < 0)
				return -1;
			PUSH(a + (uint64_t)off);
			continue;
		}
		switch (op) {
		case 0x03: PUSH(u64(&c)); break;                         /* addr */
		case 0x06: NEED(1);                                       /* deref */
			if (rd64(u, st[sp - 1], &st[sp - 1]) < 0)
				return -1;
			break;
		case 0x08: PUSH(u8(&c)); break;                           /* const1u */
		case 0x09: PUSH((uint64_t)(int64_t)(int8_t)u8(&c)); break;   /* const1s */
		case 0x0a: PUSH(u16(&c)); break;                          /* const2u */
		case 0x0b: PUSH((uint64_t)(int64_t)(int16_t)u16(&c)); break; /* const2s */
		case 0x0c: PUSH(u32(&c)); break;                          /* const4u */
		case 0x0d: PUSH((uint64_t)(int64_t)(int32_t)u32(&c)); break; /* const4s */
		case 0x0e: case 0x0f: PUSH(u64(&c)); break;               /* const8u/s */
		case 0x10: PUSH(uleb(&c)); break;                         /* constu */
		case 0x11: PUSH((uint64_t)sleb(&c)); break;               /* consts */
		case 0x12: NEED(1); PUSH(st[sp - 1]); break;              /* dup */
		case 0x13: NEED(1); sp--; break;                          /* drop */
		case 0x14: NEED(2); PUSH(st[sp - 2]); break;              /* over */
		case 0x15: {                                              /* pick */
			uint8_t i = u8(&c);
			NEED((unsigned)i + 1);
			PUSH(st[sp - 1 - i]);
			break;
		}
		case 0x16: NEED(2); a = st[sp - 1]; st[sp - 1] = st[sp - 2]; st[sp - 2] = a; break;
		case 0x17: NEED(3); a = st[sp - 1];                       /* rot */
			st[sp - 1] = st[sp - 2]; st[sp - 2] = st[sp - 3]; st[sp - 3] = a;
			break;
		case 0x19: NEED(1);                                       /* abs */
			if ((int64_t)st[sp - 1] < 0)
				st[sp - 1] = -st[sp - 1];
			break;
		case 0x1f: NEED(1); st[sp - 1] = -st[sp - 1]; break;      /* neg */
		case 0x20: NEED(1); st[sp - 1] = ~st[sp - 1]; break;      /* not */
		case 0x23: NEED(1); st[sp - 1] += uleb(&c); break;        /* plus_uconst */
		case 0x1a: case 0x1b: case 0x1c: case 0x1d: case 0x1e: case 0x21:
		case 0x22: case 0x24: case 0x25: case 0x26: case 0x27:
		case 0x29: case 0x2a: case 0x2b: case 0x2c: case 0x2d: case 0x2e:
			NEED(2);
			b = st[--sp];
			a = st[sp - 1];
			switch (op) {
			case 0x1a: a &= b; break;                                   /* and */
			case 0x1b: if (!b) return -1;                               /* div */
				a = (uint64_t)((int64_t)a / (int64_t)b); break;
			case 0x1c: a -= b; break;                                   /* minus */
			case 0x1d: if (!b) return -1; a %= b; break;                /* mod */
			case 0x1e: a *= b; break;                                   /* mul */
			case 0x21: a |= b; break;                                   /* or */
			case 0x22: a += b; break;                                   /* plus */
			case 0x24: a = b < 64 ? a << b : 0; break;                  /* shl */
			case 0x25: a = b < 64 ? a >> b : 0; break;                  /* shr */
			case 0x26: a = (uint64_t)((int64_t)a >> (b < 63 ? b : 63)); break; /* shra */
			case 0x27: a ^= b; break;                                   /* xor */
			case 0x29: a = a == b; break;                               /* eq */
			case 0x2a: a = (int64_t)a >= (int64_t)b; break;             /* ge */
			case 0x2b: a = (int64_t)a > (int64_t)b; break;              /* gt */
			case 0x2c: a = (int64_t)a <= (int64_t)b; break;             /* le */
			case 0x2d: a = (int64_t)a < (int64_t)b; break;              /* lt */
			case 0x2e: a = a != b; break;                               /* ne */
			}
			st[sp - 1] = a;
			break;
		case 0x2f: case 0x28: {                                   /* skip, bra */
			int16_t d = (int16_t)u16(&c);
			if (op == 0x28) {
				NEED(1);
				if (st[--sp] == 0)
					break;
			}
			if ((intptr_t)d < 0 && (uintptr_t)-(intptr_t)d > c.p - p)
				return -1;
			c.p += (intptr_t)d;
			break;
		}
		case 0x92: {                                              /* bregx */
			uint64_t r = uleb(&c);
			int64_t off = sleb(&c);
			if (reg_value(regs, valid, r, &a) < 0)
				return -1;
			PUSH(a + (uint64_t)off);
			break;
		}
		case 0x94: {                                              /* deref_size */
			uint8_t n = u8(&c);
			uint64_t v = 0;
			NEED(1);
			if (n == 0 || n > 8 || rd(u, st[sp - 1], &v, n) < 0)
				return -1;
			st[sp - 1] = v;
			break;
		}
		case 0x96: break;                                         /* nop */
		default:
			return -1;
		}
		if (c.bad)
			return -1;
	}
#undef NEED
#undef PUSH
	if (sp == 0)
		return -1;
	*out = st[sp - 1];
	return 0;
}

/* ---- one step ---- */

static void init_row(struct row *row)
{
	unsigned i;

	sf_memset(row, 0, sizeof *row);
	for (i = 0; i < SF_UNW_NREGS; i++)
		row->reg[i].how = R_SAME;
}

/* The caller's registers by the row; 0 or -1. */
static int apply(struct sf_unw *u, const struct row *row, int *end)
{
	uint64_t nreg[SF_UNW_NREGS], cfa, v;
	uint32_t nvalid = 0;
	unsigned i;

	*end = 0;
	if (row->cfa_expr) {
		if (eval(u, u->reg, u->valid, row->expr, row->len, 0, 0, &cfa) < 0)
			return -1;
	} else {
		if (reg_value(u->reg, u->valid, row->cfa_reg, &v) < 0)
			return -1;
		cfa = v + (uint64_t)row->cfa_off;
	}
	for (i = 0; i < SF_UNW_NREGS; i++) {
		const struct rule *r = &row->reg[i];
		switch (r->how) {
		case R_SAME:
			if (i == SF_UNW_RA || !(u->valid & (1u << i)))
				continue;
			v = u->reg[i];
			break;
		case R_UNDEF:
			if (i == SF_UNW_RA)
				*end = 1;
			continue;
		case R_OFFSET:
			if (rd64(u, cfa + (uint64_t)r->off, &v) < 0)
				return -1;
			break;
		case R_VAL_OFFSET:
			v = cfa + (uint64_t)r->off;
			break;
		case R_REG:
			if (reg_value(u->reg, u->valid, (uint64_t)r->off, &v) < 0)
				continue;
			break;
		case R_EXPR:
			if (eval(u, u->reg, u->valid, r->expr, r->len, 1, cfa, &v) < 0 ||
			    rd64(u, v, &v) < 0)
				return -1;
			break;
		case R_VAL_EXPR:
			if (eval(u, u->reg, u->valid, r->expr, r->len, 1, cfa, &v) < 0)
				return -1;
			break;
		default:
			return -1;
		}
		nreg[i] = v;
		nvalid |= 1u << i;
	}
	if (*end)
		return 0;
	if (!(nvalid & (1u << SF_UNW_RA)))
		return -1;
	/* The CFA is the caller's stack pointer, unless a rule says where
	 * the caller's was saved (a signal frame's CFA already is it). */
	if (row->reg[SF_UNW_RSP].how == R_SAME || row->reg[SF_UNW_RSP].how == R_UNDEF) {
		nreg[SF_UNW_RSP] = cfa;
		nvalid |= 1u << SF_UNW_RSP;
	}
	for (i = 0; i < SF_UNW_NREGS; i++)
		u->reg[i] = nreg[i];
	u->valid = nvalid;
	return 0;
}

/* Code without CFI (generated code, hand-written assembly): the frame
 * pointer chain, if rbp looks like one. */
static int step_fp(struct sf_unw *u)
{
	uint64_t rbp, rsp, frame[2];

	if (reg_value(u->reg, u->valid, SF_UNW_RBP, &rbp) < 0 ||
	    reg_value(u->reg, u->valid, SF_UNW_RSP, &rsp) < 0)
		return -1;
	if ((rbp & 7) || rbp < rsp || rbp - rsp > (64u << 20) ||
	    rd(u, rbp, frame, sizeof frame) < 0)
		return -1;
	u->reg[SF_UNW_RBP] = frame[0];
	u->reg[SF_UNW_RA] = frame[1];
	u->reg[SF_UNW_RSP] = rbp + 16;
	u->valid = (1u << SF_UNW_RBP) | (1u << SF_UNW_RA) | (1u << SF_UNW_RSP);
	return 0;
}

int sf_unw_step(struct sf_unw *u)
{
	uintptr_t pc = sf_unw_ip(u), look, old_sp = u->reg[SF_UNW_RSP];
	struct obj o;
	struct fde f;
	struct row row, init;
	unsigned budget = MAX_CFA_INSNS;
	int end = 0, signal = 0;

	if (++u->steps > MAX_STEPS || pc == 0)
		return 0;
	/* A return address is the instruction after the call, which may
	 * belong to the next function: look up the call itself.  Where a
	 * signal interrupted the code, the address is exact. */
	look = u->exact_ip ? pc : pc - 1;
	if (find_obj(u, look, &o) == 0 && o.hdr && find_fde(u, &o, look, &f) == 0) {
		init_row(&row);
		if (run(u, &f.cie, f.cie.insns, f.cie.end, f.pc_begin, look, &row, NULL, &budget) < 0)
			return 0;
		init = row;
		if (run(u, &f.cie, f.insns, f.end, f.pc_begin, look, &row, &init, &budget) < 0)
			return 0;
		if (apply(u, &row, &end) < 0 || end)
			return 0;
		signal = f.cie.signal;
	} else if (step_fp(u) < 0) {
		return 0;
	}
	if (sf_unw_ip(u) == 0 || (sf_unw_ip(u) == pc && u->reg[SF_UNW_RSP] == old_sp))
		return 0;
	u->exact_ip = signal;
	return 1;
}

/* ---- starting points ---- */

static const int greg_of[SF_UNW_NREGS] = {
	REG_RAX, REG_RDX, REG_RCX, REG_RBX, REG_RSI, REG_RDI, REG_RBP, REG_RSP,
	REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15, REG_RIP,
};

void sf_unw_init_uc(struct sf_unw *u, const ucontext_t *uc)
{
	unsigned i;

	sf_memset(u, 0, sizeof *u);
	for (i = 0; i < SF_UNW_NREGS; i++)
		u->reg[i] = (uint64_t)uc->uc_mcontext.gregs[greg_of[i]];
	u->valid = (1u << SF_UNW_NREGS) - 1;
	/* rip is after the trapped `syscall`, as a return address is after
	 * its call: the lookup takes the byte before. */
	u->exact_ip = 0;
}

/* ---- names from the dynamic symbol table ---- */

/* A d_ptr as the loader left it: relocated in place in a writable
 * .dynamic, not in a read-only one (the vDSO's). */
static uintptr_t dyn_addr(uint64_t v, uintptr_t bias)
{
	return v >= bias ? v : v + bias;
}

/* How many symbols .dynsym has: DT_HASH says it; with only DT_GNU_HASH,
 * one past the last symbol of the longest chain. */
static uint64_t nsyms(struct sf_unw *u, uintptr_t hash, uintptr_t gnu)
{
	uint32_t h[4], i, b, last = 0;

	if (hash) {
		if (rd(u, hash, h, 8) < 0)
			return 0;
		return h[1];
	}
	if (!gnu || rd(u, gnu, h, 16) < 0 || h[0] == 0 || h[0] > MAX_SYMS || h[2] > MAX_SYMS)
		return 0;
	{
		uintptr_t buckets = gnu + 16 + (uintptr_t)h[2] * 8;
		uintptr_t chains = buckets + (uintptr_t)h[0] * 4;
		for (i = 0; i < h[0]; i++) {
			if (rd(u, buckets + i * 4, &b, 4) < 0)
				return 0;
			if (b > last)
				last = b;
		}
		if (last < h[1])
			return h[1];
		for (i = 0; i < MAX_SYMS; i++, last++) {
			if (rd(u, chains + (uintptr_t)(last - h[1]) * 4, &b, 4) < 0)
				return 0;
			if (b & 1)
				return (uint64_t)last + 1;
		}
	}
	return 0;
}

int sf_unw_dynsym(struct sf_unw *u, uintptr_t pc, struct sf_buf *b)
{
	struct obj o;
	uintptr_t symtab = 0, strtab = 0, hash = 0, gnu = 0, best_name = 0;
	uint64_t strsz = 0, n, i, best = 0;
	unsigned k;
	int found = 0;
	char name[256];

	if (find_obj(u, pc, &o) < 0 || !o.dyn)
		return -1;
	for (k = 0; k < 256; k++) {
		Elf64_Dyn d;
		if (rd(u, o.dyn + k * sizeof d, &d, sizeof d) < 0 || d.d_tag == DT_NULL)
			break;
		switch (d.d_tag) {
		case DT_SYMTAB: symtab = dyn_addr(d.d_un.d_ptr, o.bias); break;
		case DT_STRTAB: strtab = dyn_addr(d.d_un.d_ptr, o.bias); break;
		case DT_STRSZ: strsz = d.d_un.d_val; break;
		case DT_HASH: hash = dyn_addr(d.d_un.d_ptr, o.bias); break;
		case DT_GNU_HASH: gnu = dyn_addr(d.d_un.d_ptr, o.bias); break;
		}
	}
	if (!symtab || !strtab)
		return -1;
	n = nsyms(u, hash, gnu);
	for (i = 1; i < n && i < MAX_SYMS; i++) {
		Elf64_Sym s;
		uint64_t v;
		if (rd(u, symtab + i * sizeof s, &s, sizeof s) < 0)
			return -1;
		if ((ELF64_ST_TYPE(s.st_info) != STT_FUNC && ELF64_ST_TYPE(s.st_info) != STT_GNU_IFUNC) ||
		    s.st_shndx == SHN_UNDEF || s.st_name >= strsz)
			continue;
		v = o.bias + s.st_value;
		if (v > pc || pc - v >= (s.st_size ? s.st_size : 1))
			continue;
		if (!found || v > best) {
			best = v;
			best_name = strtab + s.st_name;
			found = 1;
		}
	}
	if (!found)
		return -1;
	rd_str(u, best_name, name, sizeof name);
	if (!name[0])
		return -1;
	sf_puts(b, name);
	sf_puts(b, "+0x");
	sf_putx(b, pc - best);
	return 0;
}
