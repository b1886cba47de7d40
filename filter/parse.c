/* The policy language of SPEC §2: a lexer and a recursive-descent parser
 * with the semantic checks (names, arguments per syscall, value ranges per
 * argument type) done as each rule is read, so every error points at the
 * token that caused it.  @include reads the file and parses it in place,
 * its rules going into the same tree between the including file's.
 *
 * Chains of one operator (a || b || c ...) become balanced binary trees,
 * with parenthesised chains of the same operator spliced in: the tree is
 * then the same for any grouping, and its depth stays logarithmic in the
 * length of a chain, so every consumer may recurse over it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "decode.h"
#include "internal.h"
#include "mem.h"

enum tok {
	T_EOF, T_END, /* end of the text; ';' or newline */
	T_IDENT, T_NUM, T_COLON, T_STAR, T_LPAREN, T_RPAREN,
	T_NOT, T_ANDAND, T_OROR, T_PIPE, T_AMP, T_TILDE, T_MINUS,
	T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE,
	T_AT, /* @NAME: a group, or @include */
	T_LBRACE, T_RBRACE, T_COMMA, /* a set of values: fd in {1, 2} */
};

struct token {
	enum tok kind;
	size_t start, len;
	unsigned line, col;
	uint64_t num;   /* T_NUM */
	unsigned base;  /* T_NUM: 10, 16 or 8 */
};

struct parser {
	const char *source, *text;
	size_t textlen, pos, line_start;
	unsigned line;
	uint32_t src;                /* index of the text in ast->srcs */
	int how;                     /* SF_SRC_*: what @include is relative to */
	unsigned depth;              /* of @include */
	struct token tok;
	struct sf_ast *ast;
	struct sf_error *err;
	const struct sf_syscall *sc; /* the rule's syscall, for argument names */
	struct sf_vec ops;           /* operand stack of the chains being built */
	size_t prev_end;             /* where the token before tok ended */
	unsigned vdepth;             /* of parentheses in a value */
	struct sf_diag *diag;        /* every error and the warnings, or NULL:
					stop at the first error */
	int skipping;                /* after an error, to the end of its rule:
					what is wrong there is not reported */
};

/* An error at token t, with the fix-it line fix under it unless NULL.
 * Without diagnostics it is p->err; with them it is emitted, and p->err
 * keeps the first. */
static int vfail(struct parser *p, const struct token *t, int code, const char *fix,
		 const char *fmt, va_list ap)
{
	struct sf_error one, *e = p->diag ? &one : p->err;
	char msg[512];

	if (p->skipping)
		return code;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	sf_error_src(e, code, p->ast, p->src, t->line, t->col,
		     (unsigned)(t->len ? t->len : 1), "%s", msg);
	if (fix)
		sf_error_fixit(e, p->text, p->textlen, fix);
	if (!p->diag)
		return code;
	if (!p->err->code)
		*p->err = one;
	if (p->diag->nerrors++ < (p->diag->max_errors ? p->diag->max_errors : 1) &&
	    p->diag->emit)
		p->diag->emit(p->diag->ctx, 0, &one);
	return code;
}

/* An error at token t, with a fix-it line (fix: the name the user likely
 * meant), or none: fail. */
static int fail_fix(struct parser *p, const struct token *t, int code, const char *fix,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int fail_fix(struct parser *p, const struct token *t, int code, const char *fix,
		    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = vfail(p, t, code, fix, fmt, ap);
	va_end(ap);
	return code;
}

#define fail(p, t, code, ...) fail_fix(p, t, code, NULL, __VA_ARGS__)

/* The token's text, for messages; long ones are cut. */
static const char *tok_text(const struct parser *p, const struct token *t,
			    char *buf, size_t cap)
{
	size_t n = t->len < cap - 1 ? t->len : cap - 1;

	if (t->kind == T_END)
		return t->start < p->textlen ? "end of line" : "end of text";
	if (t->kind == T_EOF)
		return "end of text";
	memcpy(buf, p->text + t->start, n);
	buf[n] = '\0';
	return buf;
}

/* ---- lexer ---- */

static int is_ident(int c, int first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!first && c >= '0' && c <= '9');
}

/* NUMBER := decimal | 0x-hex | 0-octal, as an unsigned 64-bit value. */
static int lex_number(struct parser *p, struct token *t)
{
	const char *s = p->text;
	size_t i = t->start, end;
	unsigned base = 10;
	uint64_t v = 0;

	end = i;
	while (end < p->textlen && is_ident((unsigned char)s[end], 0))
		end++;
	t->len = end - t->start;
	if (s[i] == '0' && i + 1 < end && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
		base = 16;
		i += 2;
		if (i == end)
			return fail(p, t, -EINVAL, "'0x' is not a number (no hex digits)");
	} else if (s[i] == '0' && i + 1 < end) {
		base = 8;
		i++;
	}
	for (; i < end; i++) {
		unsigned d = sf_digit_value((unsigned char)s[i]);
		char c[2] = { s[i], 0 };

		if (d >= base) {
			struct token at = *t;
			at.col += (unsigned)(i - t->start);
			at.len = 1;
			return fail(p, &at, -EINVAL, "invalid digit '%s' in %s number", c,
				    base == 16 ? "hexadecimal" : base == 8 ? "octal" : "decimal");
		}
		if (v > (UINT64_MAX - d) / base)
			return fail(p, t, -EINVAL, "number does not fit in 64 bits");
		v = v * base + d;
	}
	t->num = v;
	t->base = base;
	t->kind = T_NUM;
	return 0;
}

static const struct {
	char text[3];
	enum tok kind;
} punct[] = {
	{ "&&", T_ANDAND }, { "||", T_OROR }, { "==", T_EQ }, { "!=", T_NE },
	{ "<=", T_LE }, { ">=", T_GE }, { "<", T_LT }, { ">", T_GT },
	{ "!", T_NOT }, { "&", T_AMP }, { "|", T_PIPE }, { "~", T_TILDE },
	{ "-", T_MINUS }, { ":", T_COLON }, { "*", T_STAR }, { "(", T_LPAREN },
	{ ")", T_RPAREN }, { ";", T_END }, { "{", T_LBRACE }, { "}", T_RBRACE },
	{ ",", T_COMMA },
};

/* Every exec'd image of a filtered process lexes its policy again: the
 * table is searched by first byte, without libc (the preload library must
 * not call what the program may define). */
static int lex_punct(struct parser *p, struct token *t)
{
	const char *s = p->text + t->start;
	size_t left = p->textlen - t->start, i;

	for (i = 0; i < sizeof(punct) / sizeof(punct[0]); i++) {
		if (s[0] != punct[i].text[0])
			continue;
		if (punct[i].text[1] && (left < 2 || s[1] != punct[i].text[1]))
			continue;
		t->kind = punct[i].kind;
		t->len = punct[i].text[1] ? 2 : 1;
		return 0;
	}
	t->len = 1;
	if (*s == '\0')
		return fail(p, t, -EINVAL, "unexpected NUL byte");
	if (t->start == 0 && left >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0) {
		t->len = 3;
		return fail(p, t, -EINVAL, "byte order mark (bytes 0xef 0xbb 0xbf) at the start: "
			    "a policy is ASCII text; save the file without one");
	}
	if ((unsigned char)*s >= 0x7f || *s < ' ') {
		/* the excerpt shows such a byte as '?': the message names it */
		static const char hex[] = "0123456789abcdef";
		char b[5] = { '0', 'x', hex[(unsigned char)*s >> 4], hex[*s & 15], 0 };
		return fail(p, t, -EINVAL, "unexpected byte %s, %s (a policy is ASCII text)", b,
			    (unsigned char)*s >= 0x80 ? "not ASCII" : "a control character");
	}
	{
		char c[2] = { *s, 0 };
		return fail(p, t, -EINVAL, "unexpected character '%s'", c);
	}
}

