/* Syscall names as a user types them, and the closest one when a name is
 * unknown. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "secfilter.h"

const struct sf_syscall *syscall_by_word(const char *word)
{
	char *end;
	long nr;

	if (isdigit((unsigned char)word[0])) {
		nr = strtol(word, &end, 0);
		return *end ? NULL : sf_syscall_by_nr(nr);
	}
	return sf_syscall_lookup(word, strlen(word));
}

/* Levenshtein distance, two rows; names are short. */
static unsigned edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	unsigned *prev = xmalloc((lb + 1) * sizeof(*prev));
	unsigned *cur = xmalloc((lb + 1) * sizeof(*cur));
	unsigned d;

	for (j = 0; j <= lb; j++)
		prev[j] = (unsigned)j;
	for (i = 1; i <= la; i++) {
		unsigned *t;
		cur[0] = (unsigned)i;
		for (j = 1; j <= lb; j++) {
			unsigned sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			unsigned del = prev[j] + 1, ins = cur[j - 1] + 1;
			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		t = prev;
		prev = cur;
		cur = t;
	}
	d = prev[lb];
	free(prev);
	free(cur);
	return d;
}

const char *group_suggest(const char *word)
{
	const char *best = NULL;
	unsigned best_d = ~0u, i;

	for (i = 0; i < sf_group_count; i++) {
		unsigned d = edit_distance(word, sf_groups[i].name);
		if (d < best_d) {
			best_d = d;
			best = sf_groups[i].name;
		}
	}
	/* a third of the name, as the parser's suggestions */
	return best_d <= strlen(word) / 3 + 1 ? best : NULL;
}

const char *syscall_suggest(const char *word)
{
	const char *best = NULL;
	unsigned best_d = ~0u, i;

	if (strncmp(word, "sys_", 4) == 0)
		word += 4;
	for (i = 0; i < sf_syscall_count; i++) {
		unsigned d = edit_distance(word, sf_syscalls[i].name);
		if (d < best_d) {
			best_d = d;
			best = sf_syscalls[i].name;
		}
	}
	return best;
}
