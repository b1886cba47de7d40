/* A new thread's first instructions (clone.c). */
#include "asm.h"

	.section sf_region,"ax",@progbits

/* long sf_clone_thread(long nr, long a0, long a1, long a2, long a3, long a4,
 *                      unsigned long how)
 * The parent returns the result.  The child (rax == 0) runs on a stack
 * whose top is a copied rt_sigframe (the ucontext at %rsp, 16-byte
 * aligned): it calls sf_clone_child(how) below it, which arms dispatch
 * (or kills the process), then rt_sigreturn loads the program's
 * registers, signal mask and rip from the copy.  All signals are blocked
 * until then, so no program code runs unarmed.  `how` travels to the
 * child in %r12, which clone preserves. */
	.globl sf_clone_thread
	.hidden sf_clone_thread
	.type sf_clone_thread,@function
sf_clone_thread:
	.cfi_startproc
	push %r12
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset r12, 0
	mov 16(%rsp), %r12
	SYSCALL_ARGS5
	syscall
	test %rax, %rax
	jz 1f
	pop %r12
	.cfi_adjust_cfa_offset -8
	.cfi_restore r12
	ret
1:
	.cfi_undefined rip
	mov %r12, %rdi
	call sf_clone_child
	mov $NR_rt_sigreturn, %eax
	syscall
	hlt
	.cfi_endproc
	.size sf_clone_thread, .-sf_clone_thread

	.section .note.GNU-stack,"",@progbits
