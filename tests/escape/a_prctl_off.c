// escape: dispatch switched off by a raw prctl, then the call
// expect: interpose=stop trusted=stop run=stop
// control: plain
#include <linux/prctl.h>

#include "escape.h"

#ifndef PR_SET_SYSCALL_USER_DISPATCH
#define PR_SET_SYSCALL_USER_DISPATCH 59
#define PR_SYS_DISPATCH_OFF 0
#endif

int main(int argc, char **argv)
{
	(void)argc;
	raw_syscall(SYS_prctl, PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_OFF, 0, 0, 0, 0);
	make_marker(argv[1]);
	return 0;
}
