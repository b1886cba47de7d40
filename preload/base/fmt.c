/* A small formatter and string helpers: the library has no stdio (it may
 * run in a signal handler, in a vfork child, or with the policy denying
 * the calls stdio would make). */
#include <errno.h>
#include <sys/syscall.h>

#include "base.h"
#include "internal.h"

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

void sf_put_list(struct sf_buf *b, const char *const *parts)
{
	for (; *parts; parts++)
		sf_puts(b, *parts);
}

/* Keeps the buffer NUL-terminated; what does not fit is dropped. */
/* A copy of what fits rather than a test a byte: exec's environment and
 * a start's settings are built of whole strings (the library's path). */
void sf_putn(struct sf_buf *b, const char *s, size_t n)
{
	size_t room = b->len + 1 < b->cap ? b->cap - b->len - 1 : 0;

	if (n > room)
		n = room;
	if (n) {
		sf_memcpy(b->p + b->len, s, n);
		b->len += n;
	}
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

static void put_base(struct sf_buf *b, uint64_t v, unsigned base)
{
	char d[SF_DIGITS_MAX];
	unsigned i = sf_digits(d, v, base);

	sf_putn(b, d + i, sizeof d - i);
}

void sf_putu(struct sf_buf *b, uint64_t v)
{
	put_base(b, v, 10);
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

uint64_t sf_getx(const char **s)
{
	uint64_t v = 0;

	for (;; (*s)++) {
		char c = **s;
		if (c >= '0' && c <= '9')
			v = v << 4 | (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v << 4 | (uint64_t)(c - 'a' + 10);
		else
			return v;
	}
}

void sf_putx(struct sf_buf *b, uint64_t v)
{
	put_base(b, v, 16);
}

/* glibc's strerror may load translations (syscalls through libc): the
 * engine's table says the same without. */
const char *sf_strerror(int e)
{
	const char *t = e > 0 ? sf_errno_text((unsigned)e) : NULL;

	return t ? t : "error";
}

int sf_write_all(int fd, const char *s, size_t n)
{
	while (n) {
		long r = sf_sys(SYS_write, fd, (long)s, (long)n, 0, 0, 0);
		if (r == -EINTR)
			continue;
		if (r < 0)
			return (int)r;
		if (r == 0)
			return -EIO;
		s += r;
		n -= (size_t)r;
	}
	return 0;
}

/* A message on standard error, then exit 125: a process asked to be
 * filtered that cannot be. */
void sf_fatal(const char *msg)
{
	sf_write_all(2, msg, sf_strlen(msg));
	sf_write_all(2, "\n", 1);
	sf_sys(SYS_exit_group, 125, 0, 0, 0, 0, 0);
	__builtin_unreachable();
}
