#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tcommon.h"
#include "tsupport.h"

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

static int policy_read(struct sf_policy *p, const struct sf_error *err)
{
	sf_policy_free(p);
	return p ? 0 : err->code;
}

int t_read_minijail(const char *text, struct sf_error *err)
{
	return policy_read(t_parse_syntax(SF_SYNTAX_MINIJAIL, "t.policy", text, err), err);
}

int t_read_oci(const char *text, struct sf_error *err)
{
	return policy_read(t_oci("6.1.0", text, err), err);
}

void t_glob(const char *const *patterns, size_t n, glob_t *files)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (glob(patterns[i], i ? GLOB_APPEND : 0, NULL, files) != 0)
			fail_msg("no file matches %s", patterns[i]);
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
