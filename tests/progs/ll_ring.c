/* One file-system or TCP operation, made as a system call or as an
 * io_uring operation: what Landlock answers each way (t_lib_landlock's
 * table of ring operations, doc/security.md "io_uring and Landlock").
 *
 *   ll_ring sys|ring|async|early|early-async OP PATH [PATH2 | PORT]
 *
 * async: the operation forced to the ring's worker threads
 * (IOSQE_ASYNC).  early: the ring is made first, then the policy in
 * LL_APPLY is applied with secfilter_apply (the library preloaded), then
 * the operation is submitted to that ring: a ring older than the
 * Landlock layer; early-async: the same, with a worker thread of the ring
 * started before the layer (an IOSQE_ASYNC read) and the operation
 * forced to the workers.
 * Prints "OP WAY: ok" or "OP WAY: <strerror>"; exits 0 when the
 * operation succeeded, 1 when it failed, 2 on a usage or setup error. */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <linux/openat2.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* opcodes of Linux 6.18 (syscalls/x86_64/io_uring.tbl) that older uapi
 * headers lack */
enum { OP_FTRUNCATE = 55, OP_BIND = 56 };

struct ring {
	int fd;
	unsigned *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

static int ring_make(struct ring *r)
{
	struct io_uring_params p;
	char *sq, *cq;

	memset(&p, 0, sizeof p);
	r->fd = (int)syscall(SYS_io_uring_setup, 4, &p);
	if (r->fd < 0)
		return -errno;
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(unsigned), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || r->sqes == MAP_FAILED)
		return -ENOMEM;
	r->sq_tail = (unsigned *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned *)(sq + p.sq_off.array);
	r->cq_head = (unsigned *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned *)(cq + p.cq_off.tail);
	r->cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	return 0;
}

static struct io_uring_sqe *ring_sqe(struct ring *r)
{
	struct io_uring_sqe *e = &r->sqes[*r->sq_tail & *r->sq_mask];

	memset(e, 0, sizeof *e);
	return e;
}

static int async_ops; /* IOSQE_ASYNC on every operation */

/* The sqe from ring_sqe submitted and waited for: its result. */
static long ring_run(struct ring *r)
{
	unsigned tail = *r->sq_tail;
	long res;

	if (async_ops)
		r->sqes[tail & *r->sq_mask].flags |= IOSQE_ASYNC;
	r->sq_array[tail & *r->sq_mask] = tail & *r->sq_mask;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	if (syscall(SYS_io_uring_enter, r->fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
		return -errno;
	if (__atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE) == *r->cq_head)
		return -EAGAIN;
	res = r->cqes[*r->cq_head & *r->cq_mask].res;
	__atomic_store_n(r->cq_head, *r->cq_head + 1, __ATOMIC_RELEASE);
	return res;
}

static struct sockaddr_in loopback(const char *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port)) };

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

static long sys_op(const char *op, const char *p, const char *q)
{
	struct sockaddr_in a;
	int s;

	if (!strcmp(op, "creat"))
		return openat(AT_FDCWD, p, O_CREAT | O_WRONLY, 0600) < 0 ? -errno : 0;
	if (!strcmp(op, "openat2")) {
		struct open_how how = { .flags = O_CREAT | O_WRONLY, .mode = 0600 };
		return syscall(SYS_openat2, AT_FDCWD, p, &how, sizeof how) < 0 ? -errno : 0;
	}
	if (!strcmp(op, "read"))
		return openat(AT_FDCWD, p, O_RDONLY) < 0 ? -errno : 0;
	if (!strcmp(op, "mkdir"))
		return mkdirat(AT_FDCWD, p, 0700) < 0 ? -errno : 0;
	if (!strcmp(op, "symlink"))
		return symlinkat(q, AT_FDCWD, p) < 0 ? -errno : 0;
	if (!strcmp(op, "link"))
		return linkat(AT_FDCWD, p, AT_FDCWD, q, 0) < 0 ? -errno : 0;
	if (!strcmp(op, "rename"))
		return renameat(AT_FDCWD, p, AT_FDCWD, q) < 0 ? -errno : 0;
	if (!strcmp(op, "unlink"))
		return unlinkat(AT_FDCWD, p, 0) < 0 ? -errno : 0;
	if (!strcmp(op, "truncate")) {
		int fd = open(p, O_WRONLY);
		return fd < 0 ? -errno : ftruncate(fd, 0) < 0 ? -errno : 0;
	}
	if (!strcmp(op, "connect") || !strcmp(op, "bind")) {
		a = loopback(q);
		if ((s = socket(AF_INET, SOCK_STREAM, 0)) < 0)
			return -errno;
		if (!strcmp(op, "connect"))
			return connect(s, (struct sockaddr *)&a, sizeof a) < 0 ? -errno : 0;
		return bind(s, (struct sockaddr *)&a, sizeof a) < 0 ? -errno : 0;
	}
	return -EINVAL;
}

