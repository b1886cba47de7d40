/* The strict JSON reader of json.h: a recursive-descent parser over the
 * text of one source, nesting bounded by SF_JSON_DEPTH. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "mem.h"

#define MAX_NODES (1u << 22)

struct jp {
	struct sf_json_doc *doc;
	const char *text;
	size_t len, pos, line_start;
	unsigned line;
	struct sf_error *err;
};

static int jfail(struct jp *j, size_t at, unsigned len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* An error at byte at of the text (its line is the current one or an
 * earlier one: found again from the start of the line). */
static int jfail(struct jp *j, size_t at, unsigned len, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	size_t ls = at;
	unsigned line = 1;
	size_t i;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (i = 0; i < at && i < j->len; i++)
		line += j->text[i] == '\n';
	while (ls > 0 && j->text[ls - 1] != '\n')
		ls--;
	sf_error_src(j->err, -EINVAL, j->doc->ast, j->doc->src, line, (unsigned)(at - ls + 1),
		     len ? len : 1, "%s", msg);
	return -EINVAL;
}

static void skip_blanks(struct jp *j)
{
	while (j->pos < j->len) {
		char c = j->text[j->pos];
		if (c == '\n') {
			j->line++;
			j->line_start = j->pos + 1;
		} else if (c != ' ' && c != '\t' && c != '\r') {
			return;
		}
		j->pos++;
	}
}

static int new_node(struct jp *j, enum sf_json_kind kind, size_t at, uint32_t *out)
{
	struct sf_json *n = sf_vec_push(&j->doc->nodes, sizeof(*n), MAX_NODES);

	if (!n)
		return j->doc->nodes.n >= MAX_NODES ? jfail(j, at, 1, "too many values")
						    : (j->err->code = -ENOMEM, -ENOMEM);
	n->kind = (uint8_t)kind;
	n->line = j->line;
	n->col = (unsigned)(at - j->line_start + 1);
	n->first = n->next = SF_J_NONE;
	*out = j->doc->nodes.n - 1;
	return 0;
}

static struct sf_json *node(struct jp *j, uint32_t i)
{
	return &SF_VEC_AT(&j->doc->nodes, struct sf_json, i);
}

/* What the next byte is, for messages. */
static const char *describe(const struct jp *j, char *buf, size_t cap)
{
	unsigned char c;

	if (j->pos >= j->len)
		return "end of text";
	c = (unsigned char)j->text[j->pos];
	if (c >= 0x20 && c < 0x7f)
		snprintf(buf, cap, "'%c'", c);
	else
		snprintf(buf, cap, "byte 0x%02x", c);
	return buf;
}

static int hex4(const char *s, unsigned *v)
{
	unsigned i, d;

	*v = 0;
	for (i = 0; i < 4; i++) {
		char c = s[i];
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return -1;
		*v = *v << 4 | d;
	}
	return 0;
}

