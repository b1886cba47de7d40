/* What a traced run does to files and TCP ports (learnuse.h), for the
 * fs. and net. rules learn proposes.
 *
 * Each call is looked at where Landlock would check it: the paths as the
 * task names them are resolved at the call's entry (against its cwd or
 * the directory fd, through /proc/PID), what existed there is seen then,
 * and the rights are recorded at its exit, only when it succeeded (a call
 * that fails without Landlock fails with it too).  An open's file is the
 * one its new fd names (/proc/PID/fd/N: symbolic links resolved, as
 * Landlock sees the file).  The rights each call needs are Landlock's
 * (Documentation/userspace-api/landlock.rst): a file made or removed needs
 * the right on its directory, an exec needs execute and read_file on the
 * program and on its ELF interpreter (the kernel opens both for
 * execution; the libraries the loader maps only need read_file), a rename
 * or link across directories needs refer on both. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/openat2.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "landlock.h"
#include "learnuse.h"
#include "secfilter.h"

/* Linux 6.5 and 6.9's, for older headers: _IOR(0x15, 0 and 1, ...). */
#ifndef FS_IOC_GETFSUUID
#define FS_IOC_GETFSUUID 0x80111500u
#endif
#ifndef FS_IOC_GETFSSYSFSPATH
#define FS_IOC_GETFSSYSFSPATH 0x80811501u
#endif

/* A call between its entry and its exit. */
struct pend {
	pid_t tid;
	long nr;
	uint64_t a[6];
	uint64_t oflags;        /* an open's flags */
	char *path[2];          /* absolute, as named (NULL: none) */
	mode_t mode[2];         /* what was there at the entry (lstat) */
	int existed[2];
};

struct learnuse {
	struct learned *l;
	struct pend *p;
	size_t n, cap;
};

struct learnuse *learnuse_new(struct learned *l)
{
	struct learnuse *w = xmalloc(sizeof(*w));

	memset(w, 0, sizeof(*w));
	w->l = l;
	return w;
}

static void pend_drop(struct learnuse *w, size_t i)
{
	free(w->p[i].path[0]);
	free(w->p[i].path[1]);
	w->p[i] = w->p[--w->n];
}

void learnuse_free(struct learnuse *w)
{
	if (!w)
		return;
	while (w->n)
		pend_drop(w, 0);
	free(w->p);
	free(w);
}

static void add(struct learnuse *w, const char *path, uint64_t access, unsigned flags)
{
	if (path && path[0] == '/' && fs_uses_add(&w->l->fs, path, access, flags) < 0)
		tool_oom();
}

/* ---- the task's memory and names ---- */

/* A NUL-terminated string of the task (malloc'd), or NULL. */
static char *read_string(pid_t pid, uint64_t addr)
{
	char *buf = xmalloc(PATH_MAX);
	size_t got = 0;

	while (got < PATH_MAX) {
		size_t chunk = 4096 - ((addr + got) & 4095);
		struct iovec local = { buf + got, chunk }, remote = { (void *)(addr + got), chunk };
		ssize_t n;

		if (chunk > PATH_MAX - got)
			local.iov_len = remote.iov_len = chunk = PATH_MAX - got;
		n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
		if (n <= 0)
			break;
		if (memchr(buf + got, '\0', (size_t)n))
			return buf;
		got += (size_t)n;
	}
	free(buf);
	return NULL;
}

static int read_mem(pid_t pid, uint64_t addr, void *out, size_t len)
{
	struct iovec local = { out, len }, remote = { (void *)addr, len };

	return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -1;
}

