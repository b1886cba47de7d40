/* Compiler-style messages (SPEC §2):
 *
 *   policy.conf:3:10: error: unknown argument 'fdd' for sys_read (...)
 *       3 | sys_read: fdd == 0
 *         |           ^~~
 *
 * and the "did you mean" suggestion for misspelt names. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Show at most this much of a long source line, around the caret. */
#define SHOW_MAX 120

static void line_bounds(const char *text, size_t textlen, unsigned line,
			size_t *start, size_t *end)
{
	size_t pos = 0;
	unsigned l = 1;

	while (l < line && pos < textlen) {
		if (text[pos++] == '\n')
			l++;
	}
	*start = pos;
	while (pos < textlen && text[pos] != '\n')
		pos++;
	*end = pos;
}

/* The gutter before " | ": wide enough for the line number, at least 5. */
static int gutter(unsigned line)
{
	char num[16];
	int w = snprintf(num, sizeof(num), "%u", line);

	return w < 5 ? 5 : w;
}

/* Appends the quoted source line and the caret line: the caret's indent
 * copies tabs from the source so that it lines up. */
static size_t format_context(char *buf, size_t cap, const char *text,
			     size_t textlen, unsigned line, unsigned col,
			     unsigned len)
{
	size_t start, end, from, shown, i, n = 0;
	size_t caret = col ? col - 1 : 0;
	int w = gutter(line);

	line_bounds(text, textlen, line, &start, &end);
	from = caret > SHOW_MAX / 2 ? caret - SHOW_MAX / 2 : 0;
	if (start + from > end)
		from = end - start;
	shown = end - start - from;
	if (shown > SHOW_MAX)
		shown = SHOW_MAX;
	caret -= from;
	if (len == 0)
		len = 1;
	if (caret + len > shown + 1)
		len = caret < shown ? (unsigned)(shown - caret) : 1;
	n += snprintf(buf + n, cap - n, "%*u | %s", w, line, from ? "..." : "");
	/* The excerpt goes to a terminal: control bytes and non-ASCII (a
	 * binary file checked by mistake) show as '?', one for one so that
	 * the caret still lines up. */
	for (i = 0; i < shown && n + 1 < cap; i++) {
		unsigned char c = (unsigned char)text[start + from + i];
		buf[n++] = c == '\t' || (c >= ' ' && c < 0x7f) ? (char)c : '?';
	}
	if (n < cap)
		n += snprintf(buf + n, cap - n, "%s\n",
			      start + from + shown < end ? "..." : "");
	if (n >= cap)
		return cap - 1;
	n += snprintf(buf + n, cap - n, "%*s | %s", w, "", from ? "   " : "");
	/* a column past the end of the line (a front end's) reads no
	 * further than the line */
	for (i = 0; i < caret && n + 1 < cap; i++)
		buf[n++] = i < shown && text[start + from + i] == '\t' ? '\t' : ' ';
	for (i = 0; i < len && n + 2 < cap; i++)
		buf[n++] = i ? '~' : '^';
	buf[n++] = '\n';
	buf[n] = '\0';
	return n;
}

/* label: "error" or "warning", what the message is */
static void message_at(struct sf_error *err, int code, const char *label, const char *source,
		       const char *text, size_t textlen, unsigned line, unsigned col,
		       unsigned len, const char *msg)
{
	size_t n, cap = sizeof(err->text);

	err->code = code;
	err->line = line;
	err->col = col;
	if (line)
		n = snprintf(err->text, cap, "%s:%u:%u: %s: ", source, line, col, label);
	else
		n = snprintf(err->text, cap, "%s: %s: ", source, label);
	if (n >= cap)
		n = cap - 1;
	n += snprintf(err->text + n, cap - n, "%s", msg);
	if (n + 2 >= cap)
		n = cap - 2;
	err->text[n++] = '\n';
	err->text[n] = '\0';
	if (line)
		format_context(err->text + n, cap - n, text, textlen, line, col, len);
}

void sf_error_at(struct sf_error *err, int code, const char *source,
		 const char *text, size_t textlen, unsigned line, unsigned col,
		 unsigned len, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	message_at(err, code, "error", source, text, textlen, line, col, len, msg);
}

void sf_error_fixit(struct sf_error *err, const char *text, size_t textlen,
		    const char *fix)
{
	size_t n = strlen(err->text), cap = sizeof(err->text), start, end, i;
	size_t caret = err->col ? err->col - 1 : 0;

	if (!err->line || caret > SHOW_MAX / 2)
		return; /* the caret line was shifted; a fix-it would not align */
	line_bounds(text, textlen, err->line, &start, &end);
	n += snprintf(err->text + n, cap - n, "%*s | ", gutter(err->line), "");
	for (i = 0; i < caret && n + 1 < cap && start + i < end; i++)
		err->text[n++] = text[start + i] == '\t' ? '\t' : ' ';
	if (n < cap)
		snprintf(err->text + n, cap - n, "%s\n", fix);
}