static long ring_op(struct ring *r, const char *op, const char *p, const char *q)
{
	static struct sockaddr_in a;
	static struct open_how how = { .flags = O_CREAT | O_WRONLY, .mode = 0600 };
	struct io_uring_sqe *e = ring_sqe(r);
	long s, fd;

	e->fd = AT_FDCWD;
	e->addr = (unsigned long)p;
	if (!strcmp(op, "creat") || !strcmp(op, "read")) {
		e->opcode = IORING_OP_OPENAT;
		e->open_flags = !strcmp(op, "read") ? O_RDONLY : O_CREAT | O_WRONLY;
		e->len = 0600;
	} else if (!strcmp(op, "openat2")) {
		e->opcode = IORING_OP_OPENAT2;
		e->addr2 = (unsigned long)&how;
		e->len = sizeof how;
	} else if (!strcmp(op, "mkdir")) {
		e->opcode = IORING_OP_MKDIRAT;
		e->len = 0700;
	} else if (!strcmp(op, "symlink")) { /* symlinkat(target q, dfd, linkpath p) */
		e->opcode = IORING_OP_SYMLINKAT;
		e->addr = (unsigned long)q;
		e->addr2 = (unsigned long)p;
	} else if (!strcmp(op, "link") || !strcmp(op, "rename")) {
		e->opcode = !strcmp(op, "link") ? IORING_OP_LINKAT : IORING_OP_RENAMEAT;
		e->len = (unsigned)AT_FDCWD; /* the new path's dfd */
		e->addr2 = (unsigned long)q;
	} else if (!strcmp(op, "unlink")) {
		e->opcode = IORING_OP_UNLINKAT;
	} else if (!strcmp(op, "truncate")) {
		if ((fd = open(p, O_WRONLY)) < 0)
			return -errno;
		e->opcode = OP_FTRUNCATE;
		e->fd = (int)fd;
		e->addr = 0;
		e->off = 0;
	} else if (!strcmp(op, "connect") || !strcmp(op, "bind")) {
		a = loopback(q);
		if ((s = socket(AF_INET, SOCK_STREAM, 0)) < 0)
			return -errno;
		e = ring_sqe(r);
		e->opcode = !strcmp(op, "connect") ? IORING_OP_CONNECT : OP_BIND;
		e->fd = (int)s;
		e->addr = (unsigned long)&a;
		if (e->opcode == IORING_OP_CONNECT)
			e->off = sizeof a; /* connect: addrlen in off */
		else
			e->addr2 = sizeof a; /* bind: addrlen in addr2 */
	} else {
		return -EINVAL;
	}
	return ring_run(r);
}

int main(int argc, char **argv)
{
	struct ring r;
	long res;

	if (argc < 4) {
		fprintf(stderr, "usage: ll_ring sys|ring|early OP PATH [PATH2|PORT]\n");
		return 2;
	}
	if (!strcmp(argv[1], "sys")) {
		res = sys_op(argv[2], argv[3], argc > 4 ? argv[4] : "");
	} else {
		if ((res = ring_make(&r)) < 0) {
			fprintf(stderr, "ll_ring: io_uring_setup: %s\n", strerror((int)-res));
			return 2;
		}
		async_ops = strstr(argv[1], "async") != NULL;
		if (!strcmp(argv[1], "early-async")) { /* a worker, before the layer */
			struct io_uring_sqe *e = ring_sqe(&r);
			e->opcode = IORING_OP_OPENAT;
			e->fd = AT_FDCWD;
			e->addr = (unsigned long)"/etc/hostname";
			if (ring_run(&r) < 0)
				return 2;
		}
		if (!strncmp(argv[1], "early", 5)) {
			int (*apply)(const char *) = (int (*)(const char *))dlsym(RTLD_DEFAULT,
										  "secfilter_apply");
			const char *pol = getenv("LL_APPLY");
			if (!apply || !pol || apply(pol) != 0) {
				fprintf(stderr, "ll_ring: secfilter_apply: %s\n",
					apply ? strerror(errno) : "not preloaded");
				return 2;
			}
		}
		res = ring_op(&r, argv[2], argv[3], argc > 4 ? argv[4] : "");
	}
	printf("%s %s: %s\n", argv[2], argv[1], res < 0 ? strerror((int)-res) : "ok");
	return res < 0;
}
