/* The few C library functions the library's own code calls (the compiler
 * for copies, filter/ for its strings and messages), defined here, hidden.
 *
 * A call to libc's memcpy or snprintf goes through the PLT to whatever
 * the global scope names first, and the program comes first: an
 * executable or another preload that exports memcpy would run its code
 * inside our constructor before anything is armed, or inside the reporter
 * while dispatch is off.  Defined in the library and hidden, these calls
 * bind at link time and never leave it (`nm -D --undefined-only` lists
 * what is still imported, and why, in the README).
 *
 * vsnprintf covers the conversions C99 defines for integers, characters,
 * strings and pointers, with flags, width and precision; test_libc
 * compares it with glibc's.  Nothing here allocates or makes a call. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifndef SF_LIBC_NAME /* test_libc renames them */
#define SF_LIBC_NAME(n) n
#define SF_LIBC_OWN_NAMES /* and then has no use for the library's names */
#endif
/* A loop that copies must not become a call to memcpy, i.e. to itself. */
#define SF_LIBC_FN __attribute__((optimize("no-tree-loop-distribute-patterns")))

/* memcpy and memset a word at a time: the compiler's copies and clears
 * of the policy's structures (several KiB at every filtered start) come
 * here.  Unaligned words are fine on x86-64. */
typedef uint64_t __attribute__((may_alias, aligned(1))) sf_libc_word;

SF_LIBC_FN void *SF_LIBC_NAME(memcpy)(void *restrict d, const void *restrict s, size_t n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;

	for (; n >= 8; n -= 8, dp += 8, sp += 8)
		*(sf_libc_word *)dp = *(const sf_libc_word *)sp;
	while (n--)
		*dp++ = *sp++;
	return d;
}

SF_LIBC_FN void *SF_LIBC_NAME(memmove)(void *d, const void *s, size_t n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;

	if (dp < sp || dp >= sp + n) {
		while (n--)
			*dp++ = *sp++;
	} else {
		while (n--)
			dp[n] = sp[n];
	}
	return d;
}

SF_LIBC_FN void *SF_LIBC_NAME(memset)(void *d, int c, size_t n)
{
	unsigned char *dp = d;
	uint64_t w = 0x0101010101010101ull * (unsigned char)c;

	for (; n >= 8; n -= 8, dp += 8)
		*(sf_libc_word *)dp = w;
	while (n--)
		*dp++ = (unsigned char)c;
	return d;
}

#ifdef SF_LIBC_OWN_NAMES
/* The library's own names for the two (base.h): one copy of each. */
void *sf_memcpy(void *d, const void *s, size_t n) __attribute__((alias("memcpy")));
void *sf_memset(void *d, int c, size_t n) __attribute__((alias("memset")));
#endif

SF_LIBC_FN int SF_LIBC_NAME(memcmp)(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

SF_LIBC_FN void *SF_LIBC_NAME(memchr)(const void *p, int c, size_t n)
{
	const unsigned char *s = p;

	for (; n; n--, s++)
		if (*s == (unsigned char)c)
			return (void *)s;
	return NULL;
}

SF_LIBC_FN char *SF_LIBC_NAME(strchr)(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}

SF_LIBC_FN size_t SF_LIBC_NAME(strlen)(const char *s)
{
	const char *p = s;

	while (*p)
		p++;
	return (size_t)(p - s);
}

SF_LIBC_FN int SF_LIBC_NAME(strncmp)(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (!*a)
			return 0;
	}
	return 0;
}

SF_LIBC_FN int SF_LIBC_NAME(strcmp)(const char *a, const char *b)
{
	return SF_LIBC_NAME(strncmp)(a, b, (size_t)-1);
}

/* ---- vsnprintf ---- */

struct out {
	char *p;
	size_t cap, len; /* len counts what would have been written */
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->cap)
		o->p[o->len] = c;
	o->len++;
}

static void pad(struct out *o, char c, int n)
{
	while (n-- > 0)
		put(o, c);
}

enum { F_LEFT = 1, F_ZERO = 2, F_PLUS = 4, F_SPACE = 8, F_ALT = 16 };

/* One integer conversion: sign or prefix, zeros for the precision (or
 * the 0 flag), the digits, padded to the width. */
static void put_int(struct out *o, uintmax_t v, int neg, unsigned base, int upper,
		    int flags, int width, int prec)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char buf[64];
	const char *prefix = "";
	int n = 0, plen, zeros, len;

	while (v) {
		buf[n++] = digits[v % base];
		v /= base;
	}
	if (prec < 0)
		prec = 1;
	else
		flags &= ~F_ZERO; /* a precision overrides the 0 flag */
	zeros = prec > n ? prec - n : 0;
	if (neg)
		prefix = "-";
	else if (flags & F_PLUS)
		prefix = "+";
	else if (flags & F_SPACE)
		prefix = " ";
	if ((flags & F_ALT) && base == 8 && zeros == 0 && (n == 0 || buf[n - 1] != '0'))
		zeros = 1;
	if ((flags & F_ALT) && base == 16 && n > 0)
		prefix = upper ? "0X" : "0x";
	plen = (int)SF_LIBC_NAME(strlen)(prefix);
	len = plen + zeros + n;
	if ((flags & F_ZERO) && !(flags & F_LEFT) && width > len) {
		zeros += width - len;
		len = width;
	}
	if (!(flags & F_LEFT))
		pad(o, ' ', width - len);
	while (*prefix)
		put(o, *prefix++);
	pad(o, '0', zeros);
	while (n)
		put(o, buf[--n]);
	if (flags & F_LEFT)
		pad(o, ' ', width - len);
}

