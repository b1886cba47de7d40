/* libc's vfork, interposed (wrap.c decides it). */
#include "asm.h"

	.section sf_region,"ax",@progbits

/* pid_t vfork(void), libc's exported function, which dash calls for each
 * simple command.  Through the catch-all it became a fork (the SIGSYS
 * handler's frame is on the stack a vfork child would run on and
 * clobber); here it stays a vfork, done as glibc's own: the return
 * address lives in a register across the syscall, not on the stack the
 * child shares.  sf_vfork_prepare (wrap.c) decides the call and, where
 * dispatch is armed, blocks every signal and returns the mask to restore
 * (rax) and 1 (rdx); 2 with the result in rax when the policy's action is
 * not to issue it (an errno); the child arms itself before any of the program's
 * code runs, then both restore the mask, kept in the red zone for the
 * rt_sigprocmask of each (the child has finished with it before the
 * parent resumes).  If the child cannot arm, it dies. */
#define NR_vfork 58
	.globl vfork
	.type vfork,@function
vfork:
	.cfi_startproc
	mov (%rsp), %rdi
	sub $8, %rsp
	.cfi_adjust_cfa_offset 8
	call sf_vfork_prepare
	add $8, %rsp
	.cfi_adjust_cfa_offset -8
	pop %r9
	.cfi_adjust_cfa_offset -8
	.cfi_register rip, r9
	mov %rax, %r8
	cmp $1, %edx
	jb 4f
	ja 5f /* not issued: rax is the result */
	mov $NR_vfork, %eax
	syscall
	test %rax, %rax
	jnz 2f
	/* the child */
	mov %r8, -16(%rsp)
	mov $NR_prctl, %eax
	mov $PR_SET_SYSCALL_USER_DISPATCH, %edi
	mov $PR_SYS_DISPATCH_ON, %esi
	lea __start_sf_region(%rip), %rdx
	lea __stop_sf_region(%rip), %r10
	sub %rdx, %r10
	xor %r8d, %r8d
	syscall
	test %rax, %rax
	jnz 6f
	SETMASK_FROM -16(%rsp)
	xor %eax, %eax
	push %r9
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset rip, 0
	ret
	.cfi_adjust_cfa_offset -8
	.cfi_register rip, r9
2:	/* the parent: rax is the child's pid or -errno */
	movl $0, sf_in_vfork(%rip)
	mov %r8, -16(%rsp)
	mov %rax, %r8
	SETMASK_FROM -16(%rsp)
	/* the mapping of the child's exec is ours again (exec.c); the
	 * stack is ours again too, and rsp 16-aligned after two pushes */
	push %r8
	.cfi_adjust_cfa_offset 8
	push %r9
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset rip, 0
	call sf_exec_reap
	pop %r9
	.cfi_adjust_cfa_offset -8
	.cfi_register rip, r9
	pop %r8
	.cfi_adjust_cfa_offset -8
	mov %r8, %rax
	jmp 5f
4:	/* dispatch is not armed: glibc's vfork */
	mov $NR_vfork, %eax
	syscall
	test %rax, %rax
	jz 5f
	movl $0, sf_in_vfork(%rip) /* the parent */
5:	push %r9
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset rip, 0
	cmp $-4095, %rax
	jae 3f
	ret
3:	mov %rax, %rdi
	sub $8, %rsp
	.cfi_adjust_cfa_offset 8
	call sf_vfork_errno
	add $8, %rsp
	.cfi_adjust_cfa_offset -8
	ret
6:	/* the child could not arm */
	mov $NR_getpid, %eax
	syscall
	mov %rax, %rdi
	mov $SIGKILL, %esi
	mov $NR_kill, %eax
	syscall
	hlt
	.cfi_endproc
	.size vfork, .-vfork

	.section .note.GNU-stack,"",@progbits
