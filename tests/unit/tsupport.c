#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "eval.h"
#include "internal.h"
#include "tsupport.h"

struct sf_policy *t_parse(const struct sf_policy *cur, const char *text)
{
	struct sf_policy *p = NULL;
	struct sf_error err;
	int rc = sf_policy_apply(cur, "t.conf", text, strlen(text), &p, &err);

	if (rc)
		fail_msg("policy rejected (%d):\n%s\n%s", rc, text, err.text);
	return p;
}

struct sf_error t_parse_error(const struct sf_policy *cur, const char *text)
{
	struct sf_policy *p = NULL;
	struct sf_error err;
	int rc = sf_policy_apply(cur, "t.conf", text, strlen(text), &p, &err);

	if (!rc)
		fail_msg("policy accepted, expected an error:\n%s", text);
	assert_int_equal(rc, err.code);
	assert_null(p);
	return err;
}

struct sf_policy *t_parse_syntax(enum sf_syntax syntax, const char *name, const char *text,
				 struct sf_error *err)
{
	struct sf_policy *p = NULL;
	int rc = sf_policy_apply_syntax(NULL, name, SF_SRC_FILE, syntax, text, strlen(text), &p, err);

	if (rc) {
		assert_int_equal(rc, err->code);
		assert_null(p);
	}
	return p;
}

struct sf_policy *t_oci(const char *release, const char *text, struct sf_error *err)
{
	struct sf_policy *p = NULL;
	struct sf_ast ast;
	uint32_t src;
	int rc;

	memset(err, 0, sizeof(*err));
	sf_ast_init(&ast);
	assert_int_equal(sf_ast_src(&ast, "p.json", text, strlen(text), &src), 0);
	rc = sf_oci_parse(&ast, src, release, err);
	if (!rc)
		rc = sf_policy_apply_ast(NULL, &ast, &p, err);
	sf_ast_free(&ast);
	if (rc) {
		assert_int_equal(rc, err->code);
		assert_null(p);
	}
	return p;
}

const char *t_print(const struct sf_policy *p)
{
	static char buf[1 << 16];
	size_t n = sf_policy_print(p, buf, sizeof(buf));

	assert_true(n < sizeof(buf));
	return buf;
}

int t_decide(const struct sf_policy *p, long nr, uint64_t a0, uint64_t a1,
	     uint64_t a2, uint64_t a3)
{
	uint64_t args[6] = { a0, a1, a2, a3, 0, 0 };
	return sf_decide(p, (uint64_t)nr, args);
}

unsigned t_action(const struct sf_policy *p, long nr, uint64_t a0, uint64_t a1,
		  uint64_t a2, uint64_t a3)
{
	return sf_action(p, (uint64_t)nr, t_decide(p, nr, a0, a1, a2, a3));
}

uint64_t t_rnd(uint64_t *state)
{
	/* xorshift64*: deterministic across machines */
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545f4914f6cdd1dull;
}

/* A value that fits the argument's type, biased to the edges. */
static void random_value(char *buf, size_t cap, const struct sf_sysarg *arg, uint64_t *rng)
{
	static const char *const fixed[] = { "0", "1", "-1", "~0", "0644", "0x7fff",
					     "-32768", "65535" };
	static const char *const fixed32[] = { "0x7fffffff", "-2147483648", "0xffffffff",
					       "AT_FDCWD", "O_WRONLY|O_CREAT" };
	uint64_t r = t_rnd(rng);

	if (r % 3 == 0)
		snprintf(buf, cap, "%s", fixed[r % (sizeof(fixed) / sizeof(fixed[0]))]);
	else if (arg->type == SF_T_U16)
		snprintf(buf, cap, "%u", (unsigned)(r % 65536));
	else if (arg->type == SF_T_S32 || arg->type == SF_T_U32)
		snprintf(buf, cap, "%s", r % 3 == 1 ? fixed32[r % 5] : "0x89abcdef");
	else
		snprintf(buf, cap, "0x%llx", (unsigned long long)t_rnd(rng));
	if ((arg->type == SF_T_S32 || arg->type == SF_T_U32) && r % 3 == 2)
		snprintf(buf, cap, "%lld", (long long)(int32_t)t_rnd(rng));
}

