/* What every fuzz target checks of a policy it got: its canonical text. */
#ifndef SECFILTER_FUZZ_PRINT_H
#define SECFILTER_FUZZ_PRINT_H

#include <stdlib.h>
#include <string.h>

#include "policy.h"

/* The canonical text of p (malloc'd; *len its length); aborts unless our
 * parser reads it back to a policy that prints the same. */
static char *printed_canonical(const struct sf_policy *p, size_t *len)
{
	size_t n = sf_policy_print(p, NULL, 0);
	char *a = malloc(n + 1), *b = malloc(n + 1);
	struct sf_policy *q;
	struct sf_error err;

	sf_policy_print(p, a, n + 1);
	if (sf_policy_apply_src(NULL, "<printed>", SF_SRC_NO_INCLUDE, a, n, &q, &err) != 0)
		abort(); /* the printer wrote something the parser rejects */
	if (sf_policy_print(q, b, n + 1) != n || memcmp(a, b, n) != 0)
		abort(); /* not canonical */
	sf_policy_free(q);
	free(b);
	*len = n;
	return a;
}

#endif
