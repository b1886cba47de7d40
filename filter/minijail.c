/* minijail policy files (.policy), read as minijail's policy compiler,
 * tools/compile_seccomp_policy.py, reads them, into the tree the parser
 * builds (internal.h); the rest is shared.  secfilter(7) "OTHER
 * SYNTAXES" says what they mean and where secfilter must differ.
 *
 * The lexer follows the compiler's token table: the same token kinds,
 * tried in the same order at each position, so that a line splits into
 * the same tokens.  The compiler's meaning:
 *  - every statement naming a syscall appends its filters to that
 *    syscall's list (a syscall defined twice has its filters OR-ed, in
 *    effect: they are tried in order);
 *  - a list is tried in order, the first filter whose expression matches
 *    gives its action; one without an expression always matches, and may
 *    only come last; the policy's default action (kill, or @default's)
 *    ends every list that does not end so;
 *  - a list that ends with `allow` allows the syscall whatever comes before
 *    (the compiler does so: an unconditional allow is the syscall's whole
 *    filter);
 *  - expressions compare the whole 64-bit register, unsigned: u64(argN);
 *  - @denylist (the compiler's --denylist): syscalls not named run, every
 *    action must be `return`, and the rest gets EPERM.
 * Such a list becomes our filters, which stop at the first one that is
 * false: a filter with an action A matches where A's expression does and
 * no earlier allowing one did, and the last one, false where none
 * matched, gives the list's final action. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "mem.h"

#define DEPTH_LIMIT 10 /* the compiler's --include-depth-limit default */
#define MAX_ARGS 7     /* the compiler's MAX_SYSCALL_ARGUMENTS (arm has 7) */
#define ALLOW 0        /* SF_ACTION_RUN: an `allow` */

enum mt {
	M_COMMENT, M_WHITESPACE, M_CONTINUATION, M_DEFAULT, M_INCLUDE, M_FREQUENCY,
	M_DENYLIST, M_PATH, M_NUM, M_COLON, M_SEMICOLON, M_COMMA, M_TILDE, M_LPAREN,
	M_RPAREN, M_LBRACE, M_RBRACE, M_RBRACKET, M_LBRACKET, M_OR, M_AND, M_BOR, M_OP,
	M_EQUAL, M_ARGUMENT, M_RETURN, M_ACTION, M_IDENT,
};

struct mtok {
	uint8_t type;
	size_t start;
	unsigned len, line, col;
};

/* One file being read: its tokens, a statement (one logical line) at a
 * time. */
struct mfile {
	uint32_t src;
	const char *text;
	size_t len;
	unsigned depth;      /* 1 for the policy given */
	struct sf_vec toks;  /* struct mtok of the statement */
	size_t pos;          /* where the next line starts */
	unsigned line;       /* its number */
	int has_denylist;
	uint32_t cur;        /* next token of the statement */
};

/* A filter of a syscall's list. */
struct mfilter {
	uint32_t expr;       /* node of the expression, SF_NO_SRC if none */
	uint16_t action;     /* ALLOW, an errno, SF_ACTION_KILL/_TRAP/_LOG */
	uint16_t src;
	unsigned line, col, len; /* the colon of its statement */
};

struct mj {
	struct sf_front f; /* first: sf_front_state fills it; f.nr: struct mfilter */
	int how;
	int denylist;
	uint16_t dflt;       /* the policy's default action */
	uint16_t order[SF_NR_COUNT];      /* syscalls in order of first mention */
	unsigned norder;
};

