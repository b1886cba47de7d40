/* What `run` must know about PROG before it starts it: where it is (PATH
 * search, so 126/127 are decided before forking) and whether it is static
 * (no PT_INTERP: LD_PRELOAD cannot reach it, so trusted mode is the only
 * way to filter it). */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "secfilter.h"

/* 0 when path is a file we may execute, else the status execve's failure
 * would give (errno set). */
static int try_exec_path(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return errno == ENOENT ? EX_SF_NOTFOUND : EX_SF_NOEXEC;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return EX_SF_NOEXEC;
	}
	if (!S_ISREG(st.st_mode) || access(path, X_OK) < 0) {
		errno = EACCES;
		return EX_SF_NOEXEC;
	}
	return 0;
}

static char *join(const char *dir, size_t dlen, const char *name)
{
	size_t nlen = strlen(name);
	char *p;

	if (dlen == 0) { /* an empty PATH element is the current directory */
		dir = ".";
		dlen = 1;
	}
	p = xmalloc(dlen + 1 + nlen + 1);
	memcpy(p, dir, dlen);
	p[dlen] = '/';
	memcpy(p + dlen + 1, name, nlen + 1);
	return p;
}

int resolve_prog(const char *name, char **path)
{
	const char *dirs = getenv("PATH"), *d;
	int denied = 0, r;

	if (!*name) {
		errno = ENOENT;
		return EX_SF_NOTFOUND;
	}
	if (strchr(name, '/')) {
		r = try_exec_path(name);
		if (r == 0)
			*path = xstrdup(name);
		return r;
	}
	if (!dirs)
		dirs = "/bin:/usr/bin"; /* glibc's default, as execvp uses it */
	for (d = dirs;; ) {
		const char *end = strchrnul(d, ':');
		char *cand = join(d, (size_t)(end - d), name);

		r = try_exec_path(cand);
		if (r == 0) {
			*path = cand;
			return 0;
		}
		free(cand);
		/* Like execvp: a match we may not run is reported only when no
		 * later directory has a runnable one. */
		if (r == EX_SF_NOEXEC && errno == EACCES)
			denied = 1;
		if (!*end)
			break;
		d = end + 1;
	}
	errno = denied ? EACCES : ENOENT;
	return denied ? EX_SF_NOEXEC : EX_SF_NOTFOUND;
}

#define BINPRM_BUF 256 /* what the kernel reads of a file to find its "#!" */

static int shebang_end(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\0';
}

/* "#!/bin/sh -e" -> "/bin/sh" (malloc'd), or NULL when the kernel would
 * refuse the line (fs/binfmt_script.c): the interpreter's name ends at a
 * blank, a newline or a NUL -- the end of a file shorter than the buffer
 * counts, as the kernel pads the rest with NULs -- and may be relative
 * (to the cwd of the exec, which is ours). */
static char *shebang_interp(const char *buf, size_t len)
{
	size_t i = 2, start;

	while (i < len && (buf[i] == ' ' || buf[i] == '\t'))
		i++;
	start = i;
	while (i < len && !shebang_end(buf[i]))
		i++;
	if (i == start || (i == len && len >= BINPRM_BUF))
		return NULL; /* no name, or one the buffer may have cut */
	return strndup(buf + start, i - start);
}

/* An x86-64 image's PT_INTERP: 1 (and the name, malloc'd, in *interp
 * unless interp is NULL), 0 when it has none, -1 with *why set when its
 * headers say it is not one we can tell. */
static int elf_interp(int fd, const Elf64_Ehdr *eh, const char **why, char **interp)
{
	size_t i;

	if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_machine != EM_X86_64) {
		*why = "it is not an x86-64 program";
		return -1;
	}
	if (eh->e_phentsize != sizeof(Elf64_Phdr)) {
		*why = "its ELF program headers are malformed";
		return -1;
	}
	for (i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr ph;
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh->e_phoff + i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph)) {
			*why = "its ELF program headers cannot be read";
			return -1;
		}
		if (ph.p_type != PT_INTERP)
			continue;
		if (interp) {
			char name[PATH_MAX];
			if (ph.p_filesz < 2 || ph.p_filesz > sizeof(name) ||
			    pread(fd, name, ph.p_filesz, (off_t)ph.p_offset) != (ssize_t)ph.p_filesz ||
			    name[ph.p_filesz - 1] != '\0') {
				*why = "its interpreter's name cannot be read";
				return -1;
			}
			*interp = xstrdup(name);
		}
		return 1;
	}
	return 0;
}

static int is_static_at(const char *path, const char **why, int depth)
{
	union { Elf64_Ehdr eh; char buf[BINPRM_BUF]; } u;
	ssize_t n;
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*why = "it cannot be read";
		return -1;
	}
	n = pread(fd, u.buf, sizeof(u.buf), 0);
	if (n >= (ssize_t)sizeof(Elf64_Ehdr) && memcmp(u.buf, ELFMAG, SELFMAG) == 0) {
		r = elf_interp(fd, &u.eh, why, NULL);
		r = r < 0 ? -1 : !r;
	} else if (n > 2 && u.buf[0] == '#' && u.buf[1] == '!' && depth < 4) {
		/* The kernel follows up to four levels of interpreters; the
		 * mode is decided by the one that finally runs. */
		char *interp = shebang_interp(u.buf, (size_t)n);
		if (interp) {
			r = is_static_at(interp, why, depth + 1);
		} else {
			*why = "its #! line names no interpreter";
			r = -1;
		}
		free(interp);
	} else {
		*why = "it is neither an ELF program nor a #! script";
		r = -1;
	}
	close(fd);
	return r;
}

int prog_is_static(const char *path, const char **why)
{
	*why = NULL;
	return is_static_at(path, why, 0);
}

int prog_exec_chain(const char *path, char **files, int max)
{
	union { Elf64_Ehdr eh; char buf[BINPRM_BUF]; } u;
	const char *why;
	char *next;
	int n = 0, fd;
	ssize_t got;

	next = xstrdup(path);
	while (next && n < max) {
		files[n++] = next;
		next = NULL;
		if ((fd = open(files[n - 1], O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)) < 0)
			break;
		got = pread(fd, u.buf, sizeof(u.buf), 0);
		if (got > 2 && u.buf[0] == '#' && u.buf[1] == '!')
			next = shebang_interp(u.buf, (size_t)got);
		else if (got >= (ssize_t)sizeof(Elf64_Ehdr) && memcmp(u.buf, ELFMAG, SELFMAG) == 0)
			elf_interp(fd, &u.eh, &why, &next);
		close(fd);
	}
	free(next);
	return n;
}

int prog_needs_shell(const char *path)
{
	char buf[SELFMAG];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) /* unreadable: the exec itself will tell */
		return 0;
	n = pread(fd, buf, sizeof(buf), 0);
	close(fd);
	if (n < 0)
		return 0;
	if (n >= 2 && buf[0] == '#' && buf[1] == '!')
		return 0;
	return !(n == SELFMAG && memcmp(buf, ELFMAG, SELFMAG) == 0);
}

char **shell_argv(const char *path, char *const *argv)
{
	size_t n = 0, i;
	char **v;

	while (argv[n])
		n++;
	v = xmalloc((n + 2) * sizeof(*v));
	v[0] = (char *)"/bin/sh";
	v[1] = (char *)path;
	for (i = 1; i <= n; i++)
		v[i + 1] = argv[i];
	return v;
}
