/* Internals shared by the policy engine's files (parse.c, build.c,
 * apply.c, print.c, error.c) and its front ends for other syntaxes.  Not
 * part of the library's interface. */
#ifndef SECFILTER_INTERNAL_H
#define SECFILTER_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "landlock.h"
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

/* Why sf_file_read (mem.h) failed with -e, for an @include's error in
 * every front end: its own meanings of EINVAL and EAGAIN, else strerror's
 * text. */
const char *sf_file_error(int e);

/* ---- The tree: what text, or another syntax, becomes ----
 *
 * A policy as read, before it is applied: its rules in order, the nodes of
 * their expressions, and the sources they came from (the text given and
 * the files it @includes).  The parser builds it from text; a front end
 * for another syntax (a minijail policy file, an OCI profile) builds the
 * same tree with the sf_ast_* functions below and hands it to
 * sf_policy_apply_ast, and from there everything is shared: the apply
 * rules, the evaluator, the BPF compiler, the canonical printer. */

/* What a rule's directive names. */
enum sf_rule_what {
	SF_R_SYSCALL, /* one syscall: nr */
	SF_R_ALL,     /* '*' */
	SF_R_ON_NEXT, /* on_next_syscall */
	SF_R_GROUP,   /* @NAME: nr is the index in sf_groups */
	SF_R_DEFAULT, /* default */
	SF_R_FS,      /* fs.RIGHT: nr is its index in sf_ll_rights, root the
			 first of its paths in ast->ll */
	SF_R_NET,     /* net.RIGHT: the same, with ports */
	SF_R_LAYER,   /* landlock.layer: the next fs./net. rule starts a layer */
};
/* Its right-hand side. */
enum sf_rule_rhs {
	SF_RHS_ALLOW,  /* 1 */
	SF_RHS_REMOVE, /* 0 */
	SF_RHS_EXPR,   /* expr [else ACTION]: root, action = ACTION or 0 */
	SF_RHS_RETURN, /* ACTION for every call (return E, kill, trap, log):
			  action */
	SF_RHS_ACTION, /* default's kill | log | trap | return E: action */
};

struct sf_rule {
	uint8_t what;    /* enum sf_rule_what */
	uint8_t rhs;     /* enum sf_rule_rhs */
	uint16_t nr;     /* SF_R_SYSCALL: the number; SF_R_GROUP: the group */
	uint16_t action; /* see enum sf_rule_rhs: an errno 1..4095 or an
			    SF_ACTION_* other than RUN (EXPR's else: 0 for
			    none, the default action) */
	uint16_t src;    /* index of its source in the ast */
	uint32_t root;   /* SF_RHS_EXPR: node index in the ast */
	unsigned line, col, len; /* the directive, for messages */
	/* SF_RHS_EXPR: the expression as written, bytes [span, span+span_len)
	 * of its source's text (reports quote it); span_len 0: no text (a
	 * tree built by a front end) */
	uint32_t span, span_len;
};

/* A path (SF_R_FS) or a TCP port (SF_R_NET) of a rule: a rule's items
 * are ast->ll[root ..] up to the one marked last. */
struct sf_ll_item {
	const char *path; /* len bytes of its source's text, no NUL */
	uint32_t len;
	uint16_t port;
	uint8_t last;
};

#define SF_NO_SRC UINT32_MAX

/* A text the rules came from. */
struct sf_src {
	const char *name;     /* as messages show it: a path, "SECFILTER_POLICY" */
	const char *text;
	size_t len;
	uint32_t parent;      /* the source whose @include read it, or SF_NO_SRC */
	unsigned parent_line; /* the line of that @include */
	int is_file;          /* name is its path: its @includes are relative
				 to its directory */
	uint64_t id[2];       /* a file's device and inode (cycles), else 0 */
	/* What sf_ast_free frees: the name and the text of a file read for
	 * @include (sizes as sf_mem_alloc was asked). */
	char *own_name, *own_text;
	size_t own_name_size, own_text_size;
};

struct sf_ast {
	struct sf_vec nodes; /* struct sf_node */
	struct sf_vec rules; /* struct sf_rule */
	struct sf_vec srcs;  /* struct sf_src */
	struct sf_vec ll;    /* struct sf_ll_item */
	size_t text_total;   /* bytes of text, includes together (SF_MAX_TEXT) */
	uint8_t foreign;     /* set by a front end (minijail, OCI): decided as
				their own tools decide (apply.c's ring_check) */
};

/* Parses the text of source src of ast (added with sf_ast_src) into ast,
 * following its @includes as how says (SF_SRC_*).  The caller frees ast
 * with sf_ast_free even on failure.  Returns 0 or a negative errno with
 * err filled in. */