static void put_utf8(char *out, size_t *n, unsigned cp)
{
	if (cp < 0x80) {
		out[(*n)++] = (char)cp;
	} else if (cp < 0x800) {
		out[(*n)++] = (char)(0xc0 | cp >> 6);
		out[(*n)++] = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		out[(*n)++] = (char)(0xe0 | cp >> 12);
		out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[(*n)++] = (char)(0x80 | (cp & 0x3f));
	} else {
		out[(*n)++] = (char)(0xf0 | cp >> 18);
		out[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
		out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[(*n)++] = (char)(0x80 | (cp & 0x3f));
	}
}

/* The length of the well-formed UTF-8 sequence at s (RFC 3629: no
 * overlong forms, no surrogates, at most U+10FFFF), or 0. */
static size_t utf8_len(const unsigned char *s, size_t left)
{
	unsigned cp, n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (left < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* A string at pos (its opening quote), decoded into the arena. */
static int parse_string(struct jp *j, const char **out, size_t *outlen, unsigned *rawlen)
{
	size_t start = j->pos, n = 0;
	char *dst = j->doc->arena + j->doc->arena_used;

	j->pos++;
	for (;;) {
		unsigned char c;

		if (j->pos >= j->len)
			return jfail(j, start, 1, "string not closed");
		c = (unsigned char)j->text[j->pos];
		if (c == '"')
			break;
		if (c == '\n')
			return jfail(j, start, 1, "string not closed on its line");
		if (c < 0x20)
			return jfail(j, j->pos, 1, "control byte 0x%02x in a string (write it as "
				     "\\u%04x)", c, c);
		if (c == '\\') {
			char e;
			unsigned cp, lo;

			if (j->pos + 1 >= j->len)
				return jfail(j, start, 1, "string not closed");
			e = j->text[j->pos + 1];
			switch (e) {
			case '"': case '\\': case '/': dst[n++] = e; break;
			case 'b': dst[n++] = '\b'; break;
			case 'f': dst[n++] = '\f'; break;
			case 'n': dst[n++] = '\n'; break;
			case 'r': dst[n++] = '\r'; break;
			case 't': dst[n++] = '\t'; break;
			case 'u':
				if (j->pos + 6 > j->len || hex4(j->text + j->pos + 2, &cp) < 0)
					return jfail(j, j->pos, 2, "\\u takes four hex digits");
				if (cp >= 0xdc00 && cp <= 0xdfff)
					return jfail(j, j->pos, 6, "lone low surrogate \\u%04x", cp);
				if (cp >= 0xd800 && cp <= 0xdbff) {
					if (j->pos + 12 > j->len || j->text[j->pos + 6] != '\\' ||
					    j->text[j->pos + 7] != 'u' ||
					    hex4(j->text + j->pos + 8, &lo) < 0 || lo < 0xdc00 ||
					    lo > 0xdfff)
						return jfail(j, j->pos, 6, "high surrogate \\u%04x without "
							     "its low surrogate", cp);
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
					j->pos += 6;
				}
				put_utf8(dst, &n, cp);
				j->pos += 4;
				break;
			default:
				return jfail(j, j->pos, 2, "unknown escape '\\%c' (JSON has \\\" \\\\ "
					     "\\/ \\b \\f \\n \\r \\t \\uXXXX)", e >= 0x20 && e < 0x7f ? e : '?');
			}
			j->pos += 2;
			continue;
		}
		if (c >= 0x80) {
			size_t k = utf8_len((const unsigned char *)j->text + j->pos, j->len - j->pos);
			if (!k)
				return jfail(j, j->pos, 1, "invalid UTF-8 in a string");
			memcpy(dst + n, j->text + j->pos, k);
			n += k;
			j->pos += k;
			continue;
		}
		dst[n++] = (char)c;
		j->pos++;
	}
	j->pos++;
	dst[n] = '\0';
	j->doc->arena_used += n + 1;
	*out = dst;
	*outlen = n;
	*rawlen = (unsigned)(j->pos - start);
	return 0;
}

/* number := -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
static int parse_number(struct jp *j, uint32_t self)
{
	size_t s = j->pos, i = j->pos;
	const char *t = j->text;

	if (i < j->len && t[i] == '-')
		i++;
	if (i < j->len && t[i] == '0')
		i++;
	else if (i < j->len && t[i] >= '1' && t[i] <= '9')
		while (i < j->len && t[i] >= '0' && t[i] <= '9')
			i++;
	else
		return jfail(j, s, 1, "invalid number");
	if (i < j->len && t[i] == '.') {
		if (++i >= j->len || t[i] < '0' || t[i] > '9')
			return jfail(j, s, (unsigned)(i - s), "invalid number: digits must follow '.'");
		while (i < j->len && t[i] >= '0' && t[i] <= '9')
			i++;
	}
	if (i < j->len && (t[i] == 'e' || t[i] == 'E')) {
		i++;
		if (i < j->len && (t[i] == '+' || t[i] == '-'))
			i++;
		if (i >= j->len || t[i] < '0' || t[i] > '9')
			return jfail(j, s, (unsigned)(i - s), "invalid number: digits must follow "
				     "the exponent");
		while (i < j->len && t[i] >= '0' && t[i] <= '9')
			i++;
	}
	if (i < j->len && ((t[i] >= '0' && t[i] <= '9') || (t[i] >= 'a' && t[i] <= 'z') ||
			   (t[i] >= 'A' && t[i] <= 'Z') || t[i] == '.'))
		return jfail(j, s, (unsigned)(i - s + 1), "invalid number (JSON numbers are decimal "
			     "without leading zeros)");
	node(j, self)->str = t + s;
	node(j, self)->slen = i - s;
	node(j, self)->len = (unsigned)(i - s);
	j->pos = i;
	return 0;
}

static int parse_value(struct jp *j, unsigned depth, uint32_t *out);

static int word(struct jp *j, const char *w)
{
	size_t n = strlen(w);

	return j->len - j->pos >= n && memcmp(j->text + j->pos, w, n) == 0;
}

/* Links child as the last child of parent. */
static void append(struct jp *j, uint32_t parent, uint32_t *last, uint32_t child)
{
	if (*last == SF_J_NONE)
		node(j, parent)->first = child;
	else
		node(j, *last)->next = child;
	*last = child;
	node(j, parent)->count++;
}

/* Steps over the '[' or '{' at j->pos; true when close ends the
 * container right away (and is stepped over). */
static int opened_empty(struct jp *j, char close)
{
	j->pos++;
	skip_blanks(j);
	if (j->pos < j->len && j->text[j->pos] == close) {
		j->pos++;
		return 1;
	}
	return 0;
}

/* After an element of an array or a member of an object opened at byte
 * open: 0 after a ',' (another must follow), 1 after close (stepped
 * over), else the error (what: "array" or "object"). */
static int after_member(struct jp *j, size_t open, char close, const char *what)
{
	char b[16];

	skip_blanks(j);
	if (j->pos < j->len && j->text[j->pos] == ',') {
		j->pos++;
		skip_blanks(j);
		if (j->pos < j->len && j->text[j->pos] == close)
			return jfail(j, j->pos, 1, "trailing comma before '%c'", close);
		return 0;
	}
	if (j->pos < j->len && j->text[j->pos] == close) {
		j->pos++;
		return 1;
	}
	if (j->pos >= j->len)
		return jfail(j, open, 1, "'%c' not closed", j->text[open]);
	return jfail(j, j->pos, 1, "expected ',' or '%c' in the %s, got %s", close, what,
		     describe(j, b, sizeof b));
}

static int parse_array(struct jp *j, unsigned depth, uint32_t self)
{
	uint32_t last = SF_J_NONE, child;
	size_t open = j->pos;
	int rc;

	if (opened_empty(j, ']'))
		return 0;
	do {
		if ((rc = parse_value(j, depth + 1, &child)))
			return rc;
		append(j, self, &last, child);
	} while (!(rc = after_member(j, open, ']', "array")));
	return rc < 0 ? rc : 0;
}

static int parse_object(struct jp *j, unsigned depth, uint32_t self)
{
	uint32_t last = SF_J_NONE, child, k;
	size_t open = j->pos;
	char b[16];
	int rc;

	if (opened_empty(j, '}'))
		return 0;
	do {
		const char *key;
		size_t keylen, kpos;
		unsigned kline, kcol, krawlen;

		if (j->pos >= j->len)
			return jfail(j, open, 1, "'{' not closed");
		if (j->text[j->pos] != '"')
			return jfail(j, j->pos, 1, "expected a key in quotes, got %s",
				     describe(j, b, sizeof b));
		kpos = j->pos;
		kline = j->line;
		kcol = (unsigned)(j->pos - j->line_start + 1);
		if ((rc = parse_string(j, &key, &keylen, &krawlen)))
			return rc;
		for (k = node(j, self)->first; k != SF_J_NONE; k = node(j, k)->next)
			if (node(j, k)->keylen == keylen && memcmp(node(j, k)->key, key, keylen) == 0)
				return jfail(j, kpos, krawlen, "duplicate key \"%s\" (first at line "
					     "%u)", key, node(j, k)->key_line);
		skip_blanks(j);
		if (j->pos >= j->len || j->text[j->pos] != ':')
			return jfail(j, j->pos, 1, "expected ':' after the key, got %s",
				     describe(j, b, sizeof b));
		j->pos++;
		if ((rc = parse_value(j, depth + 1, &child)))
			return rc;
		node(j, child)->key = key;
		node(j, child)->keylen = keylen;
		node(j, child)->key_line = kline;
		node(j, child)->key_col = kcol;
		node(j, child)->key_len = krawlen;
		append(j, self, &last, child);
	} while (!(rc = after_member(j, open, '}', "object")));
	return rc < 0 ? rc : 0;
}

static int parse_value(struct jp *j, unsigned depth, uint32_t *out)
{
	char b[16];
	char c;
	int rc;

	skip_blanks(j);
	if (j->pos >= j->len)
		return jfail(j, j->pos, 1, "expected a value, got end of text");
	if (depth > SF_JSON_DEPTH)
		return jfail(j, j->pos, 1, "values nested deeper than %d levels", SF_JSON_DEPTH);
	c = j->text[j->pos];
	if (c == '{' || c == '[') {
		if ((rc = new_node(j, c == '{' ? SF_J_OBJ : SF_J_ARR, j->pos, out)))
			return rc;
		node(j, *out)->len = 1;
		return c == '{' ? parse_object(j, depth, *out) : parse_array(j, depth, *out);
	}
	if (c == '"') {
		const char *s;
		size_t n;
		unsigned raw;

		if ((rc = new_node(j, SF_J_STR, j->pos, out)) || (rc = parse_string(j, &s, &n, &raw)))
			return rc;
		node(j, *out)->str = s;
		node(j, *out)->slen = n;
		node(j, *out)->len = raw;
		return 0;
	}
	if (c == '-' || (c >= '0' && c <= '9')) {
		if ((rc = new_node(j, SF_J_NUM, j->pos, out)))
			return rc;
		return parse_number(j, *out);
	}
	if (word(j, "true") || word(j, "false") || word(j, "null")) {
		enum sf_json_kind k = c == 't' ? SF_J_TRUE : c == 'f' ? SF_J_FALSE : SF_J_NULL;
		size_t n = k == SF_J_FALSE ? 5 : 4;
		if ((rc = new_node(j, k, j->pos, out)))
			return rc;
		node(j, *out)->len = (unsigned)n;
		j->pos += n;
		return 0;
	}
	if ((unsigned char)c == 0xef && j->pos == 0)
		return jfail(j, 0, 1, "byte order mark (JSON text is UTF-8 without one)");
	return jfail(j, j->pos, 1, "expected a value (an object, array, string, number, true, "
		     "false or null), got %s", describe(j, b, sizeof b));
}

int sf_json_parse(struct sf_json_doc *doc, const struct sf_ast *ast, uint32_t src,
		  struct sf_error *err)
{
	const struct sf_src *s = &SF_VEC_AT(&ast->srcs, struct sf_src, src);
	struct jp j = { .doc = doc, .text = s->text, .len = s->len, .line = 1, .err = err };
	uint32_t root;
	char b[16];
	int rc;

	memset(doc, 0, sizeof(*doc));
	doc->ast = ast;
	doc->src = src;
	err->code = 0;
	err->text[0] = '\0';
	doc->arena_size = s->len + 1;
	doc->arena = sf_mem_alloc(doc->arena_size);
	if (!doc->arena) {
		sf_error_src(err, -ENOMEM, ast, src, 0, 0, 0, "out of memory");
		return -ENOMEM;
	}
	if (memchr(s->text, '\0', s->len))
		return jfail(&j, (size_t)((const char *)memchr(s->text, '\0', s->len) - s->text), 1,
			     "NUL byte (JSON text is UTF-8)");
	rc = parse_value(&j, 0, &root);
	if (rc == -ENOMEM && !err->text[0])
		sf_error_src(err, -ENOMEM, ast, src, 0, 0, 0, "out of memory");
	if (rc)
		return rc;
	skip_blanks(&j);
	if (j.pos < j.len)
		return jfail(&j, j.pos, 1, "unexpected %s after the value", describe(&j, b, sizeof b));
	return 0;
}

void sf_json_free(struct sf_json_doc *doc)
{
	sf_vec_free(&doc->nodes, sizeof(struct sf_json));
	if (doc->arena)
		sf_mem_free(doc->arena, doc->arena_size);
	doc->arena = NULL;
}

int sf_json_uint(const struct sf_json *v, uint64_t max, uint64_t *out)
{
	uint64_t x = 0;
	size_t i;

	if (v->kind != SF_J_NUM || v->slen == 0)
		return -1;
	for (i = 0; i < v->slen; i++) {
		unsigned d = (unsigned)(v->str[i] - '0');
		if (d > 9 || x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	if (x > max)
		return -1;
	*out = x;
	return 0;
}

const char *sf_json_kind_name(enum sf_json_kind k)
{
	switch (k) {
	case SF_J_NULL: return "null";
	case SF_J_FALSE: case SF_J_TRUE: return "a boolean";
	case SF_J_NUM: return "a number";
	case SF_J_STR: return "a string";
	case SF_J_ARR: return "an array";
	default: return "an object";
	}
}
