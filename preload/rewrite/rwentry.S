/* The way into the library from a rewritten syscall site (rewrite.c).
 *
 * A site's trampoline runs the instructions the rewrite displaced, then
 * comes here with the program's registers as they would be at its
 * `syscall` (number in rax, arguments in rdi, rsi, rdx, r10, r8, r9) and
 * rcx holding `resume`, the address after that `syscall`.  rcx and r11
 * are free: the `syscall` instruction destroys them anyway.
 *
 * Everything stays on the program's stack, below its red zone: no stack
 * of our own for a signal handler or a garbage collector's stack scan to
 * stumble on, and the program's signal handlers run where they always do.
 * About 300 bytes of it (600 for the calls special.c rewrites), where a
 * trap's signal frame takes 2.5 KiB.  Every register the program can see
 * after a `syscall` is kept: the general ones, the flags (a syscall keeps
 * them: sysret restores them) and the vector registers (the library is
 * built with -mgeneral-regs-only: no code of it touches them).
 *
 * The saved registers are laid out as a struct sf_call { nr, a[6], ip,
 * uc }, which sf_rw_decide reads in place and answers with where to go:
 *   sf_rw_issue     the call is allowed: issue it from here, inside the
 *                   allowed region, and return to the program;
 *   sf_rw_done      allowed and made by special.c already (the result
 *                   replaced nr, which is popped into rax);
 *   sf_rw_fallback  anything else: back to the original `syscall`
 *                   instruction (resume - 2), which traps, and the SIGSYS
 *                   handler decides, reports and kills or logs as it
 *                   always has.
 *
 * The unwind information describes these frames as called from the site,
 * returning to `resume`: pthread_cancel of a thread blocked here (glibc
 * unwinds from its signal handler) and backtraces go through. */

#define SAVED_SIZE 136 /* red zone + the resume address */

	.section sf_region,"ax",@progbits

	.globl sf_rw_entry
	.hidden sf_rw_entry
	.type sf_rw_entry,@function
sf_rw_entry:
	.cfi_startproc simple
	.cfi_def_cfa %rsp, 0
	.cfi_register %rip, %rcx
	lea -128(%rsp), %rsp
	.cfi_adjust_cfa_offset 128
	push %rcx
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rip, -SAVED_SIZE
	pushfq
	.cfi_adjust_cfa_offset 8
	push %rbp
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbp, -(SAVED_SIZE + 16)
	mov %rsp, %rbp
	.cfi_def_cfa_register %rbp
	and $-16, %rsp
	push $0         /* i386: 0; 10 words keep the call aligned */
	push $0         /* uc */
	push %rcx       /* ip */
	push %r9
	push %r8
	push %r10
	push %rdx
	push %rsi
	push %rdi
	push %rax       /* nr */
	cld
	mov %rsp, %rdi
	call sf_rw_decide
	mov %rax, %r11
	pop %rax
	pop %rdi
	pop %rsi
	pop %rdx
	pop %r10
	pop %r8
	pop %r9
	pop %rcx
	mov %rbp, %rsp
	.cfi_def_cfa_register %rsp
	pop %rbp
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbp
	popfq
	.cfi_adjust_cfa_offset -8
	jmp *%r11
	.cfi_endproc
	.size sf_rw_entry, .-sf_rw_entry

/* rsp: the resume address, then the red zone.  The description starts
 * one byte early: an unwinder looks up a return address minus one.
 * Nothing here changes the flags. */
	.globl sf_rw_issue
	.hidden sf_rw_issue
	.globl sf_rw_done
	.hidden sf_rw_done
	.type sf_rw_issue,@function
	.cfi_startproc simple
	.cfi_def_cfa %rsp, SAVED_SIZE
	.cfi_offset %rip, -SAVED_SIZE
	nop
sf_rw_issue:
	syscall
sf_rw_done:
	pop %rcx
	.cfi_adjust_cfa_offset -8
	.cfi_register %rip, %rcx
	lea 128(%rsp), %rsp
	.cfi_adjust_cfa_offset -128
	jmp *%rcx
	.cfi_endproc
	.size sf_rw_issue, .-sf_rw_issue

	.globl sf_rw_fallback
	.hidden sf_rw_fallback
	.type sf_rw_fallback,@function
	.cfi_startproc simple
	.cfi_def_cfa %rsp, SAVED_SIZE
	.cfi_offset %rip, -SAVED_SIZE
	nop
sf_rw_fallback:
	pop %rcx
	.cfi_adjust_cfa_offset -8
	.cfi_register %rip, %rcx
	lea 128(%rsp), %rsp
	.cfi_adjust_cfa_offset -128
	lea -2(%rcx), %rcx
	/* DW_CFA_val_expression rip: rcx + 2 */
	.cfi_escape 0x16, 16, 2, 0x72, 2
	jmp *%rcx
	.cfi_endproc
	.size sf_rw_fallback, .-sf_rw_fallback

	.section .note.GNU-stack,"",@progbits