/* Optimal-string-alignment distance (Levenshtein plus transpositions),
 * bounded: names longer than 63 bytes are never suggested. */
static unsigned edit_distance(const char *a, size_t la, const char *b)
{
	unsigned d[3][64];
	size_t lb = strlen(b), i, j;

	if (la >= 64 || lb >= 64)
		return ~0u;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++) {
		unsigned *cur = d[i % 3], *prev = d[(i - 1) % 3], *pp = d[(i + 1) % 3];
		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			unsigned cost = a[i - 1] != b[j - 1];
			unsigned best = prev[j - 1] + cost;
			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && pp[j - 2] + 1 < best)
				best = pp[j - 2] + 1;
			cur[j] = best;
		}
	}
	return d[la % 3][lb];
}

const char *sf_closest(const char *word, size_t len,
		       const char *(*next)(const void *ctx, unsigned i),
		       const void *ctx)
{
	const char *best = NULL, *cand;
	unsigned best_d = ~0u, i;
	/* A third of the word, at least one edit: "raed" -> "read", but not
	 * "foo" -> "bpf". */
	unsigned limit = len / 3 > 1 ? len / 3 : 1;

	for (i = 0; (cand = next(ctx, i)) != NULL; i++) {
		size_t clen = strlen(cand);
		unsigned d;

		if (clen > len + limit || len > clen + limit)
			continue; /* the length alone is too far */
		d = edit_distance(word, len, cand);
		if (d < best_d) {
			best_d = d;
			best = cand;
		}
	}
	return best_d <= limit ? best : NULL;
}

/* "In file included from b.conf:3,\n                 from a.conf:1:\n",
 * gcc's way, nearest includer first. */
static size_t include_chain(const struct sf_ast *ast, uint32_t src, char *buf, size_t cap)
{
	static const char first[] = "In file included from ", more[] = "                 from ";
	const struct sf_src *s = &SF_VEC_AT(&ast->srcs, struct sf_src, src);
	size_t n = 0;

	while (s->parent != SF_NO_SRC && s->parent < ast->srcs.n && n < cap) {
		const struct sf_src *up = &SF_VEC_AT(&ast->srcs, struct sf_src, s->parent);
		n += (size_t)snprintf(buf + n, cap - n, "%s%s:%u%s\n", n ? more : first,
				      up->name, s->parent_line,
				      up->parent != SF_NO_SRC ? "," : ":");
		s = up;
	}
	return n < cap ? n : cap - 1;
}

void sf_message_src(struct sf_error *err, int code, const char *label,
		    const struct sf_ast *ast, uint32_t src, unsigned line, unsigned col,
		    unsigned len, const char *msg)
{
	const struct sf_src *s = src < ast->srcs.n ? &SF_VEC_AT(&ast->srcs, struct sf_src, src)
						   : NULL;
	char chain[512];
	size_t n, k;

	if (!s) {
		message_at(err, code, label, "<policy>", "", 0, 0, 0, 0, msg);
		return;
	}
	message_at(err, code, label, s->name, s->text ? s->text : "", s->text ? s->len : 0,
		   line, col, len, msg);
	if (!s->text) { /* a front end's tree without text: no excerpt */
		char *nl = strchr(err->text, '\n');
		if (nl)
			nl[1] = '\0';
	}
	n = include_chain(ast, src, chain, sizeof(chain));
	if (!n)
		return;
	k = strlen(err->text);
	if (n + k + 1 > sizeof(err->text))
		k = sizeof(err->text) - n - 1;
	memmove(err->text + n, err->text, k);
	memcpy(err->text, chain, n);
	err->text[n + k] = '\0';
}

void sf_error_src(struct sf_error *err, int code, const struct sf_ast *ast, uint32_t src,
		  unsigned line, unsigned col, unsigned len, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sf_message_src(err, code, "error", ast, src, line, col, len, msg);
}

void sf_diag_warning(struct sf_diag *d, const struct sf_ast *ast, uint32_t src, unsigned line,
		     unsigned col, unsigned len, const char *fmt, ...)
{
	struct sf_error w;
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sf_message_src(&w, 0, "warning", ast, src, line, col, len, msg);
	d->nwarnings++;
	if (d->emit)
		d->emit(d->ctx, 1, &w);
}