/* Reads the next token into p->tok. */
static int next(struct parser *p)
{
	const char *s = p->text;
	struct token *t = &p->tok;

	for (;;) {
		while (p->pos < p->textlen && (s[p->pos] == ' ' || s[p->pos] == '\t' ||
					       s[p->pos] == '\r'))
			p->pos++;
		if (p->pos < p->textlen && s[p->pos] == '#') {
			while (p->pos < p->textlen && s[p->pos] != '\n')
				p->pos++;
		}
		break;
	}
	p->prev_end = t->start + t->len;
	*t = (struct token){ .start = p->pos };
	t->line = p->line;
	t->col = (unsigned)(p->pos - p->line_start + 1);
	if (p->pos >= p->textlen) {
		t->kind = T_EOF;
		return 0;
	}
	if (s[p->pos] == '\n') {
		t->kind = T_END;
		t->len = 1;
		p->pos++;
		p->line++;
		p->line_start = p->pos;
		return 0;
	}
	if (is_ident((unsigned char)s[p->pos], 1)) {
		size_t end = p->pos;
		while (end < p->textlen && is_ident((unsigned char)s[end], 0))
			end++;
		t->kind = T_IDENT;
		t->len = end - p->pos;
	} else if (s[p->pos] == '@') {
		/* systemd's group names have dashes: @file-system */
		size_t end = p->pos + 1;
		while (end < p->textlen && (is_ident((unsigned char)s[end], 0) || s[end] == '-'))
			end++;
		t->kind = T_AT;
		t->len = end - p->pos;
		if (t->len == 1)
			return fail(p, t, -EINVAL,
				    "expected a group name or 'include' after '@'");
	} else if (s[p->pos] >= '0' && s[p->pos] <= '9') {
		int r = lex_number(p, t);
		if (r)
			return r;
	} else {
		int r = lex_punct(p, t);
		if (r)
			return r;
	}
	p->pos = t->start + t->len;
	return 0;
}

static int tok_is(const struct parser *p, const char *word)
{
	size_t i;

	if (p->tok.kind != T_IDENT)
		return 0;
	for (i = 0; i < p->tok.len; i++)
		if (word[i] != p->text[p->tok.start + i])
			return 0; /* a shorter word's NUL differs too */
	return word[i] == '\0';
}

/* ---- tree building ---- */

static int tree_fail(struct parser *p, const struct token *at, int rc)
{
	return fail(p, at, rc, "%s", rc == -E2BIG ? "too many predicates in one policy"
						  : "out of memory");
}

static int new_node(struct parser *p, const struct token *at, struct sf_node n,
		    uint32_t *out)
{
	int rc = n.kind == SF_N_PRED ? sf_ast_pred(p->ast, n.arg, (enum sf_type)n.type,
						   (enum sf_op)n.op, n.value, out)
				     : sf_ast_not(p->ast, n.left, out);

	return rc ? tree_fail(p, at, rc) : 0;
}

static int push_op(struct parser *p, const struct token *at, uint32_t node)
{
	uint32_t *slot = sf_vec_push(&p->ops, sizeof(node), UINT32_MAX);

	if (!slot)
		return fail(p, at, -ENOMEM, "out of memory");
	*slot = node;
	return 0;
}

/* Pushes the operands of a chain: a node of the chain's own kind (a
 * parenthesised group) contributes its operands, in order. */
static int push_operands(struct parser *p, const struct token *at,
			 uint32_t node, uint8_t kind)
{
	const struct sf_node *n = &SF_VEC_AT(&p->ast->nodes, struct sf_node, node);
	uint32_t l, r;
	int rc;

	if (n->kind != kind)
		return push_op(p, at, node);
	l = n->left;
	r = n->right;
	rc = push_operands(p, at, l, kind);
	return rc ? rc : push_operands(p, at, r, kind);
}

/* ---- grammar ---- */

static int parse_or(struct parser *p, unsigned depth, uint32_t *out);

static const char *const_name_at(const void *ctx, unsigned i)
{
	(void)ctx;
	return i < sf_const_count ? sf_consts[i].name : NULL;
}

/* The current token is an unknown what ("constant"): the error names the
 * closest of name_at's names to name (len bytes) and offers it as the fix,
 * or, when none is close, ends with hint. */
static int unknown_name(struct parser *p, const char *what, const char *name, size_t len,
			const char *(*name_at)(const void *, unsigned), const char *hint)
{
	char buf[64];
	const char *near = sf_closest(name, len, name_at, NULL);

	if (near)
		return fail_fix(p, &p->tok, -EINVAL, near, "unknown %s '%s' (did you mean '%s'?)",
				what, tok_text(p, &p->tok, buf, sizeof(buf)), near);
	return fail(p, &p->tok, -EINVAL, "unknown %s '%s'%s", what,
		    tok_text(p, &p->tok, buf, sizeof(buf)), hint);
}

static int unknown_constant(struct parser *p)
{
	return unknown_name(p, "constant", p->text + p->tok.start, p->tok.len, const_name_at, "");
}

/* The largest and smallest decimal a signed argument of type t reads. */
static void signed_range(enum sf_type t, int64_t *min, int64_t *max)
{
	*max = t == SF_T_S32 ? INT32_MAX : INT64_MAX;
	*min = -*max - 1;
}

/* A decimal number is a number, and must be one the argument can hold; hex
 * and octal numbers and constants are bit patterns of its width (see
 * value_fits).  Only signed types have numbers a pattern of the right
 * width does not spell: `pid == 2147483648` would mean -2147483648. */
static int decimal_out_of_range(struct parser *p, const struct token *at,
				const struct sf_sysarg *arg, unsigned argi, int negated)
{
	char buf[32], name[8];
	int64_t min, max;
	const char *argname = arg->name;

	if (!argname) {
		memcpy(name, "arg0", 5);
		name[3] = (char)('0' + argi);
		argname = name;
	}
	signed_range((enum sf_type)arg->type, &min, &max);
	if (negated)
		return fail(p, at, -EINVAL,
			    "-%s is below the range of '%s', a signed %s-bit argument (%lld to %lld)",
			    tok_text(p, &p->tok, buf, sizeof(buf)), argname,
			    arg->type == SF_T_S32 ? "32" : "64", (long long)min, (long long)max);
	return fail(p, at, -EINVAL,
		    "%s is above the range of '%s', a signed %s-bit argument (%lld to %lld); "
		    "%#llx is the bit pattern",
		    tok_text(p, &p->tok, buf, sizeof(buf)), argname,
		    arg->type == SF_T_S32 ? "32" : "64", (long long)min, (long long)max,
		    (unsigned long long)p->tok.num);
}

/* term := [ '-' | '~' ] ( NUMBER | CONSTANT ) */
static int parse_value_bits(struct parser *p, const struct sf_sysarg *arg, unsigned argi,
			    uint64_t *out);

