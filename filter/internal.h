/* Internals shared by the policy engine's files (parse.c, apply.c,
 * print.c, error.c).  Not part of the interface. */
#ifndef SECFILTER_INTERNAL_H
#define SECFILTER_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"

/* A growable array in sf_mem_alloc memory. */
struct sf_vec {
	void *data;
	uint32_t n, cap;
};

/* Makes room for one more element of size elem; returns it (zeroed) or
 * NULL when out of memory or past limit elements. */
void *sf_vec_push(struct sf_vec *v, size_t elem, uint32_t limit);
void sf_vec_free(struct sf_vec *v, size_t elem);

#define SF_VEC_AT(v, type, i) (((type *)(v)->data)[i])

/* What a rule's directive names. */
enum sf_rule_what { SF_R_SYSCALL, SF_R_ALL, SF_R_ON_NEXT };
/* Its right-hand side. */
enum sf_rule_rhs { SF_RHS_ALLOW, SF_RHS_REMOVE, SF_RHS_EXPR };

struct sf_rule {
	uint8_t what; /* enum sf_rule_what */
	uint8_t rhs;  /* enum sf_rule_rhs */
	uint16_t nr;  /* SF_R_SYSCALL */
	uint32_t root;  /* SF_RHS_EXPR: node index in the ast */
	unsigned line, col, len; /* the directive, for messages */
};

/* A parsed policy text: its rules, and the nodes of their expressions
 * (struct sf_node, children as indexes into nodes). */
struct sf_ast {
	struct sf_vec nodes; /* struct sf_node */
	struct sf_vec rules; /* struct sf_rule */
};

/* Parses text into ast (which the caller frees with sf_ast_free even on
 * failure).  Returns 0 or a negative errno with err filled in. */
int sf_parse(const char *source, const char *text, size_t len,
	     struct sf_ast *ast, struct sf_error *err);
void sf_ast_free(struct sf_ast *ast);

/* Fills err with a message at line:col (1-based), underlining len bytes
 * of the source line, which is found in text.  line 0: no position. */
void sf_error_at(struct sf_error *err, int code, const char *source,
		 const char *text, size_t textlen, unsigned line, unsigned col,
		 unsigned len, const char *fmt, ...)
	__attribute__((format(printf, 9, 10)));

/* Appends a fix-it line under the caret of err (filled by sf_error_at),
 * showing the suggested replacement where the caret points. */
void sf_error_fixit(struct sf_error *err, const char *text, size_t textlen,
		    const char *fix);

/* The candidate closest to word by edit distance, or NULL when none is
 * close enough to be a plausible typo.  next(i) yields candidate i, NULL
 * at the end. */
const char *sf_closest(const char *word, size_t len,
		       const char *(*next)(const void *ctx, unsigned i),
		       const void *ctx);

/* A bounded writer for the printers: never overflows, counts what it would
 * have written (snprintf semantics), uses no libc I/O. */
struct sf_out {
	char *buf;
	size_t cap, len;
};

void sf_out_str(struct sf_out *o, const char *s);
void sf_out_mem(struct sf_out *o, const char *s, size_t n);
void sf_out_u64(struct sf_out *o, uint64_t v, unsigned base);
void sf_out_s64(struct sf_out *o, int64_t v);
/* Terminates the text (when cap > 0) and returns the full length. */
size_t sf_out_end(struct sf_out *o);

/* One expression (tree rooted at root in nodes[]) in canonical form, with
 * the argument names of syscall sc. */
void sf_print_expr(struct sf_out *o, const struct sf_node *nodes,
		   uint32_t root, const struct sf_syscall *sc);

#endif
