/* The canonical text of a policy (SPEC §3 "State report").
 *
 * Canonical means: one spelling per policy.  Names are the table's
 * (sys_NAME, the kernel argument names, an errno's first name), operators
 * are spaced, parentheses appear only where precedence needs them, and a
 * value is printed from its normalized form: signed types in decimal, bit
 * masks in hex, other unsigned values in decimal up to 0xffff and in hex
 * above.  The mask of `in` is written as its complement (~0x4) when more
 * than half of the argument's bits are set, its top bit among them:
 * `prot in ~0x4` rather than `prot in 0xfffffffffffffffb`.
 *
 * Where syscalls/x86_64/args.tbl says what an argument holds, the value is
 * written with its constants (decode.h), so the text can be reviewed:
 * `cmd == TCGETS`, `dfd == AT_FDCWD`, `mode == 0644`, a flag word as the
 * OR of its flags' names and a hex remainder, a mask in parentheses as C
 * reads it (`!(flags & (O_WRONLY|O_RDWR))`).  Two or more `==` tests of
 * one argument side by side in a `||` chain are a set: `fd in {1, 2}`.
 * The short form an exec'd image parses keeps plain numbers (no table
 * look-ups at every exec), and its sets. */
#include <string.h>

#include "decode.h"
#include "internal.h"
#include "uring.h"

static const char *const op_text[] = {
	[SF_OP_EQ] = " == ", [SF_OP_NE] = " != ", [SF_OP_LT] = " < ",
	[SF_OP_LE] = " <= ", [SF_OP_GT] = " > ", [SF_OP_GE] = " >= ",
	[SF_OP_BITS] = " & ", [SF_OP_IN] = " in ",
};