/* term := [ '-' | '~' ] ( NUMBER | CONSTANT | '(' value ')' ) */
static int parse_term(struct parser *p, const struct sf_sysarg *arg, unsigned argi,
		      uint64_t *v)
{
	enum tok sign = p->tok.kind;
	struct token at = p->tok; /* the term, sign included, for carets */
	char buf[64];
	int rc;

	if (sign == T_MINUS || sign == T_TILDE) {
		if ((rc = next(p)))
			return rc;
	}
	at.len = p->tok.start + p->tok.len - at.start;
	if (p->tok.kind == T_NUM) {
		*v = p->tok.num;
		if (p->tok.base == 10 && sf_type_signed((enum sf_type)arg->type)) {
			int64_t min, max;
			signed_range((enum sf_type)arg->type, &min, &max);
			if (sign == T_MINUS ? *v > (uint64_t)max + 1 : *v > (uint64_t)max)
				return decimal_out_of_range(p, &at, arg, argi, sign == T_MINUS);
		}
		if (sign == T_MINUS && *v > (1ull << 63))
			return fail(p, &at, -EINVAL, "-%s does not fit in 64 bits",
				    tok_text(p, &p->tok, buf, sizeof(buf)));
	} else if (p->tok.kind == T_IDENT) {
		const struct sf_const *c = sf_const_lookup(p->text + p->tok.start, p->tok.len);
		if (!c) {
			return unknown_constant(p);
		}
		*v = c->value;
	} else if (p->tok.kind == T_LPAREN) {
		/* flags & (O_WRONLY|O_RDWR): read as C would, so that the
		 * mask is not taken for (flags & O_WRONLY) | O_RDWR */
		struct token open = p->tok;
		if (p->vdepth >= SF_MAX_DEPTH)
			return fail(p, &open, -E2BIG, "value nested deeper than %d levels",
				    SF_MAX_DEPTH);
		p->vdepth++;
		rc = next(p);
		if (!rc)
			rc = parse_value_bits(p, arg, argi, v);
		p->vdepth--;
		if (rc)
			return rc;
		if (p->tok.kind != T_RPAREN)
			return fail(p, &p->tok, -EINVAL,
				    "expected ')' to close the '(' at column %u, got '%s'",
				    open.col, tok_text(p, &p->tok, buf, sizeof(buf)));
	} else {
		return fail(p, &p->tok, -EINVAL, "expected a number or a constant, got '%s'",
			    tok_text(p, &p->tok, buf, sizeof(buf)));
	}
	if (sign == T_MINUS)
		*v = -*v;
	else if (sign == T_TILDE)
		*v = ~*v;
	return next(p);
}

/* Whether v, a 64-bit two's-complement pattern, fits an argument of type
 * t: either as a signed or as an unsigned number of the type's width, so
 * both -1 and 0xffffffff fit 32 bits (the same bits). */
static int value_fits(uint64_t v, enum sf_type t)
{
	switch (t) {
	case SF_T_S32: case SF_T_U32:
		return v <= UINT32_MAX || v >= (uint64_t)INT32_MIN;
	case SF_T_U16:
		return v <= UINT16_MAX || v >= (uint64_t)(int64_t)INT16_MIN;
	default:
		return 1;
	}
}

/* term { '|' term }, as 64 bits */
static int parse_value_bits(struct parser *p, const struct sf_sysarg *arg, unsigned argi,
			    uint64_t *out)
{
	uint64_t v = 0, term = 0;
	int rc;

	for (;;) {
		if ((rc = parse_term(p, arg, argi, &term)))
			return rc;
		v |= term;
		if (p->tok.kind != T_PIPE)
			break;
		if ((rc = next(p)))
			return rc;
	}
	*out = v;
	return 0;
}

/* value := term { '|' term } */
static int parse_value(struct parser *p, const struct sf_sysarg *arg,
		       unsigned argi, uint64_t *out)
{
	struct token first = p->tok;
	uint64_t v = 0;
	int rc;

	if ((rc = parse_value_bits(p, arg, argi, &v)))
		return rc;
	if (!value_fits(v, arg->type)) {
		char name[16];
		const char *argname = arg->name;
		if (!argname) {
			memcpy(name, "arg0", 5);
			name[3] = (char)('0' + argi);
			argname = name;
		}
		first.len = p->tok.start - first.start;
		while (first.len && (p->text[first.start + first.len - 1] == ' ' ||
				     p->text[first.start + first.len - 1] == '\t'))
			first.len--;
		return fail(p, &first, -EINVAL,
			    "value does not fit '%s', a %s argument",
			    argname, arg->type == SF_T_U16 ? "16-bit" : "32-bit");
	}
	*out = sf_normalize(v, arg->type);
	return 0;
}

static const char *arg_name_at(const void *ctx, unsigned i)
{
	const struct sf_syscall *sc = ctx;
	return i < sc->nargs ? sc->args[i].name : NULL;
}

static int unknown_argument(struct parser *p)
{
	char buf[64], list[160];
	size_t n = 0;
	unsigned i;
	const char *near;

	if (p->sc->nargs == 0)
		return fail(p, &p->tok, -EINVAL, "sys_%s takes no arguments (got '%s')",
			    p->sc->name, tok_text(p, &p->tok, buf, sizeof(buf)));
	for (i = 0; i < p->sc->nargs; i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s, ",
				      p->sc->args[i].name);
	snprintf(list + n, sizeof(list) - n, "arg0..arg%u", p->sc->nargs - 1);
	near = sf_closest(p->text + p->tok.start, p->tok.len, arg_name_at, p->sc);
	return fail_fix(p, &p->tok, -EINVAL, near, "unknown argument '%s' for sys_%s (expected %s)",
			tok_text(p, &p->tok, buf, sizeof(buf)), p->sc->name, list);
}

static const struct {
	enum tok tok;
	enum sf_op op;
} ops[] = {
	{ T_EQ, SF_OP_EQ }, { T_NE, SF_OP_NE }, { T_LT, SF_OP_LT },
	{ T_LE, SF_OP_LE }, { T_GT, SF_OP_GT }, { T_GE, SF_OP_GE },
	{ T_AMP, SF_OP_BITS },
};

/* The type a cast names ("u64" in u64(flags)), or -1. */
static int cast_type(const struct parser *p)
{
	static const struct {
		char name[4];
		enum sf_type type;
	} casts[] = {
		{ "u16", SF_T_U16 }, { "u32", SF_T_U32 }, { "s32", SF_T_S32 },
		{ "u64", SF_T_U64 }, { "s64", SF_T_S64 },
	};
	size_t at = p->tok.start + p->tok.len;
	unsigned i;

	while (at < p->textlen && (p->text[at] == ' ' || p->text[at] == '\t'))
		at++;
	if (p->tok.kind != T_IDENT || p->tok.len != 3 || at >= p->textlen || p->text[at] != '(')
		return -1;
	for (i = 0; i < sizeof(casts) / sizeof(casts[0]); i++)
		if (memcmp(p->text + p->tok.start, casts[i].name, 3) == 0)
			return (int)casts[i].type;
	return -1;
}

/* Whether two types read a register alike: a pointer is an unsigned
 * 64-bit number. */
static int same_reading(enum sf_type a, enum sf_type b)
{
	return a == b || ((a == SF_T_U64 || a == SF_T_PTR) && (b == SF_T_U64 || b == SF_T_PTR));
}

/* TYPE '(' field ')': the register read as TYPE, whatever the argument's
 * declared type; 'argN' may name any of the six registers. */
