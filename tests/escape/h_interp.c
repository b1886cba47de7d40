/* A static "interpreter" for h_interp_user's PT_INTERP: no libc (it runs
 * with the auxv of the program that named it), only the forbidden call
 * on argv[1] and an exit.  Built again as h_nolibc, a dynamic program
 * with the system's loader and no library (a_exec_rlimit, a_exec_nofile),
 * which needs almost no address space and no descriptor: it closes its
 * stdin first, so that a limit of 3 descriptors leaves it one for the
 * forbidden call and none for a loader before it. */
__asm__(".text\n"
	".globl _start\n"
	"_start:\n"
	"	xor %edi, %edi\n"
	"	mov $3, %eax\n"        /* close(0) */
	"	syscall\n"
	"	mov 16(%rsp), %rsi\n"   /* argv[1] */
	"	mov $-100, %rdi\n"      /* AT_FDCWD */
	"	mov $0x41, %edx\n"      /* O_WRONLY | O_CREAT */
	"	mov $0600, %r10d\n"
	"	mov $257, %eax\n"       /* openat */
	"	syscall\n"
	"	xor %edi, %edi\n"
	"	mov $231, %eax\n"       /* exit_group */
	"	syscall\n"
	"	hlt\n");
