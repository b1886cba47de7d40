/* Where the policy engine gets its memory.
 *
 * The engine runs in two very different homes: the secfilter tool and the
 * tests, where malloc is fine, and libsecfilter.so, which lives inside other
 * people's processes and must never enter the kernel through libc (every
 * libc syscall there is trapped and checked against the very policy being
 * built).  So the engine allocates only through these two functions, and
 * each binary links exactly one implementation: filter/mem-libc.c for the
 * tool and tests, preload/mem.c (raw mmap) for the library. */
#ifndef SECFILTER_MEM_H
#define SECFILTER_MEM_H

#include <stddef.h>

/* n bytes of zeroed memory, or NULL. */
void *sf_mem_alloc(size_t n);
/* Frees what sf_mem_alloc(n) returned; n must be the size asked for. */
void sf_mem_free(void *p, size_t n);

#endif