static int parse_cast(struct parser *p, int type, struct sf_sysarg *arg, int *argi)
{
	char buf[64];
	int rc;

	if ((rc = next(p)) || (rc = next(p))) /* the type, '(' */
		return rc;
	if (p->tok.kind != T_IDENT)
		return fail(p, &p->tok, -EINVAL, "expected an argument name in the cast, got '%s'",
			    tok_text(p, &p->tok, buf, sizeof(buf)));
	*argi = sf_syscall_arg(p->sc, p->text + p->tok.start, p->tok.len);
	if (*argi < 0 && p->tok.len == 4 && memcmp(p->text + p->tok.start, "arg", 3) == 0 &&
	    p->text[p->tok.start + 3] >= '0' && p->text[p->tok.start + 3] < '0' + SF_MAX_ARGS)
		*argi = p->text[p->tok.start + 3] - '0';
	if (*argi < 0)
		return fail(p, &p->tok, -EINVAL, "unknown argument '%s' for sys_%s (a cast takes "
			    "an argument name or arg0..arg5)", tok_text(p, &p->tok, buf, sizeof(buf)),
			    p->sc->name);
	/* For messages; the longest argument name of the table fits. */
	snprintf(arg->name, sizeof arg->name, "%s(%.*s)", sf_type_name((enum sf_type)type),
		 (int)p->tok.len, p->text + p->tok.start);
	arg->type = (unsigned char)type;
	/* the declared type when it reads alike: one spelling per tree */
	if (*argi < p->sc->nargs && same_reading((enum sf_type)type,
						 (enum sf_type)p->sc->args[*argi].type))
		arg->type = p->sc->args[*argi].type;
	if ((rc = next(p)))
		return rc;
	if (p->tok.kind != T_RPAREN)
		return fail(p, &p->tok, -EINVAL, "expected ')' to end the cast, got '%s'",
			    tok_text(p, &p->tok, buf, sizeof(buf)));
	return 0;
}

/* The name messages give an argument: its own, or a cast's ("u64(flags)"),
 * or argN for a register the table does not name. */
static const char *arg_label(const struct sf_sysarg *arg, unsigned argi, char name[8])
{
	if (arg->name[0])
		return arg->name;
	memcpy(name, "arg0", 5);
	name[3] = (char)('0' + argi);
	return name;
}

/* set := '{' value { ',' value } '}': field == v1 || field == v2 ..., made
 * of the nodes every back end knows (n is the predicate, op and value
 * aside). */
static int parse_set(struct parser *p, const struct sf_sysarg *arg, unsigned argi,
		     struct sf_node n, uint32_t *out)
{
	struct token open = p->tok;
	uint32_t base = p->ops.n, node;
	char buf[64];
	int rc;

	n.op = SF_OP_EQ;
	if ((rc = next(p)))
		return rc;
	if (p->tok.kind == T_RBRACE)
		return fail(p, &p->tok, -EINVAL, "an empty set matches no value: write at least "
			    "one value between '{' and '}'");
	for (;;) {
		struct token at = p->tok;
		if ((rc = parse_value(p, arg, argi, &n.value)) || (rc = new_node(p, &at, n, &node)) ||
		    (rc = push_op(p, &at, node)))
			break;
		if (p->tok.kind == T_RBRACE) {
			rc = next(p);
			break;
		}
		if (p->tok.kind != T_COMMA) {
			rc = fail(p, &p->tok, -EINVAL, "expected ',' or '}' to close the '{' at "
				  "column %u, got '%s'", open.col,
				  tok_text(p, &p->tok, buf, sizeof(buf)));
			break;
		}
		if ((rc = next(p)))
			break;
	}
	if (!rc) {
		rc = sf_ast_chain(p->ast, SF_N_OR, &SF_VEC_AT(&p->ops, uint32_t, base),
				  p->ops.n - base, out);
		if (rc)
			rc = tree_fail(p, &open, rc);
	}
	p->ops.n = base;
	return rc;
}

/* What an argument that is no flag word holds, for the warning about
 * `in`; NULL for a flag word, a mode (bits too) or one args.tbl does not
 * describe -- but for its name: every fd, oldfd, epfd... is a
 * descriptor. */
static const char *not_a_flag_word(const struct sf_syscall *sc, unsigned argi)
{
	const struct sf_argdesc *d = sf_argdesc(sc->nr, argi);
	size_t n = argi < sc->nargs ? strlen(sc->args[argi].name) : 0;

	if (!d && n >= 2 && memcmp(sc->args[argi].name + n - 2, "fd", 2) == 0)
		return "a file descriptor";
	switch (d ? d->kind : SF_AK_FLAGS) {
	case SF_AK_FD: return "a file descriptor";
	case SF_AK_DIRFD: return "a directory file descriptor";
	case SF_AK_ENUM: return "one value of a set of constants";
	case SF_AK_NUM: return "a number";
	default: return NULL;
	}
}

/* `fd in 1|2` reads "every bit of fd is among those of 3": fd 0 and 3
 * pass too.  That is minijail's meaning, right for a flag word; on any
 * other argument it is most likely meant as a set of values. */
static void warn_in(struct parser *p, const struct token *pred, const struct sf_sysarg *arg,
		    unsigned argi, size_t vstart, uint64_t v)
{
	const char *what;
	char name[8], set[128], pass[96];
	size_t vlen = p->prev_end - vstart, i, n = 0;
	unsigned bits = 0;
	uint64_t m;

	if (!p->diag || p->skipping || v == 0)
		return; /* no table look-up where no one asked for warnings */
	what = not_a_flag_word(p->sc, argi);
	if (!what)
		return;
	for (m = v; m; m &= m - 1)
		bits++;
	/* the terms as a set: 1|2 -> {1, 2}; a value with parentheses or '~'
	 * is no list of values */
	for (i = 0; i < vlen && n + 3 < sizeof(set); i++) {
		char c = p->text[vstart + i];
		if (c == '(' || c == '~' || c == '-')
			break;
		if (c == '|') {
			set[n++] = ',';
			set[n++] = ' ';
		} else if (c != ' ' && c != '\t') {
			set[n++] = c;
		}
	}
	set[n] = '\0';
	if (bits <= 3) {
		/* every combination of its bits: 0, 1, 2 and 3 for 0x3 */
		uint64_t sub = 0, k = 0, total = 1ull << bits;
		size_t w = 0;
		do {
			w += (size_t)snprintf(pass + w, sizeof(pass) - w, "%s%llu",
					      !k ? "" : k + 1 == total ? " and " : ", ",
					      (unsigned long long)sub);
			sub = (sub - v) & v; /* the next subset of v's bits */
			k++;
		} while (sub && w < sizeof(pass));
	} else {
		if (bits < 32)
			snprintf(pass, sizeof(pass), "%u values", 1u << bits);
		else
			snprintf(pass, sizeof(pass), "2^%u values", bits);
	}
	sf_diag_warning(p->diag, p->ast, p->src, pred->line, pred->col, (unsigned)pred->len,
			"'in' tests bits: '%.*s' passes every %s whose bits are among %#llx "
			"(%s), not only the values written; '%s' is %s, not a flag word: for a "
			"set of values write '%s in {%s}'", (int)pred->len, p->text + pred->start,
			arg_label(arg, argi, name), (unsigned long long)v, pass,
			arg_label(arg, argi, name), what, arg_label(arg, argi, name),
			i == vlen ? set : "VALUE, ...");
}

/* predicate := field op value | field 'in' value | field 'in' set
 * field     := ARGNAME | 'arg0' .. 'arg5' | TYPE '(' ARGNAME | 'arg0' .. 'arg5' ')'
 * TYPE      := 'u16' | 'u32' | 's32' | 'u64' | 's64' */