/* readlink of /proc/PID/<what> (malloc'd), or NULL. */
static char *proc_link(pid_t pid, const char *what)
{
	char link[64], *buf = xmalloc(PATH_MAX);
	ssize_t n;

	snprintf(link, sizeof link, "/proc/%d/%s", (int)pid, what);
	n = readlink(link, buf, PATH_MAX - 1);
	if (n <= 0 || buf[0] != '/') {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

static char *fd_link(pid_t pid, long fd)
{
	char what[32];
	char *p;
	size_t n;

	snprintf(what, sizeof what, "fd/%ld", fd);
	p = proc_link(pid, what);
	/* a file removed since: no name to grant on */
	if (p && (n = strlen(p)) > 10 && strcmp(p + n - 10, " (deleted)") == 0) {
		free(p);
		return NULL;
	}
	return p;
}

/* The absolute form of the task's path relative to dfd (malloc'd). */
static char *absolute(pid_t pid, long dfd, const char *path)
{
	char *base, *out;

	if (path[0] == '/')
		return xstrdup(path);
	base = (int)dfd == AT_FDCWD ? proc_link(pid, "cwd") : fd_link(pid, (int)dfd);
	if (!base)
		return NULL;
	out = path_join(base, path);
	free(base);
	return out;
}

/* The directory an entry is in, symbolic links resolved (malloc'd). */
static char *parent_of(const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/'), *real;

	if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	real = realpath(dir, NULL);
	free(dir);
	return real;
}

/* The entry itself, under its directory resolved: a symbolic link stays
 * one (malloc'd). */
static char *entry_of(const char *path)
{
	const char *base = strrchr(path, '/') + 1;
	char *dir, *out;

	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return realpath(path, NULL);
	if (!(dir = parent_of(path)))
		return NULL;
	out = path_join(dir, base);
	free(dir);
	return out;
}

/* ---- the rights ---- */

static uint64_t make_right(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFDIR: return SF_FS_MAKE_DIR;
	case S_IFLNK: return SF_FS_MAKE_SYM;
	case S_IFCHR: return SF_FS_MAKE_CHAR;
	case S_IFBLK: return SF_FS_MAKE_BLOCK;
	case S_IFIFO: return SF_FS_MAKE_FIFO;
	case S_IFSOCK: return SF_FS_MAKE_SOCK;
	}
	return SF_FS_MAKE_REG;
}

static uint64_t remove_right(mode_t m)
{
	return S_ISDIR(m) ? SF_FS_REMOVE_DIR : SF_FS_REMOVE_FILE;
}

/* An entry made at path: its directory's right, and the entry named as
 * the run's own. */
static void made(struct learnuse *w, const char *path, uint64_t right, uint64_t on_it)
{
	char *dir = parent_of(path), *entry = entry_of(path);

	add(w, dir, right, 0);
	add(w, entry, on_it, FSU_MADE);
	free(dir);
	free(entry);
}

static void in_dir(struct learnuse *w, const char *path, uint64_t right)
{
	char *dir = parent_of(path);

	add(w, dir, right, 0);
	free(dir);
}

/* The ELF interpreter an executable names (malloc'd), or NULL. */
static char *interpreter(const char *exe)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	char *interp = NULL;
	int fd = open(exe, O_RDONLY | O_CLOEXEC), i;

	if (fd < 0)
		return NULL;
	if (pread(fd, &eh, sizeof eh, 0) != sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64)
		goto out;
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (uint64_t)i * eh.e_phentsize)) !=
		    sizeof ph)
			break;
		if (ph.p_type != PT_INTERP || !ph.p_filesz || ph.p_filesz > PATH_MAX)
			continue;
		interp = xmalloc(ph.p_filesz + 1);
		if (pread(fd, interp, ph.p_filesz, (off_t)ph.p_offset) != (ssize_t)ph.p_filesz) {
			free(interp);
			interp = NULL;
		} else {
			interp[ph.p_filesz] = '\0';
		}
		break;
	}
out:
	close(fd);
	return interp;
}

static void executed(struct learnuse *w, const char *path)
{
	char *real = path ? realpath(path, NULL) : NULL;

	add(w, real, SF_FS_EXECUTE | SF_FS_READ_FILE, 0);
	free(real);
}

void learnuse_exec(struct learnuse *w, pid_t pid, pid_t former)
{
	char *exe = proc_link(pid, "exe"), *interp = exe ? interpreter(exe) : NULL;
	size_t i;

	/* the file named (a script, when exe is its interpreter) */
	for (i = 0; i < w->n; i++)
		if (w->p[i].tid == former &&
		    (w->p[i].nr == SYS_execve || w->p[i].nr == SYS_execveat)) {
			executed(w, w->p[i].path[0]);
			pend_drop(w, i);
			break;
		}
	executed(w, exe);
	executed(w, interp);
	free(exe);
	free(interp);
}

/* ---- TCP ports ---- */

