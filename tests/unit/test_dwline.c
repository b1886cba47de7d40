/* file:line from the DWARF line table, read in place: the test finds the
 * line of a call in its own binary (built with -g), and fails safe on a
 * file without debug information and on a truncated one. */
#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "dwline.h"

static unsigned char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	long len;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)len);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	*n = (size_t)len;
	return buf;
}

__attribute__((noinline)) static void *return_address(void)
{
	return __builtin_return_address(0);
}

static void call_site_line(void **state)
{
	void *ra = return_address(); int line = __LINE__;
	unsigned char id[64];
	char buf[512], want[64];
	struct sf_out o = { buf, sizeof buf, 0 };
	Dl_info info;
	size_t n;
	unsigned char *im = slurp("/proc/self/exe", &n);

	(void)state;
	assert_true(dladdr(ra, &info) != 0);
	/* the call's own address: the return address is past it */
	assert_int_equal(sf_elf_line(im, n, (uint64_t)((uintptr_t)ra - 1 - (uintptr_t)info.dli_fbase),
				     &o), 0);
	sf_out_end(&o);
	print_message("%s\n", buf);
	snprintf(want, sizeof want, "test_dwline.c:%d", line);
	assert_true(strlen(buf) >= strlen(want));
	assert_string_equal(buf + strlen(buf) - strlen(want), want);
	assert_non_null(strstr(buf, "tests/unit/"));
	/* a build id, 20 bytes with GNU ld's default */
	assert_true(sf_elf_build_id(im, n, id, sizeof id) >= 8);
	/* an address in no sequence */
	o.len = 0;
	assert_int_equal(sf_elf_line(im, n, 1, &o), -1);
	/* every truncation of the file fails or answers, never reads past */
	for (size_t cut = 0; cut < n; cut += n / 97 + 1) {
		unsigned char *part = malloc(cut ? cut : 1);
		memcpy(part, im, cut);
		o.len = 0;
		sf_elf_line(part, cut, (uint64_t)((uintptr_t)ra - 1 - (uintptr_t)info.dli_fbase), &o);
		free(part);
	}
	free(im);
}

static void no_debug_information(void **state)
{
	char buf[64], path[64], cmd[160];
	struct sf_out o = { buf, sizeof buf, 0 };
	size_t n;
	unsigned char *im;

	(void)state;
	snprintf(path, sizeof path, "/tmp/secfilter-nodebug-%d", (int)getpid());
	snprintf(cmd, sizeof cmd, "cp /proc/self/exe %s && strip -g %s", path, path);
	if (system(cmd) != 0)
		skip();
	im = slurp(path, &n);
	assert_int_equal(sf_elf_line(im, n, 0x1000, &o), -1);
	free(im);
	remove(path);
	assert_int_equal(sf_elf_line((const unsigned char *)"\177ELF", 4, 0, &o), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(call_site_line),
		cmocka_unit_test(no_debug_information),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