static int parse_predicate(struct parser *p, uint32_t *out)
{
	struct sf_node n = { .kind = SF_N_PRED };
	struct token at = p->tok;
	struct sf_sysarg arg = { 0 };
	char buf[64];
	unsigned i;
	int argi = 0, rc, cast;

	if (p->tok.kind != T_IDENT)
		return fail(p, &p->tok, -EINVAL, "expected an argument name, '!' or '(', got '%s'",
			    tok_text(p, &p->tok, buf, sizeof(buf)));
	cast = cast_type(p);
	if (cast >= 0) {
		if ((rc = parse_cast(p, cast, &arg, &argi)))
			return rc;
	} else {
		argi = sf_syscall_arg(p->sc, p->text + p->tok.start, p->tok.len);
		if (argi < 0)
			return unknown_argument(p);
		arg = p->sc->args[argi];
	}
	if ((rc = next(p)))
		return rc;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (ops[i].tok == p->tok.kind)
			break;
	if (i < sizeof(ops) / sizeof(ops[0]))
		n.op = (uint8_t)ops[i].op;
	else if (tok_is(p, "in"))
		n.op = SF_OP_IN;
	else
		return fail(p, &p->tok, -EINVAL,
			    "expected a comparison (==, !=, <, <=, >, >=, &, in) after '%s', got '%s'",
			    arg.name, tok_text(p, &p->tok, buf, sizeof(buf)));
	if ((rc = next(p)))
		return rc;
	n.arg = (uint8_t)argi;
	n.type = arg.type;
	if (n.op == SF_OP_IN && p->tok.kind == T_LBRACE)
		return parse_set(p, &arg, (unsigned)argi, n, out);
	{
		size_t vstart = p->tok.start;
		if ((rc = parse_value(p, &arg, (unsigned)argi, &n.value)))
			return rc;
		if (n.op == SF_OP_IN) {
			struct token whole = at;
			whole.len = p->prev_end - at.start;
			warn_in(p, &whole, &arg, (unsigned)argi, vstart, n.value);
		}
	}
	return new_node(p, &at, n, out);
}

/* not_expr := '!' not_expr | '(' expr ')' | predicate */
static int parse_not(struct parser *p, unsigned depth, uint32_t *out)
{
	struct token at = p->tok;
	char buf[64];
	int rc;

	if (at.kind != T_NOT && at.kind != T_LPAREN)
		return parse_predicate(p, out);
	if (depth >= SF_MAX_DEPTH)
		return fail(p, &at, -E2BIG, "expression nested deeper than %d levels",
			    SF_MAX_DEPTH);
	if ((rc = next(p)))
		return rc;
	if (at.kind == T_NOT) {
		struct sf_node n = { .kind = SF_N_NOT };
		/* "!(" is one level, not two: the printer writes every
		 * negation of a predicate so, and what it prints of a policy
		 * this parser took must parse again. */
		unsigned d = p->tok.kind == T_LPAREN ? depth : depth + 1;
		if ((rc = parse_not(p, d, &n.left)))
			return rc;
		return new_node(p, &at, n, out);
	}
	if ((rc = parse_or(p, depth + 1, out)))
		return rc;
	if (p->tok.kind != T_RPAREN)
		return fail(p, &p->tok, -EINVAL,
			    "expected ')' to close the '(' at column %u, got '%s'",
			    at.col, tok_text(p, &p->tok, buf, sizeof(buf)));
	return next(p);
}

/* One level of the operator chains: expr (kind OR, operator '||') or
 * and_expr (kind AND, operator '&&'). */
static int parse_chain(struct parser *p, unsigned depth, uint8_t kind,
		       uint32_t *out)
{
	enum tok op = kind == SF_N_OR ? T_OROR : T_ANDAND;
	uint32_t base = p->ops.n, node;
	struct token at = p->tok;
	int rc;

	for (;;) {
		rc = kind == SF_N_OR ? parse_chain(p, depth, SF_N_AND, &node)
				     : parse_not(p, depth, &node);
		if (!rc)
			rc = push_operands(p, &at, node, kind);
		if (rc)
			return rc;
		if (p->tok.kind != op)
			break;
		if ((rc = next(p)))
			return rc;
	}
	rc = sf_ast_chain(p->ast, (enum sf_kind)kind, &SF_VEC_AT(&p->ops, uint32_t, base),
			  p->ops.n - base, out);
	p->ops.n = base;
	return rc ? tree_fail(p, &at, rc) : 0;
}

/* expr     := and_expr { '||' and_expr }
 * and_expr := not_expr { '&&' not_expr } */
static int parse_or(struct parser *p, unsigned depth, uint32_t *out)
{
	return parse_chain(p, depth, SF_N_OR, out);
}

static const char *syscall_name_at(const void *ctx, unsigned i)
{
	(void)ctx;
	return i < sf_syscall_count ? sf_syscalls[i].name : NULL;
}

/* syscall := 'sys_' NAME | NAME | NUMBER */
static int parse_syscall(struct parser *p, struct sf_rule *r)
{
	const struct sf_syscall *sc;
	char buf[64];

	if (p->tok.kind == T_NUM) {
		sc = p->tok.num < SF_NR_COUNT ? sf_syscall_by_nr((long)p->tok.num) : NULL;
		if (!sc)
			return fail(p, &p->tok, -EINVAL, "no x86-64 syscall has number %s",
				    tok_text(p, &p->tok, buf, sizeof(buf)));
	} else {
		const char *name = p->text + p->tok.start;
		size_t len = p->tok.len;

		sc = sf_syscall_lookup(name, len);
		if (!sc) {
			if (len > 4 && memcmp(name, "sys_", 4) == 0) {
				name += 4;
				len -= 4;
			}
			return unknown_name(p, "syscall", name, len, syscall_name_at,
					    " (see `secfilter syscalls`)");
		}
	}
	r->what = SF_R_SYSCALL;
	r->nr = (uint16_t)sc->nr;
	p->sc = sc;
	return 0;
}

static const char *group_name_at(const void *ctx, unsigned i)
{
	(void)ctx;
	return i < sf_group_count ? sf_groups[i].name : NULL;
}

/* '@' GROUP: one of systemd's groups. */
static int parse_group(struct parser *p, struct sf_rule *r)
{
	const struct sf_group *g = sf_group_lookup(p->text + p->tok.start, p->tok.len);

	if (g) {
		r->what = SF_R_GROUP;
		r->nr = (uint16_t)(g - sf_groups);
		return 0;
	}
	return unknown_name(p, "group", p->text + p->tok.start, p->tok.len, group_name_at,
			    " (see `secfilter syscalls --groups`)");
}

/* directive := 'on_next_syscall' | 'default' | syscall | '*' | '@' GROUP */
static int parse_directive(struct parser *p, struct sf_rule *r)
{
	char buf[64];

	r->line = p->tok.line;
	r->col = p->tok.col;
	r->len = (unsigned)p->tok.len;
	r->src = (uint16_t)p->src;
	if (p->tok.kind == T_STAR) {
		r->what = SF_R_ALL;
		return 0;
	}
	if (p->tok.kind == T_AT)
		return parse_group(p, r);
	if (tok_is(p, "on_next_syscall")) {
		r->what = SF_R_ON_NEXT;
		return 0;
	}
	if (tok_is(p, "default")) {
		r->what = SF_R_DEFAULT;
		return 0;
	}
	if (p->tok.kind == T_IDENT || p->tok.kind == T_NUM)
		return parse_syscall(p, r);
	return fail(p, &p->tok, -EINVAL,
		    "expected a syscall name, '*', '@GROUP', 'default' or 'on_next_syscall', "
		    "got '%s'", tok_text(p, &p->tok, buf, sizeof(buf)));
}

