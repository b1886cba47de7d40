/* DWARF's LEB128 integers, decoded a byte at a time.  Each reader fetches
 * its bytes its own way -- in place with bounds (dwline.c), through the
 * unwinder's checked reads (preload/obj/unw.c), from a mapped file
 * (preload/rewrite/rewrite.c) -- and decides when to stop; the decoding
 * is this one. */
#ifndef SECFILTER_LEB128_H
#define SECFILTER_LEB128_H

#include <stdint.h>

struct sf_leb {
	uint64_t v;     /* the bits so far, unsigned */
	unsigned shift; /* how many: 7 a byte (those past 64 are dropped) */
	uint8_t last;   /* the last byte added */
};

/* Adds the next byte; 1 when another follows it. */
static inline int sf_leb_add(struct sf_leb *l, uint8_t b)
{
	if (l->shift < 64)
		l->v |= (uint64_t)(b & 0x7f) << l->shift;
	l->shift += 7;
	l->last = b;
	return (b & 0x80) != 0;
}

/* The value as a signed LEB128: its last byte's bit 6 is the sign. */
static inline int64_t sf_leb_signed(const struct sf_leb *l)
{
	uint64_t v = l->v;

	if (l->shift < 64 && (l->last & 0x40))
		v |= ~0ull << l->shift;
	return (int64_t)v;
}

#endif
