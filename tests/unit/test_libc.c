/* The library's own string functions and vsnprintf (preload/base/libc.c)
 * against glibc's: same results, same output, same return values, for
 * every format filter/ uses and the rest of what libc.c claims. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define SF_LIBC_NAME(n) sf_test_##n
#include "../../preload/base/libc.c"

static int sign(int x)
{
	return (x > 0) - (x < 0);
}

static void test_strings(void **state)
{
	static const char *const w[] = { "", "a", "ab", "abc", "abd", "b", "\xff", "a\xff" };
	unsigned i, j;
	size_t n;
	char a[64], b[64];

	(void)state;
	for (i = 0; i < sizeof w / sizeof w[0]; i++) {
		assert_int_equal(sf_test_strlen(w[i]), strlen(w[i]));
		for (j = 0; j < sizeof w / sizeof w[0]; j++) {
			assert_int_equal(sign(sf_test_strcmp(w[i], w[j])), sign(strcmp(w[i], w[j])));
			for (n = 0; n < 4; n++)
				assert_int_equal(sign(sf_test_strncmp(w[i], w[j], n)),
						 sign(strncmp(w[i], w[j], n)));
			assert_int_equal(sign(sf_test_memcmp(w[i], w[j], 1)),
					 sign(memcmp(w[i], w[j], 1)));
		}
	}
	for (i = 0; i < sizeof w / sizeof w[0]; i++) {
		static const int cs[] = { 'a', 'b', 'd', '\xff', 0, 'z' };
		unsigned k;
		for (k = 0; k < sizeof cs / sizeof cs[0]; k++) {
			size_t len = strlen(w[i]) + 1;
			assert_ptr_equal(sf_test_strchr(w[i], cs[k]), strchr(w[i], cs[k]));
			assert_ptr_equal(sf_test_memchr(w[i], cs[k], len), memchr(w[i], cs[k], len));
			assert_ptr_equal(sf_test_memchr(w[i], cs[k], len - 1),
					 memchr(w[i], cs[k], len - 1));
		}
	}
	for (i = 0; i < sizeof a; i++)
		a[i] = (char)i;
	sf_test_memcpy(b, a, sizeof a);
	assert_memory_equal(a, b, sizeof a);
	sf_test_memset(b, 0x5a, 10);
	for (i = 0; i < 10; i++)
		assert_int_equal((unsigned char)b[i], 0x5a);
	assert_int_equal(b[10], 10);
	/* Overlapping moves, both ways. */
	memcpy(b, a, sizeof a);
	sf_test_memmove(b + 3, b, 20);
	memmove(a + 3, a, 20);
	assert_memory_equal(a, b, sizeof a);
	sf_test_memmove(b, b + 5, 20);
	memmove(a, a + 5, 20);
	assert_memory_equal(a, b, sizeof a);
}

/* Formats each case with both and compares text and return value, with
 * room to spare and with a buffer too small. */
#define SAME(...)                                                                   \
	do {                                                                        \
		char x_[256], y_[256], xs_[5], ys_[5];                              \
		int rx_ = sf_test_snprintf(x_, sizeof x_, __VA_ARGS__);             \
		int ry_ = snprintf(y_, sizeof y_, __VA_ARGS__);                     \
		assert_string_equal(x_, y_);                                        \
		assert_int_equal(rx_, ry_);                                         \
		rx_ = sf_test_snprintf(xs_, sizeof xs_, __VA_ARGS__);               \
		ry_ = snprintf(ys_, sizeof ys_, __VA_ARGS__);                       \
		assert_string_equal(xs_, ys_);                                      \
		assert_int_equal(rx_, ry_);                                         \
	} while (0)

#pragma GCC diagnostic ignored "-Wformat-truncation"
#pragma GCC diagnostic ignored "-Wformat-zero-length"

static void test_formats_used(void **state)
{
	(void)state;
	/* What filter/ writes. */
	SAME("%u", 42u);
	SAME("%*u | %s", 5, 17u, "...");
	SAME("%*s | %s", 4, "", "   ");
	SAME("%s:%u:%u: error: ", "policy.conf", 3u, 10u);
	SAME("%s: error: ", "SECFILTER_POLICY");
	SAME("sys_%s is not in the allowed set", "read");
	SAME("arg0..arg%u", 5u);
	SAME("%d", -7);
	SAME("%zu", (size_t)123456789);
	SAME("");
	SAME("no conversion at all");
}

static void test_formats_more(void **state)
{
	static const long long ints[] = { 0, 1, -1, 9, 10, 255, -255, 65535, INT32_MAX,
					  INT32_MIN, INT64_MAX, INT64_MIN, 0x7fffabcdLL };
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof ints / sizeof ints[0]; i++) {
		long long v = ints[i];
		SAME("%d|%i|%u|%x|%X|%o", (int)v, (int)v, (unsigned)v, (unsigned)v, (unsigned)v,
		     (unsigned)v);
		SAME("%lld|%llu|%llx|%ld|%lu|%lx", v, (unsigned long long)v, (unsigned long long)v,
		     (long)v, (unsigned long)v, (unsigned long)v);
		SAME("%hd|%hu|%hhd|%hhu|%hx", (short)v, (unsigned short)v, (signed char)v,
		     (unsigned char)v, (unsigned short)v);
		SAME("%jd|%ju|%td|%zx", (intmax_t)v, (uintmax_t)v, (ptrdiff_t)v, (size_t)v);
		SAME("[%8d][%-8d][%08d][%+d][% d][%.3d][%8.3d][%-+8.3d]", (int)v, (int)v, (int)v,
		     (int)v, (int)v, (int)v, (int)v, (int)v);
		SAME("[%#x][%#o][%#X][%#08x][%.0d][%.0u][%#.0o]", (unsigned)v, (unsigned)v,
		     (unsigned)v, (unsigned)v, (int)v, (unsigned)v, (unsigned)v);
		SAME("[%*d][%-*d][%.*d][%*.*u]", 6, (int)v, 6, (int)v, 4, (int)v, 9, 5, (unsigned)v);
	}
	SAME("[%s][%10s][%-10s][%.2s][%*.*s][%c][%3c][%-3c][%%]", "abc", "abc", "abc", "abc", 6, 1,
	     "xyz", 'q', 'r', 's');
	SAME("[%p][%20p][%-20p]", (void *)0x1234, (void *)&i, (void *)&i);
	SAME("[%p]", (void *)NULL);
	SAME("[%*s]", -5, "ab");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_formats_used),
		cmocka_unit_test(test_formats_more),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