static const char *errno_name_at(const void *ctx, unsigned i)
{
	(void)ctx;
	return i < sf_errno_count ? sf_errnos[i].name : NULL;
}

/* ERRNO := a name of errno.tbl (EPERM) | NUMBER, 1..4095 */
static int parse_errno(struct parser *p, uint16_t *e)
{
	char buf[64];

	if (p->tok.kind == T_NUM) {
		if (p->tok.num < 1 || p->tok.num > SF_ERRNO_MAX)
			return fail(p, &p->tok, -EINVAL,
				    "%s is not an error number (1 to %d)",
				    tok_text(p, &p->tok, buf, sizeof(buf)), SF_ERRNO_MAX);
		*e = (uint16_t)p->tok.num;
		return next(p);
	}
	if (p->tok.kind == T_IDENT) {
		const struct sf_errno *en = sf_errno_lookup(p->text + p->tok.start, p->tok.len);
		if (en) {
			*e = en->value;
			return next(p);
		}
		_Static_assert(SF_ERRNO_MAX == 4095, "the hint below names SF_ERRNO_MAX");
		return unknown_name(p, "error name", p->text + p->tok.start, p->tok.len,
				    errno_name_at,
				    " (expected EPERM, ENOSYS, ... or a number from 1 to 4095)");
	}
	return fail(p, &p->tok, -EINVAL,
		    "expected an error name (EPERM, ENOSYS, ...) or number after 'return', got '%s'",
		    tok_text(p, &p->tok, buf, sizeof(buf)));
}

/* 'return' ERRNO */
static int parse_return(struct parser *p, uint16_t *e)
{
	int rc = next(p);

	return rc ? rc : parse_errno(p, e);
}

/* action := 'kill' | 'log' | 'trap' | 'return' ERRNO.  Returns 1 when the
 * token starts none (nothing read), else 0 or an error. */
static int parse_action(struct parser *p, uint16_t *action)
{
	static const struct {
		const char *word;
		uint16_t action;
	} words[] = { { "kill", SF_ACTION_KILL }, { "log", SF_ACTION_LOG },
		      { "trap", SF_ACTION_TRAP } };
	unsigned i;

	if (tok_is(p, "return"))
		return parse_return(p, action);
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (tok_is(p, words[i].word)) {
			*action = words[i].action;
			return next(p);
		}
	return 1;
}

/* An action that must come here; the error says what was expected. */
static int expect_action(struct parser *p, uint16_t *action, const char *expected)
{
	char buf[64];
	int rc = parse_action(p, action);

	if (rc <= 0)
		return rc;
	return fail(p, &p->tok, -EINVAL, "expected %s, got '%s'", expected,
		    tok_text(p, &p->tok, buf, sizeof(buf)));
}

/* default's rhs := action */
static int parse_default(struct parser *p, struct sf_rule *r)
{
	r->rhs = SF_RHS_ACTION;
	return expect_action(p, &r->action, "kill, log, trap or return ERRNO after 'default:'");
}

static const char *directive_text(const struct sf_rule *r)
{
	switch (r->what) {
	case SF_R_ALL: return "'*'";
	case SF_R_ON_NEXT: return "'on_next_syscall'";
	default: return "a group";
	}
}

/* rhs := '1' | '0' | expr [ 'else' action ] | action */
static int parse_rhs(struct parser *p, struct sf_rule *r)
{
	char buf[64];
	int rc;

	if (r->what == SF_R_DEFAULT)
		return parse_default(p, r);
	if (p->tok.kind == T_NUM) {
		if (p->tok.len != 1 || p->tok.num > 1)
			return fail(p, &p->tok, -EINVAL,
				    "expected 1 (allow), 0 (remove), an action or an "
				    "expression, got '%s'", tok_text(p, &p->tok, buf, sizeof(buf)));
		r->rhs = p->tok.num ? SF_RHS_ALLOW : SF_RHS_REMOVE;
		return next(p);
	}
	if (p->tok.kind == T_END || p->tok.kind == T_EOF)
		return fail(p, &p->tok, -EINVAL,
			    "expected 1 (allow), 0 (remove), an action or an expression after ':'");
	if (r->what == SF_R_ON_NEXT)
		return fail(p, &p->tok, -EINVAL, "'on_next_syscall' takes only 1 or 0");
	/* An argument may not be called kill, log, trap or return: the
	 * table has none, and these words are actions here. */
	r->rhs = SF_RHS_RETURN;
	rc = parse_action(p, &r->action);
	if (rc <= 0)
		return rc;
	if (r->what != SF_R_SYSCALL)
		return fail(p, &p->tok, -EINVAL,
			    "%s takes only 1, 0 or an action (return ERRNO, kill, trap, log), not "
			    "an expression", directive_text(r));
	r->rhs = SF_RHS_EXPR;
	r->span = (uint32_t)p->tok.start;
	if ((rc = parse_or(p, 0, &r->root)))
		return rc;
	r->span_len = (uint32_t)(p->prev_end - r->span);
	if (!tok_is(p, "else"))
		return 0;
	rc = next(p);
	return rc ? rc
		  : expect_action(p, &r->action,
				  "an action (return ERRNO, kill, trap, log) after 'else'");
}

static int parse_text(struct parser *parent, uint32_t src, unsigned depth);

/* The path an @include of `path` in source src opens: relative to src's
 * directory when src is a file, else as it is (the working directory). */
static int include_path(struct parser *p, const char *path, size_t n, char **out,
			size_t *size)
{
	const struct sf_src *s = &SF_VEC_AT(&p->ast->srcs, struct sf_src, p->src);
	size_t dir = 0, i;
	char *buf;

	if (path[0] != '/' && s->is_file)
		for (i = 0; s->name[i]; i++)
			if (s->name[i] == '/')
				dir = i + 1;
	*size = dir + n + 1;
	buf = sf_mem_alloc(*size);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, s->name, dir);
	memcpy(buf + dir, path, n);
	*out = buf;
	return 0;
}

/* include := '@include' PATH -- the path runs to the end of the rule (';',
 * '#' or the end of the line), blanks around it dropped. */