int sf_parse(struct sf_ast *ast, uint32_t src, int how, struct sf_error *err);
/* The same, reporting every error and the warnings through d (d NULL:
 * sf_parse); the return value and err are the first error's. */
int sf_parse_diag(struct sf_ast *ast, uint32_t src, int how, struct sf_error *err,
		  struct sf_diag *d);

/* Front ends for other syntaxes: they read source src of ast (added with
 * sf_ast_src) into rules of ast, as sf_parse does.  Same contract.
 *
 * A minijail policy file, as minijail's compile_seccomp_policy.py reads
 * it (filter/minijail.c); how as for sf_parse (its @include and
 * @frequency paths are relative to the file). */
int sf_minijail_parse(struct sf_ast *ast, uint32_t src, int how, struct sf_error *err);
/* An OCI seccomp profile, as Docker and runc with libseccomp read it for
 * an x86-64 container without added capabilities (filter/oci.c);
 * kernel_release is what minKernel is compared with ("6.18.44-..."). */
int sf_oci_parse(struct sf_ast *ast, uint32_t src, const char *kernel_release,
		 struct sf_error *err);

/* What every front end does first with source src: clears err, notes
 * whether the source is a file as how says, counts its text and refuses
 * more than SF_MAX_TEXT ("<what> is N bytes").  0 or -E2BIG. */
int sf_front_start(struct sf_ast *ast, uint32_t src, int how, const char *what,
		   struct sf_error *err);
/* What both foreign front ends keep, first in their states: the tree
 * being built, where errors go, and, while reading, each syscall's rules
 * (elem bytes each, the front end's own type) and the operands of the
 * chain being built. */
struct sf_front {
	struct sf_ast *ast;
	struct sf_error *err;
	uint32_t src;
	struct sf_vec nr[SF_NR_COUNT];
	struct sf_vec ops; /* uint32_t */
};
/* sf_front_start for a foreign front end, then its state (size bytes,
 * zeroed, a struct sf_front first, filled in), the ast marked as decided
 * by another syntax's rules (apply.c's ring_check).  NULL with *rc and
 * err set when either fails. */
void *sf_front_state(struct sf_ast *ast, uint32_t src, int how, const char *what, size_t size,
		     struct sf_error *err, int *rc);
/* Frees f's vectors, then the state (size bytes) it begins. */
void sf_front_free(struct sf_front *f, size_t size, size_t elem);

/* Building a tree without text.  Each returns 0, -ENOMEM, or -E2BIG past
 * the limits (MAX_NODES, MAX_RULES), with no message: the caller knows
 * where it was and says so (sf_error_src).  Nodes are children first; a
 * chain of one operator must be built with sf_ast_chain, which keeps the
 * tree balanced (every consumer recurses over it), and NOT over NOT at
 * most SF_MAX_DEPTH deep. */
void sf_ast_init(struct sf_ast *ast);
void sf_ast_free(struct sf_ast *ast);
/* A source: name and text are not copied and must outlive the ast.  text
 * may be NULL (no caret lines in messages). */
int sf_ast_src(struct sf_ast *ast, const char *name, const char *text, size_t len,
	       uint32_t *idx);
/* A file that an include of source parent (at parent_line) read: path and
 * text (sf_mem_alloc'ed, sizes as allocated) belong to the ast from here on
 * if this succeeds; on failure they are still the caller's. id: the file's
 * device and inode, for sf_ast_reading. */
int sf_ast_file_src(struct sf_ast *ast, char *path, size_t path_size, char *text,
		    size_t text_size, size_t len, const uint64_t id[2], uint32_t parent,
		    unsigned parent_line, uint32_t *idx);
/* The source that is file id and is being read already (src or one of its
 * includers), or SF_NO_SRC: an include of it would be a cycle. */
uint32_t sf_ast_reading(const struct sf_ast *ast, uint32_t src, const uint64_t id[2]);
/* field op value on argument arg read as type (the argument's own type
 * from the syscall table, for our language); value is cut to the type as
 * sf_normalize does. */
int sf_ast_pred(struct sf_ast *ast, unsigned arg, enum sf_type type, enum sf_op op,
		uint64_t value, uint32_t *out);
int sf_ast_not(struct sf_ast *ast, uint32_t a, uint32_t *out);
/* ops[0] && ops[1] && ... (kind SF_N_AND) or || (SF_N_OR), n >= 1. */
int sf_ast_chain(struct sf_ast *ast, enum sf_kind kind, const uint32_t *ops,
		 uint32_t n, uint32_t *out);
