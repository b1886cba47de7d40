// escape: io_uring IORING_OP_OPENAT, io_uring_setup denied
// expect: interpose=stop trusted=stop run=stop
/* The battery's policy names io_uring_setup: 0: no ring can be made. */
#include "ring.h"

int main(int argc, char **argv)
{
	(void)argc;
	return ring_openat(argv[1], O_CREAT | O_WRONLY, 0600) < 0;
}