static int parse_include(struct parser *p)
{
	struct token at = p->tok, pt;
	size_t start = p->pos, end, n, size = 0, len = 0, tsize = 0;
	char *path = NULL, *text = NULL, buf[64];
	uint64_t id[2] = { 0, 0 };
	uint32_t src, cyc;
	int rc;

	while (start < p->textlen && (p->text[start] == ' ' || p->text[start] == '\t'))
		start++;
	for (end = start; end < p->textlen && p->text[end] != '\n' && p->text[end] != ';' &&
			  p->text[end] != '#'; end++)
		;
	for (n = end - start; n && (p->text[start + n - 1] == ' ' ||
				    p->text[start + n - 1] == '\t' ||
				    p->text[start + n - 1] == '\r'); n--)
		;
	pt = at;
	pt.start = start;
	pt.col = at.col + (unsigned)(start - at.start);
	pt.len = n;
	if (n == 0)
		return fail(p, &pt, -EINVAL, "expected a path after '@include'");
	if (memchr(p->text + start, '\0', n))
		return fail(p, &pt, -EINVAL, "unexpected NUL byte in the path");
	if (p->how == SF_SRC_NO_INCLUDE)
		return fail(p, &at, -EINVAL, "@include is not available here (a policy given to "
			    "secfilter_apply has no file to be relative to): pass the text of "
			    "the file");
	if (p->depth + 1 > SF_MAX_INCLUDE)
		return fail(p, &at, -E2BIG, "@include nested deeper than %d files", SF_MAX_INCLUDE);
	p->pos = end;
	if ((rc = include_path(p, p->text + start, n, &path, &size)))
		return fail(p, &pt, rc, "out of memory");
	rc = sf_file_read(path, SF_MAX_TEXT - p->ast->text_total + 1, &text, &len, &tsize, id);
	if (rc) {
		rc = fail(p, &pt, rc == -ENOMEM ? -ENOMEM : -EINVAL, "cannot read '%s': %s", path,
			  sf_file_error(-rc));
		sf_mem_free(path, size);
		return rc;
	}
	if ((cyc = sf_ast_reading(p->ast, p->src, id)) != SF_NO_SRC) {
		const char *name = SF_VEC_AT(&p->ast->srcs, struct sf_src, cyc).name;
		if (cyc == p->src)
			rc = fail(p, &pt, -EINVAL, "@include cycle: '%s' is this file",
				  tok_text(p, &pt, buf, sizeof(buf)));
		else
			rc = fail(p, &pt, -EINVAL, "@include cycle: '%s' is %s, which includes "
				  "this file", tok_text(p, &pt, buf, sizeof(buf)), name);
	} else if (len > SF_MAX_TEXT - p->ast->text_total) {
		rc = fail(p, &pt, -E2BIG, "'%s' makes the policy text over 1 MiB, includes "
			  "together", path);
	}
	if (!rc)
		rc = sf_ast_file_src(p->ast, path, size, text, tsize, len, id, p->src, at.line,
				     &src);
	if (rc) {
		if (rc == -ENOMEM)
			fail(p, &pt, rc, "out of memory");
		sf_mem_free(text, tsize);
		sf_mem_free(path, size);
		return rc;
	}
	if ((rc = parse_text(p, src, p->depth + 1)))
		return rc;
	return next(p);
}

/* ---- files and ports (language v3) ----
 * directive := 'fs.' RIGHT ':' PATH { PATH } | 'net.' RIGHT ':' PORT { PORT }
 *            | 'landlock.layer' ':' '1'
 * A path is read byte by byte, as @include's is: the lexer's tokens do
 * not cover '/', '.' or '-'. */

#define LL_LAYER "landlock.layer"

static const char *ll_name_at(const void *ctx, unsigned i)
{
	(void)ctx;
	return i < sf_ll_right_count ? sf_ll_rights[i].name
	       : i == sf_ll_right_count ? LL_LAYER : NULL;
}

/* An identifier followed by '.': fs.read, net.connect, landlock.layer. */
static int dotted(const struct parser *p)
{
	size_t end = p->tok.start + p->tok.len;

	return p->tok.kind == T_IDENT && end < p->textlen && p->text[end] == '.';
}

static int path_end(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ';' || c == '#';
}

/* The path at p->pos into *t (its bytes, quotes excluded, in *path and
 * *len); p->pos moves past it. */
static int lex_path(struct parser *p, struct token *t, const char **path, uint32_t *len)
{
	const char *s = p->text;
	size_t i = p->pos, j = i, k;

	*t = (struct token){ .start = i, .line = p->line, .col = (unsigned)(i - p->line_start + 1) };
	if (s[i] == '"') {
		for (j = i + 1; j < p->textlen && s[j] != '"' && s[j] != '\n'; j++)
			;
		t->len = j - i;
		if (j >= p->textlen || s[j] != '"')
			return fail(p, t, -EINVAL, "unterminated quoted path (it ends at a '\"' "
				    "on the same line)");
		t->len++;
		*path = s + i + 1;
		*len = (uint32_t)(j - i - 1);
		p->pos = j + 1;
		if (p->pos < p->textlen && !path_end(s[p->pos])) {
			struct token after = *t;
			after.start = p->pos;
			after.col += (unsigned)t->len;
			after.len = 1;
			return fail(p, &after, -EINVAL, "expected a blank, ';' or the end of the "
				    "line after a quoted path");
		}
	} else {
		while (j < p->textlen && !path_end(s[j]))
			j++;
		t->len = j - i;
		*path = s + i;
		*len = (uint32_t)(j - i);
		p->pos = j;
	}
	for (k = 0; k < *len; k++)
		if ((unsigned char)(*path)[k] < ' ' && (*path)[k] != '\t')
			return fail(p, t, -EINVAL, "a control character or NUL byte in a path");
	if (*len == 0)
		return fail(p, t, -EINVAL, "an empty path");
	if ((*path)[0] != '/') {
		char buf[64];
		struct token w = *t;
		w.kind = T_IDENT;
		w.len = *len < sizeof(buf) - 1 ? *len : sizeof(buf) - 1;
		w.start = (size_t)(*path - s);
		return fail(p, t, -EINVAL, "relative path '%s': fs. paths are absolute (Landlock "
			    "opens them where the policy is enforced, in whatever directory that "
			    "is)", tok_text(p, &w, buf, sizeof(buf)));
	}
	return 0;
}

/* Appends an item of r (*n so far). */
static int ll_item(struct parser *p, const struct token *at, struct sf_rule *r, unsigned *n,
		   const struct sf_ll_item *it)
{
	uint32_t idx;
	int rc = sf_ast_ll_item(p->ast, it, &idx);

	if (rc)
		return fail(p, at, rc, "%s", rc == -E2BIG ? "too many paths and ports"
							  : "out of memory");
	if (!(*n)++)
		r->root = idx;
	return 0;
}

/* The rule's last item, so marked. */
static void ll_last(struct parser *p)
{
	SF_VEC_AT(&p->ast->ll, struct sf_ll_item, p->ast->ll.n - 1).last = 1;
}

/* PATH { PATH }, from p->pos (right after the ':'). */
static int parse_paths(struct parser *p, struct sf_rule *r, const char *name)
{
	struct token at;
	unsigned n = 0;
	int rc;

	for (;;) {
		struct sf_ll_item it = { 0 };
		while (p->pos < p->textlen && (p->text[p->pos] == ' ' || p->text[p->pos] == '\t' ||
					       p->text[p->pos] == '\r'))
			p->pos++;
		if (p->pos >= p->textlen || path_end(p->text[p->pos]))
			break;
		if ((rc = lex_path(p, &at, &it.path, &it.len)) || (rc = ll_item(p, &at, r, &n, &it)))
			return rc;
	}
	if (!n) {
		at = (struct token){ .start = p->pos, .len = 1, .line = p->line,
				     .col = (unsigned)(p->pos - p->line_start + 1) };
		return fail(p, &at, -EINVAL, "expected one or more absolute paths after '%s:'",
			    name);
	}
	ll_last(p);
	return next(p);
}

/* PORT { PORT } */
static int parse_ports(struct parser *p, struct sf_rule *r, const char *name)
{
	char buf[64];
	unsigned n = 0;
	int rc;

	if ((rc = next(p)))
		return rc;
	while (p->tok.kind == T_NUM) {
		struct sf_ll_item it = { .port = (uint16_t)p->tok.num };
		if (p->tok.num > 65535)
			return fail(p, &p->tok, -EINVAL, "port %s is out of range (0 to 65535)",
				    tok_text(p, &p->tok, buf, sizeof(buf)));
		if ((rc = ll_item(p, &p->tok, r, &n, &it)) || (rc = next(p)))
			return rc;
	}
	if (p->tok.kind != T_END && p->tok.kind != T_EOF)
		return fail(p, &p->tok, -EINVAL, "expected a TCP port (0 to 65535), got '%s'",
			    tok_text(p, &p->tok, buf, sizeof(buf)));
	if (!n)
		return fail(p, &p->tok, -EINVAL, "expected one or more TCP ports after '%s:'", name);
	ll_last(p);
	return 0;
}