/* Whether the task's fd is a TCP socket (Landlock's net. rights are
 * TCP's); when it cannot be told, it is taken for one. */
static int is_tcp(pid_t pid, long fd)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), s, type = 0, proto = 0;
	socklen_t len = sizeof(int);

	if (pidfd < 0) /* a thread: PIDFD_THREAD (Linux 6.9) */
		pidfd = (int)syscall(SYS_pidfd_open, pid, O_EXCL);
	if (pidfd < 0)
		return 1;
	s = (int)syscall(SYS_pidfd_getfd, pidfd, (int)fd, 0);
	close(pidfd);
	if (s < 0)
		return 1;
	if (getsockopt(s, SOL_SOCKET, SO_TYPE, &type, &len) < 0 ||
	    getsockopt(s, SOL_SOCKET, SO_PROTOCOL, &proto, &len) < 0)
		type = SOCK_STREAM, proto = IPPROTO_TCP;
	close(s);
	return type == SOCK_STREAM && proto == IPPROTO_TCP;
}

static void port_call(struct learnuse *w, pid_t pid, long nr, const uint64_t a[6])
{
	struct sockaddr_un sa;
	size_t len = a[2] < sizeof sa ? (size_t)a[2] : sizeof sa;

	memset(&sa, 0, sizeof sa);
	if (len < sizeof(sa_family_t) || read_mem(pid, a[1], &sa, len) < 0)
		return;
	if (sa.sun_family == AF_INET || sa.sun_family == AF_INET6) {
		const struct sockaddr_in *in = (const void *)&sa;
		/* sin_port and sin6_port are at the same place */
		if (len >= offsetof(struct sockaddr_in, sin_port) + 2 && is_tcp(pid, (long)a[0]))
			w->l->ports[ntohs(in->sin_port)] |= nr == SYS_bind ? SF_NET_BIND
									   : SF_NET_CONNECT;
	}
}

/* ---- calls ---- */

static int interesting(long nr)
{
	switch (nr) {
	case SYS_open: case SYS_openat: case SYS_openat2: case SYS_creat:
	case SYS_mkdir: case SYS_mkdirat: case SYS_mknod: case SYS_mknodat:
	case SYS_symlink: case SYS_symlinkat: case SYS_link: case SYS_linkat:
	case SYS_rename: case SYS_renameat: case SYS_renameat2:
	case SYS_unlink: case SYS_unlinkat: case SYS_rmdir: case SYS_truncate:
	case SYS_execve: case SYS_execveat: case SYS_bind:
		return 1;
	}
	return 0;
}

/* Where each call names its paths: the dfd argument (-1: the cwd) and the
 * path argument, up to two. */
static void path_args(long nr, int dfd[2], int arg[2])
{
	dfd[0] = dfd[1] = -1;
	arg[0] = arg[1] = -1;
	switch (nr) {
	case SYS_open: case SYS_creat: case SYS_mkdir: case SYS_mknod: case SYS_unlink:
	case SYS_rmdir: case SYS_truncate: case SYS_execve:
		arg[0] = 0;
		break;
	case SYS_openat: case SYS_openat2: case SYS_mkdirat: case SYS_mknodat:
	case SYS_unlinkat: case SYS_execveat:
		dfd[0] = 0, arg[0] = 1;
		break;
	case SYS_symlink:
		arg[1] = 1;
		break;
	case SYS_symlinkat:
		dfd[1] = 1, arg[1] = 2;
		break;
	case SYS_link: case SYS_rename:
		arg[0] = 0, arg[1] = 1;
		break;
	case SYS_linkat: case SYS_renameat: case SYS_renameat2:
		dfd[0] = 0, arg[0] = 1, dfd[1] = 2, arg[1] = 3;
		break;
	}
}

/* Landlock's ioctl commands that need no fs.ioctl_dev (security/landlock/fs.c,
 * is_masked_device_ioctl). */
static int ioctl_masked(unsigned cmd)
{
	switch (cmd) {
	case FIOCLEX: case FIONCLEX: case FIONBIO: case FIOASYNC:
	case FIFREEZE: case FITHAW: case FIGETBSZ: case FS_IOC_FIEMAP:
	case FICLONE: case FICLONERANGE: case FIDEDUPERANGE:
	case FS_IOC_GETFSUUID: case FS_IOC_GETFSSYSFSPATH:
		return 1;
	}
	return 0;
}

