// escape: SIGSYS blocked (raw rt_sigprocmask), then the call
// expect: interpose=stop trusted=stop run=stop
/* With SIGSYS blocked the kernel kills at the first trap rather than
 * deliver it: harmless if it kills; an escape if the call goes through. */
#include <signal.h>

#include "escape.h"

int main(int argc, char **argv)
{
	unsigned long set = 1ul << (SIGSYS - 1);

	(void)argc;
	raw_syscall(SYS_rt_sigprocmask, SIG_BLOCK, (long)&set, 0, 8, 0, 0);
	make_marker(argv[1]);
	return 0;
}
