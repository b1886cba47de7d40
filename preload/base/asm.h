/* What the library's assembly shares (raw.S and the entry glue of the
 * floors above): syscall numbers and the argument shuffle of a C call
 * into a syscall. */
#ifndef SECFILTER_ASM_H
#define SECFILTER_ASM_H

#define PR_SET_SYSCALL_USER_DISPATCH 59
#define PR_SYS_DISPATCH_ON 1
#define NR_prctl 157
#define NR_rt_sigreturn 15
#define NR_kill 62
#define NR_getpid 39
#define SIGKILL 9

/* C's (nr, a0, ..., a4) in rdi, rsi, rdx, rcx, r8, r9 to the syscall's
 * rax, rdi, rsi, rdx, r10, r8; a5, the 7th argument, from the stack. */
.macro SYSCALL_ARGS5
	mov %rdi, %rax
	mov %rsi, %rdi
	mov %rdx, %rsi
	mov %rcx, %rdx
	mov %r8, %r10
	mov %r9, %r8
.endm
.macro SYSCALL_ARGS6
	SYSCALL_ARGS5
	mov 8(%rsp), %r9
.endm

/* rt_sigprocmask(SIG_SETMASK, mask at `set`, NULL, 8): rax, rdi, rsi, rdx
 * and r10 are clobbered. */
#define NR_rt_sigprocmask 14
#define SIG_SETMASK 2
.macro SETMASK_FROM set
	mov $NR_rt_sigprocmask, %eax
	mov $SIG_SETMASK, %edi
	lea \set, %rsi
	xor %edx, %edx
	mov $8, %r10d
	syscall
.endm

#endif