/* ioctl on a device the run opened itself (one inherited, like the
 * terminal, was opened outside the domain, and Landlock does not check
 * it). */
static void ioctl_call(struct learnuse *w, pid_t pid, const uint64_t a[6])
{
	char *path;
	struct stat st;

	if (ioctl_masked((unsigned)a[1]) || !(path = fd_link(pid, (long)a[0])))
		return;
	if (stat(path, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) &&
	    fs_uses_get(&w->l->fs, path, 0) & (SF_FS_READ_FILE | SF_FS_WRITE_FILE))
		add(w, path, SF_FS_IOCTL_DEV, 0);
	free(path);
}

void learnuse_entry(struct learnuse *w, pid_t pid, long nr, const uint64_t a[6])
{
	struct pend p;
	int dfd[2], arg[2], i;
	size_t k;

	if (nr == SYS_connect || nr == SYS_bind)
		port_call(w, pid, nr, a);
	if (nr == SYS_ioctl)
		ioctl_call(w, pid, a);
	if (nr == SYS_ftruncate) {
		char *path = fd_link(pid, (long)a[0]);
		add(w, path, SF_FS_TRUNCATE, 0);
		free(path);
	}
	if (!interesting(nr))
		return;
	/* a call left over: its task was interrupted, or is gone */
	for (k = 0; k < w->n; k++)
		if (w->p[k].tid == pid)
			pend_drop(w, k--);
	memset(&p, 0, sizeof p);
	p.tid = pid;
	p.nr = nr;
	memcpy(p.a, a, sizeof p.a);
	path_args(nr, dfd, arg);
	if (nr == SYS_bind) { /* a unix socket's file */
		struct sockaddr_un sa;
		size_t len = a[2] < sizeof sa ? (size_t)a[2] : sizeof sa;
		memset(&sa, 0, sizeof sa);
		if (len <= sizeof(sa_family_t) || read_mem(pid, a[1], &sa, len) < 0 ||
		    sa.sun_family != AF_UNIX || !sa.sun_path[0])
			return;
		sa.sun_path[sizeof sa.sun_path - 1] = '\0';
		p.path[0] = absolute(pid, AT_FDCWD, sa.sun_path);
	}
	for (i = 0; i < 2; i++) {
		char *s;
		if (arg[i] < 0 || !(s = read_string(pid, a[arg[i]])))
			continue;
		if (*s)
			p.path[i] = absolute(pid, dfd[i] < 0 ? AT_FDCWD : (long)a[dfd[i]], s);
		else if (dfd[i] >= 0) /* AT_EMPTY_PATH: the fd's own file */
			p.path[i] = fd_link(pid, (long)a[dfd[i]]);
		free(s);
	}
	if (nr == SYS_open || nr == SYS_openat)
		p.oflags = a[nr == SYS_open ? 1 : 2];
	else if (nr == SYS_creat)
		p.oflags = O_CREAT | O_WRONLY | O_TRUNC;
	else if (nr == SYS_openat2) {
		struct open_how how;
		if (read_mem(pid, a[2], &how, sizeof how.flags) < 0)
			how.flags = 0;
		p.oflags = how.flags;
	}
	for (i = 0; i < 2; i++) {
		struct stat st;
		int follow = (nr == SYS_open || nr == SYS_openat || nr == SYS_openat2 ||
			      nr == SYS_creat) && !(p.oflags & O_NOFOLLOW);
		if (p.path[i] && (follow ? stat(p.path[i], &st) : lstat(p.path[i], &st)) == 0) {
			p.existed[i] = 1;
			p.mode[i] = st.st_mode;
		}
	}
	w->p = xgrow(w->p, &w->cap, w->n, sizeof(*w->p), 16);
	w->p[w->n++] = p;
}

