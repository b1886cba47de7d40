/* A static program for libsecfilter.so's exec test: LD_PRELOAD cannot
 * reach it, so the policy must arrive as a kernel filter.
 *   (no argument)  prints "static ok"
 *   getpriority    then calls getpriority and prints "static after" */
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (write(1, "static ok\n", 10) < 0)
		return 1;
	if (argc > 1 && strcmp(argv[1], "getpriority") == 0) {
		syscall(SYS_getpriority, 0, 0);
		if (write(1, "static after\n", 13) < 0)
			return 1;
	}
	return 0;
}
