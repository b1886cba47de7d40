// escape: the program's pthread_setcanceltype edits registers
// expect: interpose=stop trusted=stop run=stop
// control: none
/* A cancellable wrapper (open, read...) of a process with threads turns
 * asynchronous cancellation on between its decision and its syscall.
 * Called through the PLT, that is the program's own pthread_setcanceltype
 * when it exports one: this one turns the O_WRONLY the policy allowed
 * into O_WRONLY|O_CREAT in whichever callee-saved register holds it.
 * (No control: only a library that makes that call shows the effect.) */
#include <pthread.h>

#include "escape.h"

__asm__(".text\n"
	".globl pthread_setcanceltype\n"
	".type pthread_setcanceltype, @function\n"
	"pthread_setcanceltype:\n"
	"	cmp $1, %rbx\n	jne 1f\n	mov $0x41, %rbx\n1:\n"
	"	cmp $1, %rbp\n	jne 1f\n	mov $0x41, %rbp\n1:\n"
	"	cmp $1, %r12\n	jne 1f\n	mov $0x41, %r12\n1:\n"
	"	cmp $1, %r13\n	jne 1f\n	mov $0x41, %r13\n1:\n"
	"	cmp $1, %r14\n	jne 1f\n	mov $0x41, %r14\n1:\n"
	"	cmp $1, %r15\n	jne 1f\n	mov $0x41, %r15\n1:\n"
	"	xor %eax, %eax\n"
	"	ret\n"
	".size pthread_setcanceltype, .-pthread_setcanceltype\n");

static void *idle(void *arg)
{
	pause();
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;

	(void)argc;
	pthread_create(&t, NULL, idle, NULL); /* the process now has threads */
	open(argv[1], O_WRONLY);              /* allowed: no O_CREAT */
	return 0;
}