static void put_str(struct out *o, const char *s, int flags, int width, int prec)
{
	int n = 0;

	if (!s)
		s = "(null)";
	while ((prec < 0 || n < prec) && s[n])
		n++;
	if (!(flags & F_LEFT))
		pad(o, ' ', width - n);
	for (int i = 0; i < n; i++)
		put(o, s[i]);
	if (flags & F_LEFT)
		pad(o, ' ', width - n);
}

SF_LIBC_FN int SF_LIBC_NAME(vsnprintf)(char *restrict buf, size_t cap, const char *restrict fmt,
				       va_list ap)
{
	struct out o = { buf, cap, 0 };
	va_list aq;

	va_copy(aq, ap);
	while (*fmt) {
		const char *start = fmt;
		int flags = 0, width = 0, prec = -1, len = 0, neg = 0;
		uintmax_t v;
		char conv;

		if (*fmt != '%') {
			put(&o, *fmt++);
			continue;
		}
		fmt++;
		for (;; fmt++) {
			if (*fmt == '-') flags |= F_LEFT;
			else if (*fmt == '0') flags |= F_ZERO;
			else if (*fmt == '+') flags |= F_PLUS;
			else if (*fmt == ' ') flags |= F_SPACE;
			else if (*fmt == '#') flags |= F_ALT;
			else break;
		}
		if (*fmt == '*') {
			width = va_arg(aq, int);
			if (width < 0) {
				flags |= F_LEFT;
				width = -width;
			}
			fmt++;
		} else {
			while (*fmt >= '0' && *fmt <= '9')
				width = width * 10 + (*fmt++ - '0');
		}
		if (*fmt == '.') {
			fmt++;
			prec = 0;
			if (*fmt == '*') {
				prec = va_arg(aq, int);
				fmt++;
			} else {
				while (*fmt >= '0' && *fmt <= '9')
					prec = prec * 10 + (*fmt++ - '0');
			}
		}
		/* len: 0 int, -1 short, -2 char, 1 long, 2 long long, 3 size_t,
		 * 4 intmax_t, 5 ptrdiff_t */
		if (*fmt == 'h') {
			len = -1;
			if (*++fmt == 'h') {
				len = -2;
				fmt++;
			}
		} else if (*fmt == 'l') {
			len = 1;
			if (*++fmt == 'l') {
				len = 2;
				fmt++;
			}
		} else if (*fmt == 'z' || *fmt == 'j' || *fmt == 't') {
			len = *fmt == 'z' ? 3 : *fmt == 'j' ? 4 : 5;
			fmt++;
		}
		conv = *fmt;
		if (conv)
			fmt++;
		switch (conv) {
		case 'd': case 'i': {
			intmax_t s;
			switch (len) {
			case -2: s = (signed char)va_arg(aq, int); break;
			case -1: s = (short)va_arg(aq, int); break;
			case 1: s = va_arg(aq, long); break;
			case 2: s = va_arg(aq, long long); break;
			case 3: s = (intmax_t)va_arg(aq, size_t); break;
			case 4: s = va_arg(aq, intmax_t); break;
			case 5: s = va_arg(aq, ptrdiff_t); break;
			default: s = va_arg(aq, int); break;
			}
			neg = s < 0;
			v = neg ? -(uintmax_t)s : (uintmax_t)s;
			put_int(&o, v, neg, 10, 0, flags, width, prec);
			break;
		}
		case 'u': case 'x': case 'X': case 'o':
			switch (len) {
			case -2: v = (unsigned char)va_arg(aq, unsigned); break;
			case -1: v = (unsigned short)va_arg(aq, unsigned); break;
			case 1: v = va_arg(aq, unsigned long); break;
			case 2: v = va_arg(aq, unsigned long long); break;
			case 3: v = va_arg(aq, size_t); break;
			case 4: v = va_arg(aq, uintmax_t); break;
			case 5: v = (uintmax_t)va_arg(aq, ptrdiff_t); break;
			default: v = va_arg(aq, unsigned); break;
			}
			put_int(&o, v, 0, conv == 'u' ? 10 : conv == 'o' ? 8 : 16, conv == 'X',
				flags & ~(F_PLUS | F_SPACE), width, prec);
			break;
		case 'p': {
			void *p = va_arg(aq, void *);
			if (p)
				put_int(&o, (uintptr_t)p, 0, 16, 0, flags | F_ALT, width, prec);
			else
				put_str(&o, "(nil)", flags, width, -1);
			break;
		}
		case 'c': {
			char c = (char)va_arg(aq, int);
			if (!(flags & F_LEFT))
				pad(&o, ' ', width - 1);
			put(&o, c);
			if (flags & F_LEFT)
				pad(&o, ' ', width - 1);
			break;
		}
		case 's':
			put_str(&o, va_arg(aq, const char *), flags, width, prec);
			break;
		case '%':
			put(&o, '%');
			break;
		default: /* not ours to guess: shown as written */
			while (start < fmt)
				put(&o, *start++);
			break;
		}
	}
	va_end(aq);
	if (cap)
		buf[o.len < cap ? o.len : cap - 1] = '\0';
	return (int)o.len;
}

SF_LIBC_FN int SF_LIBC_NAME(snprintf)(char *restrict buf, size_t cap, const char *restrict fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = SF_LIBC_NAME(vsnprintf)(buf, cap, fmt, ap);
	va_end(ap);
	return n;
}