static void random_expr(char *buf, size_t cap, size_t *n, const struct sf_syscall *sc,
			unsigned depth, uint64_t *rng)
{
	static const char *const ops[] = { "==", "!=", "<", "<=", ">", ">=", "&", "in" };
	uint64_t r = t_rnd(rng);

	if (depth == 0 || r % 3 == 0) {
		static const char *const casts[] = { "u16", "u32", "s32", "u64", "s64" };
		static const enum sf_type cast_types[] = { SF_T_U16, SF_T_U32, SF_T_S32,
							   SF_T_U64, SF_T_S64 };
		unsigned a = (unsigned)(t_rnd(rng) % (sc->nargs ? sc->nargs : SF_MAX_ARGS));
		unsigned c = (unsigned)(t_rnd(rng) % 5);
		char value[32], field[40];
		struct sf_sysarg arg = sc->nargs ? sc->args[a] : (struct sf_sysarg){ "arg0", SF_T_U64 };

		if (sc->nargs && r & 8)
			snprintf(field, sizeof field, "%s", sc->args[a].name);
		else
			snprintf(field, sizeof field, "arg%u", a);
		/* the register read as another type: casts, and any argN */
		if (!sc->nargs || r % 5 == 1) {
			char plain[24];
			memcpy(plain, field, sizeof plain - 1);
			plain[sizeof plain - 1] = '\0';
			snprintf(field, sizeof field, "%s(%s)", casts[c], plain);
			arg.type = (unsigned char)cast_types[c];
		}
		random_value(value, sizeof(value), &arg, rng);
		if (r % 7 == 3) {
			/* a set of one to three values */
			unsigned k, count = 1 + (unsigned)(t_rnd(rng) % 3);
			*n += (size_t)snprintf(buf + *n, cap - *n, "%s in {%s", field, value);
			for (k = 1; k < count; k++) {
				random_value(value, sizeof(value), &arg, rng);
				*n += (size_t)snprintf(buf + *n, cap - *n, ", %s", value);
			}
			*n += (size_t)snprintf(buf + *n, cap - *n, "}");
			return;
		}
		*n += (size_t)snprintf(buf + *n, cap - *n, "%s %s %s", field,
				       ops[t_rnd(rng) % 8], value);
	} else if (r % 3 == 1) {
		*n += (size_t)snprintf(buf + *n, cap - *n, "!(");
		random_expr(buf, cap, n, sc, depth - 1, rng);
		*n += (size_t)snprintf(buf + *n, cap - *n, ")");
	} else {
		*n += (size_t)snprintf(buf + *n, cap - *n, "(");
		random_expr(buf, cap, n, sc, depth - 1, rng);
		*n += (size_t)snprintf(buf + *n, cap - *n, r & 4 ? " || " : " && ");
		random_expr(buf, cap, n, sc, depth - 1, rng);
		*n += (size_t)snprintf(buf + *n, cap - *n, ")");
	}
}

/* An errno, by name or number. */
static const char *random_errno(uint64_t *rng)
{
	static const char *const e[] = { "EPERM", "ENOSYS", "EACCES", "1", "4095", "EAGAIN",
					 "EWOULDBLOCK", "200" };
	return e[t_rnd(rng) % (sizeof(e) / sizeof(e[0]))];
}

static const char *random_action(uint64_t *rng)
{
	static char buf[32];
	static const char *const a[] = { "kill", "log", "trap" };
	unsigned r = (unsigned)(t_rnd(rng) % 5);

	if (r < 3)
		return a[r];
	snprintf(buf, sizeof buf, "return %s", random_errno(rng));
	return buf;
}

void t_random_policy(char *text, size_t cap, uint64_t *rng, unsigned rules)
{
	size_t n = 0;
	unsigned rule;

	/* Named, so that `*` or a group may allow it while other rules
	 * restrict what a ring could do (filter/uring.h). */
	n += (size_t)snprintf(text, cap, "io_uring_setup: 0\n");
	for (rule = 0; rule < rules && n + 512 < cap; rule++) {
		const struct sf_syscall *sc = &sf_syscalls[t_rnd(rng) % sf_syscall_count];
		unsigned r = (unsigned)(t_rnd(rng) % 40);

		if (r == 0) {
			n += (size_t)snprintf(text + n, cap - n, "default: %s\n", random_action(rng));
			continue;
		}
		if (r == 1 || r == 2) {
			const char *what = r == 1 ? "*" : sf_groups[t_rnd(rng) % sf_group_count].name;
			unsigned k = (unsigned)(t_rnd(rng) % 3);
			if (k == 2)
				n += (size_t)snprintf(text + n, cap - n, "%s: %s\n", what,
						      random_action(rng));
			else
				n += (size_t)snprintf(text + n, cap - n, "%s: %u\n", what, k);
			continue;
		}
		n += (size_t)snprintf(text + n, cap - n, "sys_%s: ", sc->name);
		if (r < 7)
			n += (size_t)snprintf(text + n, cap - n, "%s", random_action(rng));
		else if (t_rnd(rng) % 4 == 0)
			n += (size_t)snprintf(text + n, cap - n, "%d", (int)(t_rnd(rng) % 2));
		else {
			random_expr(text, cap - 256, &n, sc, 4, rng);
			if (t_rnd(rng) % 3 == 0)
				n += (size_t)snprintf(text + n, cap - n, " else %s", random_action(rng));
		}
		n += (size_t)snprintf(text + n, cap - n, "\n");
	}
}
