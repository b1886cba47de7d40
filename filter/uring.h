/* io_uring against the policy.
 *
 * A ring runs its operations in the kernel (openat, connect, unlinkat,
 * ...) without the system calls a filter sees: seccomp and the preload
 * library check io_uring_setup and io_uring_enter, never what a ring
 * does.  So a policy that restricts a call some operation also makes, and
 * still lets the program create a ring, promises what it cannot keep.
 * sf_policy_apply refuses it, unless the policy names io_uring_setup in a
 * rule of its own, which says the author knows (the README's io_uring
 * section).  The table of operations is syscalls/x86_64/io_uring.tbl. */
#ifndef SECFILTER_URING_H
#define SECFILTER_URING_H

#include <stdint.h>

#define SF_URING_MAX_CALLS 8
/* the longest name and its NUL: in the row, so that the table holds no
 * pointer for the loader to relocate (a page copied in every process) */
#define SF_URING_NAME_MAX 24

struct sf_uring_op {
	uint8_t op;         /* IORING_OP_<name> */
	char name[SF_URING_NAME_MAX]; /* "OPENAT" */
	uint8_t ncalls;
	uint16_t calls[SF_URING_MAX_CALLS]; /* syscall numbers doing the same */
};

extern const struct sf_uring_op sf_uring_ops[];
extern const unsigned sf_uring_op_count;
extern const unsigned sf_uring_setup_nr; /* io_uring_setup's number */

/* The first operation that does what syscall nr does, or NULL. */
const struct sf_uring_op *sf_uring_op_for(unsigned nr);

#endif
