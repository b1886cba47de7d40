#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tcommon.h"

void t_refused_at(const struct t_error_case *cases, size_t n, const char *source,
		  t_reader *read)
{
	unsigned bad = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		struct sf_error err = { 0 };
		char head[256];
		int rc = read(cases[i].text, &err);

		snprintf(head, sizeof(head), "%s:%u:%u: error: ", source, cases[i].line,
			 cases[i].col);
		if (rc != -EINVAL || strncmp(err.text, head, strlen(head)) != 0 ||
		    !strstr(err.text, cases[i].message)) {
			print_error("case %zu: %s\nwant %s...%s\ngot (%d):\n%s\n", i, cases[i].text,
				    head, cases[i].message, rc, rc ? err.text : "(accepted)");
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

char *t_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)n;
	return buf;
}
