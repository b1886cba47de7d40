// escape: the program's own SIGSYS handler (raw rt_sigaction)
// expect: interpose=stop trusted=stop run=stop
/* A handler of the program's in the kernel would receive the SIGSYS of
 * the denied call and let the program go on. */
#include <signal.h>

#include "escape.h"

struct ksigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};

static void handler(int sig)
{
	(void)sig;
}

extern void restore_rt(void);
__asm__(".text\nrestore_rt:\n\tmov $15, %eax\n\tsyscall\n");

int main(int argc, char **argv)
{
	struct ksigaction ka = { handler, 0x04000000 /* SA_RESTORER */, restore_rt, 0 };

	(void)argc;
	raw_syscall(SYS_rt_sigaction, SIGSYS, (long)&ka, 0, 8, 0, 0);
	make_marker(argv[1]);
	return 0;
}
