#include <ctype.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "eval.h"
#include "systab.h"
#include "tcommon.h"
#include "tsupport.h"

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

void t_glob(const char *const *patterns, size_t n, glob_t *files)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (glob(patterns[i], i ? GLOB_APPEND : 0, NULL, files) != 0)
			fail_msg("no file matches %s", patterns[i]);
}

/* Decodes the C escapes of s in place (the result is no longer). */
static char *unescape(char *s, const char *where)
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
			fail_msg("%s: unknown escape", where);
		}
	}
	*w = '\0';
	return s;
}

unsigned t_each_case(const char *path, unsigned nfields, t_case_fn *fn, void *ctx)
{
	char *text = t_slurp(path, NULL), *at, *next;
	unsigned line = 0, cases = 0;

	if (!text)
		fail_msg("cannot read %s", path);
	for (at = text; *at; at = next) {
		char *fields[8], where[256];
		unsigned n = 0;

		line++;
		next = at + strcspn(at, "\n");
		if (*next)
			*next++ = '\0';
		if (!*at || *at == '#')
			continue;
		snprintf(where, sizeof(where), "%s:%u", path, line);
		for (fields[n++] = at; n < 8 && (at = strchr(at, '\t')); fields[n++] = at)
			*at++ = '\0';
		if (n != nfields)
			fail_msg("%s: %u fields, expected %u", where, n, nfields);
		while (n--)
			unescape(fields[n], where);
		fn(fields, ctx, where);
		cases++;
	}
	free(text);
	if (!cases)
		fail_msg("%s: no cases", path);
	return cases;
}

struct refusal {
	const char *source;
	t_reader *read;
	unsigned bad;
};

/* fields: LINE:COL, the input, a part of the message. */
static void check_refused(char **fields, void *ctx, const char *where)
{
	struct refusal *r = ctx;
	struct sf_error err = { 0 };
	unsigned line, col;
	char head[256];
	int rc;

	if (sscanf(fields[0], "%u:%u", &line, &col) != 2)
		fail_msg("%s: expected LINE:COL", where);
	rc = r->read(fields[1], &err);
	snprintf(head, sizeof(head), "%s:%u:%u: error: ", r->source, line, col);
	if (rc != -EINVAL || strncmp(err.text, head, strlen(head)) != 0 ||
	    !strstr(err.text, fields[2])) {
		print_error("%s: %s\nwant %s...%s\ngot (%d):\n%s\n", where, fields[1], head,
			    fields[2], rc, rc ? err.text : "(accepted)");
		r->bad++;
	}
}

void t_refused_in(const char *path, const char *source, t_reader *read)
{
	struct refusal r = { source, read, 0 };

	t_each_case(path, 3, check_refused, &r);
	assert_int_equal(r.bad, 0);
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

const char *t_read_call(const char *s, long *nr, uint64_t args[6])
{
	const char *call = s;
	size_t n = strcspn(s, "(");
	unsigned na = 0;

	if (!s[n])
		fail_msg("expected '(' after the syscall in '%s'", call);
	*nr = syscall_named(s, n);
	memset(args, 0, 6 * sizeof(*args));
	for (s += n + 1; *s != ')'; s += strspn(s, " ,")) {
		char *end;

		if (na == 6)
			fail_msg("more than six arguments in '%s'", call);
		args[na++] = strtoull(s, &end, 0);
		if (end == s)
			fail_msg("expected a number or ')' at '%s'", s);
		s = end;
	}
	return s + 1 + strspn(s + 1, " ");
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

void t_expect_outcomes(const struct sf_policy *p, const char *calls)
{
	const char *c = calls;
	unsigned bad = 0;

	for (;;) {
		const char *call;
		uint64_t args[6];
		unsigned want, got;
		size_t n;
		long nr;

		c += strspn(c, " ;\n");
		if (!*c)
			break;
		call = c;
		c = t_read_call(c, &nr, args);
		n = strcspn(c, "; \n");
		want = outcome_named(c, n);
		c += n;
		got = sf_action(p, (uint64_t)nr, sf_decide(p, (uint64_t)nr, args));
		if (got != want) {
			print_error("%.*s: got %#x, want %#x\n", (int)(c - call), call, got, want);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}
