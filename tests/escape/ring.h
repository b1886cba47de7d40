/* One io_uring operation, submitted and waited for, without liburing: the
 * a_uring_* attempts.  Returns the operation's result, or -errno of the
 * ring's own setup. */
#ifndef ESCAPE_RING_H
#define ESCAPE_RING_H

#include <linux/io_uring.h>
#include <sys/mman.h>

#include "escape.h"

static inline long ring_openat(const char *path, int flags, unsigned mode)
{
	struct io_uring_params p;
	unsigned *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask, tail;
	struct io_uring_sqe *sqes, *sqe;
	struct io_uring_cqe *cqes;
	char *sq, *cq;
	long fd, r;

	memset(&p, 0, sizeof p);
	fd = syscall(SYS_io_uring_setup, 4, &p);
	if (fd < 0)
		return -errno;
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(unsigned), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, (int)fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, (int)fd, IORING_OFF_CQ_RING);
	sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, (int)fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED)
		return -ENOMEM;
	sq_tail = (unsigned *)(sq + p.sq_off.tail);
	sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
	sq_array = (unsigned *)(sq + p.sq_off.array);
	cq_head = (unsigned *)(cq + p.cq_off.head);
	cq_tail = (unsigned *)(cq + p.cq_off.tail);
	cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
	cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);

	tail = *sq_tail;
	sqe = &sqes[tail & *sq_mask];
	memset(sqe, 0, sizeof *sqe);
	sqe->opcode = IORING_OP_OPENAT;
	sqe->fd = AT_FDCWD;
	sqe->addr = (unsigned long)path;
	sqe->len = mode;
	sqe->open_flags = (unsigned)flags;
	sq_array[tail & *sq_mask] = tail & *sq_mask;
	__atomic_store_n(sq_tail, tail + 1, __ATOMIC_RELEASE);
	r = syscall(SYS_io_uring_enter, fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0);
	if (r < 0)
		return -errno;
	if (__atomic_load_n(cq_tail, __ATOMIC_ACQUIRE) == *cq_head)
		return -EAGAIN;
	return cqes[*cq_head & *cq_mask].res;
}

#endif
