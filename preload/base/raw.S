/* The raw syscall stubs.  Everything in section sf_region is the Syscall User
 * Dispatch allowed region: a `syscall` instruction there always runs,
 * anywhere else it traps once dispatch is armed. */

#include "asm.h"

	.section sf_region,"ax",@progbits

/* long sf_sys(long nr, long a0, long a1, long a2, long a3, long a4, long a5) */
	.globl sf_sys
	.hidden sf_sys
	.type sf_sys,@function
sf_sys:
	.cfi_startproc
	SYSCALL_ARGS6
	syscall
	ret
	.cfi_endproc
	.size sf_sys, .-sf_sys

/* long sf_sys32(long nr, long a0, long a1, long a2, long a3, long a4, long a5)
 * An i386 system call: int $0x80 with its arguments in ebx, ecx, edx,
 * esi, edi, ebp (a 32-bit call that log mode lets proceed as it was
 * made).  On a kernel without IA32 emulation it faults, as the program's
 * own did. */
	.globl sf_sys32
	.hidden sf_sys32
	.type sf_sys32,@function
sf_sys32:
	.cfi_startproc
	push %rbp
	.cfi_adjust_cfa_offset 8
	push %rbx
	.cfi_adjust_cfa_offset 8
	mov %rdi, %rax
	mov %rsi, %rbx
	mov %rcx, %r10
	mov %rdx, %rcx
	mov %r10, %rdx
	mov %r8, %rsi
	mov %r9, %rdi
	mov 24(%rsp), %rbp
	int $0x80
	pop %rbx
	.cfi_adjust_cfa_offset -8
	pop %rbp
	.cfi_adjust_cfa_offset -8
	ret
	.cfi_endproc
	.size sf_sys32, .-sf_sys32

/* long sf_sys_from(uintptr_t sp, long nr, long a0, long a1) */
	.globl sf_sys_from
	.hidden sf_sys_from
	.type sf_sys_from,@function
sf_sys_from:
	.cfi_startproc
	push %rbx
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbx, -16
	mov %rsp, %rbx
	.cfi_def_cfa_register %rbx
	mov %rdi, %rsp
	mov %rsi, %rax
	mov %rdx, %rdi
	mov %rcx, %rsi
	syscall
	mov %rbx, %rsp
	.cfi_def_cfa_register %rsp
	pop %rbx
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbx
	ret
	.cfi_endproc
	.size sf_sys_from, .-sf_sys_from

/* The restorer of the program's handlers: rt_sigreturn is checked against
 * the policy like any other call (the kernel filter of trusted mode checks
 * it too), by the check the trap floor registers in sf_on_sigreturn
 * (sud.c): the floors below it hand this restorer out, and a handler's
 * return is no per-call path.  %rsp points at the frame's ucontext,
 * 16-byte aligned.
 *
 * Its unwind information describes a signal frame, as glibc's __restore_rt
 * does: every register is where the kernel saved it in the ucontext at
 * %rsp.  Without it an unwinder stops here, and a thread cancelled inside
 * a handler's frame (pthread_cancel's SIGCANCEL interrupting a blocked
 * read) would skip its C++ destructors.  The description starts one byte
 * early: the unwinder looks up a return address minus one. */
#define UC_GREG(n) (40 + 8 * (n))                      /* ucontext_t.uc_mcontext.gregs[n] */
/* DW_CFA_expression reg: DW_OP_breg7 (rsp) + off, off as a 2-byte sleb128 */
#define SAVED_AT(reg, off) .cfi_escape 0x10, reg, 3, 0x77, ((off) & 0x7f) | 0x80, (off) >> 7
.macro SIGFRAME_CFI
	.cfi_startproc simple
	.cfi_signal_frame
	/* DW_CFA_def_cfa_expression: *(rsp + gregs[REG_RSP]) */
	.cfi_escape 0x0f, 4, 0x77, (UC_GREG(15) & 0x7f) | 0x80, UC_GREG(15) >> 7, 0x06
	SAVED_AT(8, UC_GREG(0))    /* r8 */
	SAVED_AT(9, UC_GREG(1))    /* r9 */
	SAVED_AT(10, UC_GREG(2))   /* r10 */
	SAVED_AT(11, UC_GREG(3))   /* r11 */
	SAVED_AT(12, UC_GREG(4))   /* r12 */
	SAVED_AT(13, UC_GREG(5))   /* r13 */
	SAVED_AT(14, UC_GREG(6))   /* r14 */
	SAVED_AT(15, UC_GREG(7))   /* r15 */
	SAVED_AT(5, UC_GREG(8))    /* rdi */
	SAVED_AT(4, UC_GREG(9))    /* rsi */
	SAVED_AT(6, UC_GREG(10))   /* rbp */
	SAVED_AT(3, UC_GREG(11))   /* rbx */
	SAVED_AT(1, UC_GREG(12))   /* rdx */
	SAVED_AT(0, UC_GREG(13))   /* rax */
	SAVED_AT(2, UC_GREG(14))   /* rcx */
	SAVED_AT(16, UC_GREG(16))  /* rip: the return address */
.endm
	.globl sf_restorer_checked
	.hidden sf_restorer_checked
	.type sf_restorer_checked,@function
	SIGFRAME_CFI
	nop
