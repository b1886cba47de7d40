// escape: io_uring IORING_OP_OPENAT, io_uring_setup: 1 named in the policy
// expect: interpose=limit trusted=limit run=limit
// policy: *: 1; io_uring_setup: 1; openat: !(flags & O_CREAT); open: !(flags & O_CREAT); creat: 0
/* A policy that names io_uring_setup in a rule of its own accepts what
 * rings do: the ring creates the file (doc/security.md, io_uring). */
#include "ring.h"

int main(int argc, char **argv)
{
	(void)argc;
	return ring_openat(argv[1], O_CREAT | O_WRONLY, 0600) < 0;
}
