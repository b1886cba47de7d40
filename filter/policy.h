/* The policy: text -> tree -> (evaluator | BPF | canonical text).
 *
 * A policy is parsed and applied in one step (sf_policy_apply) into one
 * immutable block, struct sf_policy.  Everything downstream reads that
 * block: the evaluator (eval.h), the BPF compiler (bpf.h) and the canonical
 * printer (sf_policy_print).  A new policy is a new block; readers are never
 * disturbed, so the preload library can swap blocks with one atomic store.
 *
 * Memory comes from sf_mem_alloc (mem.h). */
#ifndef SECFILTER_POLICY_H
#define SECFILTER_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "systab.h"

struct sf_landlock;

#define SF_MAX_TEXT (1u << 20) /* bytes of policy text, includes together */
#define SF_MAX_DEPTH 64        /* nesting of '(' and '!' in one expression */
#define SF_MAX_INCLUDE 16      /* nesting of @include */

/* Actions: what a call gets.  1..SF_ERRNO_MAX: it fails with that errno,
 * without running. */
#define SF_ACTION_RUN 0
#define SF_ACTION_KILL 0x1000
#define SF_ACTION_TRAP 0x1001 /* SIGSYS to the process, as seccomp's RET_TRAP */
#define SF_ACTION_LOG 0x1002  /* reported, then it runs */

enum sf_op {
	SF_OP_EQ,   /* == */
	SF_OP_NE,   /* != */
	SF_OP_LT,   /* <  */
	SF_OP_LE,   /* <= */
	SF_OP_GT,   /* >  */
	SF_OP_GE,   /* >= */
	SF_OP_BITS, /* &  : true when (field & value) != 0 */
	SF_OP_IN,   /* in : true when (field & ~value) == 0 */
};

enum sf_kind { SF_N_PRED, SF_N_NOT, SF_N_AND, SF_N_OR };

/* One node of an expression tree.  Children are indexes into the same
 * policy's nodes[]. */
struct sf_node {
	uint8_t kind;  /* enum sf_kind */
	uint8_t op;    /* PRED: enum sf_op */
	uint8_t arg;   /* PRED: argument index 0..5 */
	uint8_t type;  /* PRED: enum sf_type of that argument */
	uint32_t left; /* AND, OR, NOT */
	uint32_t right;/* AND, OR */
	/* PRED: the value as the argument's type sees it: cut to the type's
	 * width, then sign-extended (signed types) or zero-extended, exactly
	 * what sf_normalize() makes of a register.  Signed types compare as
	 * int64_t, the others as uint64_t. */
	uint64_t value;
};

/* One `X: expr [else ACTION]` rule, kept in F[X] in the order it was
 * applied. */
struct sf_filter {
	uint32_t root;   /* node index of the expression */
	uint32_t line;   /* line of the rule in its source */
	uint32_t source; /* offset in strings[] of the source's name */
	uint32_t test;   /* evaluator: first test of this filter (eval.h) */
	uint16_t fail;   /* what a call it is false of gets: its else action
			    (an errno or SF_ACTION_KILL, _TRAP, _LOG), or 0
			    for the policy's default action */
	uint32_t text;   /* offset in strings[] of the expression as its
			    source wrote it (constants by name), or
			    SF_NO_TEXT */
};

#define SF_NO_TEXT UINT32_MAX

/* What the policy says about one syscall number.  ret and F[nr] never
 * coexist: `X: return E` (or kill, trap, log) drops X's filters, `X: expr`
 * sets ret to 0. */
struct sf_sysrule {
	uint8_t allowed;   /* in S */
	uint8_t chain;     /* evaluator: not simply allowed, run the tests */
	uint8_t conj;      /* n > 0: F[nr] is a plain conjunction of n tests
			      (eval.h's fast path); 0: use the chain */
	uint16_t nfilters; /* |F[nr]| */
	uint16_t ret;      /* X: ACTION -- every call gets it (an errno, or
			      SF_ACTION_KILL, _TRAP, _LOG); 0: they run */
};

_Static_assert(sizeof(struct sf_sysrule) == 8, "a policy's 512 rules fill one page");

/* Where F[nr] and its tests begin, apart from the rules: a policy none of
 * whose syscalls has a filter or a `return` has no such table (every
 * first and test is 0), and its 512 rules of 8 bytes, one page where 16
 * took two, leave a filtered start's policy block a page shorter. */
struct sf_sysidx {
	uint32_t first; /* F[nr] is filters[first .. first+nfilters) */
	uint32_t test;  /* evaluator: the first test of F[nr] (eval.h) */
};

