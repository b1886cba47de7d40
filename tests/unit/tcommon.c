#include <ctype.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "systab.h"
#include "tcommon.h"
#include "tsupport.h"

/* An input a front end must refuse, and where its error must point. */
struct error_case {
	const char *text;
	unsigned line, col;
	const char *message; /* a part of the error */
};

/* Fails the test unless read refuses every case with -EINVAL and an
 * error text that starts "source:LINE:COL: error: " and holds the case's
 * message; prints each case that is not so refused. */
static void refused_at(const struct error_case *cases, size_t n, const char *source,
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

/* Decodes the C escapes of s in place (the result is no longer). */
static char *unescape(char *s, const char *path, unsigned line)
{
	static const char plain[] = "nrt\\", meant[] = "\n\r\t\\";
	char *r = s, *w = s;

	while (*r) {
		const char *e;

		if (*r != '\\') {
			*w++ = *r++;
		} else if (r[1] == 'x' && isxdigit((unsigned char)r[2]) &&
			   isxdigit((unsigned char)r[3])) {
			char hex[3] = { r[2], r[3], 0 };

			*w++ = (char)strtoul(hex, NULL, 16);
			r += 4;
		} else if (r[1] && (e = strchr(plain, r[1]))) {
			*w++ = meant[e - plain];
			r += 2;
		} else {
			fail_msg("%s:%u: unknown escape", path, line);
		}
	}
	*w = '\0';
	return s;
}

void t_refused_in(const char *path, const char *source, t_reader *read)
{
	char *text = t_slurp(path, NULL), *at, *next;
	struct error_case *cases;
	size_t n = 0, cap = 16;
	unsigned line = 0;

	if (!text)
		fail_msg("cannot read %s", path);
	cases = malloc(cap * sizeof(*cases));
	assert_non_null(cases);
	for (at = text; *at; at = next) {
		char *input, *message;

		line++;
		next = at + strcspn(at, "\n");
		if (*next)
			*next++ = '\0';
		if (!*at || *at == '#')
			continue;
		input = strchr(at, '\t');
		message = input ? strchr(input + 1, '\t') : NULL;
		if (!message)
			fail_msg("%s:%u: expected LINE:COL<tab>INPUT<tab>MESSAGE", path, line);
		*input++ = *message++ = '\0';
		if (sscanf(at, "%u:%u", &cases[n].line, &cases[n].col) != 2)
			fail_msg("%s:%u: expected LINE:COL", path, line);
		cases[n].text = unescape(input, path, line);
		cases[n].message = unescape(message, path, line);
		if (++n == cap) {
			cap *= 2;
			cases = realloc(cases, cap * sizeof(*cases));
			assert_non_null(cases);
		}
	}
	if (!n)
		fail_msg("%s: no cases", path);
	refused_at(cases, n, source, read);
	free(cases);
	free(text);
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

static unsigned outcome_named(const char *s, size_t n)
{
	static const struct {
		const char *name;
		unsigned action;
	} named[] = {
		{ "run", SF_ACTION_RUN },
		{ "kill", SF_ACTION_KILL },
		{ "trap", SF_ACTION_TRAP },
		{ "log", SF_ACTION_LOG },
	};
	unsigned i;

	if (isdigit((unsigned char)*s))
		return (unsigned)strtoul(s, NULL, 0);
	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (strlen(named[i].name) == n && !memcmp(named[i].name, s, n))
			return named[i].action;
	for (i = 1; i <= SF_ERRNO_MAX; i++) {
		const char *e = strerrorname_np((int)i);

		if (e && strlen(e) == n && !memcmp(e, s, n))
			return i;
	}
	fail_msg("unknown outcome '%.*s'", (int)n, s);
	return 0;
}

static long syscall_named(const char *s, size_t n)
{
	const struct sf_syscall *sc;

	if (isdigit((unsigned char)*s) || *s == '-')
		return strtol(s, NULL, 0);
	sc = sf_syscall_lookup(s, n);
	if (!sc)
		fail_msg("unknown syscall '%.*s'", (int)n, s);
	return sc->nr;
}

void t_expect_outcomes(const struct sf_policy *p, const char *calls)
{
	const char *c = calls;
	unsigned bad = 0;

	for (;;) {
		const char *call;
		uint64_t a[4] = { 0 };
		unsigned na = 0, want, got;
		size_t n;
		long nr;

		c += strspn(c, " ;\n");
		if (!*c)
			break;
		call = c;
		n = strcspn(c, "(");
		if (!c[n])
			fail_msg("expected '(' after the syscall in '%s'", call);
		nr = syscall_named(c, n);
		for (c += n + 1; *c != ')'; c += strspn(c, " ,")) {
			char *end;

			if (na == 4)
				fail_msg("more than four arguments in '%s'", call);
			a[na++] = strtoull(c, &end, 0);
			if (end == c)
				fail_msg("expected a number or ')' at '%s'", c);
			c = end;
		}
		c += 1 + strspn(c + 1, " ");
		n = strcspn(c, "; \n");
		want = outcome_named(c, n);
		c += n;
		got = t_action(p, nr, a[0], a[1], a[2], a[3]);
		if (got != want) {
			print_error("%.*s: got %#x, want %#x\n", (int)(c - call), call, got, want);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}
