/* An x86-64 instruction decoder for the site rewriter (rewrite.c): how
 * long an instruction is and where its parts lie, no more.
 *
 * The rewriter finds instruction boundaries by decoding forward from a
 * function's first byte; one wrong length would put every later boundary
 * in the wrong place.  So anything this decoder does not know for sure
 * (an opcode it has no row for, XOP, 3DNow!, the mov-to-control-register
 * forms whose ModRM has no memory form, a branch with an operand-size
 * prefix) is a failure, and the rewriter then leaves the site to the trap.
 * tests/unit/test_x86dec.c checks the lengths against objdump over whole
 * libraries.  No libc: it runs inside the SIGSYS handler. */
#ifndef SECFILTER_X86DEC_H
#define SECFILTER_X86DEC_H

#include <stddef.h>
#include <stdint.h>

/* Legacy prefixes seen (bits of sf_insn.pfx). */
#define SF_PFX_66 0x01   /* operand size */
#define SF_PFX_67 0x02   /* address size */
#define SF_PFX_F2 0x04
#define SF_PFX_F3 0x08
#define SF_PFX_LOCK 0x10
#define SF_PFX_FS 0x20   /* 64 */
#define SF_PFX_GS 0x40   /* 65 */
#define SF_PFX_SEG 0x80  /* 26, 2E, 36, 3E: ignored in 64-bit mode */

/* Opcode maps (sf_insn.map). */
enum sf_x86_map { SF_MAP_1, SF_MAP_0F, SF_MAP_0F38, SF_MAP_0F3A };

struct sf_insn {
	uint8_t len;      /* bytes in all */
	uint8_t pfx;      /* SF_PFX_* */
	uint8_t rex;      /* the REX byte in force, 0 if none */
	uint8_t vex;      /* 1: VEX or EVEX encoded */
	uint8_t map;      /* enum sf_x86_map */
	uint8_t op;       /* the opcode byte within its map */
	uint8_t op_off;   /* where the opcode byte is */
	uint8_t has_modrm, modrm, has_sib, sib;
	uint8_t disp_off, disp_len; /* displacement; disp_len 0 if none */
	uint8_t imm_off, imm_len;   /* immediate (or branch offset); 0 if none */
	uint8_t riprel;   /* a memory operand addressed from rip */
};

/* Decodes the instruction at p (at most avail bytes readable).  Returns
 * its length, or 0 when it is not one this decoder knows for sure. */
unsigned sf_x86_decode(const uint8_t *p, size_t avail, struct sf_insn *in);

static inline unsigned sf_modrm_mod(const struct sf_insn *in) { return in->modrm >> 6; }
static inline unsigned sf_modrm_reg(const struct sf_insn *in) { return (in->modrm >> 3) & 7; }
static inline unsigned sf_modrm_rm(const struct sf_insn *in) { return in->modrm & 7; }

#endif