static int unknown_ll_name(struct parser *p, const struct token *at)
{
	p->tok = *at;
	return unknown_name(p, "rule", p->text + at->start, at->len, ll_name_at,
			    " (files: fs.read, fs.write, fs.exec or a single right such as "
			    "fs.make_dir; ports: net.bind, net.connect)");
}

/* 'landlock.layer' ':' '1' */
static int parse_layer(struct parser *p)
{
	int rc = next(p);

	if (rc)
		return rc;
	if (p->tok.kind != T_NUM || p->tok.num != 1 || p->tok.len != 1)
		return fail(p, &p->tok, -EINVAL, "'" LL_LAYER "' takes only 1");
	rc = next(p);
	if (!rc && p->tok.kind != T_END && p->tok.kind != T_EOF)
		return fail(p, &p->tok, -EINVAL, "expected ';' or a new line after '" LL_LAYER
			    ": 1'");
	return rc;
}

/* Out of line and cold: parse_rule is on every filtered start's path,
 * and the library's hot text has a size to keep (Makefile, hot.ld). */
static __attribute__((noinline, cold)) int parse_ll_rule(struct parser *p)
{
	struct sf_rule r = { 0 };
	struct token name = p->tok;
	const struct sf_ll_right *rt = NULL;
	char nbuf[64];
	unsigned i;
	int rc;

	name.len++;
	while (name.start + name.len < p->textlen && is_ident((unsigned char)p->text[name.start +
									     name.len], 0))
		name.len++;
	p->pos = name.start + name.len;
	for (i = 0; i < sf_ll_right_count; i++)
		if (strlen(sf_ll_rights[i].name) == name.len &&
		    memcmp(sf_ll_rights[i].name, p->text + name.start, name.len) == 0)
			rt = &sf_ll_rights[i];
	r.line = name.line;
	r.col = name.col;
	r.len = (unsigned)name.len;
	r.src = (uint16_t)p->src;
	r.rhs = SF_RHS_ALLOW;
	if (!rt && (name.len != sizeof(LL_LAYER) - 1 ||
		    memcmp(p->text + name.start, LL_LAYER, name.len) != 0))
		return unknown_ll_name(p, &name);
	/* the ':' by hand: what follows it is no token of the lexer's */
	while (p->pos < p->textlen && (p->text[p->pos] == ' ' || p->text[p->pos] == '\t'))
		p->pos++;
	if (p->pos >= p->textlen || p->text[p->pos] != ':') {
		struct token at = { .start = p->pos, .len = 1, .line = p->line,
				    .col = (unsigned)(p->pos - p->line_start + 1) };
		return fail(p, &at, -EINVAL, "expected ':' after '%s'",
			    tok_text(p, &name, nbuf, sizeof(nbuf)));
	}
	p->pos++;
	if (!rt) {
		r.what = SF_R_LAYER;
		rc = parse_layer(p);
	} else {
		r.what = rt->net ? SF_R_NET : SF_R_FS;
		r.nr = (uint16_t)(rt - sf_ll_rights);
		rc = rt->net ? parse_ports(p, &r, rt->name) : parse_paths(p, &r, rt->name);
	}
	if (rc)
		return rc;
	rc = sf_ast_rule(p->ast, &r);
	if (rc)
		return fail(p, &name, rc, "%s", rc == -E2BIG ? "too many rules" : "out of memory");
	return 0;
}

/* rule := directive ':' rhs | include */
static int parse_rule(struct parser *p)
{
	struct sf_rule r = { 0 };
	char buf[64];
	int rc;

	struct token directive = p->tok;
	char dbuf[64];

	if (p->tok.kind == T_AT && p->tok.len == 8 &&
	    memcmp(p->text + p->tok.start, "@include", 8) == 0)
		return parse_include(p);
	if (dotted(p))
		return parse_ll_rule(p);
	if ((rc = parse_directive(p, &r)) || (rc = next(p)))
		return rc;
	if (p->tok.kind != T_COLON)
		return fail(p, &p->tok, -EINVAL, "expected ':' after '%s', got '%s'",
			    tok_text(p, &directive, dbuf, sizeof(dbuf)),
			    tok_text(p, &p->tok, buf, sizeof(buf)));
	if ((rc = next(p)) || (rc = parse_rhs(p, &r)))
		return rc;
	if (p->tok.kind != T_END && p->tok.kind != T_EOF)
		return fail(p, &p->tok, -EINVAL,
			    "unexpected '%s' after the rule (expected %s';' or a new line)",
			    tok_text(p, &p->tok, buf, sizeof(buf)),
			    r.rhs == SF_RHS_EXPR && !r.action ? "'||', '&&', 'else', " : "");
	rc = sf_ast_rule(p->ast, &r);
	if (rc)
		return fail(p, &p->tok, rc, "%s", rc == -E2BIG ? "too many rules" : "out of memory");
	return 0;
}

/* After an error: on to the end of its rule (tok a newline or ';', or
 * the end of the text), as a compiler goes on at the next statement.  A
 * rule is one line, so what follows is read as it would be anyway. */
static void skip_rule(struct parser *p)
{
	p->skipping = 1;
	p->ops.n = 0;
	while (p->tok.kind != T_END && !(p->tok.kind == T_EOF && p->tok.start >= p->textlen))
		if (next(p)) /* a byte the lexer refuses: step over it */
			p->pos = p->tok.start + (p->tok.len ? p->tok.len : 1);
	p->skipping = 0;
}

/* policy := { rule }   (rules end at ';' or a newline; blank rules are ignored)
 * Returns the first error; with diagnostics, every rule is read. */
static int parse_text(struct parser *parent, uint32_t src, unsigned depth)
{
	const struct sf_src *s = &SF_VEC_AT(&parent->ast->srcs, struct sf_src, src);
	struct parser p = {
		.source = s->name, .text = s->text, .textlen = s->len, .line = 1,
		.src = src, .how = parent->how, .depth = depth,
		.ast = parent->ast, .err = parent->err, .diag = parent->diag,
	};
	int rc = next(&p), first = 0;

	for (;;) {
		if (rc) {
			if (!first)
				first = rc;
			if (!p.diag || rc == -ENOMEM)
				break;
			skip_rule(&p);
			rc = 0;
		} else if (p.tok.kind == T_EOF) {
			break;
		} else if (p.tok.kind == T_END) {
			rc = next(&p);
		} else {
			rc = parse_rule(&p);
			if (!rc && p.tok.kind == T_END)
				rc = next(&p);
		}
	}
	sf_vec_free(&p.ops, sizeof(uint32_t));
	return first;
}

int sf_parse(struct sf_ast *ast, uint32_t src, int how, struct sf_error *err)
{
	return sf_parse_diag(ast, src, how, err, NULL);
}

int sf_parse_diag(struct sf_ast *ast, uint32_t src, int how, struct sf_error *err,
		  struct sf_diag *d)
{
	struct parser top = { .how = how, .ast = ast, .err = err, .diag = d };
	int rc = sf_front_start(ast, src, how, "policy text", err);

	return rc ? rc : parse_text(&top, src, 0);
}
