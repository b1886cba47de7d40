// escape: io_uring IORING_OP_OPENAT, policy not naming io_uring_setup
// expect: interpose=stop trusted=stop run=stop
// policy: *: 1; openat: !(flags & O_CREAT); open: !(flags & O_CREAT); creat: 0
/* A ring opens the file inside the kernel, with no openat system call
 * for any filter to see.  This policy restricts openat and allows
 * io_uring_setup (through '*'): it is refused at load (125 from the
 * library, 1 from run), so nothing runs. */
#include "ring.h"

int main(int argc, char **argv)
{
	(void)argc;
	return ring_openat(argv[1], O_CREAT | O_WRONLY, 0600) < 0;
}
