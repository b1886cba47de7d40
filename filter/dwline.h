/* file:line for a code address, from an ELF file's DWARF line table
 * (.debug_line, versions 2 to 5), read in place: no allocation, no libc,
 * every read bounds-checked.  The preload library's backtraces use it on
 * the binary mapped read-only, at report time, in a process whose malloc
 * may be the very call that trapped. */
#ifndef SECFILTER_DWLINE_H
#define SECFILTER_DWLINE_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

/* Writes "FILE:LINE" for address addr (the ELF's own, link-time address:
 * for a shared object or a PIE, the run-time address less its load base)
 * of the ELF file image[0, size).  Returns 0, or -1 when the file has no
 * line table for it (no debug information, compressed sections, or an
 * address outside every sequence). */
int sf_elf_line(const unsigned char *image, size_t size, uint64_t addr, struct sf_out *o);

/* The file's GNU build id (the note's bytes, at most cap), 0 when none:
 * its debug information may live in
 * /usr/lib/debug/.build-id/XX/YYYY...debug. */
size_t sf_elf_build_id(const unsigned char *image, size_t size, unsigned char *id, size_t cap);

#endif