static unsigned popcount(uint64_t v)
{
	unsigned n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

/* How values are written: with the constants args.tbl gives (canonical
 * text) or as plain numbers (the short form). */
struct printing {
	const struct sf_syscall *sc;
	int names;
};

/* A pointer reads as an unsigned 64-bit number. */
static int reads_alike(enum sf_type a, enum sf_type b)
{
	return a == b || ((a == SF_T_U64 || a == SF_T_PTR) && (b == SF_T_U64 || b == SF_T_PTR));
}

/* Whether n reads its register otherwise than its declared type. */
static int is_cast(const struct sf_node *n, const struct sf_syscall *sc)
{
	return !(sc && n->arg < sc->nargs) ||
	       !reads_alike((enum sf_type)sc->args[n->arg].type, (enum sf_type)n->type);
}

/* What args.tbl says of n's argument, when its values have names: NULL
 * for a plain number, for constants that hold only when another argument
 * has some value (setsockopt's SO_* at SOL_SOCKET: the name would claim
 * that), and for a cast (the register, not the argument: a minijail
 * policy's u64(flags)) unless the value is a small non-negative number,
 * which every reading of the register spells alike. */
static const struct sf_argdesc *named_values(const struct printing *pr, const struct sf_node *n)
{
	const struct sf_argdesc *d;

	if (!pr->names || !pr->sc || n->arg >= pr->sc->nargs)
		return NULL;
	if (is_cast(n, pr->sc) && n->value > 0x7fffffff)
		return NULL;
	d = sf_argdesc(pr->sc->nr, n->arg);
	if (!d || d->aux != SF_NO_ARG)
		return NULL;
	return d->kind == SF_AK_ENUM || d->kind == SF_AK_FLAGS || d->kind == SF_AK_DIRFD ||
			       d->kind == SF_AK_MODE ? d : NULL;
}

/* A mask (of & or in) by name; one of several terms goes in parentheses,
 * which is how C would read it: flags & (O_WRONLY|O_RDWR).  0 when it
 * has no names (then the caller writes the number). */
static int print_mask_names(struct sf_out *o, const struct sf_argdesc *d, enum sf_type t,
			    uint64_t v)
{
	char text[512];
	struct sf_out m = { text, sizeof text, 0 };
	size_t len, i;
	int many = 0;

	sf_decode_mask(&m, d, t, v);
	len = sf_out_end(&m);
	if (len >= sizeof text)
		return 0;
	for (i = 0; i < len; i++)
		many |= text[i] == '|';
	if (many)
		sf_out_str(o, "(");
	sf_out_mem(o, text, len);
	if (many)
		sf_out_str(o, ")");
	return 1;
}

/* A flag word's mask, by name or in hex. */
static void print_mask(struct sf_out *o, const struct sf_argdesc *d, enum sf_type t, uint64_t v)
{
	if (!(d && d->kind == SF_AK_FLAGS && print_mask_names(o, d, t, v)))
		sf_out_u64(o, v, 16);
}

static void print_value(struct sf_out *o, const struct printing *pr, const struct sf_node *n)
{
	const unsigned bits = n->type == SF_T_U16 ? 16 : n->type <= SF_T_U32 ? 32 : 64;
	const uint64_t width = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
	const struct sf_argdesc *d = named_values(pr, n);
	const int mask = n->op == SF_OP_BITS || n->op == SF_OP_IN;

	/* ~h spells the value only when the value has its top bit (the
	 * complement of a 64-bit h must be a pattern of the width, as the
	 * parser reads it) */
	if (n->op == SF_OP_IN && popcount(n->value & width) * 2 > bits &&
	    (n->value >> (bits - 1) & 1)) {
		sf_out_str(o, "~");
		print_mask(o, d, (enum sf_type)n->type, ~n->value & width);
	} else if (mask && d && d->kind == SF_AK_MODE)
		sf_decode_value(o, d, (enum sf_type)n->type, n->value); /* 0111, in octal */
	else if (mask)
		print_mask(o, d, (enum sf_type)n->type, n->value);
	else if (d && (n->op == SF_OP_EQ || n->op == SF_OP_NE))
		sf_decode_value(o, d, (enum sf_type)n->type, n->value);
	else if (sf_type_signed(n->type))
		sf_out_s64(o, (int64_t)n->value);
	else
		sf_out_u64(o, n->value, n->value > 0xffff ? 16 : 10);
}

/* The argument's name, in a cast (u64(flags), u64(arg5)) when the tree
 * reads its register otherwise than its declared type: what a minijail
 * policy or an OCI profile compares is the whole register. */
static void print_field(struct sf_out *o, const struct sf_node *n,
			const struct sf_syscall *sc)
{
	const int declared = sc && n->arg < sc->nargs;
	const int cast = is_cast(n, sc);

	if (cast) {
		sf_out_str(o, sf_type_name(n->type == SF_T_PTR ? SF_T_U64 : (enum sf_type)n->type));
		sf_out_str(o, "(");
	}
	if (declared) {
		sf_out_str(o, sc->args[n->arg].name);
	} else {
		char name[5] = { 'a', 'r', 'g', (char)('0' + n->arg), 0 };
		sf_out_str(o, name);
	}
	if (cast)
		sf_out_str(o, ")");
}

static void print_pred(struct sf_out *o, const struct printing *pr, const struct sf_node *n)
{
	print_field(o, n, pr->sc);
	sf_out_str(o, op_text[n->op]);
	print_value(o, pr, n);
}

/* Whether a and b are `==` tests of one field: members of one set. */
static int same_set(const struct sf_node *a, const struct sf_node *b)
{
	return a->kind == SF_N_PRED && b->kind == SF_N_PRED && a->op == SF_OP_EQ &&
	       b->op == SF_OP_EQ && a->arg == b->arg && a->type == b->type;
}

/* The first predicate of the || chain at i, and whether every operand of
 * the chain is an `==` of its field: then it prints as one set. */
static const struct sf_node *whole_set(const struct sf_node *nodes, uint32_t i,
				       const struct sf_node *first)
{
	const struct sf_node *n = &nodes[i];

	if (n->kind != SF_N_OR)
		return !first || same_set(first, n) ? n : NULL;
	first = whole_set(nodes, n->left, first);
	return first && whole_set(nodes, n->right, first) ? first : NULL;
}

/* Binding strength: OR 1, AND 2, NOT and predicates 3 -- and a || chain
 * that prints as one set ("fd in {1, 2}"), which is a predicate. */
static int strength(const struct sf_node *nodes, uint32_t i)
{
	const struct sf_node *n = &nodes[i];

	if (n->kind == SF_N_OR)
		return whole_set(nodes, i, NULL) ? 3 : 1;
	return n->kind == SF_N_AND ? 2 : 3;
}

static void print_node(struct sf_out *o, const struct printing *pr, const struct sf_node *nodes,
		       uint32_t i, int need);

/* A || chain, its operands in order: runs of `==` tests of one field
 * become sets.  An operand is held until the next one shows whether a
 * set begins. */
struct or_chain {
	const struct sf_node *held; /* an == not written yet, or the last of the open set */
	uint32_t held_i;
	int open, any;
};

static void or_flush(struct sf_out *o, const struct printing *pr, const struct sf_node *nodes,
		     struct or_chain *c)
{
	if (c->open)
		sf_out_str(o, "}");
	else if (c->held)
		print_node(o, pr, nodes, c->held_i, 1);
	c->held = NULL;
	c->open = 0;
}

static void or_walk(struct sf_out *o, const struct printing *pr, const struct sf_node *nodes,
		    uint32_t i, struct or_chain *c)
{
	const struct sf_node *n = &nodes[i];

	if (n->kind == SF_N_OR) {
		or_walk(o, pr, nodes, n->left, c);
		or_walk(o, pr, nodes, n->right, c);
		return;
	}
	if (c->held && same_set(c->held, n)) {
		if (!c->open) {
			print_field(o, c->held, pr->sc);
			sf_out_str(o, " in {");
			print_value(o, pr, c->held);
			c->open = 1;
		}
		sf_out_str(o, ", ");
		print_value(o, pr, n);
		c->held = n;
		return;
	}
	or_flush(o, pr, nodes, c);
	if (c->any++)
		sf_out_str(o, " || ");
	if (n->kind == SF_N_PRED && n->op == SF_OP_EQ) {
		c->held = n;
		c->held_i = i;
	} else {
		print_node(o, pr, nodes, i, 1);
	}
}

static void print_node(struct sf_out *o, const struct printing *pr, const struct sf_node *nodes,
		       uint32_t i, int need)
{
	const struct sf_node *n = &nodes[i];
	int paren = strength(nodes, i) < need;
	struct or_chain chain = { 0 };

	if (paren)
		sf_out_str(o, "(");
	switch (n->kind) {
	case SF_N_PRED:
		print_pred(o, pr, n);
		break;
	case SF_N_NOT:
		/* !(fd == 1), never !fd == 1, which reads like C's (!fd) == 1 */
		sf_out_str(o, "!");
		if (nodes[n->left].kind == SF_N_NOT) {
			print_node(o, pr, nodes, n->left, 3);
		} else {
			sf_out_str(o, "(");
			print_node(o, pr, nodes, n->left, 0);
			sf_out_str(o, ")");
		}
		break;
	case SF_N_OR:
		or_walk(o, pr, nodes, i, &chain);
		or_flush(o, pr, nodes, &chain);
		break;
	default:
		/* Chains are associative: a child of the same kind needs no
		 * parentheses, so a && (b && c) prints as a && b && c. */
		print_node(o, pr, nodes, n->left, 2);
		sf_out_str(o, " && ");
		print_node(o, pr, nodes, n->right, 2);
		break;
	}
	if (paren)
		sf_out_str(o, ")");
}

static void print_expr(struct sf_out *o, const struct sf_node *nodes, uint32_t root,
		       const struct sf_syscall *sc, int names)
{
	const struct printing pr = { sc, names };

	print_node(o, &pr, nodes, root, 0);
}

void sf_print_expr(struct sf_out *o, const struct sf_node *nodes,
		   uint32_t root, const struct sf_syscall *sc)
{
	print_expr(o, nodes, root, sc, 1);
}

size_t sf_filter_print(const struct sf_policy *p, unsigned nr,
		       const struct sf_filter *f, char *buf, size_t cap)
{
	struct sf_out o = { buf, cap, 0 };

	sf_print_expr(&o, p->nodes, f->root, sf_syscall_by_nr(nr));
	return sf_out_end(&o);
}

void sf_print_action(struct sf_out *o, unsigned action)
{
	const char *name;

	switch (action) {
	case SF_ACTION_KILL: sf_out_str(o, "kill"); return;
	case SF_ACTION_TRAP: sf_out_str(o, "trap"); return;
	case SF_ACTION_LOG: sf_out_str(o, "log"); return;
	case SF_ACTION_RUN: sf_out_str(o, "run"); return; /* never in a policy */
	}
	sf_out_str(o, "return ");
	name = sf_errno_name(action);
	if (name)
		sf_out_str(o, name);
	else
		sf_out_u64(o, action, 10);
}

static void print_head(struct sf_out *o, const struct sf_syscall *sc)
{
	sf_out_str(o, "sys_");
	sf_out_str(o, sc->name);
	sf_out_str(o, ": ");
}

/* The lines of one allowed syscall: its return action, or `1` when it
 * has no filters (unless plain is 0: the short form's `*: 1` says it),
 * then its filters (values by name unless names is 0). */
static void print_rules(struct sf_out *o, const struct sf_policy *p,
			const struct sf_syscall *sc, const struct sf_sysrule *r, int plain,
			int names)
{
	unsigned i;

	if (r->ret) {
		print_head(o, sc);
		sf_print_action(o, r->ret);
		sf_out_str(o, "\n");
	} else if (!r->nfilters && plain) {
		print_head(o, sc);
		sf_out_str(o, "1\n");
	}
	for (i = 0; i < r->nfilters; i++) {
		const struct sf_filter *f = &p->filters[sf_rule_first(p, r) + i];
		print_head(o, sc);
		print_expr(o, p->nodes, f->root, sc, names);
		if (f->fail) {
			sf_out_str(o, " else ");
			sf_print_action(o, f->fail);
		}
		sf_out_str(o, "\n");
	}
}

static void print_prologue(struct sf_out *o, const struct sf_policy *p)
{
	if (p->pending)
		sf_out_str(o, "on_next_syscall: 1\n");
	if (p->dflt != SF_ACTION_KILL) {
		sf_out_str(o, "default: ");
		sf_print_action(o, p->dflt);
		sf_out_str(o, "\n");
	}
}

/* The canonical text, values by name or (names 0) as numbers. */
static size_t print_policy(const struct sf_policy *p, char *buf, size_t cap, int names)
{
	struct sf_out o = { buf, cap, 0 };
	unsigned k;

	print_prologue(&o, p);
	/* The table is in number order, and only its syscalls can be
	 * allowed. */
	for (k = 0; k < sf_syscall_count; k++) {
		const struct sf_syscall *sc = &sf_syscalls[k];
		const struct sf_sysrule *r = &p->sys[sc->nr];

		if (r->allowed)
			print_rules(&o, p, sc, r, 1, names);
	}
	sf_ll_print(&o, p->landlock);
	return sf_out_end(&o);
}

size_t sf_policy_print(const struct sf_policy *p, char *buf, size_t cap)
{
	return print_policy(p, buf, cap, 1);
}

size_t sf_policy_print_plain(const struct sf_policy *p, char *buf, size_t cap)
{
	return print_policy(p, buf, cap, 0);
}

/* Most policies allow most syscalls ("*: 1" and a few removals, or a
 * learned list): the one that lists what is missing is the shorter then,
 * and is what every exec'd image parses. */
size_t sf_policy_print_short(const struct sf_policy *p, char *buf, size_t cap)
{
	struct sf_out o = { buf, cap, 0 };
	uint16_t missing[SF_NR_COUNT], special[SF_NR_COUNT];
	unsigned nr, k, plain = 0, nmissing = 0, nspecial = 0;
	const struct sf_sysrule *rr = sf_uring_setup_nr < SF_NR_COUNT ? &p->sys[sf_uring_setup_nr]
								       : NULL;
	/* `*: 1` does not name io_uring_setup: a policy that did (or a front
	 * end's that was let through, apply.c's ring_check) says so again, or
	 * its restrictions would be refused when parsed */
	unsigned ring_line = rr && rr->allowed && !rr->ret && !rr->nfilters &&
			     (p->uring_named || p->uring_waived);

	/* One pass over the rules (numbers the table lacks are never
	 * allowed); the lines come from what it found. */
	for (nr = 0; nr < SF_NR_COUNT; nr++) {
		const struct sf_sysrule *r = &p->sys[nr];
		if (r->allowed) {
			if (r->ret || r->nfilters)
				special[nspecial++] = (uint16_t)nr;
			else
				plain++;
		} else if (sf_syscall_row[nr] != SF_NO_ROW) {
			missing[nmissing++] = (uint16_t)nr;
		}
	}
	if (plain <= 1 + nmissing + ring_line)
		return print_policy(p, buf, cap, 0);
	print_prologue(&o, p);
	sf_out_str(&o, "*: 1\n");
	if (ring_line) {
		print_head(&o, sf_syscall_by_nr(sf_uring_setup_nr));
		sf_out_str(&o, "1\n");
	}
	for (k = 0; k < nmissing; k++) {
		print_head(&o, &sf_syscalls[sf_syscall_row[missing[k]]]);
		sf_out_str(&o, "0\n");
	}
	for (k = 0; k < nspecial; k++)
		print_rules(&o, p, &sf_syscalls[sf_syscall_row[special[k]]], &p->sys[special[k]], 0,
			    0);
	sf_ll_print(&o, p->landlock);
	return sf_out_end(&o);
}

/* An origin map entry's line, and its source when the previous entry's
 * differs (policy.h). */
static void print_where(struct sf_out *o, uint32_t line, const char *src, const char **last)
{
	sf_out_u64(o, line, 10);
	if (!*last || strcmp(*last, src) != 0) {
		sf_out_str(o, "@");
		sf_out_u64(o, strlen(src), 10);
		sf_out_str(o, ":");
		sf_out_str(o, src);
		*last = src;
	}
}

/* The origin map's entry of one filter: where, then its text or `-`. */
static void print_origin(struct sf_out *o, const struct sf_policy *p,
			 const struct sf_filter *f, const char **last)
{
	const char *text = sf_filter_text(p, f);

	print_where(o, f->line, sf_filter_source(p, f), last);
	if (text) {
		sf_out_str(o, "=");
		sf_out_u64(o, strlen(text), 10);
		sf_out_str(o, ":");
		sf_out_str(o, text);
	} else {
		sf_out_str(o, "-");
	}
}

size_t sf_policy_print_origins(const struct sf_policy *p, char *buf, size_t cap)
{
	const struct sf_landlock *ll = p->landlock;
	struct sf_out o = { buf, cap, 0 };
	const char *last = NULL;
	uint32_t k;

	/* A block holds its filters in number order, then rule order
	 * (apply.c's freeze) */
	for (k = 0; k < p->nfilters; k++)
		print_origin(&o, p, &p->filters[k], &last);
	/* then the Landlock block's rules, in its order (layer, paths, ports:
	 * landlock.c's freeze), which the short form's text gives again: the
	 * report names a rule's right, not a text of it */
	for (k = 0; ll && k < ll->nrules; k++) {
		print_where(&o, ll->rules[k].line, ll->strings + ll->rules[k].source, &last);
		sf_out_str(&o, "-");
	}
	return sf_out_end(&o);
}
