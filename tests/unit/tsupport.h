/* Shared helpers for the unit tests (linked into every test). */
#ifndef SECFILTER_TSUPPORT_H
#define SECFILTER_TSUPPORT_H

#include <stdint.h>

#include "policy.h"

/* Parses text (source "t.conf") on top of cur; fails the test on error. */
struct sf_policy *t_parse(const struct sf_policy *cur, const char *text);

/* Parses text expecting failure; returns the error (code and text). */
struct sf_error t_parse_error(const struct sf_policy *cur, const char *text);

/* A policy in another syntax (policy.h), named name (a path: relative
 * includes are relative to it); on error, *err is filled in and NULL
 * returned. */
struct sf_policy *t_parse_syntax(enum sf_syntax syntax, const char *name, const char *text,
				 struct sf_error *err);
/* An OCI profile as it reads on a kernel of this release. */
struct sf_policy *t_oci(const char *release, const char *text, struct sf_error *err);

/* The canonical text, in a static buffer. */
const char *t_print(const struct sf_policy *p);

/* sf_decide with the first arguments given (the rest 0). */
int t_decide(const struct sf_policy *p, long nr, uint64_t a0, uint64_t a1,
	     uint64_t a2, uint64_t a3);
/* What the call gets: sf_action of that decision. */
unsigned t_action(const struct sf_policy *p, long nr, uint64_t a0, uint64_t a1,
		  uint64_t a2, uint64_t a3);

/* A deterministic pseudo-random number (xorshift64*). */
uint64_t t_rnd(uint64_t *state);

/* A random valid policy of about `rules` rules over random syscalls:
 * expression trees of random shape over their arguments (by name and as
 * argN), all operators and sets ({1, 2}), values biased to the type's edges; every kind of
 * rule: 1, 0, return E, expr else return E, default:, *, @groups. */
void t_random_policy(char *text, size_t cap, uint64_t *rng, unsigned rules);

#endif
