/* A small strict JSON reader (RFC 8259) for the OCI front end: the text
 * becomes a tree of values that remember where they were, so that every
 * error, in the syntax or in what the profile says, points at its place.
 *
 * Strict: UTF-8 only, no byte order mark, no comments, no trailing
 * commas, no duplicate keys in one object (a JSON decoder keeps one of
 * them; which one is not a question a security policy should raise), at
 * most SF_JSON_DEPTH levels of nesting.  Allocates with sf_mem_alloc. */
#ifndef SECFILTER_JSON_H
#define SECFILTER_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

#define SF_JSON_DEPTH 64

enum sf_json_kind { SF_J_NULL, SF_J_FALSE, SF_J_TRUE, SF_J_NUM, SF_J_STR, SF_J_ARR, SF_J_OBJ };

#define SF_J_NONE UINT32_MAX

/* One value.  The children of an array or object are a list: first, then
 * each one's next.  A member of an object carries its key. */
struct sf_json {
	uint8_t kind;     /* enum sf_json_kind */
	unsigned line, col, len; /* where the value is, for messages */
	uint32_t first;   /* ARR, OBJ: first child, SF_J_NONE if empty */
	uint32_t next;    /* the next child of the same parent, or SF_J_NONE */
	uint32_t count;   /* ARR, OBJ: children */
	const char *str;  /* STR: the decoded text (NUL-terminated; may hold
			     NULs, see slen); NUM: the number as written */
	size_t slen;
	const char *key;  /* a member: its decoded key, NUL-terminated */
	size_t keylen;
	unsigned key_line, key_col, key_len;
};

struct sf_json_doc {
	struct sf_vec nodes; /* struct sf_json; the root is node 0 */
	char *arena;         /* the decoded strings */
	size_t arena_size, arena_used;
	const struct sf_ast *ast; /* where messages go: source src of ast */
	uint32_t src;
};

/* Parses the text of source src of ast.  Returns 0, or a negative errno
 * with err filled in (file:line:col, as every message of secfilter).  The
 * caller frees doc with sf_json_free, even on failure. */
int sf_json_parse(struct sf_json_doc *doc, const struct sf_ast *ast, uint32_t src,
		  struct sf_error *err);
void sf_json_free(struct sf_json_doc *doc);

static inline const struct sf_json *sf_json_at(const struct sf_json_doc *doc, uint32_t i)
{
	return i == SF_J_NONE ? NULL : &SF_VEC_AT(&doc->nodes, struct sf_json, i);
}

/* A non-negative integer, as a Go decoder reads one into an unsigned
 * field: digits only (no sign, fraction or exponent), at most max.
 * Returns 0, or -1 when v is not one. */
int sf_json_uint(const struct sf_json *v, uint64_t max, uint64_t *out);

/* "a string", "an array", ... for messages. */
const char *sf_json_kind_name(enum sf_json_kind k);

#endif
