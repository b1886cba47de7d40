/* A small formatter and string helpers: the library has no stdio (it may
 * run in a signal handler, in a vfork child, or with the policy denying
 * the calls stdio would make). */
#include <errno.h>
#include <sys/syscall.h>

#include "sf.h"

size_t sf_strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

int sf_streq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

int sf_startswith(const char *s, const char *prefix)
{
	while (*prefix)
		if (*s++ != *prefix++)
			return 0;
	return 1;
}

/* A word at a time: the library copies and clears a few KiB at every
 * start (the policy block, the state, error structures). */

void sf_memcpy(void *d, const void *s, size_t n)
{
	char *dp = d;
	const char *sp = s;

	for (; n >= 8; n -= 8, dp += 8, sp += 8)
		*(sf_word *)dp = *(const sf_word *)sp;
	while (n--)
		*dp++ = *sp++;
}

void sf_memset(void *d, int c, size_t n)
{
	char *dp = d;
	uint64_t w = 0x0101010101010101ull * (unsigned char)c;

	for (; n >= 8; n -= 8, dp += 8)
		*(sf_word *)dp = w;
	while (n--)
		*dp++ = (char)c;
}

/* Keeps the buffer NUL-terminated; what does not fit is dropped. */
void sf_putn(struct sf_buf *b, const char *s, size_t n)
{
	while (n-- && b->len + 1 < b->cap)
		b->p[b->len++] = *s++;
	if (b->cap)
		b->p[b->len] = '\0';
}

void sf_puts(struct sf_buf *b, const char *s)
{
	sf_putn(b, s, sf_strlen(s));
}

void sf_putc(struct sf_buf *b, char c)
{
	sf_putn(b, &c, 1);
}

void sf_putu(struct sf_buf *b, uint64_t v)
{
	char tmp[24];
	int i = sizeof tmp;

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	sf_putn(b, tmp + i, sizeof tmp - (size_t)i);
}

void sf_puti(struct sf_buf *b, int64_t v)
{
	if (v < 0) {
		sf_putc(b, '-');
		sf_putu(b, (uint64_t)0 - (uint64_t)v);
	} else {
		sf_putu(b, (uint64_t)v);
	}
}

void sf_putx(struct sf_buf *b, uint64_t v)
{
	char tmp[16];
	int i = sizeof tmp;

	do {
		tmp[--i] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	sf_putn(b, tmp + i, sizeof tmp - (size_t)i);
}

/* glibc's strerror may load translations (syscalls through libc): the
 * library only ever needs these few. */
const char *sf_strerror(int e)
{
	switch (e) {
	case ENOENT: return "No such file or directory";
	case EACCES: return "Permission denied";
	case EPERM: return "Operation not permitted";
	case EISDIR: return "Is a directory";
	case ENOTDIR: return "Not a directory";
	case ELOOP: return "Too many levels of symbolic links";
	case ENAMETOOLONG: return "File name too long";
	case ENOMEM: return "Cannot allocate memory";
	case EFBIG: return "File too large";
	case E2BIG: return "Argument list too long";
	case EINVAL: return "Invalid argument";
	case ENOSYS: return "Function not implemented";
	case EIO: return "Input/output error";
	case EMFILE: return "Too many open files";
	default: return "error";
	}
}

int sf_write_all(int fd, const char *s, size_t n)
{
	while (n) {
		long r = sf_sys(SYS_write, fd, (long)s, (long)n, 0, 0, 0);
		if (r == -EINTR)
			continue;
		if (r <= 0)
			return -1;
		s += r;
		n -= (size_t)r;
	}
	return 0;
}
