/* The strict JSON reader (filter/json.h): values and where they are, and
 * an error with file:line:col for each way a text is not JSON. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "json.h"
#include "tcommon.h"

struct doc {
	struct sf_ast ast;
	struct sf_json_doc d;
	struct sf_error err;
	int rc;
};

static void parse(struct doc *t, const char *text, size_t len)
{
	uint32_t src;

	sf_ast_init(&t->ast);
	assert_int_equal(sf_ast_src(&t->ast, "p.json", text, len, &src), 0);
	t->rc = sf_json_parse(&t->d, &t->ast, src, &t->err);
}

static void done(struct doc *t)
{
	sf_json_free(&t->d);
	sf_ast_free(&t->ast);
}

static const struct sf_json *member(const struct doc *t, const struct sf_json *obj,
				    const char *key)
{
	uint32_t c;

	for (c = obj->first; c != SF_J_NONE; c = sf_json_at(&t->d, c)->next)
		if (strcmp(sf_json_at(&t->d, c)->key, key) == 0)
			return sf_json_at(&t->d, c);
	return NULL;
}

static void values_and_places(void **state)
{
	static const char text[] =
		"{\n"
		"  \"s\": \"a\\\"b\\\\c\\/\\n\\u00e9\\ud83d\\ude00\\u0000z\",\n"
		"  \"n\": [0, -1, 3.25, 1e-3, 18446744073709551615],\n"
		"  \"t\": true, \"f\": false, \"z\": null, \"o\": {}, \"a\": [],\n"
		"  \"u\": \"caf\xc3\xa9\"\n"
		"}\n";
	struct doc t;
	const struct sf_json *root, *s, *n, *e;
	uint64_t v;

	(void)state;
	parse(&t, text, sizeof(text) - 1);
	assert_int_equal(t.rc, 0);
	root = sf_json_at(&t.d, 0);
	assert_int_equal(root->kind, SF_J_OBJ);
	assert_int_equal(root->count, 8);
	s = member(&t, root, "s");
	assert_int_equal(s->kind, SF_J_STR);
	/* escapes decoded: the surrogate pair is U+1F600, \u0000 a NUL */
	assert_int_equal(s->slen, 15);
	assert_memory_equal(s->str, "a\"b\\c/\n\xc3\xa9\xf0\x9f\x98\x80\0z", 15);
	assert_int_equal(s->line, 2);
	assert_int_equal(s->col, 8);
	assert_int_equal(s->key_line, 2);
	assert_int_equal(s->key_col, 3);
	n = member(&t, root, "n");
	assert_int_equal(n->count, 5);
	e = sf_json_at(&t.d, n->first);
	assert_int_equal(sf_json_uint(e, UINT64_MAX, &v), 0);
	assert_int_equal(v, 0);
	e = sf_json_at(&t.d, e->next);
	assert_int_equal(sf_json_uint(e, UINT64_MAX, &v), -1); /* -1: not unsigned */
	e = sf_json_at(&t.d, e->next);
	assert_int_equal(sf_json_uint(e, UINT64_MAX, &v), -1); /* 3.25 */
	e = sf_json_at(&t.d, e->next);
	assert_int_equal(sf_json_uint(e, UINT64_MAX, &v), -1); /* 1e-3 */
	e = sf_json_at(&t.d, e->next);
	assert_int_equal(sf_json_uint(e, UINT64_MAX, &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(sf_json_uint(e, 255, &v), -1);
	assert_int_equal(member(&t, root, "t")->kind, SF_J_TRUE);
	assert_int_equal(member(&t, root, "f")->kind, SF_J_FALSE);
	assert_int_equal(member(&t, root, "z")->kind, SF_J_NULL);
	assert_int_equal(member(&t, root, "o")->count, 0);
	assert_int_equal(member(&t, root, "a")->first, SF_J_NONE);
	assert_string_equal(member(&t, root, "u")->str, "caf\xc3\xa9");
	done(&t);
}

static void overflowing_number(void **state)
{
	struct doc t;
	uint64_t v;

	(void)state;
	parse(&t, "18446744073709551616", 20);
	assert_int_equal(t.rc, 0);
	assert_int_equal(sf_json_uint(sf_json_at(&t.d, 0), UINT64_MAX, &v), -1);
	done(&t);
}

static int json_read(const char *text, struct sf_error *err)
{
	struct doc t;
	int rc;

	parse(&t, text, strlen(text));
	rc = t.rc;
	*err = t.err;
	done(&t);
	return rc;
}

static void errors_at_their_place(void **state)
{
	(void)state;
	t_refused_in("tests/unit/cases/json-errors.tests", "p.json", json_read);
}

static void nul_bytes_and_depth(void **state)
{
	static char deep[200];
	struct doc t;
	unsigned i;

	(void)state;
	parse(&t, "[\"a\0\"]", 6);
	assert_int_equal(t.rc, -EINVAL);
	assert_non_null(strstr(t.err.text, "p.json:1:4: error: NUL byte"));
	done(&t);
	for (i = 0; i < 66; i++)
		deep[i] = '[';
	parse(&t, deep, 66); /* the 66th is at depth 65 */
	assert_int_equal(t.rc, -EINVAL);
	assert_non_null(strstr(t.err.text, "nested deeper than 64 levels"));
	done(&t);
	for (i = 0; i < 65; i++)
		deep[65 + i] = ']';
	parse(&t, deep + 1, 130 - 2); /* depths 0 to 64 */
	assert_int_equal(t.rc, 0);
	done(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(values_and_places),
		cmocka_unit_test(overflowing_number),
		cmocka_unit_test(errors_at_their_place),
		cmocka_unit_test(nul_bytes_and_depth),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