sf_restorer_checked:
	mov sf_on_sigreturn(%rip), %rax
	test %rax, %rax
	jz 1f
	mov %rsp, %rdi
	call *%rax
1:	mov $NR_rt_sigreturn, %eax
	syscall
	hlt
	.cfi_endproc
	.size sf_restorer_checked, .-sf_restorer_checked

/* The restorer of our own SIGSYS handler: not checked (the trapped call
 * was checked; its return is the library's business).  The same unwind
 * information: a program handler that runs while the SIGSYS handler
 * issues a call (raise's kill) is reported with the frames below the
 * trap. */
	.globl sf_restorer_plain
	.hidden sf_restorer_plain
	.type sf_restorer_plain,@function
	SIGFRAME_CFI
	nop
sf_restorer_plain:
	mov $NR_rt_sigreturn, %rax
	syscall
	hlt
	.cfi_endproc
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
	SYSCALL_ARGS6
	syscall
sf_trap_syscall_ret:
	ret
	.cfi_endproc
	.size sf_trap_syscall, .-sf_trap_syscall

/* The region's bounds, which the linker synthesizes: without this the
 * linker here (binutils 2.40) puts them in the dynamic symbol table,
 * exported, although every C reference to them is hidden. */
	.hidden __start_sf_region
	.hidden __stop_sf_region

/* void sf_unw_getcontext(uint64_t regs[17])
 * The registers the reporter's unwinder starts from (unw.c): the
 * callee-saved ones, and rsp and rip as the caller will have them once
 * this returns, in DWARF's order (rbx 3, rbp 6, rsp 7, r12-r15 12-15,
 * return address 16). */
	.globl sf_unw_getcontext
	.hidden sf_unw_getcontext
	.type sf_unw_getcontext,@function
sf_unw_getcontext:
	.cfi_startproc
	mov %rbx, 3*8(%rdi)
	mov %rbp, 6*8(%rdi)
	mov %r12, 12*8(%rdi)
	mov %r13, 13*8(%rdi)
	mov %r14, 14*8(%rdi)
	mov %r15, 15*8(%rdi)
	lea 8(%rsp), %rax
	mov %rax, 7*8(%rdi)
	mov (%rsp), %rax
	mov %rax, 16*8(%rdi)
	ret
	.cfi_endproc
	.size sf_unw_getcontext, .-sf_unw_getcontext

/* void sf_trap_return(ucontext_t *uc, uint64_t xfeatures), never returns.
 * Resumes a trapped call's context as rt_sigreturn would, without the
 * syscall (dispatch.c says when it may): the vector state the kernel saved
 * (xrstor64 of the components it saved, or fxrstor64 when xfeatures is 0)
 * and cleared for the handler, then every general register, the flags,
 * rsp and rip.
 * The last three come from three slots the caller proved lie inside the
 * frame's saved vector state, at the program's rsp-216 (flags, rbx, rip),
 * below its red zone: once rsp points at them, a signal arriving builds
 * its frame below them, and `ret $192` takes rip and the program's rsp in
 * one instruction.  Nothing is read below rsp after the switch.
 * gregs[REG_CR2] (22), unused on the way back, holds the slots' address. */
#define UC_FPREGS 224                                  /* uc_mcontext.fpregs */
	.section .text.sf_trap_return,"ax",@progbits
	.globl sf_trap_return
	.hidden sf_trap_return
	.type sf_trap_return,@function
sf_trap_return:
	.cfi_startproc
	.cfi_undefined rip
	mov %rdi, %rbx
	mov UC_FPREGS(%rbx), %rdi
	test %rsi, %rsi
	jz 1f
	mov %esi, %eax
	shr $32, %rsi
	mov %esi, %edx
	xrstor64 (%rdi)
	jmp 2f
1:	fxrstor64 (%rdi)
2:	mov UC_GREG(15)(%rbx), %rdx
	sub $216, %rdx
	mov UC_GREG(17)(%rbx), %rax     /* eflags */
	mov %rax, (%rdx)
	mov UC_GREG(11)(%rbx), %rax     /* rbx */
	mov %rax, 8(%rdx)
	mov UC_GREG(16)(%rbx), %rax     /* rip */
	mov %rax, 16(%rdx)
	mov %rdx, UC_GREG(22)(%rbx)
	mov UC_GREG(0)(%rbx), %r8
	mov UC_GREG(1)(%rbx), %r9
	mov UC_GREG(2)(%rbx), %r10
	mov UC_GREG(3)(%rbx), %r11
	mov UC_GREG(4)(%rbx), %r12
	mov UC_GREG(5)(%rbx), %r13
	mov UC_GREG(6)(%rbx), %r14
	mov UC_GREG(7)(%rbx), %r15
	mov UC_GREG(8)(%rbx), %rdi
	mov UC_GREG(9)(%rbx), %rsi
	mov UC_GREG(10)(%rbx), %rbp
	mov UC_GREG(12)(%rbx), %rdx
	mov UC_GREG(13)(%rbx), %rax
	mov UC_GREG(14)(%rbx), %rcx
	mov UC_GREG(22)(%rbx), %rsp
	popfq
	pop %rbx
	ret $192
	.cfi_endproc
	.size sf_trap_return, .-sf_trap_return

	.section .note.GNU-stack,"",@progbits
