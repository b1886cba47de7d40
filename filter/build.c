/* The tree of a policy as read (internal.h): its containers and
 * constructors.  The parser builds the tree with these, and so do the
 * front ends for other syntaxes: one way to make a node or a rule. */
#include <errno.h>
#include <string.h>

#include "internal.h"
#include "mem.h"

#define MAX_NODES (1u << 22)
#define MAX_RULES (1u << 20)
#define MAX_SRCS 4096

void sf_ast_init(struct sf_ast *ast)
{
	memset(ast, 0, sizeof(*ast));
}

void sf_ast_free(struct sf_ast *ast)
{
	uint32_t i;

	for (i = 0; i < ast->srcs.n; i++) {
		struct sf_src *s = &SF_VEC_AT(&ast->srcs, struct sf_src, i);
		if (s->own_name)
			sf_mem_free(s->own_name, s->own_name_size);
		if (s->own_text)
			sf_mem_free(s->own_text, s->own_text_size);
	}
	sf_vec_free(&ast->nodes, sizeof(struct sf_node));
	sf_vec_free(&ast->rules, sizeof(struct sf_rule));
	sf_vec_free(&ast->srcs, sizeof(struct sf_src));
	sf_vec_free(&ast->ll, sizeof(struct sf_ll_item));
}

static int too_many(const struct sf_vec *v, uint32_t limit)
{
	return v->n >= limit ? -E2BIG : -ENOMEM;
}

int sf_ast_src(struct sf_ast *ast, const char *name, const char *text, size_t len,
	       uint32_t *idx)
{
	struct sf_src *s = sf_vec_push(&ast->srcs, sizeof(*s), MAX_SRCS);

	if (!s)
		return too_many(&ast->srcs, MAX_SRCS);
	s->name = name;
	s->text = text;
	s->len = len;
	s->parent = SF_NO_SRC;
	*idx = ast->srcs.n - 1;
	return 0;
}

int sf_ast_file_src(struct sf_ast *ast, char *path, size_t path_size, char *text,
		    size_t text_size, size_t len, const uint64_t id[2], uint32_t parent,
		    unsigned parent_line, uint32_t *idx)
{
	struct sf_src *s;
	int rc = sf_ast_src(ast, path, text, len, idx);

	if (rc)
		return rc;
	ast->text_total += len;
	s = &SF_VEC_AT(&ast->srcs, struct sf_src, *idx);
	s->own_name = path;
	s->own_name_size = path_size;
	s->own_text = text;
	s->own_text_size = text_size;
	s->parent = parent;
	s->parent_line = parent_line;
	s->is_file = 1;
	s->id[0] = id[0];
	s->id[1] = id[1];
	return 0;
}

uint32_t sf_ast_reading(const struct sf_ast *ast, uint32_t src, const uint64_t id[2])
{
	while (src != SF_NO_SRC) {
		const struct sf_src *s = &SF_VEC_AT(&ast->srcs, struct sf_src, src);
		if ((s->id[0] || s->id[1]) && s->id[0] == id[0] && s->id[1] == id[1])
			return src;
		src = s->parent;
	}
	return SF_NO_SRC;
}

static int add_node(struct sf_ast *ast, const struct sf_node *n, uint32_t *out)
{
	struct sf_node *slot = sf_vec_push(&ast->nodes, sizeof(*n), MAX_NODES);

	if (!slot)
		return too_many(&ast->nodes, MAX_NODES);
	*slot = *n;
	*out = ast->nodes.n - 1;
	return 0;
}

int sf_ast_pred(struct sf_ast *ast, unsigned arg, enum sf_type type, enum sf_op op,
		uint64_t value, uint32_t *out)
{
	struct sf_node n = {
		.kind = SF_N_PRED, .op = (uint8_t)op, .arg = (uint8_t)arg,
		.type = (uint8_t)type, .value = sf_normalize(value, type),
	};

	return add_node(ast, &n, out);
}

int sf_ast_not(struct sf_ast *ast, uint32_t a, uint32_t *out)
{
	struct sf_node n = { .kind = SF_N_NOT, .left = a };

	return add_node(ast, &n, out);
}

/* A balanced tree over ops[0, n): its depth is logarithmic in n. */
int sf_ast_chain(struct sf_ast *ast, enum sf_kind kind, const uint32_t *ops, uint32_t n,
		 uint32_t *out)
{
	struct sf_node node = { .kind = (uint8_t)kind };
	int rc;

	if (n == 1) {
		*out = ops[0];
		return 0;
	}
	rc = sf_ast_chain(ast, kind, ops, n / 2, &node.left);
	if (!rc)
		rc = sf_ast_chain(ast, kind, ops + n / 2, n - n / 2, &node.right);
	return rc ? rc : add_node(ast, &node, out);
}

int sf_ast_rule(struct sf_ast *ast, const struct sf_rule *r)
{
	struct sf_rule *slot = sf_vec_push(&ast->rules, sizeof(*r), MAX_RULES);

	if (!slot)
		return too_many(&ast->rules, MAX_RULES);
	*slot = *r;
	return 0;
}

int sf_front_start(struct sf_ast *ast, uint32_t src, int how, const char *what,
		   struct sf_error *err)
{
	struct sf_src *s = &SF_VEC_AT(&ast->srcs, struct sf_src, src);

	err->code = 0;
	err->text[0] = '\0';
	s->is_file = how == SF_SRC_FILE;
	if (s->is_file)
		sf_file_id(s->name, s->id); /* unknown: no cycle through it is seen */
	ast->text_total += s->len;
	if (s->len <= SF_MAX_TEXT)
		return 0;
	sf_error_src(err, -E2BIG, ast, src, 0, 0, 0, "%s is %zu bytes; the limit is 1 MiB", what,
		     s->len);
	return -E2BIG;
}

void *sf_front_state(struct sf_ast *ast, uint32_t src, int how, const char *what, size_t size,
		     struct sf_error *err, int *rc)
{
	void *state;

	if ((*rc = sf_front_start(ast, src, how, what, err)))
		return NULL;
	ast->foreign = 1;
	if (!(state = sf_mem_alloc(size))) {
		sf_error_src(err, -ENOMEM, ast, src, 0, 0, 0, "out of memory");
		*rc = -ENOMEM;
		return NULL;
	}
	((struct sf_front *)state)->ast = ast;
	((struct sf_front *)state)->err = err;
	((struct sf_front *)state)->src = src;
	return state;
}

void sf_front_free(struct sf_front *f, size_t size, size_t elem)
{
	unsigned i;

	for (i = 0; i < SF_NR_COUNT; i++)
		sf_vec_free(&f->nr[i], elem);
	sf_vec_free(&f->ops, sizeof(uint32_t));
	sf_mem_free(f, size);
}

int sf_ast_ll_item(struct sf_ast *ast, const struct sf_ll_item *it, uint32_t *idx)
{
	struct sf_ll_item *slot = sf_vec_push(&ast->ll, sizeof(*slot), SF_LL_MAX_RULES);

	if (!slot)
		return too_many(&ast->ll, SF_LL_MAX_RULES);
	*slot = *it;
	*idx = ast->ll.n - 1;
	return 0;
}