/* Appends a rule; rules apply in the order they were added. */
int sf_ast_rule(struct sf_ast *ast, const struct sf_rule *r);
/* Appends a path or port for an fs./net. rule; *idx is its index. */
int sf_ast_ll_item(struct sf_ast *ast, const struct sf_ll_item *it, uint32_t *idx);

/* ---- Files and ports while applying (landlock.c) ----
 * The layers as apply.c builds them: the current policy's (sf_ll_load),
 * then the text's rules (sf_ll_apply), then a block (sf_ll_freeze, NULL
 * when there is no layer). */
struct sf_ll_scratch {
	struct sf_vec rules;
	uint8_t nlayers;
	uint8_t open_new; /* the next fs./net. rule starts a layer */
	uint8_t handles[SF_LL_MAX_LAYERS];
};

int sf_ll_load(struct sf_ll_scratch *s, const struct sf_landlock *cur);
/* Before a text's rules: on an enforcing policy they form a layer of
 * their own, which can only narrow; otherwise they join the last. */
void sf_ll_begin(struct sf_ll_scratch *s, int enforcing);
int sf_ll_apply(struct sf_ll_scratch *s, const struct sf_ast *ast, const struct sf_rule *r,
		struct sf_error *err);
int sf_ll_freeze(const struct sf_ll_scratch *s, struct sf_landlock **out);
void sf_ll_scratch_free(struct sf_ll_scratch *s);
/* What is wrong with a tree's SF_R_FS, _NET or _LAYER rule, or NULL. */
const char *sf_ll_check_rule(const struct sf_ast *ast, const struct sf_rule *r);

/* Applies a tree on top of cur, as sf_policy_apply does for text.  A tree
 * that the parser could not have made (an index out of range, a child
 * made after its parent, an action a rule cannot have, too deep) is
 * -EINVAL with an "internal error" message: nothing is trusted. */
int sf_policy_apply_ast(const struct sf_policy *cur, const struct sf_ast *ast,
			struct sf_policy **out, struct sf_error *err);

/* An error at line:col of source src of ast, with the chain of its
 * @includes above it (sf_error_at does the rest). */
void sf_error_src(struct sf_error *err, int code, const struct sf_ast *ast, uint32_t src,
		  unsigned line, unsigned col, unsigned len, const char *fmt, ...)
	__attribute__((format(printf, 8, 9)));

/* sf_error_src's message, formatted already, labelled label ("error",
 * "warning": then code is 0); line 0: about the whole source. */
void sf_message_src(struct sf_error *err, int code, const char *label,
		    const struct sf_ast *ast, uint32_t src, unsigned line, unsigned col,
		    unsigned len, const char *msg);

/* Emits a warning at line:col of source src of ast through d, counted
 * (line 0: about the whole source). */
void sf_diag_warning(struct sf_diag *d, const struct sf_ast *ast, uint32_t src, unsigned line,
		     unsigned col, unsigned len, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));

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
/* v in base 10 or 16; base 16 with "0x" before it. */
void sf_out_u64(struct sf_out *o, uint64_t v, unsigned base);
/* The digits of v in base 10 or 16 (lowercase, no prefix), at the end of
 * d: returns the index of the first.  (The library's formatter too.) */
#define SF_DIGITS_MAX 24
unsigned sf_digits(char d[SF_DIGITS_MAX], uint64_t v, unsigned base);
/* The value of digit c in bases up to 36 ('a'/'A' is 10); 99 for no digit. */
int sf_digit_value(int c);
/* v's digits in base 10 or 16, nothing before them. */
void sf_out_digits(struct sf_out *o, uint64_t v, unsigned base);
void sf_out_s64(struct sf_out *o, int64_t v);
/* Terminates the text (when cap > 0) and returns the full length. */
size_t sf_out_end(struct sf_out *o);

/* An action as the language writes it: "kill", "log", "trap", "return
 * EPERM", "return 4000". */
void sf_print_action(struct sf_out *o, unsigned action);

/* The canonical text with every value a number (what the short form
 * chooses from: sf_policy_print_short is never longer than this). */
size_t sf_policy_print_plain(const struct sf_policy *p, char *buf, size_t cap);

/* One expression (tree rooted at root in nodes[]) in canonical form, with
 * the argument names of syscall sc. */
void sf_print_expr(struct sf_out *o, const struct sf_node *nodes,
		   uint32_t root, const struct sf_syscall *sc);

/* The fs./net. lines of a policy, canonical (landlock.c). */
void sf_ll_print(struct sf_out *o, const struct sf_landlock *ll);

#endif
