/* learn's fs. rules (tools/learnfs.c): from the paths a run used to the
 * rules it proposes, row by row (cases/learnfs-rows.tests). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "landlock.h"
#include "learnfs.h"
#include "tcommon.h"
#include "tsupport.h"

/* "read_file+execute" or a shorthand ("read") -> the rights. */
static uint64_t rights_of(const char *names, const char *where)
{
	uint64_t access = 0;
	char *copy = strdup(names), *save = NULL, *name;
	unsigned i;

	for (name = strtok_r(copy, "+", &save); name; name = strtok_r(NULL, "+", &save)) {
		for (i = 0; i < sf_ll_right_count; i++)
			if (!sf_ll_rights[i].net && strcmp(sf_ll_rights[i].name + 3, name) == 0)
				break;
		if (i == sf_ll_right_count)
			fail_msg("%s: unknown right '%s'", where, name);
		access |= sf_ll_rights[i].access;
	}
	free(copy);
	return access;
}

/* A row: the uses, one a line ("RIGHTS PATH", then " made" or " rule" for
 * their flags; RIGHTS "-" for none), and the rules in canonical form. */
static void row(char **fields, void *ctx, const char *where)
{
	struct fs_uses uses = { 0 }, rules = { 0 };
	char *save = NULL, *line, *text, got[4096];
	struct sf_policy *p;
	size_t n;

	(void)ctx;
	for (line = strtok_r(fields[0], "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' '), *end;
		unsigned flags = 0;
		if (!sp)
			fail_msg("%s: expected RIGHTS PATH [made|rule]: '%s'", where, line);
		*sp = '\0';
		end = sp + 1 + strlen(sp + 1);
		if (end - sp > 5 && strcmp(end - 5, " made") == 0)
			flags = FSU_MADE, end[-5] = '\0';
		else if (end - sp > 5 && strcmp(end - 5, " rule") == 0)
			flags = FSU_RULE, end[-5] = '\0';
		assert_int_equal(fs_uses_add(&uses, sp + 1,
					     strcmp(line, "-") ? rights_of(line, where) : 0, flags), 0);
	}
	assert_int_equal(fs_rules_of(&uses, &rules), 0);
	assert_non_null(text = fs_rules_text(&rules));
	p = t_parse(NULL, *text ? text : "read: 1");
	n = sf_landlock_print(p->landlock, got, sizeof got);
	if (n && got[n - 1] == '\n')
		got[n - 1] = '\0';
	if (strcmp(got, fields[1]) != 0)
		fail_msg("%s: got\n%s\nexpected\n%s", where, got, fields[1]);
	sf_policy_free(p);
	free(text);
	fs_uses_free(&uses);
	fs_uses_free(&rules);
}

static void rows_give_their_rules(void **state)
{
	(void)state;
	t_each_case("tests/unit/cases/learnfs-rows.tests", 2, row, NULL);
}

/* Many paths: the index grows and every one is found again. */
static void many_paths_are_kept_apart(void **state)
{
	struct fs_uses u = { 0 };
	char path[64];
	unsigned i;

	(void)state;
	for (i = 0; i < 5000; i++) {
		snprintf(path, sizeof path, "/d%u/f%u", i % 7, i);
		assert_int_equal(fs_uses_add(&u, path, SF_FS_READ_FILE, 0), 0);
		assert_int_equal(fs_uses_add(&u, path, SF_FS_WRITE_FILE, FSU_MADE), 0);
	}
	assert_int_equal(u.n, 10000);
	for (i = 0; i < 5000; i++) {
		snprintf(path, sizeof path, "/d%u/f%u", i % 7, i);
		assert_int_equal(fs_uses_get(&u, path, 0), SF_FS_READ_FILE);
		assert_int_equal(fs_uses_get(&u, path, FSU_MADE), SF_FS_WRITE_FILE);
	}
	assert_int_equal(fs_uses_get(&u, "/d0", 0), 0);
	fs_uses_free(&u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rows_give_their_rules),
		cmocka_unit_test(many_paths_are_kept_apart),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