/* The evaluator's form of the filters (see eval.h).  Every predicate is one
 * interval test on the register, in modular arithmetic:
 *     ((reg - lo) & mask) <= span
 * mask is the argument's width, so the bits the kernel ignores drop out
 * (the low bits of a difference depend only on the low bits); a signed
 * type's order becomes unsigned order by offsetting lo by the sign bit;
 * intervals may wrap, so != < > are intervals too.  A bit test `x & m` is
 * the negation of ((reg - 0) & m) <= 0, with its exits swapped. */
struct sf_test {
	uint64_t lo, mask, span;
	uint8_t arg;
	uint8_t fall;    /* which exit (0 or 1) is just the following test; 2: none */
	int32_t next[2]; /* [false], [true]: a test index, SF_ALLOW, SF_RETURN
			    or -(4+k) for "filter k is false" (eval.h) */
};

struct sf_policy {
	size_t size;     /* bytes in this block (for sf_policy_free) */
	uint8_t pending; /* on_next_syscall: 1 -- not enforced until the next exec */
	uint16_t dflt;   /* default: what a call that is not permitted gets
			    (SF_ACTION_KILL, _TRAP, _LOG, or an errno) */
	uint8_t uring_named; /* a rule named io_uring_setup itself (filter/uring.h) */
	uint8_t uring_waived; /* a front end's policy lets rings do what it
				 restricts (sf_policy_uring_warning) */
	uint32_t nfilters, nnodes, ntests, nstrings;
	struct sf_sysrule sys[SF_NR_COUNT];
	const struct sf_sysidx *idx; /* [SF_NR_COUNT], or NULL: all 0 */
	const struct sf_filter *filters;
	const struct sf_node *nodes;
	const struct sf_test *tests;
	const char *strings;
	/* the fs./net. rules (landlock.h), a block of their own that
	 * sf_policy_free frees; NULL when the policy has none */
	const struct sf_landlock *landlock;
};

/* F[nr] is p->filters[sf_rule_first(p, r) ..] for r = &p->sys[nr]. */
static inline uint32_t sf_rule_first(const struct sf_policy *p, const struct sf_sysrule *r)
{
	return p->idx ? p->idx[r - p->sys].first : 0;
}

static inline uint32_t sf_rule_test(const struct sf_policy *p, const struct sf_sysrule *r)
{
	return p->idx ? p->idx[r - p->sys].test : 0;
}

/* An error, formatted as SPEC §2 shows:
 *   source:line:col: error: message
 *       3 | the source line
 *         |           ^~~
 * code is the errno the runtime API reports for it. */
struct sf_error {
	int code;        /* -EINVAL, -EPERM, -E2BIG or -ENOMEM; 0 when none */
	unsigned line, col;
	char text[1024];
};

/* Parses text and applies it on top of cur, whole or not at all.
 *
 * cur == NULL means an unfiltered process.  When cur is enforcing (not
 * NULL and not pending) the result may only reduce access: a rule that
 * would let a call run, or make an action weaker (kill > trap > errno >
 * log: see secfilter(7)), fails with -EPERM and nothing changes.
 *
 * source names the text in messages: a file path, "SECFILTER_POLICY",
 * "<api>".  @include paths are relative to the working directory.
 * Returns 0 and sets *out to a new block, or a negative errno with err
 * filled in. */
int sf_policy_apply(const struct sf_policy *cur, const char *source,
		    const char *text, size_t len, struct sf_policy **out,
		    struct sf_error *err);

/* What @include is relative to (sf_policy_apply_src's how). */
#define SF_SRC_TEXT 0       /* the working directory (sf_policy_apply) */
#define SF_SRC_FILE 1       /* source is the text's path: its directory */
#define SF_SRC_NO_INCLUDE 2 /* nothing: @include is an error (the runtime API) */

int sf_policy_apply_src(const struct sf_policy *cur, const char *source, int how,
			const char *text, size_t len, struct sf_policy **out,
			struct sf_error *err);

/* The syntaxes a policy may be written in: secfilter's own, a minijail
 * policy file, an OCI seccomp profile (secfilter(7)). */
enum sf_syntax { SF_SYNTAX_SECFILTER, SF_SYNTAX_MINIJAIL, SF_SYNTAX_OCI };

/* The syntax a file name says: `.policy` minijail, `.json` OCI, anything
 * else secfilter's. */
enum sf_syntax sf_syntax_of(const char *path);

/* sf_policy_apply_src for text in any syntax. */
int sf_policy_apply_syntax(const struct sf_policy *cur, const char *source, int how,
			   enum sf_syntax syntax, const char *text, size_t len,
			   struct sf_policy **out, struct sf_error *err);

/* Where a parse reports more than the one error struct sf_error holds:
 * every error of the text (the parser goes on at the next rule, a newline
 * or ';', as a compiler does) and warnings -- a policy that parses but
 * likely does not mean what it says (`fd in 1|2` on an argument that is
 * not a flag word), or that leaves the program no way to exit.  emit is
 * called once per message, in order, with its text formatted as SPEC §2
 * shows ("error:" or "warning:"); the first error is also what err holds.
 * Warnings never change the result. */
