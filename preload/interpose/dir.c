/* Directory streams on the fast path.
 *
 * opendir/readdir/closedir make their calls (openat, newfstatat, fcntl,
 * getdents64, close) inside libc, where no wrapper sees them: each would
 * be a trap (~1-3 us).  `ls -lR` or a tar of a tree spends most of its
 * interposition overhead there, so the library implements the whole
 * directory-stream family itself, with the same calls glibc 2.36 makes
 * (strace counts match).  Every exported function that takes or returns a
 * DIR * is here, so a program never hands one of ours to libc or the
 * reverse; libc's own internal users (scandir, fts, glob) keep libc's.
 *
 * The stream's memory comes from sf_mem_alloc, never malloc. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "mem.h"
#include "wrap.h"

#define DIRBUF (32u << 10) /* glibc's default allocation */

struct sf_dir {
	int fd;
	int lock;
	size_t size, offset; /* valid bytes in buf, next entry */
	off_t filepos;       /* telldir's cookie: d_off of the last entry */
	char buf[DIRBUF];
};

/* One freed stream is kept for the next opendir: a tree walk would
 * otherwise map and unmap 32 KiB per directory. */
static struct sf_dir *spare;

static struct sf_dir *dir_new(int fd)
{
	struct sf_dir *d = __atomic_exchange_n(&spare, NULL, __ATOMIC_ACQ_REL);

	if (!d)
		d = sf_mem_alloc(sizeof *d);
	if (d) {
		d->fd = fd;
		d->lock = 0;
		d->size = d->offset = 0;
		d->filepos = 0;
	}
	return d;
}

static void dir_free(struct sf_dir *d)
{
	d = __atomic_exchange_n(&spare, d, __ATOMIC_ACQ_REL);
	if (d)
		sf_mem_free(d, sizeof *d);
}

/* The fstat both opendir and fdopendir make; -errno or 0. */
static inline __attribute__((always_inline)) long dir_stat(int fd, struct stat *st, uintptr_t ip)
{
	return sf_fstat(fd, st, ip);
}

SF_WRAPPER DIR *opendir(const char *name)
{
	struct stat st;
	struct sf_dir *d;
	long fd, err;

	if (name[0] == '\0') {
		sf_ret(-ENOENT);
		return NULL;
	}
	fd = sf_wrap6(SYS_openat, SF_U(AT_FDCWD), SF_P(name),
		      O_RDONLY | O_NONBLOCK | O_DIRECTORY | O_CLOEXEC, 0, 0, 0, SF_CALLER);
	if (sf_ret(fd) < 0)
		return NULL;
	err = dir_stat((int)fd, &st, SF_CALLER);
	d = sf_is_err(err) ? NULL : dir_new((int)fd);
	if (d)
		return (DIR *)d;
	sf_wrap6(SYS_close, SF_U(fd), 0, 0, 0, 0, 0, SF_CALLER);
	sf_ret(sf_is_err(err) ? err : -ENOMEM);
	return NULL;
}

SF_WRAPPER DIR *fdopendir(int fd)
{
	struct stat st;
	struct sf_dir *d;
	long flags;

	if (sf_ret(dir_stat(fd, &st, SF_CALLER)) < 0)
		return NULL;
	if (!S_ISDIR(st.st_mode)) {
		sf_ret(-ENOTDIR);
		return NULL;
	}
	flags = sf_ret(sf_wrap6(SYS_fcntl, SF_U(fd), F_GETFL, 0, 0, 0, 0, SF_CALLER));
	if (flags < 0)
		return NULL;
	if ((flags & O_ACCMODE) == O_WRONLY) {
		sf_ret(-EINVAL);
		return NULL;
	}
	/* The stream owns the descriptor from now on: glibc makes it
	 * close-on-exec. */
	if (sf_ret(sf_wrap6(SYS_fcntl, SF_U(fd), F_SETFD, FD_CLOEXEC, 0, 0, 0, SF_CALLER)) < 0)
		return NULL;
	d = dir_new(fd);
	if (!d)
		sf_ret(-ENOMEM);
	return (DIR *)d;
}

