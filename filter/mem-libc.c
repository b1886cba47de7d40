/* sf_mem_* and sf_file_* for the tool and the tests: plain calloc/free and
 * open/read.  Never linked into libsecfilter.so (see mem.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "mem.h"

void *sf_mem_alloc(size_t n)
{
	return calloc(1, n ? n : 1);
}

void sf_mem_free(void *p, size_t n)
{
	(void)n;
	free(p);
}

int sf_file_read(const char *path, size_t max, char **text, size_t *len, size_t *size,
		 uint64_t id[2])
{
	/* O_NONBLOCK: opening a FIFO must not wait for a writer. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	size_t n = 0, cap;
	char *buf;
	int e;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		e = -errno;
		close(fd);
		return e;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	id[0] = (uint64_t)st.st_dev;
	id[1] = (uint64_t)st.st_ino;
	cap = (size_t)st.st_size < max ? (size_t)st.st_size + 1 : max;
	buf = sf_mem_alloc(cap ? cap : 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (n < cap) {
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = -errno;
			close(fd);
			sf_mem_free(buf, cap);
			return e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (n == cap && cap < max) { /* it grew while being read */
		sf_mem_free(buf, cap);
		return -EAGAIN;
	}
	*text = buf;
	*len = n;
	*size = cap ? cap : 1;
	return 0;
}

int sf_file_id(const char *path, uint64_t id[2])
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	id[0] = (uint64_t)st.st_dev;
	id[1] = (uint64_t)st.st_ino;
	return 0;
}

int sf_kernel_release(char *buf, size_t cap)
{
	struct utsname u;

	if (cap == 0 || uname(&u) < 0)
		return cap ? -errno : -EINVAL;
	strncpy(buf, u.release, cap - 1);
	buf[cap - 1] = '\0';
	return 0;
}