static int mfail(struct mj *m, const struct mfile *f, const struct mtok *t, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int mfail(struct mj *m, const struct mfile *f, const struct mtok *t, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sf_error_src(m->f.err, -EINVAL, m->f.ast, f->src, t ? t->line : f->line,
		     t ? t->col : 1, t && t->len ? t->len : 1, "%s", msg);
	return -EINVAL;
}

static int oom(struct mj *m, const struct mfile *f, int rc)
{
	sf_error_src(m->f.err, rc, m->f.ast, f ? f->src : 0, f ? f->line : 0, 1, 1, "%s",
		     rc == -E2BIG ? "policy too large" : "out of memory");
	return rc;
}

/* ---- lexer: the compiler's token table, in its order ---- */

static int is_word(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

static int is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r' || c == '\n';
}

/* Python's \b between s[i-1] and s[i] (both within [0, n]). */
static int boundary(const char *s, size_t n, size_t i)
{
	int before = i > 0 && is_word((unsigned char)s[i - 1]);
	int after = i < n && is_word((unsigned char)s[i]);

	return before != after;
}

/* s[i..] starts with word w, \b on both sides. */
static size_t word_at(const char *s, size_t n, size_t i, const char *w)
{
	size_t k = strlen(w);

	if (n - i < k || memcmp(s + i, w, k) != 0 || !boundary(s, n, i) || !boundary(s, n, i + k))
		return 0;
	return k;
}

static size_t at_word(const char *s, size_t n, size_t i, const char *w)
{
	size_t k = strlen(w);

	if (n - i < k || memcmp(s + i, w, k) != 0 || !boundary(s, n, i + k))
		return 0;
	return k;
}

static size_t digits(const char *s, size_t n, size_t i, int base)
{
	size_t k = i;

	while (k < n) {
		char c = s[k];
		int ok = base == 16 ? (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
				      (c >= 'A' && c <= 'F')
			 : base == 8 ? c >= '0' && c <= '7' : c >= '0' && c <= '9';
		if (!ok)
			break;
		k++;
	}
	return k - i;
}

/* The token at s[i] of a line s[0, n): its kind and length, or 0. */
static size_t lex1(const char *s, size_t n, size_t i, enum mt *type)
{
	static const struct { char text[3]; enum mt type; } punct[] = {
		{ ":", M_COLON }, { ";", M_SEMICOLON }, { ",", M_COMMA }, { "~", M_TILDE },
		{ "(", M_LPAREN }, { ")", M_RPAREN }, { "{", M_LBRACE }, { "}", M_RBRACE },
		{ "]", M_RBRACKET }, { "[", M_LBRACKET }, { "||", M_OR }, { "&&", M_AND },
		{ "|", M_BOR },
	};
	static const char *const ops[] = { "&", "in", "==", "!=", "<=", "<", ">=", ">" };
	static const char *const actions[] = { "allow", "kill-process", "kill-thread", "kill",
					       "trap", "trace", "log", "user-notify" };
	size_t k, j;
	unsigned u;

	if (s[i] == '#') {
		*type = M_COMMENT;
		return n - i;
	}
	for (k = i; k < n && is_space((unsigned char)s[k]); k++)
		;
	if (k > i) {
		*type = M_WHITESPACE;
		return k - i;
	}
	if (s[i] == '\\' && i + 1 == n) {
		*type = M_CONTINUATION;
		return 1;
	}
	/* @default\b, @include\b, @frequency\b: a \b after them only */
	if ((k = at_word(s, n, i, "@default")) || (k = at_word(s, n, i, "@include")) ||
	    (k = at_word(s, n, i, "@frequency"))) {
		*type = s[i + 1] == 'd' ? M_DEFAULT : s[i + 1] == 'i' ? M_INCLUDE : M_FREQUENCY;
		return k;
	}
	if (n - i == 9 && memcmp(s + i, "@denylist", 9) == 0) {
		*type = M_DENYLIST;
		return 9;
	}
	j = i + (s[i] == '.');
	if (j < n && s[j] == '/' && j + 1 < n && !is_space((unsigned char)s[j + 1])) {
		for (k = j + 1; k < n && !is_space((unsigned char)s[k]); k++)
			;
		*type = M_PATH;
		return k - i;
	}
	j = i + (s[i] == '-');
	if (j < n && s[j] == '0' && j + 1 < n && (s[j + 1] == 'x' || s[j + 1] == 'X') &&
	    (k = digits(s, n, j + 2, 16))) {
		*type = M_NUM;
		return j + 2 + k - i;
	}
	if (j < n && s[j] == '0' && (k = digits(s, n, j + 1, 8))) {
		*type = M_NUM;
		return j + 1 + k - i;
	}
	if ((k = digits(s, n, j, 10))) {
		*type = M_NUM;
		return j + k - i;
	}
	for (u = 0; u < sizeof(punct) / sizeof(punct[0]); u++) {
		k = strlen(punct[u].text);
		if (n - i >= k && memcmp(s + i, punct[u].text, k) == 0) {
			*type = punct[u].type;
			/* || before |, && before the & of OP: the table's order
			 * puts OR and AND first */
			if (punct[u].type == M_BOR && n - i >= 2 && s[i + 1] == '|')
				continue;
			return k;
		}
	}
	if (n - i >= 2 && s[i] == '&' && s[i + 1] == '&') {
		*type = M_AND;
		return 2;
	}
	for (u = 0; u < sizeof(ops) / sizeof(ops[0]); u++) {
		k = strlen(ops[u]);
		if (ops[u][0] == 'i' ? word_at(s, n, i, "in") == 2
				     : n - i >= k && memcmp(s + i, ops[u], k) == 0) {
			*type = M_OP;
			return k;
		}
	}
	if (s[i] == '=') {
		*type = M_EQUAL;
		return 1;
	}
	if (n - i > 3 && memcmp(s + i, "arg", 3) == 0 && boundary(s, n, i) &&
	    (k = digits(s, n, i + 3, 10)) && boundary(s, n, i + 3 + k)) {
		*type = M_ARGUMENT;
		return 3 + k;
	}
	if ((k = word_at(s, n, i, "return"))) {
		*type = M_RETURN;
		return k;
	}
	for (u = 0; u < sizeof(actions) / sizeof(actions[0]); u++)
		if ((k = word_at(s, n, i, actions[u]))) {
			*type = M_ACTION;
			return k;
		}
	if ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || s[i] == '_') {
		for (k = i + 1; k < n && (is_word((unsigned char)s[k]) || s[k] == '-' || s[k] == '@');
		     k++)
			;
		*type = M_IDENT;
		return k - i;
	}
	return 0;
}

/* Reads the next statement (a line, and the lines its trailing '\'
 * continues) into f->toks.  Returns 1 when there is one, 0 at the end, or
 * an error. */
static int next_statement(struct mj *m, struct mfile *f)
{
	f->toks.n = 0;
	f->cur = 0;
	while (f->pos < f->len) {
		size_t ls = f->pos, le = ls, i;
		int continued;

		/* lines end at \n (a \r before it is a blank): the lines
		 * of messages are counted so too */
		while (le < f->len && f->text[le] != '\n')
			le++;
		f->pos = le < f->len ? le + 1 : le;
		if (le > ls && f->text[le - 1] == '\r')
			le--;
		f->line++;
		continued = le > ls && f->text[le - 1] == '\\';
		for (i = ls; i < le;) {
			enum mt type = M_COMMENT;
			size_t k = lex1(f->text + ls, le - ls, i - ls, &type);
			struct mtok t = { (uint8_t)type, i, (unsigned)k, f->line,
					  (unsigned)(i - ls + 1) };
			struct mtok *slot;

			if (k == 0) {
				t.len = (unsigned)(le - i);
				return mfail(m, f, &t, "invalid token");
			}
			i += k;
			if (type == M_COMMENT || type == M_WHITESPACE || type == M_CONTINUATION)
				continue;
			slot = sf_vec_push(&f->toks, sizeof(t), 1u << 20);
			if (!slot)
				return oom(m, f, -ENOMEM);
			*slot = t;
		}
		if (!continued && f->toks.n)
			return 1;
	}
	return f->toks.n != 0;
}

static struct mtok *peek(struct mfile *f)
{
	return f->cur < f->toks.n ? &SF_VEC_AT(&f->toks, struct mtok, f->cur) : NULL;
}

static struct mtok *take(struct mfile *f)
{
	struct mtok *t = peek(f);

	if (t)
		f->cur++;
	return t;
}

/* Takes the next token when it is a type one: true when it did. */
static int take_if(struct mfile *f, enum mt type)
{
	return peek(f) && peek(f)->type == type && take(f);
}

static int tok_eq(const struct mfile *f, const struct mtok *t, const char *w)
{
	return t && t->len == strlen(w) && memcmp(f->text + t->start, w, t->len) == 0;
}

/* The last token of the statement, for "missing ..." errors at its end. */
static struct mtok *end_tok(struct mfile *f)
{
	return f->toks.n ? &SF_VEC_AT(&f->toks, struct mtok, f->toks.n - 1) : NULL;
}

static int missing(struct mj *m, struct mfile *f, const char *what)
{
	struct mtok *t = end_tok(f), at;

	if (!t)
		return mfail(m, f, NULL, "%s", what);
	at = *t;
	at.col += at.len;
	at.len = 1;
	return mfail(m, f, &at, "%s", what);
}

/* Takes the next token into *t; it must be a type one.  The error says
 * empty when there is none, invalid when it is of another type. */
static int expect(struct mj *m, struct mfile *f, enum mt type, const char *empty,
		  const char *invalid, struct mtok **t)
{
	*t = take(f);
	if (!*t)
		return missing(m, f, empty);
	return (*t)->type == type ? 0 : mfail(m, f, *t, "%s", invalid);
}

/* ---- constants ---- */

/* single-constant := IDENTIFIER | NUMERIC_CONSTANT, as a 64-bit word. */
static int single_constant(struct mj *m, struct mfile *f, struct mtok *t, uint64_t *v)
{
	const char *s;
	int neg, base = 10;
	size_t i, n;
	uint64_t x = 0;

	if (!t)
		return missing(m, f, "missing constant");
	s = f->text + t->start;
	if (t->type == M_IDENT) {
		const struct sf_const *c = sf_const_lookup(s, t->len);
		const struct sf_errno *e = c ? NULL : sf_errno_lookup(s, t->len);
		if (!c && !e)
			return mfail(m, f, t, "invalid constant: secfilter's table has no '%.*s'",
				     (int)t->len, s);
		*v = c ? c->value : e->value;
		return 0;
	}
	if (t->type != M_NUM)
		return mfail(m, f, t, "invalid constant");
	neg = s[0] == '-';
	i = (size_t)neg;
	n = t->len;
	if (n - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X'))
		base = 16, i += 2;
	else if (n - i > 1 && s[i] == '0')
		base = 8, i++;
	for (; i < n; i++) {
		unsigned d = s[i] <= '9' ? (unsigned)(s[i] - '0')
			     : (unsigned)((s[i] | 0x20) - 'a' + 10);
		/* the compiler keeps the exact value: past 64 bits is an error */
		if (x > (UINT64_MAX - d) / (unsigned)base)
			return mfail(m, f, t, "unsigned overflow");
		x = x * (unsigned)base + d;
	}
	if (neg && x > (1ull << 63))
		return mfail(m, f, t, "signed underflow");
	*v = neg ? -x : x;
	return 0;
}

static int parse_value(struct mj *m, struct mfile *f, uint64_t *v);

/* constant := [ '~' ] ( '(' value ')' | single-constant ) */
static int parse_constant(struct mj *m, struct mfile *f, uint64_t *v)
{
	struct mtok *t = peek(f);
	int negate = 0, rc;

	if (t && t->type == M_TILDE) {
		negate = 1;
		take(f);
		t = peek(f);
		if (!t)
			return missing(m, f, "empty complement");
		if (t->type == M_TILDE)
			return mfail(m, f, t, "invalid double complement");
	}
	if (t && t->type == M_LPAREN) {
		struct mtok *open = take(f);
		if ((rc = parse_value(m, f, v)))
			return rc;
		t = peek(f);
		if (!t || t->type != M_RPAREN)
			return mfail(m, f, open, "unclosed parenthesis");
		take(f);
	} else {
		if ((rc = single_constant(m, f, t, v)))
			return rc;
		take(f);
	}
	if (negate)
		*v = ~*v;
	return 0;
}

/* value := constant { '|' constant } */
static int parse_value(struct mj *m, struct mfile *f, uint64_t *v)
{
	uint64_t c;
	int rc;

	*v = 0;
	if (!peek(f))
		return missing(m, f, "empty constant");
	do {
		if ((rc = parse_constant(m, f, &c)))
			return rc;
		*v |= c;
	} while (take_if(f, M_BOR));
	return 0;
}

/* ---- expressions: DNF over 64-bit registers ---- */

static int push_op(struct mj *m, const struct mfile *f, uint32_t node)
{
	uint32_t *slot = sf_vec_push(&m->f.ops, sizeof(node), UINT32_MAX);

	if (!slot)
		return oom(m, f, -ENOMEM);
	*slot = node;
	return 0;
}

static int chain(struct mj *m, const struct mfile *f, enum sf_kind kind, uint32_t base,
		 uint32_t *out)
{
	int rc = sf_ast_chain(m->f.ast, kind, &SF_VEC_AT(&m->f.ops, uint32_t, base),
			      m->f.ops.n - base, out);

	m->f.ops.n = base;
	return rc ? oom(m, f, rc) : 0;
}

/* atom := ARGUMENT OP value */
static int parse_atom(struct mj *m, struct mfile *f, uint32_t *out)
{
	static const struct { const char *text; enum sf_op op; } ops[] = {
		{ "==", SF_OP_EQ }, { "!=", SF_OP_NE }, { "<", SF_OP_LT }, { "<=", SF_OP_LE },
		{ ">", SF_OP_GT }, { ">=", SF_OP_GE }, { "&", SF_OP_BITS }, { "in", SF_OP_IN },
	};
	struct mtok *arg = take(f), *op;
	unsigned idx = 0, i;
	uint64_t v;
	int rc;

	if (!arg)
		return missing(m, f, "missing argument");
	if (arg->type != M_ARGUMENT)
		return mfail(m, f, arg, "invalid argument (expected arg0 to arg5)");
	op = take(f);
	if (!op)
		return missing(m, f, "missing operator");
	if (op->type != M_OP)
		return mfail(m, f, op, "invalid operator (expected ==, !=, <, <=, >, >=, & or in)");
	if ((rc = parse_value(m, f, &v)))
		return rc;
	for (i = 3; i < arg->len && idx < 100; i++)
		idx = idx * 10 + (unsigned)(f->text[arg->start + i] - '0');
	if (idx >= MAX_ARGS)
		return mfail(m, f, arg, "invalid argument");
	if (idx >= SF_MAX_ARGS)
		return mfail(m, f, arg, "x86-64 syscalls have six arguments, arg0 to arg5 (the "
			     "compiler takes arg6 for arm, and the kernel would refuse its program "
			     "here)");
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (tok_eq(f, op, ops[i].text))
			break;
	/* minijail compares the whole register, unsigned: u64(argN) */
	rc = sf_ast_pred(m->f.ast, idx, SF_T_U64, ops[i].op, v, out);
	return rc ? oom(m, f, rc) : 0;
}

/* argument-expression := clause { '||' clause }; clause := atom { '&&' atom } */
static int parse_expression(struct mj *m, struct mfile *f, uint32_t *out)
{
	uint32_t obase = m->f.ops.n, abase, node;
	int rc;

	do {
		abase = m->f.ops.n;
		do {
			if ((rc = parse_atom(m, f, &node)) || (rc = push_op(m, f, node)))
				return rc;
		} while (take_if(f, M_AND));
		if ((rc = chain(m, f, SF_N_AND, abase, &node)) || (rc = push_op(m, f, node)))
			return rc;
	} while (take_if(f, M_OR));
	return chain(m, f, SF_N_OR, obase, out);
}

/* ---- actions ---- */

/* The errno the kernel gives for SECCOMP_RET_ERRNO | (v & 0xffff): it
 * caps the data at 4095. */
static int errno_of(struct mj *m, struct mfile *f, struct mtok *t, uint64_t v, uint16_t *a)
{
	uint64_t e = v & 0xffff;

	if (e == 0)
		return mfail(m, f, t, "return %llu makes the call return 0 without running it "
			     "(SECCOMP_RET_ERRNO with 0), which secfilter cannot express: an errno "
			     "is 1 to 4095", (unsigned long long)v);
	*a = (uint16_t)(e > SF_ERRNO_MAX ? SF_ERRNO_MAX : e);
	return 0;
}

/* action := 'allow' | '1' | 'kill-process' | 'kill-thread' | 'kill' | 'trap'
 *         | 'trace' | 'log' | 'user-notify' | 'return' single-constant */
static int parse_action(struct mj *m, struct mfile *f, uint16_t *a)
{
	struct mtok *t = take(f);
	uint64_t v;
	int rc;

	if (!t)
		return missing(m, f, "missing action");
	if (m->denylist && t->type != M_RETURN)
		return mfail(m, f, t, "invalid denylist policy: every action of a @denylist policy "
			     "is 'return ERRNO'");
	if (t->type == M_ACTION) {
		if (tok_eq(f, t, "allow"))
			*a = ALLOW;
		else if (tok_eq(f, t, "trap"))
			*a = SF_ACTION_TRAP;
		else if (tok_eq(f, t, "log"))
			*a = SF_ACTION_LOG;
		else if (tok_eq(f, t, "trace"))
			return mfail(m, f, t, "'trace' hands the call to a ptrace tracer "
				     "(SECCOMP_RET_TRACE); secfilter has none to hand it to");
		else if (tok_eq(f, t, "user-notify"))
			return mfail(m, f, t, "'user-notify' hands the call to a supervisor "
				     "process (SECCOMP_RET_USER_NOTIF); secfilter has none");
		else /* kill, kill-process, kill-thread: see secfilter(7) */
			*a = SF_ACTION_KILL;
		return 0;
	}
	if (t->type == M_NUM) {
		if ((rc = single_constant(m, f, t, &v)))
			return rc;
		if (v == 1) {
			*a = ALLOW;
			return 0;
		}
	} else if (t->type == M_RETURN) {
		struct mtok *e = take(f);
		if (!e)
			return missing(m, f, "missing return value");
		if ((rc = single_constant(m, f, e, &v)))
			return rc;
		return errno_of(m, f, e, v, a);
	}
	return mfail(m, f, t, "invalid action (expected allow, 1, kill, kill-process, "
		     "kill-thread, trap, log or return ERRNO)");
}

/* ---- statements ---- */

static const struct sf_syscall *syscall_named(const char *s, size_t n)
{
	const struct sf_syscall *sc = sf_syscall_lookup(s, n);

	/* the table's names only: no sys_ prefix, no entry-point alias */
	return sc && strlen(sc->name) == n && memcmp(sc->name, s, n) == 0 ? sc : NULL;
}

/* metadata := '[' key '=' IDENT { ',' IDENT } { ';' ... } ']'; sets *skip
 * when it names architectures and x86_64 is not one of them. */
static int parse_metadata(struct mj *m, struct mfile *f, int *skip)
{
	struct mtok *open = take(f), *t;
	int have_arch = 0, arch_match = 0;
	struct mtok keys[16];
	unsigned nkeys = 0, i;
	int rc;

	do {
		int is_arch;
		if ((rc = expect(m, f, M_IDENT, "missing key", "invalid key", &t)))
			return rc;
		for (i = 0; i < nkeys; i++)
			if (keys[i].len == t->len &&
			    memcmp(f->text + keys[i].start, f->text + t->start, t->len) == 0)
				return mfail(m, f, t, "duplicate metadata key: \"%.*s\"", (int)t->len,
					     f->text + t->start);
		if (nkeys < sizeof(keys) / sizeof(keys[0]))
			keys[nkeys++] = *t;
		is_arch = tok_eq(f, t, "arch");
		have_arch |= is_arch;
		if ((rc = expect(m, f, M_EQUAL, "missing equal", "invalid equal", &t)))
			return rc;
		do {
			if ((rc = expect(m, f, M_IDENT, "empty value", "invalid value", &t)))
				return rc;
			if (is_arch && tok_eq(f, t, "x86_64"))
				arch_match = 1;
		} while (take_if(f, M_COMMA));
	} while (take_if(f, M_SEMICOLON));
	if (!take_if(f, M_RBRACKET))
		return mfail(m, f, open, "unclosed bracket");
	*skip = have_arch && !arch_match;
	return 0;
}

/* syscall-descriptor := NAME [ metadata ].  Sets *nr, or -1 when the
 * metadata leaves it to another architecture. */
static int parse_descriptor(struct mj *m, struct mfile *f, int *nr)
{
	struct mtok *t = take(f);
	const struct sf_syscall *sc;
	int skip = 0, rc;

	if (!t)
		return missing(m, f, "missing syscall descriptor");
	/* `kill` is an action too, and still the syscall */
	if (t->type != M_IDENT && !(t->type == M_ACTION && tok_eq(f, t, "kill")))
		return mfail(m, f, t, "invalid syscall descriptor");
	if (peek(f) && peek(f)->type == M_LBRACKET && (rc = parse_metadata(m, f, &skip)))
		return rc;
	if (memchr(f->text + t->start, '@', t->len))
		return mfail(m, f, t, "syscall groups (NAME@NAMESPACE) come from the constants.json "
			     "a policy is compiled with; secfilter has none (its own groups, such "
			     "as @file-system, are for secfilter's language)");
	sc = syscall_named(f->text + t->start, t->len);
	if (!sc)
		return mfail(m, f, t, "nonexistent syscall '%.*s' (see `secfilter syscalls`)",
			     (int)t->len, f->text + t->start);
	*nr = skip ? -1 : sc->nr;
	return 0;
}

/* single-filter := action | argument-expression [ ';' action ] */
static int parse_single_filter(struct mj *m, struct mfile *f, struct mfilter *out)
{
	struct mtok *t = peek(f);
	int rc;

	if (!t)
		return missing(m, f, "missing filter");
	out->expr = SF_NO_SRC;
	out->action = ALLOW;
	if (t->type != M_ARGUMENT)
		return parse_action(m, f, &out->action);
	if ((rc = parse_expression(m, f, &out->expr)))
		return rc;
	return take_if(f, M_SEMICOLON) ? parse_action(m, f, &out->action) : 0;
}

static int add_filter(struct mj *m, struct mfile *f, unsigned nr, const struct mfilter *flt)
{
	struct mfilter *slot;

	if (m->f.nr[nr].n == 0)
		m->order[m->norder++] = (uint16_t)nr;
	slot = sf_vec_push(&m->f.nr[nr], sizeof(*slot), UINT16_MAX);
	if (!slot)
		return oom(m, f, m->f.nr[nr].n >= UINT16_MAX ? -E2BIG : -ENOMEM);
	*slot = *flt;
	return 0;
}

/* Parses one item of a list into items[i]. */
typedef int mitem_fn(struct mj *m, struct mfile *f, void *items, unsigned i);

static int descriptor_item(struct mj *m, struct mfile *f, void *items, unsigned i)
{
	return parse_descriptor(m, f, (int *)items + i);
}

static int filter_item(struct mj *m, struct mfile *f, void *items, unsigned i)
{
	return parse_single_filter(m, f, (struct mfilter *)items + i);
}

/* item | '{' item { ',' item } '}': at most max of them (what they are,
 * for the error), into items; *n gets how many. */
static int parse_list(struct mj *m, struct mfile *f, mitem_fn *item, void *items, unsigned max,
		      const char *what, unsigned *n)
{
	struct mtok *open;
	int rc;

	*n = 0;
	if (!peek(f) || peek(f)->type != M_LBRACE) {
		*n = 1;
		return item(m, f, items, 0);
	}
	open = take(f);
	do {
		if (*n >= max)
			return mfail(m, f, open, "more than %u %s in one statement", max, what);
		if ((rc = item(m, f, items, (*n)++)))
			return rc;
	} while (take_if(f, M_COMMA));
	return take_if(f, M_RBRACE) ? 0 : mfail(m, f, open, "unclosed brace");
}

/* filter-statement := ( '{' descriptor { ',' descriptor } '}' | descriptor )
 *                     ':' ( '{' single-filter { ',' single-filter } '}'
 *                         | single-filter ) */
static int parse_filter_statement(struct mj *m, struct mfile *f)
{
	int nrs[64], rc;
	unsigned n, nf, i, k;
	struct mtok *colon;
	struct mfilter filters[64];

	if ((rc = parse_list(m, f, descriptor_item, nrs, sizeof(nrs) / sizeof(nrs[0]), "syscalls", &n)))
		return rc;
	if ((rc = expect(m, f, M_COLON, "missing colon", "invalid colon", &colon)))
		return rc;
	if ((rc = parse_list(m, f, filter_item, filters, sizeof(filters) / sizeof(filters[0]),
			     "filters", &nf)))
		return rc;
	for (i = 0; i < nf; i++) {
		filters[i].src = (uint16_t)f->src;
		filters[i].line = colon->line;
		filters[i].col = colon->col;
		filters[i].len = 1;
	}
	for (k = 0; k < n; k++)
		for (i = 0; nrs[k] >= 0 && i < nf; i++)
			if ((rc = add_filter(m, f, (unsigned)nrs[k], &filters[i])))
				return rc;
	return 0;
}

/* default-statement := '@default' ( 'kill-process' | 'kill-thread' | 'kill'
 *                                 | 'trap' | 'user-notify' ) */
static int parse_default(struct mj *m, struct mfile *f)
{
	struct mtok *t;
	int rc;

	take(f);
	if ((rc = expect(m, f, M_ACTION, "empty action", "invalid default action", &t)))
		return rc;
	if (tok_eq(f, t, "trap"))
		m->dflt = SF_ACTION_TRAP;
	else if (tok_eq(f, t, "kill") || tok_eq(f, t, "kill-process") ||
		 tok_eq(f, t, "kill-thread"))
		m->dflt = SF_ACTION_KILL;
	else if (tok_eq(f, t, "user-notify"))
		return mfail(m, f, t, "'user-notify' hands the call to a supervisor process "
			     "(SECCOMP_RET_USER_NOTIF); secfilter has none");
	else
		return mfail(m, f, t, "invalid permissive default action");
	return 0;
}

/* Python's os.path.normpath(os.path.join(dirname(base), path)). */
static char *join_path(const char *base, const char *path, size_t n, size_t *size)
{
	size_t dir = 0, i, len = 0, k;
	char *raw, *out;
	const char *seg[512];
	size_t seglen[512];
	unsigned nseg = 0;
	int absolute;

	for (i = 0; base[i]; i++)
		if (base[i] == '/')
			dir = i + 1;
	if (path[0] == '/')
		dir = 0;
	raw = sf_mem_alloc(dir + n + 1);
	if (!raw)
		return NULL;
	memcpy(raw, base, dir);
	memcpy(raw + dir, path, n);
	len = dir + n;
	absolute = raw[0] == '/';
	for (i = 0; i < len;) {
		while (i < len && raw[i] == '/')
			i++;
		for (k = i; k < len && raw[k] != '/'; k++)
			;
		if (k == i)
			break;
		if (k - i == 1 && raw[i] == '.') {
			/* drop */
		} else if (k - i == 2 && raw[i] == '.' && raw[i + 1] == '.' && nseg &&
			   !(seglen[nseg - 1] == 2 && seg[nseg - 1][0] == '.' &&
			     seg[nseg - 1][1] == '.')) {
			nseg--;
		} else if (k - i == 2 && raw[i] == '.' && raw[i + 1] == '.' && absolute) {
			/* /.. is / */
		} else if (nseg < sizeof(seg) / sizeof(seg[0])) {
			seg[nseg] = raw + i;
			seglen[nseg++] = k - i;
		}
		i = k;
	}
	*size = len + 2;
	out = sf_mem_alloc(*size);
	if (out) {
		size_t o = 0;
		if (absolute)
			out[o++] = '/';
		for (i = 0; i < nseg; i++) {
			if (i)
				out[o++] = '/';
			memcpy(out + o, seg[i], seglen[i]);
			o += seglen[i];
		}
		if (o == 0)
			out[o++] = '.';
		out[o] = '\0';
	}
	sf_mem_free(raw, dir + n + 1);
	return out;
}

/* Reads the file that a PATH token of f names into a new source of the
 * ast, its parent f.  Returns its index in *out. */
static int open_path(struct mj *m, struct mfile *f, struct mtok *pt, const char *what,
		     uint32_t *out)
{
	const struct sf_src *s = &SF_VEC_AT(&m->f.ast->srcs, struct sf_src, f->src);
	size_t size = 0, len = 0, tsize = 0;
	char *path, *text = NULL;
	uint64_t id[2] = { 0, 0 };
	uint32_t i;
	int rc;

	if (m->how == SF_SRC_NO_INCLUDE)
		return mfail(m, f, pt, "%s is not available here (no file to be relative to)", what);
	path = join_path(s->is_file ? s->name : "", f->text + pt->start, pt->len, &size);
	if (!path)
		return oom(m, f, -ENOMEM);
	rc = sf_file_read(path, SF_MAX_TEXT - m->f.ast->text_total + 1, &text, &len, &tsize, id);
	if (rc) {
		mfail(m, f, pt, "could not %s %s: %s", what, path, sf_file_error(-rc));
		sf_mem_free(path, size);
		return rc == -ENOMEM ? -ENOMEM : -EINVAL;
	}
	if ((i = sf_ast_reading(m->f.ast, f->src, id)) != SF_NO_SRC) {
		mfail(m, f, pt, "@include cycle: '%s' is %s", path,
		      i == f->src ? "this file" : SF_VEC_AT(&m->f.ast->srcs, struct sf_src, i).name);
		rc = -EINVAL;
	}
	if (!rc && len > SF_MAX_TEXT - m->f.ast->text_total) {
		mfail(m, f, pt, "'%s' makes the policy text over 1 MiB, includes together", path);
		rc = -E2BIG;
	}
	if (!rc && (rc = sf_ast_file_src(m->f.ast, path, size, text, tsize, len, id, f->src,
					  pt->line, out)))
		oom(m, f, rc);
	if (rc) {
		sf_mem_free(text, tsize);
		sf_mem_free(path, size);
		return rc;
	}
	return 0;
}

/* A frequency file: `syscall: COUNT` lines, a hint for the order of the
 * compiler's syscall comparisons.  Checked as the compiler checks it, then
 * ignored: the order of secfilter's dispatch is its own. */
static int read_frequency(struct mj *m, uint32_t src, unsigned depth)
{
	const struct sf_src *s = &SF_VEC_AT(&m->f.ast->srcs, struct sf_src, src);
	struct mfile f = { .src = src, .text = s->text, .len = s->len, .depth = depth };
	int rc, nr;

	while ((rc = next_statement(m, &f)) == 1) {
		struct mtok *t;
		if ((rc = parse_descriptor(m, &f, &nr)))
			break;
		t = take(&f);
		if (!t) {
			rc = missing(m, &f, "missing colon");
			break;
		}
		if (t->type != M_COLON) {
			rc = mfail(m, &f, t, "invalid colon");
			break;
		}
		t = take(&f);
		if (!t) {
			rc = missing(m, &f, "missing number");
			break;
		}
		/* Python's int(x, 0): no sign, no leading zero but 0 itself */
		if (t->type != M_NUM || f.text[t->start] == '-' ||
		    (t->len > 1 && f.text[t->start] == '0' && (f.text[t->start + 1] | 0x20) != 'x')) {
			rc = mfail(m, &f, t, "invalid number");
			break;
		}
	}
	sf_vec_free(&f.toks, sizeof(struct mtok));
	return rc < 0 ? rc : 0;
}

static int read_file(struct mj *m, uint32_t src, unsigned depth);

static int parse_statement(struct mj *m, struct mfile *f)
{
	struct mtok *t = peek(f), *pt;
	uint32_t src = 0;
	int rc;

	switch (t->type) {
	case M_INCLUDE:
	case M_FREQUENCY:
		take(f);
		pt = take(f);
		if (!pt)
			return missing(m, f, t->type == M_INCLUDE ? "empty include path"
								  : "empty frequency path");
		if (pt->type != M_PATH)
			return mfail(m, f, pt, t->type == M_INCLUDE ? "invalid include path (a path "
				     "starts with / or ./)" : "invalid frequency path");
		if (t->type == M_INCLUDE && f->depth + 1 >= DEPTH_LIMIT)
			return mfail(m, f, t, "@include statement nested too deep");
		if ((rc = open_path(m, f, pt, t->type == M_INCLUDE ? "@include" : "open frequency "
				    "file", &src)))
			return rc;
		rc = t->type == M_INCLUDE ? read_file(m, src, f->depth + 1)
					  : read_frequency(m, src, f->depth + 1);
		break;
	case M_DEFAULT:
		rc = parse_default(m, f);
		break;
	case M_DENYLIST:
		take(f);
		if (!m->denylist)
			return mfail(m, f, t, "@denylist in a file that the policy given does not "
				     "make a denylist (minijail reads one file's @denylist as the "
				     "whole policy's)");
		f->has_denylist = 1;
		rc = 0;
		break;
	default:
		rc = parse_filter_statement(m, f);
	}
	if (!rc && peek(f))
		return mfail(m, f, peek(f), "extra tokens");
	return rc;
}

static int read_file(struct mj *m, uint32_t src, unsigned depth)
{
	const struct sf_src *s = &SF_VEC_AT(&m->f.ast->srcs, struct sf_src, src);
	struct mfile f = { .src = src, .text = s->text, .len = s->len, .depth = depth };
	int rc;

	while ((rc = next_statement(m, &f)) == 1)
		if ((rc = parse_statement(m, &f)))
			break;
	if (!rc && m->denylist && !f.has_denylist)
		rc = mfail(m, &f, NULL, "policy must contain @denylist flag to be compiled with "
			   "--denylist flag (every file of a @denylist policy needs its own)");
	sf_vec_free(&f.toks, sizeof(struct mtok));
	return rc < 0 ? rc : 0;
}

/* Whether the policy given is a denylist: a line of its own that is just
 * @denylist (the compiler's token needs the end of the line after it). */
static int scan_denylist(struct mj *m, uint32_t src, int *yes)
{
	const struct sf_src *s = &SF_VEC_AT(&m->f.ast->srcs, struct sf_src, src);
	struct mfile f = { .src = src, .text = s->text, .len = s->len, .depth = 1 };
	int rc;

	*yes = 0;
	while ((rc = next_statement(m, &f)) == 1)
		if (SF_VEC_AT(&f.toks, struct mtok, 0).type == M_DENYLIST)
			*yes = 1;
	sf_vec_free(&f.toks, sizeof(struct mtok));
	return rc;
}

/* ---- the tree ---- */

static int rule(struct mj *m, const struct mfilter *at, const struct sf_rule *r0)
{
	struct sf_rule r = *r0;
	int rc;

	r.src = at->src;
	r.line = at->line;
	r.col = at->col;
	r.len = at->len;
	rc = sf_ast_rule(m->f.ast, &r);
	if (rc)
		sf_error_src(m->f.err, rc, m->f.ast, at->src, at->line, at->col, at->len, "%s",
			     rc == -E2BIG ? "too many rules" : "out of memory");
	return rc;
}

/* The filters of one syscall (see the top of this file). */
static int emit_syscall(struct mj *m, unsigned nr)
{
	const struct mfilter *l = m->f.nr[nr].data;
	const unsigned n = m->f.nr[nr].n;
	const struct mfilter *last = &l[n - 1];
	struct sf_rule r = { .what = SF_R_SYSCALL, .nr = (uint16_t)nr };
	const uint32_t allows = m->f.ops.n; /* the allowing expressions so far */
	uint32_t nallow = 0, node, neg, tmp, j;
	uint16_t final;
	unsigned i, uncond = n;
	int rc = 0;

	for (i = 0; i < n; i++)
		if (l[i].expr == SF_NO_SRC) {
			uncond = i;
			break;
		}
	if (uncond + 1 < n) {
		sf_error_src(m->f.err, -EINVAL, m->f.ast, l[uncond + 1].src, l[uncond + 1].line,
			     l[uncond + 1].col, 1, "syscall %s (number %u) already had an "
			     "unconditional action applied, at %s:%u", sf_syscall_by_nr(nr)->name,
			     nr, SF_VEC_AT(&m->f.ast->srcs, struct sf_src, l[uncond].src).name,
			     l[uncond].line);
		return -EINVAL;
	}
	final = uncond < n ? last->action : m->dflt;
	if (!m->denylist && final == ALLOW) {
		/* the compiler's own shortcut: an unconditional allow at the
		 * end is the syscall's whole filter */
		r.rhs = SF_RHS_ALLOW;
		return rule(m, last, &r);
	}
	if (uncond == 0) {
		r.rhs = last->action == ALLOW ? SF_RHS_ALLOW : SF_RHS_RETURN;
		r.action = last->action;
		return rule(m, last, &r);
	}
	for (i = 0; i < uncond && !rc; i++) {
		if (l[i].action == ALLOW) {
			rc = push_op(m, NULL, l[i].expr);
			nallow++;
			continue;
		}
		/* l[i]'s action where no allow matched before and l[i] does */
		tmp = m->f.ops.n;
		for (j = 0; j < nallow && !rc; j++)
			rc = push_op(m, NULL, SF_VEC_AT(&m->f.ops, uint32_t, allows + j));
		if (!rc && !(rc = sf_ast_not(m->f.ast, l[i].expr, &neg)) && !(rc = push_op(m, NULL, neg)))
			rc = sf_ast_chain(m->f.ast, SF_N_OR, &SF_VEC_AT(&m->f.ops, uint32_t, tmp),
					  m->f.ops.n - tmp, &node);
		m->f.ops.n = tmp;
		if (rc)
			break;
		r.rhs = SF_RHS_EXPR;
		r.root = node;
		r.action = l[i].action;
		if ((rc = rule(m, &l[i], &r))) {
			m->f.ops.n = allows;
			return rc;
		}
	}
	m->f.ops.n = allows;
	if (!rc && final != ALLOW) {
		/* false where nothing matched: the list's final action */
		for (i = 0; i < uncond && !rc; i++)
			rc = push_op(m, NULL, l[i].expr);
		if (!rc)
			rc = sf_ast_chain(m->f.ast, SF_N_OR, &SF_VEC_AT(&m->f.ops, uint32_t, allows),
					  uncond, &node);
		m->f.ops.n = allows;
		if (!rc) {
			r.rhs = SF_RHS_EXPR;
			r.root = node;
			r.action = final == m->dflt && !m->denylist ? 0 : final;
			return rule(m, last, &r);
		}
	}
	if (rc && !m->f.err->code)
		sf_error_src(m->f.err, rc, m->f.ast, last->src, last->line, last->col, 1, "%s",
			     rc == -E2BIG ? "policy too large" : "out of memory");
	return rc;
}

static int emit(struct mj *m, uint32_t top)
{
	struct mfilter at = { .src = (uint16_t)top };
	struct sf_rule r = { .what = SF_R_DEFAULT, .rhs = SF_RHS_ACTION };
	unsigned i;
	int rc;

	/* a denylist: what is not named runs, a foreign architecture gets
	 * the compiler's EPERM */
	r.action = m->denylist ? EPERM : m->dflt;
	if ((rc = rule(m, &at, &r)))
		return rc;
	if (m->denylist) {
		r.what = SF_R_ALL;
		r.rhs = SF_RHS_ALLOW;
		r.action = 0;
		if ((rc = rule(m, &at, &r)))
			return rc;
	}
	for (i = 0; i < m->norder; i++)
		if ((rc = emit_syscall(m, m->order[i])))
			return rc;
	return 0;
}

int sf_minijail_parse(struct sf_ast *ast, uint32_t src, int how, struct sf_error *err)
{
	int rc;
	struct mj *m = sf_front_state(ast, src, how, "policy text", sizeof(*m), err, &rc);

	if (!m)
		return rc;
	m->how = how;
	m->dflt = SF_ACTION_KILL;
	rc = scan_denylist(m, src, &m->denylist);
	if (m->denylist) /* what matches nothing runs, unless @default */
		m->dflt = ALLOW;
	if (!rc)
		rc = read_file(m, src, 1);
	if (!rc)
		rc = emit(m, src);
	sf_front_free(&m->f, sizeof(*m), sizeof(struct mfilter));
	return rc;
}