struct sf_diag {
	void (*emit)(void *ctx, int warning, const struct sf_error *e);
	void *ctx;
	unsigned max_errors; /* emit at most this many errors (0: 1); the
				others are only counted */
	unsigned nerrors, nwarnings; /* counted by the parse */
};

/* sf_policy_apply_syntax with diagnostics: d NULL is that function. */
int sf_policy_apply_diag(const struct sf_policy *cur, const char *source, int how,
			 enum sf_syntax syntax, const char *text, size_t len,
			 struct sf_policy **out, struct sf_error *err, struct sf_diag *d);

/* A minijail or OCI policy that restricts what a ring operation also does
 * and allows io_uring_setup is taken as minijail and Docker take it
 * (our own syntax refuses it): 1 with the warning's text in buf, which
 * says what to add in that syntax; 0 for any other policy. */
int sf_policy_uring_warning(const struct sf_policy *p, enum sf_syntax syntax, char *buf,
			    size_t cap);

void sf_policy_free(struct sf_policy *p);

/* The canonical text of SPEC §3: "on_next_syscall: 1" first when pending,
 * "default: ACTION" unless it is kill, then each allowed syscall in number
 * order, "sys_NAME: 1", "sys_NAME: return E" or one "sys_NAME: EXPR
 * [else return E]" line per filter.  Parsing it gives the same policy.
 * Like snprintf: writes at most cap bytes (NUL included) and returns the
 * full length.  Uses no libc I/O (safe in the preload library). */
size_t sf_policy_print(const struct sf_policy *p, char *buf, size_t cap);

/* A text that parses to the same policy, and is the shorter of two: the
 * canonical text with values as numbers (no look-ups of constants' names
 * at every exec), or "*: 1", one "sys_NAME: 0" per syscall not allowed
 * and the filters (on_next_syscall first when pending).  What the preload
 * library hands an exec'd image and keeps for `secfilter show`, which
 * prints it canonically.  snprintf-like, as sf_policy_print. */
size_t sf_policy_print_short(const struct sf_policy *p, char *buf, size_t cap);

/* Where each filter and each Landlock rule was written: what an exec'd
 * image, which parses the short form, needs to quote its rules as their
 * source wrote them, at their source's line.  One entry per filter, in
 * number order then rule order (the order of p->filters, in which the
 * short form prints them), then one per rule of p->landlock, in its
 * order (layer, paths, ports: the same for the short form's text, which
 * prints every layer's rules after a `landlock.layer: 1`).  An entry:
 * LINE, `@LEN:SOURCE` when the source differs from the previous entry's,
 * then `=LEN:TEXT` or `-` (no text; always so for a Landlock rule, whose
 * report names its right).  Empty for a policy with neither.
 * snprintf-like. */
size_t sf_policy_print_origins(const struct sf_policy *p, char *buf, size_t cap);

/* A copy of *pp with its filters' lines, sources and texts and its
 * Landlock rules' lines and sources from such a map, which replaces *pp
 * (freed; its Landlock block is copied too, one allocation still).
 * -EINVAL when the map does not fit the policy (not one entry per filter
 * and Landlock rule, a text for a Landlock rule, malformed), -ENOMEM:
 * *pp is then unchanged.  Only what reports say changes: no decision. */
int sf_policy_set_origins(struct sf_policy **pp, const char *map);

/* One filter's expression, with the argument names of syscall nr. */
size_t sf_filter_print(const struct sf_policy *p, unsigned nr,
		       const struct sf_filter *f, char *buf, size_t cap);

/* The source name of a filter ("policy.conf"). */
static inline const char *sf_filter_source(const struct sf_policy *p,
					   const struct sf_filter *f)
{
	return p->strings + f->source;
}

/* The expression of a filter as its source wrote it ("!(flags &
 * (O_WRONLY|O_RDWR))"), NULL when it has none (a tree built by a front
 * end for another syntax): then sf_filter_print gives its canonical
 * form. */
static inline const char *sf_filter_text(const struct sf_policy *p,
					 const struct sf_filter *f)
{
	return f->text == SF_NO_TEXT ? NULL : p->strings + f->text;
}

/* A register as an argument of type t sees it (see struct sf_node). */
static inline uint64_t sf_normalize(uint64_t reg, enum sf_type t)
{
	switch (t) {
	case SF_T_S32: return (uint64_t)(int64_t)(int32_t)(uint32_t)reg;
	case SF_T_U32: return (uint32_t)reg;
	case SF_T_U16: return (uint16_t)reg;
	default: return reg;
	}
}

static inline int sf_type_signed(enum sf_type t)
{
	return t == SF_T_S32 || t == SF_T_S64;
}

#endif
