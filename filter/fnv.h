/* FNV-1a, 64-bit: the one hash of the project's tables and ids (the
 * kernel-filter mark, Landlock layer facts, log mode's counts, learn's
 * path table).  Not a defence against chosen inputs: what it keys is
 * either compared in full after a match or chosen by us. */
#ifndef SECFILTER_FNV_H
#define SECFILTER_FNV_H

#include <stddef.h>
#include <stdint.h>

#define SF_FNV1A_BASIS 0xcbf29ce484222325ull

/* h (SF_FNV1A_BASIS to start) extended by n bytes at p. */
static inline uint64_t sf_fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--)
		h = (h ^ *b++) * 0x100000001b3ull;
	return h;
}

#endif