/* The next entry, refilling the buffer; NULL at the end (errno kept) or
 * on error (errno set).  ENOENT from a deleted directory is an end.
 * Entries with inode 0 are skipped, as glibc skips them. */
static inline __attribute__((always_inline)) struct dirent64 *
next_entry(struct sf_dir *d, uintptr_t ip)
{
	struct dirent64 *e;

	do {
		if (d->offset >= d->size) {
			long n = sf_wrap6(SYS_getdents64, SF_U(d->fd), SF_P(d->buf), DIRBUF,
					  0, 0, 0, ip);
			if (n <= 0) {
				if (n < 0 && n != -ENOENT)
					sf_ret(n);
				return NULL;
			}
			d->size = (size_t)n;
			d->offset = 0;
		}
		e = (struct dirent64 *)(d->buf + d->offset);
		d->offset += e->d_reclen;
		d->filepos = e->d_off;
	} while (e->d_ino == 0);
	return e;
}

static inline __attribute__((always_inline)) struct dirent64 *
readdir_common(DIR *dir, uintptr_t ip)
{
	struct sf_dir *d = (struct sf_dir *)dir;
	struct dirent64 *e;

	sf_lock(&d->lock);
	e = next_entry(d, ip);
	sf_unlock(&d->lock);
	return e;
}

SF_WRAPPER struct dirent64 *readdir64(DIR *dir)
{
	return readdir_common(dir, SF_CALLER);
}

/* struct dirent and struct dirent64 are the same on x86-64. */
SF_WRAPPER struct dirent *readdir(DIR *dir)
{
	return (struct dirent *)readdir_common(dir, SF_CALLER);
}

static inline __attribute__((always_inline)) int
readdir_r_common(DIR *dir, void *entry, void **result, uintptr_t ip)
{
	struct sf_dir *d = (struct sf_dir *)dir;
	int saved = errno, err = 0;
	struct dirent64 *e;

	sf_lock(&d->lock);
	errno = 0;
	e = next_entry(d, ip);
	if (!e)
		err = errno;
	else
		sf_memcpy(entry, e, e->d_reclen < sizeof(struct dirent64) ? e->d_reclen
									 : sizeof(struct dirent64));
	sf_unlock(&d->lock);
	/* glibc leaves getdents's errno on an error, the caller's otherwise. */
	if (!err)
		errno = saved;
	*result = e ? entry : NULL;
	return err;
}

SF_WRAPPER int readdir_r(DIR *dir, struct dirent *entry, struct dirent **result)
{
	return readdir_r_common(dir, entry, (void **)result, SF_CALLER);
}

SF_WRAPPER int readdir64_r(DIR *dir, struct dirent64 *entry, struct dirent64 **result)
{
	return readdir_r_common(dir, entry, (void **)result, SF_CALLER);
}

SF_WRAPPER int closedir(DIR *dir)
{
	struct sf_dir *d = (struct sf_dir *)dir;
	int fd;

	if (!d)
		return (int)sf_ret(-EINVAL);
	fd = d->fd;
	dir_free(d);
	return (int)sf_ret(sf_wrap6(SYS_close, SF_U(fd), 0, 0, 0, 0, 0, SF_CALLER));
}

SF_EXPORT int dirfd(DIR *dir)
{
	return ((struct sf_dir *)dir)->fd;
}

static inline __attribute__((always_inline)) void
dir_seek(struct sf_dir *d, long pos, uintptr_t ip)
{
	sf_lock(&d->lock);
	sf_wrap6(SYS_lseek, SF_U(d->fd), SF_U(pos), SEEK_SET, 0, 0, 0, ip);
	d->size = d->offset = 0;
	d->filepos = pos;
	sf_unlock(&d->lock);
}

SF_WRAPPER void rewinddir(DIR *dir)
{
	dir_seek((struct sf_dir *)dir, 0, SF_CALLER);
}

SF_WRAPPER void seekdir(DIR *dir, long pos)
{
	dir_seek((struct sf_dir *)dir, pos, SF_CALLER);
}

SF_EXPORT long telldir(DIR *dir)
{
	struct sf_dir *d = (struct sf_dir *)dir;
	long pos;

	sf_lock(&d->lock);
	pos = d->filepos;
	sf_unlock(&d->lock);
	return pos;
}
