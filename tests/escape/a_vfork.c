// escape: vfork, the child makes the call before exec
// expect: interpose=stop trusted=stop run=stop
#include "escape.h"

int main(int argc, char **argv)
{
	(void)argc;
	if (vfork() == 0) {
		make_marker(argv[1]);
		raw_exit(0);
	}
	wait_children();
	return 0;
}
