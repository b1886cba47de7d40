/* Where the policy engine gets its memory, the files it @includes, and
 * the kernel release an OCI profile may ask about.
 *
 * The engine runs in two very different homes: the secfilter tool and the
 * tests, where malloc is fine, and libsecfilter.so, which lives inside other
 * people's processes and must never enter the kernel through libc (every
 * libc syscall there is trapped and checked against the very policy being
 * built).  So the engine allocates and reads files only through these
 * functions, and each binary links exactly one implementation:
 * filter/mem-libc.c for the tool and tests, preload/mem.c (raw syscalls)
 * for the library. */
#ifndef SECFILTER_MEM_H
#define SECFILTER_MEM_H

#include <stddef.h>
#include <stdint.h>

/* n bytes of zeroed memory, or NULL. */
void *sf_mem_alloc(size_t n);
/* Frees what sf_mem_alloc(n) returned; n must be the size asked for. */
void sf_mem_free(void *p, size_t n);

/* Reads the regular file at path: at most max bytes (one more than a limit
 * is enough to refuse it), into sf_mem_alloc(*size) memory.  id gets its
 * device and inode.  Returns 0, or -errno: -EINVAL when it is not a
 * regular file (a FIFO or a terminal would block, a directory cannot be
 * read), -ENOMEM. */
int sf_file_read(const char *path, size_t max, char **text, size_t *len, size_t *size,
		 uint64_t id[2]);
/* The device and inode of path; 0 or -errno. */
int sf_file_id(const char *path, uint64_t id[2]);

/* The running kernel's release ("6.18.44-..."), NUL-terminated in buf:
 * what an OCI profile's minKernel is compared with.  0 or -errno. */
int sf_kernel_release(char *buf, size_t cap);

#endif
