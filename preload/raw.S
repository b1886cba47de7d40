/* The raw syscall stubs.  Everything in section sf_region is the Syscall User
 * Dispatch allowed region: a `syscall` instruction there always runs,
 * anywhere else it traps once dispatch is armed. */

#define PR_SET_SYSCALL_USER_DISPATCH 59
#define PR_SYS_DISPATCH_ON 1
#define NR_prctl 157
#define NR_rt_sigreturn 15
#define NR_kill 62
#define NR_getpid 39
#define SIGKILL 9

	.section sf_region,"ax",@progbits

/* long sf_sys(long nr, long a0, long a1, long a2, long a3, long a4, long a5) */
	.globl sf_sys
	.hidden sf_sys
	.type sf_sys,@function
sf_sys:
	.cfi_startproc
	mov %rdi, %rax
	mov %rsi, %rdi
	mov %rdx, %rsi
	mov %rcx, %rdx
	mov %r8, %r10
	mov %r9, %r8
	mov 8(%rsp), %r9
	syscall
	ret
	.cfi_endproc
	.size sf_sys, .-sf_sys

/* long sf_clone_thread(long nr, long a0, long a1, long a2, long a3, long a4)
 * The parent returns the result.  The child (rax == 0) runs on a stack
 * whose top is a copied rt_sigframe (the ucontext at %rsp): it arms
 * dispatch for itself, then rt_sigreturn loads the program's registers,
 * signal mask and rip from the copy.  All signals are blocked until then,
 * so no program code runs unarmed.  If arming fails the process dies. */
	.globl sf_clone_thread
	.hidden sf_clone_thread
	.type sf_clone_thread,@function
sf_clone_thread:
	.cfi_startproc
	mov %rdi, %rax
	mov %rsi, %rdi
	mov %rdx, %rsi
	mov %rcx, %rdx
	mov %r8, %r10
	mov %r9, %r8
	syscall
	test %rax, %rax
	jz 1f
	ret
1:
	.cfi_undefined rip
	mov $NR_prctl, %eax
	mov $PR_SET_SYSCALL_USER_DISPATCH, %edi
	mov $PR_SYS_DISPATCH_ON, %esi
	lea __start_sf_region(%rip), %rdx
	lea __stop_sf_region(%rip), %r10
	sub %rdx, %r10
	xor %r8d, %r8d
	syscall
	test %rax, %rax
	jnz 2f
	mov $NR_rt_sigreturn, %eax
	syscall
2:
	mov $NR_getpid, %eax
	syscall
	mov %rax, %rdi
	mov $SIGKILL, %esi
	mov $NR_kill, %eax
	syscall
	hlt
	.cfi_endproc
	.size sf_clone_thread, .-sf_clone_thread

/* The restorer of the program's handlers: rt_sigreturn is checked against
 * the policy like any other call (the kernel filter of trusted mode checks
 * it too).  %rsp points at the frame's ucontext, 16-byte aligned. */
	.globl sf_restorer_checked
	.hidden sf_restorer_checked
	.type sf_restorer_checked,@function
sf_restorer_checked:
	mov %rsp, %rdi
	call sf_check_sigreturn
	mov $NR_rt_sigreturn, %eax
	syscall
	hlt
	.size sf_restorer_checked, .-sf_restorer_checked

/* The restorer of our own SIGSYS handler: not checked (the trapped call
 * was checked; its return is the library's business). */
	.globl sf_restorer_plain
	.hidden sf_restorer_plain
	.type sf_restorer_plain,@function
sf_restorer_plain:
	mov $NR_rt_sigreturn, %rax
	syscall
	hlt
	.size sf_restorer_plain, .-sf_restorer_plain

/* long sf_trap_syscall(long nr, long a0, ..., long a5, uintptr_t site)
 * Outside the region on purpose: a call issued here traps, so the SIGSYS
 * handler sees it with a full register context.  The handler reports
 * `site` (found at 16(%rsp): the wrapper's own caller) as the call site. */
	.text
	.globl sf_trap_syscall
	.hidden sf_trap_syscall
	.globl sf_trap_syscall_ret
	.hidden sf_trap_syscall_ret
	.type sf_trap_syscall,@function
sf_trap_syscall:
	.cfi_startproc
	mov %rdi, %rax
	mov %rsi, %rdi
	mov %rdx, %rsi
	mov %rcx, %rdx
	mov %r8, %r10
	mov %r9, %r8
	mov 8(%rsp), %r9
	syscall
sf_trap_syscall_ret:
	ret
	.cfi_endproc
	.size sf_trap_syscall, .-sf_trap_syscall

	.section .note.GNU-stack,"",@progbits
