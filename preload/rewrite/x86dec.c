/* x86-64 instruction lengths (see x86dec.h).  Tables after the Intel SDM,
 * volume 2, appendix A (opcode maps), for 64-bit mode only. */
#include "x86dec.h"

/* One byte per opcode: ModRM or not, the kind of immediate, or a verdict. */
enum {
	M = 0x10,     /* has a ModRM byte */
	I_NONE = 0,
	I_B = 1,      /* imm8 */
	I_Z = 2,      /* imm16 with 66, else imm32 */
	I_V = 3,      /* imm16/32/64: mov r, imm (B8-BF) */
	I_W = 4,      /* imm16 */
	I_WB = 5,     /* imm16 + imm8 (enter) */
	I_MOFFS = 6,  /* an 8-byte address (4 with 67) */
	I_GRP3 = 7,   /* F6/F7: imm only for /0 and /1 (test) */
	I_J8 = 8,     /* rel8 */
	I_JZ = 9,     /* rel32 (rel16 with 66: refused) */
	X = 0x20,     /* invalid in 64-bit mode, or not known for sure */
	E = 0x40,     /* handled before the table (prefix, escape, VEX...) */
};

#define IMM(f) ((f) & 0x0f)

static const uint8_t map1[256] = {
	/* 00 */ M, M, M, M, I_B, I_Z, X, X, M, M, M, M, I_B, I_Z, X, E,
	/* 10 */ M, M, M, M, I_B, I_Z, X, X, M, M, M, M, I_B, I_Z, X, X,
	/* 20 */ M, M, M, M, I_B, I_Z, E, X, M, M, M, M, I_B, I_Z, E, X,
	/* 30 */ M, M, M, M, I_B, I_Z, E, X, M, M, M, M, I_B, I_Z, E, X,
	/* 40 */ E, E, E, E, E, E, E, E, E, E, E, E, E, E, E, E,
	/* 50 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 60 */ X, X, E, M, E, E, E, E, I_Z, M | I_Z, I_B, M | I_B, 0, 0, 0, 0,
	/* 70 */ I_J8, I_J8, I_J8, I_J8, I_J8, I_J8, I_J8, I_J8,
		 I_J8, I_J8, I_J8, I_J8, I_J8, I_J8, I_J8, I_J8,
	/* 80 */ M | I_B, M | I_Z, X, M | I_B, M, M, M, M, M, M, M, M, M, M, M, E,
	/* 90 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, X, 0, 0, 0, 0, 0,
	/* a0 */ I_MOFFS, I_MOFFS, I_MOFFS, I_MOFFS, 0, 0, 0, 0, I_B, I_Z, 0, 0, 0, 0, 0, 0,
	/* b0 */ I_B, I_B, I_B, I_B, I_B, I_B, I_B, I_B, I_V, I_V, I_V, I_V, I_V, I_V, I_V, I_V,
	/* c0 */ M | I_B, M | I_B, I_W, 0, E, E, M | I_B, M | I_Z, I_WB, 0, I_W, 0, 0, I_B, X, 0,
	/* d0 */ M, M, M, M, X, X, X, 0, M, M, M, M, M, M, M, M,
	/* e0 */ I_J8, I_J8, I_J8, I_J8, I_B, I_B, I_B, I_B, I_JZ, I_JZ, X, I_J8, 0, 0, 0, 0,
	/* f0 */ E, 0, E, E, 0, 0, M | I_GRP3, M | I_GRP3, 0, 0, 0, 0, 0, 0, M, M,
};

/* 0F xx.  20-23 (mov to and from control and debug registers) read their
 * ModRM as a register whatever its mod says: refused rather than
 * mis-measured.  78/79 with 66 or F2 are AMD's extrq/insertq with two
 * immediates: refused below. */
