// escape: execve of a static binary
// expect: interpose=stop trusted=stop run=stop
#include "escape.h"

int main(int argc, char **argv)
{
	(void)argc;
	exec_helper("a_static-static", argv[1]);
	return 0;
}
