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

	.section sf_region,"ax",@progbits

/* The SIGSYS guard's two stubs (trusted.c): the only code its filter lets
 * change SIGSYS, known by where each `syscall` ends within its page
 * (27 and 59: GUARD_IP_INSTALL and GUARD_IP_DEFAULT), so they begin a
 * page, install an action of the library's read-only data and nothing
 * else.  long sf_guard_stub_install(void), sf_guard_stub_default(void) */
	.balign 4096
	.globl sf_guard_stub_install
	.hidden sf_guard_stub_install
	.type sf_guard_stub_install,@function
sf_guard_stub_install:
	.cfi_startproc
	mov $31, %edi                   /* SIGSYS */
	lea sf_guard_act(%rip), %rsi
	xor %edx, %edx
	mov $8, %r10d
	mov $13, %eax                   /* rt_sigaction */
	syscall
	ret
	.cfi_endproc
	.size sf_guard_stub_install, .-sf_guard_stub_install

	.balign 32
	.globl sf_guard_stub_default
	.hidden sf_guard_stub_default
	.type sf_guard_stub_default,@function
sf_guard_stub_default:
	.cfi_startproc
	mov $31, %edi
	lea sf_guard_dfl(%rip), %rsi
	xor %edx, %edx
	mov $8, %r10d
	mov $13, %eax
	syscall
	ret
	.cfi_endproc
	.size sf_guard_stub_default, .-sf_guard_stub_default
	.hidden sf_guard_act
	.hidden sf_guard_dfl

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
#define NR_rt_sigprocmask 14
#define SIG_SETMASK 2
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
	mov $NR_rt_sigprocmask, %eax
	mov $SIG_SETMASK, %edi
	lea -16(%rsp), %rsi
	xor %edx, %edx
	mov $8, %r10d
	syscall
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
	mov $NR_rt_sigprocmask, %eax
	mov $SIG_SETMASK, %edi
	lea -16(%rsp), %rsi
	xor %edx, %edx
	mov $8, %r10d
	syscall
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

/* The restorer of the program's handlers: rt_sigreturn is checked against
 * the policy like any other call (the kernel filter of trusted mode checks
 * it too).  %rsp points at the frame's ucontext, 16-byte aligned.
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
	mov %rsp, %rdi
	call sf_check_sigreturn
	mov $NR_rt_sigreturn, %eax
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