static const uint8_t map0f[256] = {
	/* 00 */ M, M, M, M, X, 0, 0, 0, 0, 0, X, 0, X, M, 0, X,
	/* 10 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	/* 20 */ X, X, X, X, X, X, X, X, M, M, M, M, M, M, M, M,
	/* 30 */ 0, 0, 0, 0, 0, 0, X, 0, E, X, E, X, X, X, X, X,
	/* 40 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	/* 50 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	/* 60 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	/* 70 */ M | I_B, M | I_B, M | I_B, M | I_B, M, M, M, 0, M, M, X, X, M, M, M, M,
	/* 80 */ I_JZ, I_JZ, I_JZ, I_JZ, I_JZ, I_JZ, I_JZ, I_JZ,
		 I_JZ, I_JZ, I_JZ, I_JZ, I_JZ, I_JZ, I_JZ, I_JZ,
	/* 90 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	/* a0 */ 0, 0, 0, M, M | I_B, M, X, X, 0, 0, 0, M, M | I_B, M, M, M,
	/* b0 */ M, M, M, M, M, M, M, M, M, M, M | I_B, M, M, M, M, M,
	/* c0 */ M, M, M | I_B, M, M | I_B, M | I_B, M | I_B, M, 0, 0, 0, 0, 0, 0, 0, 0,
	/* d0 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	/* e0 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	/* f0 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
};

/* VEX and EVEX encoded instructions of map 0F with an imm8. */
static int vex_0f_imm(uint8_t op)
{
	return (op >= 0x70 && op <= 0x73) || op == 0xc2 || (op >= 0xc4 && op <= 0xc6);
}

/* ModRM, SIB and displacement from p[i]; returns the index after them or
 * 0 when they do not fit. */
static unsigned modrm(const uint8_t *p, size_t avail, unsigned i, struct sf_insn *in)
{
	unsigned mod, rm;

	if (i >= avail)
		return 0;
	in->has_modrm = 1;
	in->modrm = p[i++];
	mod = in->modrm >> 6;
	rm = in->modrm & 7;
	if (mod == 3)
		return i;
	if (rm == 4) {
		if (i >= avail)
			return 0;
		in->has_sib = 1;
		in->sib = p[i++];
		if (mod == 0 && (in->sib & 7) == 5)
			in->disp_len = 4;
	} else if (mod == 0 && rm == 5) {
		in->disp_len = 4;
		in->riprel = 1;
	}
	if (mod == 1)
		in->disp_len = 1;
	else if (mod == 2)
		in->disp_len = 4;
	in->disp_off = (uint8_t)i;
	return i + in->disp_len;
}

static unsigned finish(size_t avail, unsigned i, unsigned imm, struct sf_insn *in)
{
	in->imm_off = (uint8_t)i;
	in->imm_len = (uint8_t)imm;
	i += imm;
	if (i > 15 || i > avail)
		return 0;
	in->len = (uint8_t)i;
	return i;
}

/* VEX (C4, C5) and EVEX (62): the prefix carries the map; every one of
 * these instructions has a ModRM except vzeroupper/vzeroall. */
static unsigned vex(const uint8_t *p, size_t avail, unsigned i, struct sf_insn *in)
{
	uint8_t first = p[i];
	unsigned payload = first == 0xc5 ? 1 : first == 0xc4 ? 2 : 3, map;

	if (in->rex || (in->pfx & (SF_PFX_66 | SF_PFX_F2 | SF_PFX_F3 | SF_PFX_LOCK)))
		return 0; /* #UD */
	if (i + 1 + payload >= avail)
		return 0;
	in->vex = 1;
	if (first == 0xc5)
		map = 1;
	else if (first == 0xc4)
		map = p[i + 1] & 0x1f;
	else
		map = p[i + 1] & 0x07;
	if (map < 1 || map > 3)
		return 0;
	in->map = (uint8_t)map;
	i += 1 + payload;
	in->op_off = (uint8_t)i;
	in->op = p[i++];
	if (map == 1 && in->op == 0x77 && first != 0x62)
		return finish(avail, i, 0, in);
	if (!(i = modrm(p, avail, i, in)))
		return 0;
	return finish(avail, i, map == 3 || (map == 1 && vex_0f_imm(in->op)) ? 1 : 0, in);
}

unsigned sf_x86_decode(const uint8_t *p, size_t avail, struct sf_insn *in)
{
	unsigned i = 0, imm = 0;
	uint8_t f, b;

	for (b = 0; b < sizeof *in; b++)
		((uint8_t *)in)[b] = 0;
	if (avail > 15)
		avail = 15;
	/* Prefixes; a REX counts only right before the opcode. */
	for (;; i++) {
		if (i >= avail)
			return 0;
		b = p[i];
		if ((b & 0xf0) == 0x40) {
			in->rex = b;
			continue;
		}
		switch (b) {
		case 0x66: in->pfx |= SF_PFX_66; break;
		case 0x67: in->pfx |= SF_PFX_67; break;
		case 0xf2: in->pfx |= SF_PFX_F2; break;
		case 0xf3: in->pfx |= SF_PFX_F3; break;
		case 0xf0: in->pfx |= SF_PFX_LOCK; break;
		case 0x64: in->pfx |= SF_PFX_FS; break;
		case 0x65: in->pfx |= SF_PFX_GS; break;
		case 0x26: case 0x2e: case 0x36: case 0x3e: in->pfx |= SF_PFX_SEG; break;
		default: goto opcode;
		}
		in->rex = 0;
	}
opcode:
	if (b == 0xc4 || b == 0xc5 || b == 0x62)
		return vex(p, avail, i, in);
	if (b == 0x8f && i + 1 < avail && (p[i + 1] & 0x1f) >= 8)
		return 0; /* XOP */
	if (b == 0x0f) {
		if (++i >= avail)
			return 0;
		b = p[i];
		if (b == 0x38 || b == 0x3a) {
			if (++i >= avail)
				return 0;
			in->map = b == 0x38 ? SF_MAP_0F38 : SF_MAP_0F3A;
			in->op_off = (uint8_t)i;
			in->op = p[i++];
			if (!(i = modrm(p, avail, i, in)))
				return 0;
			return finish(avail, i, in->map == SF_MAP_0F3A, in);
		}
		in->map = SF_MAP_0F;
		f = map0f[b];
		if ((b == 0x78 || b == 0x79) && (in->pfx & (SF_PFX_66 | SF_PFX_F2)))
			return 0;
	} else {
		in->map = SF_MAP_1;
		f = map1[b];
		if (b == 0x8f)
			f = M;
	}
	if (f & (X | E))
		return 0;
	in->op_off = (uint8_t)i;
	in->op = b;
	i++;
	if ((f & M) && !(i = modrm(p, avail, i, in)))
		return 0;
	switch (IMM(f)) {
	case I_NONE: imm = 0; break;
	case I_B: case I_J8: imm = 1; break;
	case I_Z: imm = (in->pfx & SF_PFX_66) ? 2 : 4; break;
	case I_V: imm = (in->rex & 8) ? 8 : (in->pfx & SF_PFX_66) ? 2 : 4; break;
	case I_W: imm = 2; break;
	case I_WB: imm = 3; break;
	case I_MOFFS: imm = (in->pfx & SF_PFX_67) ? 4 : 8; break;
	case I_GRP3:
		if (sf_modrm_reg(in) < 2)
			imm = b == 0xf6 ? 1 : (in->pfx & SF_PFX_66) ? 2 : 4;
		break;
	case I_JZ:
		if (in->pfx & SF_PFX_66)
			return 0; /* Intel and AMD disagree on its length */
		imm = 4;
		break;
	default: return 0;
	}
	return finish(avail, i, imm, in);
}
