/* The SIGSYS guard's stubs, trusted mode's way of installing our SIGSYS
 * handler (guard.c): first in the allowed region (hot.ld), at the start
 * of a page. */
#include "asm.h"

	.section sf_region,"ax",@progbits

/* The SIGSYS guard's two stubs (guard.c): the only code its filter lets
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

	.section .note.GNU-stack,"",@progbits
