// escape: the guard: SIG_DFL, then its own handler, at the stubs' offsets
// expect: interpose=stop trusted=stop run=stop
/* Trusted mode's guard lets rt_sigaction(SIGSYS) through only from a
 * `syscall` that ends where one of the library's two stubs' does within
 * its page (offset 27: the library's handler; 59: SIG_DFL).  The program
 * can write code of its own that ends there: SIG_DFL loses the report,
 * not the kill; a handler of its own makes a denied call fail instead of
 * killing -- and the call still never runs. */
#include <signal.h>
#include <sys/mman.h>

#include "escape.h"

struct ksigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};

void restorer(void);
__asm__(".text\nrestorer:\n\tmov $15, %eax\n\tsyscall\n\thlt\n");

static void keep_going(int sig)
{
	(void)sig;
}

/* rt_sigaction(SIGSYS, rdi, NULL, 8), its syscall ending 27 bytes in */
static const unsigned char code[] = {
	0x48, 0x89, 0xfe,                   /* mov %rdi,%rsi */
	0xbf, 0x1f, 0x00, 0x00, 0x00,       /* mov $31,%edi */
	0x31, 0xd2,                         /* xor %edx,%edx */
	0x41, 0xba, 0x08, 0x00, 0x00, 0x00, /* mov $8,%r10d */
	0xb8, 0x0d, 0x00, 0x00, 0x00,       /* mov $13,%eax */
	0x90, 0x90, 0x90, 0x90,             /* nop x4 */
	0x0f, 0x05,                         /* syscall */
	0xc3,                               /* ret */
};

int main(int argc, char **argv)
{
	struct ksigaction dfl = { SIG_DFL, 0x04000000 /* SA_RESTORER */, restorer, 0 };
	struct ksigaction own = { keep_going, 0x04000000, restorer, 0 };
	unsigned char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				   -1, 0);

	(void)argc;
	if (page != MAP_FAILED) {
		memcpy(page, code, sizeof code);
		memcpy(page + 32, code, sizeof code);
		if (mprotect(page, 4096, PROT_READ | PROT_EXEC) == 0) {
			((long (*)(void *))(page + 32))(&dfl);
			((long (*)(void *))page)(&own);
		}
	}
	make_marker(argv[1]);
	return 0;
}
