/* libFuzzer target for the policy engine: any input must give a policy or a
 * clean error, never a crash, a hang or a leak; an accepted policy must
 * print to text that re-parses to the same canonical text, and so must its
 * short form (what exec'd images get, no longer than the canonical text
 * with numbers for names; and the
 * evaluator must run over it), and applying it on top of an enforcing
 * policy must either narrow or fail whole: no call may get a weaker
 * outcome (run < log < errno < trap < kill).  With diagnostics (every
 * error, warnings) the parse decides the same and its first error is the
 * same.  The short form given the policy's origin map (SECFILTER_ORIGINS)
 * has its filters' lines, sources and texts; the input as a map is taken
 * or refused, never a crash.  @include is refused here
 * (SF_SRC_NO_INCLUDE): the fuzzer is not to read the machine's files.
 * Run with `make fuzz`. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "eval.h"
#include "internal.h"
#include "policy.h"
#include "fuzz_print.h"

static struct sf_policy *base;

/* p's origin map, given to its short form's parse *q: each filter is
 * where p's was written again. */
static void check_origins(const struct sf_policy *p, struct sf_policy **q)
{
	size_t len = sf_policy_print_origins(p, NULL, 0);
	char *map = malloc(len + 1);
	uint32_t k;

	sf_policy_print_origins(p, map, len + 1);
	if (sf_policy_set_origins(q, map) != 0)
		abort();
	for (k = 0; k < p->nfilters; k++) {
		const char *want = sf_filter_text(p, &p->filters[k]);
		const char *got = sf_filter_text(*q, &(*q)->filters[k]);
		if ((*q)->filters[k].line != p->filters[k].line || !want != !got ||
		    (want && strcmp(want, got) != 0) ||
		    strcmp(sf_filter_source(p, &p->filters[k]), sf_filter_source(*q, &(*q)->filters[k])))
			abort();
	}
	free(map);
}

/* Any bytes as an origin map: refused whole, or taken, never a crash. */
static void any_origins(const uint8_t *data, size_t size)
{
	char *map = malloc(size + 1);
	static const char text[] = "read: fd == 0; write: fd == 1";
	struct sf_policy *p;
	struct sf_error err;

	memcpy(map, data, size);
	map[size] = '\0';
	if (sf_policy_apply(NULL, "<base>", text, sizeof(text) - 1, &p, &err) != 0)
		abort();
	(void)sf_policy_set_origins(&p, map);
	sf_policy_free(p);
	free(map);
}

/* The short form (what exec'd images get) is the same policy, and no
 * longer than the canonical text. */
static void check_printed(const struct sf_policy *p)
{
	size_t n;
	char *a = printed_canonical(p, &n), *b = malloc(n + 1);
	size_t sn = sf_policy_print_short(p, NULL, 0);
	char *s = malloc(sn + 1);
	struct sf_policy *q;
	struct sf_error err;

	sf_policy_print_short(p, s, sn + 1);
	if (sn > sf_policy_print_plain(p, NULL, 0) ||
	    sf_policy_apply_src(NULL, "<short>", SF_SRC_NO_INCLUDE, s, sn, &q, &err) != 0 ||
	    q->pending != p->pending || sf_policy_print(q, b, n + 1) != n || memcmp(a, b, n) != 0)
		abort(); /* the short form is another policy, or longer */
	check_origins(p, &q);
	if (sf_policy_print(q, b, n + 1) != n || memcmp(a, b, n) != 0)
		abort(); /* the origins changed the policy */
	sf_policy_free(q);
	free(s);
	free(a);
	free(b);
}

static void decide_some(const struct sf_policy *p, const uint8_t *data, size_t size)
{
	uint64_t args[6] = { 0 };
	unsigned nr;

	memcpy(args, data, size < sizeof(args) ? size : sizeof(args));
	for (nr = 0; nr < SF_NR_COUNT; nr += 7)
		(void)sf_decide(p, nr, args);
}

static int level(unsigned action)
{
	switch (action) {
	case SF_ACTION_RUN: return 0;
	case SF_ACTION_LOG: return 1;
	case SF_ACTION_TRAP: return 3;
	case SF_ACTION_KILL: return 4;
	default: return 2;
	}
}

/* q, applied on top of the enforcing base, gives no call a weaker outcome. */
static void check_narrowed(const struct sf_policy *q, const uint8_t *data, size_t size)
{
	uint64_t args[6] = { 0 };
	unsigned nr;

	memcpy(args, data, size < sizeof(args) ? size : sizeof(args));
	for (nr = 0; nr < SF_NR_COUNT + 8; nr++) {
		unsigned was = sf_action(base, nr, sf_decide(base, nr, args));
		unsigned now = sf_action(q, nr, sf_decide(q, nr, args));
		if (level(now) < level(was))
			abort(); /* widened an enforcing policy */
	}
}

static void count_message(void *ctx, int warning, const struct sf_error *e)
{
	(void)warning;
	if (e->text[0] == '\0')
		abort(); /* a message must say something */
	++*(unsigned *)ctx;
}

/* With diagnostics the parse goes on after an error: it must still end,
 * give the same result, and its first error must be the one a parse
 * without them stops at. */
static void check_diag(const uint8_t *data, size_t size, int rc, const struct sf_error *err)
{
	unsigned emitted = 0;
	struct sf_diag d = { .emit = count_message, .ctx = &emitted, .max_errors = 5 };
	struct sf_policy *p;
	struct sf_error e;
	int r = sf_policy_apply_diag(NULL, "<fuzz>", SF_SRC_NO_INCLUDE, SF_SYNTAX_SECFILTER,
				     (const char *)data, size, &p, &e, &d);

	if (r != rc || (r && (d.nerrors == 0 || strcmp(e.text, err->text) != 0)) ||
	    (!r && d.nerrors) || emitted != d.nwarnings + (d.nerrors < 5 ? d.nerrors : 5))
		abort();
	sf_policy_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int rc;
	struct sf_policy *p, *q;
	struct sf_error err;

	static const char base_text[] = "read: fd < 10; write: 1; close: 1; getpid: return EPERM;"
					" lseek: whence == 0 else return EINVAL";

	if (!base && sf_policy_apply(NULL, "<base>", base_text, sizeof(base_text) - 1,
				     &base, &err) != 0)
		abort();
	rc = sf_policy_apply_src(NULL, "<fuzz>", SF_SRC_NO_INCLUDE, (const char *)data, size, &p,
				 &err);
	check_diag(data, size, rc, &err);
	any_origins(data, size);
	if (rc == 0) {
		check_printed(p);
		decide_some(p, data, size);
		sf_policy_free(p);
	} else if (err.code == 0 || err.text[0] == '\0') {
		abort(); /* an error must say what went wrong */
	}
	if (sf_policy_apply_src(base, "<fuzz>", SF_SRC_NO_INCLUDE, (const char *)data, size, &q,
				&err) == 0) {
		unsigned nr;
		/* A call out of base's S must not come to run.  An action for
		 * it is in S without running (`uname: kill` under a kill
		 * default, test_apply): check_narrowed compares the outcomes. */
		for (nr = 0; nr < SF_NR_COUNT; nr++)
			if (q->sys[nr].allowed && !q->sys[nr].ret && !base->sys[nr].allowed &&
			    !q->pending)
				abort(); /* widened an enforcing policy */
		if (!q->pending)
			check_narrowed(q, data, size);
		sf_policy_free(q);
	}
	return 0;
}