static void opened(struct learnuse *w, pid_t pid, const struct pend *p, long fd)
{
	uint64_t fl = p->oflags, on_file = 0;
	char *path;
	struct stat st;

	if (fl & O_PATH) /* not opened for any access: Landlock does not check it */
		return;
	if ((fl & O_ACCMODE) != O_WRONLY)
		on_file |= SF_FS_READ_FILE;
	if ((fl & O_ACCMODE) != O_RDONLY)
		on_file |= SF_FS_WRITE_FILE;
	if ((fl & O_TMPFILE) == O_TMPFILE) { /* a file with no name, in path */
		char *dir = p->path[0] ? realpath(p->path[0], NULL) : NULL;
		add(w, dir, SF_FS_MAKE_REG | on_file, 0);
		free(dir);
		return;
	}
	if ((fl & O_CREAT) && !p->existed[0] && p->path[0]) {
		/* made: the next run may find it there and truncate it
		 * (cp, a shell's >), so truncate is granted with it */
		made(w, p->path[0], SF_FS_MAKE_REG, on_file | SF_FS_TRUNCATE);
		return;
	}
	if (!(path = fd_link(pid, fd)))
		return;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode) && (on_file & SF_FS_READ_FILE))
		on_file = (on_file & ~SF_FS_READ_FILE) | SF_FS_READ_DIR;
	if (fl & O_TRUNC)
		on_file |= SF_FS_TRUNCATE;
	add(w, path, on_file, 0);
	free(path);
}

static void renamed(struct learnuse *w, const struct pend *p)
{
	char *from = parent_of(p->path[0]), *to = parent_of(p->path[1]);
	mode_t old = p->mode[0], new = p->mode[1];
	int exchange = p->nr == SYS_renameat2 && (p->a[4] & RENAME_EXCHANGE);

	add(w, from, remove_right(old), 0);
	add(w, to, make_right(old), 0);
	if (p->existed[1])
		add(w, to, remove_right(new), 0);
	if (exchange) {
		add(w, from, make_right(new), 0);
	}
	if (from && to && strcmp(from, to) != 0) {
		add(w, from, SF_FS_REFER, 0);
		add(w, to, SF_FS_REFER, 0);
	}
	if (!p->existed[1]) {
		char *entry = entry_of(p->path[1]);
		add(w, entry, 0, FSU_MADE);
		free(entry);
	}
	free(from);
	free(to);
}

void learnuse_exit(struct learnuse *w, pid_t pid, long ret)
{
	struct pend *p = NULL;
	size_t k;

	for (k = 0; k < w->n && !p; k++)
		if (w->p[k].tid == pid)
			p = &w->p[k];
	if (!p)
		return;
	k--;
	if (ret < 0 || (!p->path[0] && !p->path[1]))
		goto done;
	switch (p->nr) {
	case SYS_open: case SYS_openat: case SYS_openat2: case SYS_creat:
		opened(w, pid, p, ret);
		break;
	case SYS_mkdir: case SYS_mkdirat:
		made(w, p->path[0], SF_FS_MAKE_DIR, 0);
		break;
	case SYS_mknod: case SYS_mknodat:
		made(w, p->path[0], make_right((mode_t)p->a[p->nr == SYS_mknod ? 1 : 2]), 0);
		break;
	case SYS_symlink: case SYS_symlinkat:
		made(w, p->path[1], SF_FS_MAKE_SYM, 0);
		break;
	case SYS_bind:
		made(w, p->path[0], SF_FS_MAKE_SOCK, 0);
		break;
	case SYS_link: case SYS_linkat: {
		char *from = parent_of(p->path[0]), *to = parent_of(p->path[1]);
		made(w, p->path[1], make_right(p->mode[0]), 0);
		if (from && to && strcmp(from, to) != 0) {
			add(w, from, SF_FS_REFER, 0);
			add(w, to, SF_FS_REFER, 0);
		}
		free(from);
		free(to);
		break;
	}
	case SYS_rename: case SYS_renameat: case SYS_renameat2:
		if (p->path[0] && p->path[1])
			renamed(w, p);
		break;
	case SYS_unlink: case SYS_rmdir: case SYS_unlinkat:
		in_dir(w, p->path[0], p->nr == SYS_rmdir || (p->nr == SYS_unlinkat &&
			(p->a[2] & AT_REMOVEDIR)) ? SF_FS_REMOVE_DIR : SF_FS_REMOVE_FILE);
		break;
	case SYS_truncate: {
		char *real = realpath(p->path[0], NULL);
		add(w, real, SF_FS_TRUNCATE, 0);
		free(real);
		break;
	}
	}
	/* an exec that succeeded is learnuse_exec's */
done:
	pend_drop(w, k);
}
