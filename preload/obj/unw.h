/* The reporter's unwinder (unw.c): walks the stack of the calling thread
 * with the DWARF call frame information of the loaded objects, reading
 * memory only where the kernel says it can be read.  No allocation, no
 * libc, bounded work; all its state is in struct sf_unw, on the caller's
 * stack. */
#ifndef SECFILTER_UNW_H
#define SECFILTER_UNW_H

#include <stddef.h>
#include <stdint.h>
#include <sys/ucontext.h>

#include "base.h"

/* DWARF's numbering on x86-64: rax rdx rcx rbx rsi rdi rbp rsp, r8..r15,
 * and the return address column. */
enum { SF_UNW_RBX = 3, SF_UNW_RBP = 6, SF_UNW_RSP = 7, SF_UNW_RA = 16, SF_UNW_NREGS = 17 };

#define SF_UNW_PAGES 16 /* pages found readable, kept for the walk */

struct sf_unw {
	uint64_t reg[SF_UNW_NREGS];
	uint32_t valid;   /* bit i: reg[i] is known */
	int exact_ip;     /* ip is where execution stopped (a signal
			     interrupted it), not a return address */
	int steps;
	/* Whether the unwinder may make its readability probe
	 * (sf_page_probe): a kernel filter may deny it.  NULL: always. */
	sf_may_fn may;
	/* The name of the object the loader's list does not have (this
	 * library, loaded as an audit module), NULL if unknown. */
	const char *self_path;
	uintptr_t page[SF_UNW_PAGES];
	unsigned npages, next_page;
};

/* raw.S: the callee-saved registers, rsp and rip as the caller sees them
 * after the call returns, in DWARF order. */
void sf_unw_getcontext(uint64_t *regs);

/* Starts at the registers a signal saved (a trap of the catch-all, or the
 * kernel filter's SIGSYS). */
void sf_unw_init_uc(struct sf_unw *u, const ucontext_t *uc);
/* Starts at the calling function, where this is called. */
#define sf_unw_init_here(u)                                                    \
	do {                                                                   \
		sf_memset((u), 0, sizeof *(u));                                \
		sf_unw_getcontext((u)->reg);                                   \
		(u)->valid = (1u << SF_UNW_RBX) | (1u << SF_UNW_RBP) |        \
			     (1u << SF_UNW_RSP) | (0xfu << 12) | (1u << SF_UNW_RA); \
	} while (0)

static inline uintptr_t sf_unw_ip(const struct sf_unw *u)
{
	return (uintptr_t)u->reg[SF_UNW_RA];
}

/* One frame up: 1, or 0 at the outermost frame or when the next frame
 * cannot be found (no unwind information, unreadable memory, a loop). */
int sf_unw_step(struct sf_unw *u);

/* The loaded object that contains pc: its name as the loader knows it
 * (the program's argv[0] for the main program, as dladdr says) and its
 * load bias.  1 for the main program, 0 for another object, -1 when pc
 * is in no object. */
int sf_unw_object(struct sf_unw *u, uintptr_t pc, char *name, size_t cap, uintptr_t *bias);

/* Names pc from the object's dynamic symbol table, in memory: for a file
 * that cannot be opened (the vDSO, a deleted file, a policy that denies
 * the reads).  Writes "name+0xoff"; 0, or -1. */
struct sf_buf;
int sf_unw_dynsym(struct sf_unw *u, uintptr_t pc, struct sf_buf *b);


#endif
