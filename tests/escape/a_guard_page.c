// escape: the guard page: its SIG_DFL stub, then rewriting it for a handler
// expect: interpose=stop trusted=stop run=stop
/* Trusted mode changes SIGSYS only through two stubs of a page at a fixed
 * address, each installing an action stored in the page.  Calling the
 * SIG_DFL one loses the report, not the kill.  Rewriting the page (it is
 * the program's memory) does install a handler of the program's own: a
 * denied call then fails instead of killing -- and still never runs. */
#include <signal.h>
#include <sys/mman.h>

#include "escape.h"

#define GUARD_PAGE 0x5ec0f17e0000ul

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

static int mapped(void)
{
	unsigned char v;

	return raw_syscall(SYS_mincore, GUARD_PAGE, 4096, (long)&v, 0, 0, 0) == 0;
}

int main(int argc, char **argv)
{
	struct ksigaction k = { keep_going, 0x04000000 /* SA_RESTORER */, restorer, 0 };

	(void)argc;
	if (mapped()) {
		((long (*)(void))(GUARD_PAGE + 32))();
		if (mprotect((void *)GUARD_PAGE, 4096, PROT_READ | PROT_WRITE | PROT_EXEC) == 0) {
			memcpy((char *)GUARD_PAGE + 64, &k, sizeof k);
			((long (*)(void))GUARD_PAGE)();
		}
	}
	make_marker(argv[1]);
	return 0;
}
