/* A dynamic program with no library of its own: the system's loader as
 * PT_INTERP, no DT_NEEDED.  It needs almost no address space, so a
 * limit can leave room for it and none for a preloaded library.  The
 * forbidden call on argv[1] and an exit. */
__asm__(".text\n"
	".globl _start\n"
	"_start:\n"
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
