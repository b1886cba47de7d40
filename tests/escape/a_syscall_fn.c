// escape: libc's syscall() function
// expect: interpose=stop trusted=stop run=stop
#include "escape.h"

int main(int argc, char **argv)
{
	(void)argc;
	syscall(SYS_openat, AT_FDCWD, argv[1], O_CREAT | O_WRONLY, 0600);
	return 0;
}
