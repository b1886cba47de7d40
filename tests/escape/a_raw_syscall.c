// escape: a raw `syscall` instruction
// expect: interpose=stop trusted=stop run=stop
#include "escape.h"

int main(int argc, char **argv)
{
	(void)argc;
	raw_syscall(SYS_openat, AT_FDCWD, (long)argv[1], O_CREAT | O_WRONLY, 0600, 0, 0);
	return 0;
}
