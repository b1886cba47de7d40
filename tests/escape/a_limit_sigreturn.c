// escape: rt_sigreturn of a made-up frame into the region
// expect: interpose=limit trusted=stop run=stop
/* A signal frame says where the program resumes and with which
 * registers; one made up by the program resumes it at a syscall
 * instruction of the library's region, set up for the call. */
#include <signal.h>
#include <stdio.h>
#include <ucontext.h>

#include "escape.h"

static char stack[64 << 10] __attribute__((aligned(16)));

static void after(void)
{
	raw_exit(0);
}

int main(int argc, char **argv)
{
	/* rt_sigreturn reads the ucontext at the stack pointer: on a stack
	 * with room below it, where a SIGSYS frame can go */
	ucontext_t *ucp = (ucontext_t *)(stack + sizeof stack / 2);
	uintptr_t *sp = (uintptr_t *)(stack + sizeof stack) - 2;
	void *g = library_gadget();

	(void)argc;
	if (!g) {
		make_marker(argv[1]);
		return 0;
	}
	sp[0] = (uintptr_t)after; /* the gadget's ret */
	memset(ucp, 0, sizeof *ucp);
	ucp->uc_mcontext.gregs[REG_RIP] = (greg_t)g;
	ucp->uc_mcontext.gregs[REG_RSP] = (greg_t)sp;
	ucp->uc_mcontext.gregs[REG_RAX] = SYS_openat;
	ucp->uc_mcontext.gregs[REG_RDI] = AT_FDCWD;
	ucp->uc_mcontext.gregs[REG_RSI] = (greg_t)argv[1];
	ucp->uc_mcontext.gregs[REG_RDX] = O_WRONLY | O_CREAT;
	ucp->uc_mcontext.gregs[REG_R10] = 0600;
	ucp->uc_mcontext.gregs[REG_CSGSFS] = 0x33; /* user code segment */
	ucp->uc_stack.ss_flags = SS_DISABLE;    /* no alternate stack */
	__asm__ volatile("mov %0, %%rsp\n\t"
			 "mov $15, %%eax\n\t"
			 "syscall"
			 :
			 : "r"(ucp)
			 : "memory");
	return 0;
}
