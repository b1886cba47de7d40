/* From observed calls to the rule that permits them (decode.h), and back.
 *
 * One rule per syscall, a conjunction over its arguments, each argument
 * filtered in one of a few shapes, all written with the hints'
 * constants:
 *   values    family == AF_UNIX, (fd == 1 || fd == 2)
 *   risky     !(flags & (O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND))
 *   pair      (!(prot & PROT_WRITE) || !(prot & PROT_EXEC))
 *   in        flags in O_CLOEXEC|O_NONBLOCK (strict only)
 * Which shape an argument gets is the hint's and the mode's call (see
 * args.tbl); sf_obs_of_filters reads exactly these shapes back, so that a
 * learned policy can be merged with a new run and stay as tight as if
 * both runs had been learned at once.  No libc (the preload library
 * writes its "add:" lines with this). */
#include "decode.h"

#define AT_FDCWD_VALUE ((uint64_t)(int64_t)-100)

static enum sf_type arg_type(const struct sf_syscall *sc, unsigned i)
{
	return (enum sf_type)sc->args[i].type;
}

static void obs_value(struct sf_argobs *a, uint64_t v)
{
	unsigned i;

	a->bits |= v;
	if (a->many)
		return;
	for (i = 0; i < a->nvals; i++)
		if (a->vals[i] == v)
			return;
	if (a->nvals < SF_OBS_VALUES)
		a->vals[a->nvals++] = v;
	else
		a->many = 1;
}

void sf_obs_init(struct sf_obs *o)
{
	unsigned i, k;

	o->calls = 0;
	for (i = 0; i < SF_MAX_ARGS; i++) {
		struct sf_argobs *a = &o->a[i];
		for (k = 0; k < SF_OBS_VALUES; k++)
			a->vals[k] = 0;
		a->nvals = a->many = a->pair_seen = a->keep = 0;
		a->bits = 0;
	}
}

static const struct sf_cset *flag_set(long nr, unsigned i)
{
	const struct sf_argdesc *d = sf_argdesc(nr, i);

	return d && d->kind == SF_AK_FLAGS ? &sf_csets[d->set] : NULL;
}

void sf_obs_add(struct sf_obs *o, long nr, const uint64_t a[6])
{
	const struct sf_syscall *sc = sf_syscall_by_nr(nr);
	unsigned i;

	o->calls++;
	for (i = 0; sc && i < sc->nargs; i++) {
		const struct sf_cset *s = flag_set(nr, i);
		uint64_t v = sf_normalize(a[i], arg_type(sc, i));
		obs_value(&o->a[i], v);
		if (s && s->pair[0] && (v & s->pair[0]) && (v & s->pair[1]))
			o->a[i].pair_seen = 1;
	}
}

void sf_argobs_any(struct sf_argobs *a)
{
	a->many = 1;
	a->bits = ~0ull;
	a->pair_seen = 1;
}

void sf_obs_merge(struct sf_obs *into, const struct sf_obs *from)
{
	unsigned i, k;

	into->calls += from->calls;
	for (i = 0; i < SF_MAX_ARGS; i++) {
		struct sf_argobs *a = &into->a[i];
		const struct sf_argobs *b = &from->a[i];
		for (k = 0; k < b->nvals; k++)
			obs_value(a, b->vals[k]);
		if (b->many)
			a->many = 1;
		a->bits |= b->bits;
		a->pair_seen |= b->pair_seen;
		a->keep |= b->keep;
	}
}

/* ---- writing the rule ---- */

enum shape { S_NONE, S_VALUES, S_RISKY, S_IN, S_PAIR };

static int all_in(const struct sf_argobs *a, uint64_t lo, uint64_t hi)
{
	unsigned i;

	if (a->many || !a->nvals)
		return 0;
	for (i = 0; i < a->nvals; i++)
		if (a->vals[i] < lo || a->vals[i] > hi)
			return 0;
	return 1;
}

static int risky_writes(long nr, unsigned i, const struct sf_argobs *a)
{
	const struct sf_cset *s = flag_set(nr, i);

	return s && ((s->risky & ~a->bits) || (s->pair[0] && !a->pair_seen));
}

static enum shape auto_shape(const struct sf_argdesc *d, long nr, unsigned i,
			     const struct sf_argobs *a)
{
	int natural;

	if (d->autof == SF_AA_NO)
		return S_NONE;
	if (d->autof == SF_AA_VALUES && !a->many && a->nvals)
		return S_VALUES;
	switch (d->kind) {
	case SF_AK_FD:
		natural = all_in(a, 0, 2);
		break;
	case SF_AK_DIRFD:
		natural = all_in(a, AT_FDCWD_VALUE, AT_FDCWD_VALUE);
		break;
	case SF_AK_FLAGS:
		return risky_writes(nr, i, a) ? S_RISKY : S_NONE;
	default:
		natural = !a->many && a->nvals;
		break;
	}
	return natural ? S_VALUES : S_NONE;
}

static enum shape shape_of(long nr, unsigned i, const struct sf_argobs *a,
			   enum sf_argmode mode)
{
	const struct sf_argdesc *d = sf_argdesc(nr, i);
	enum shape sh;

	if (mode == SF_ARGS_NONE || !d || d->kind == SF_AK_PATH || d->kind == SF_AK_STR ||
	    d->kind == SF_AK_SOCKADDR || d->kind == SF_AK_MODE)
		return S_NONE;
	if (mode == SF_ARGS_STRICT) {
		if (!a->many && a->nvals)
			return S_VALUES;
		return d->kind == SF_AK_FLAGS && ~a->bits ? S_IN : S_NONE;
	}
	sh = auto_shape(d, nr, i, a);
	if (sh != S_NONE || !a->keep)
		return sh;
	/* the policy merged into filtered it: so does the result */
	if (!a->many && a->nvals)
		return S_VALUES;
	if (d->kind == SF_AK_FLAGS && risky_writes(nr, i, a))
		return S_RISKY;
	return d->kind == SF_AK_FLAGS && ~a->bits ? S_IN : S_NONE;
}

static int value_less(enum sf_type t, uint64_t x, uint64_t y)
{
	return sf_type_signed(t) ? (int64_t)x < (int64_t)y : x < y;
}

/* The hint to write argument i's values with: for one whose constants
 * depend on another argument, the row for that argument's one value, or
 * a plain number when it had several (a TCP_* value is no SO_*). */
static const struct sf_argdesc *values_desc(long nr, unsigned i, const struct sf_obs *o,
					    struct sf_argdesc *tmp)
{
	const struct sf_argdesc *d = sf_argdesc(nr, i);
	uint64_t a[SF_MAX_ARGS] = { 0 };

	if (!d || (d->kind != SF_AK_ENUM && d->kind != SF_AK_FLAGS) || d->aux == SF_NO_ARG)
		return d;
	if (!o->a[d->aux].many && o->a[d->aux].nvals == 1)
		a[d->aux] = o->a[d->aux].vals[0];
	else
		a[d->aux] = ~d->cond; /* no row's */
	return sf_argdesc_call(nr, i, a, tmp);
}

/* "name == A || name == B", values in increasing order; returns how many. */
static unsigned put_values(struct sf_out *o, const char *name, const struct sf_argdesc *d,
			   enum sf_type t, const struct sf_argobs *a)
{
	uint64_t v[SF_OBS_VALUES];
	unsigned n = a->nvals, i, j;

	for (i = 0; i < n; i++)
		v[i] = a->vals[i];
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && value_less(t, v[j], v[j - 1]); j--) {
			uint64_t x = v[j];
			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	for (i = 0; i < n; i++) {
		if (i)
			sf_out_str(o, " || ");
		sf_out_str(o, name);
		sf_out_str(o, " == ");
		sf_decode_value(o, d, t, v[i]);
	}
	return n;
}

/* A mask, as the flags of the set it holds: whole flags first (O_SYNC),
 * then each bit left by the constant of that one bit, the field's values
 * included (O_WRONLY, O_RDWR: a mask of bits, not a value of the field),
 * then what no constant names, in hex.  Parenthesized when paren and it
 * has several parts. */
static void put_bits(struct sf_out *o, const struct sf_argdesc *d, enum sf_type t, uint64_t m,
		     int paren)
{
	const struct sf_cset *s = &sf_csets[d->set];
	const uint64_t width = t == SF_T_U16 ? 0xffff :
			       t == SF_T_S32 || t == SF_T_U32 ? 0xffffffffull : ~0ull;
	const char *names[64];
	uint64_t rest = m & width, other = 0;
	unsigned n = 0, i, b;

	for (i = s->first; i < s->first + s->count && n < 64; i++) {
		uint64_t c = sf_consts[sf_cset_items[i]].value;
		if (c && (c & (c - 1)) && (rest & c) == c) {
			names[n++] = sf_consts[sf_cset_items[i]].name;
			rest &= ~c;
		}
	}
	for (b = 0; b < 64 && n < 64; b++) {
		uint64_t bit = 1ull << b;
		const char *name = NULL;
		if (!(rest & bit))
			continue;
		for (i = s->field_first; i < s->field_first + s->field_count && !name; i++)
			if (sf_consts[sf_cset_items[i]].value == bit)
				name = sf_consts[sf_cset_items[i]].name;
		for (i = s->first; i < s->first + s->count && !name; i++)
			if (sf_consts[sf_cset_items[i]].value == bit)
				name = sf_consts[sf_cset_items[i]].name;
		if (name)
			names[n++] = name;
		else
			other |= bit;
	}
	paren = paren && n + (other != 0) > 1;
	if (paren)
		sf_out_str(o, "(");
	for (i = 0; i < n; i++) {
		if (i)
			sf_out_str(o, "|");
		sf_out_str(o, names[i]);
	}
	if (other || !n) {
		if (n)
			sf_out_str(o, "|");
		sf_out_u64(o, other, 16);
	}
	if (paren)
		sf_out_str(o, ")");
}

/* The risky shape; returns the number of conjuncts written (0..2). */
static unsigned put_risky(struct sf_out *o, const char *name, const struct sf_argdesc *d,
			  enum sf_type t, const struct sf_argobs *a, int and)
{
	const struct sf_cset *s = &sf_csets[d->set];
	/* flags of one bit each: the decoder names them one by one, and a
	 * field's value never stands for a risky bit */
	uint64_t m = s->risky & ~a->bits;
	unsigned n = 0;

	if (m) {
		sf_out_str(o, "!(");
		sf_out_str(o, name);
		sf_out_str(o, " & ");
		put_bits(o, d, t, m, 1);
		sf_out_str(o, ")");
		n++;
	}
	if (s->pair[0] && !a->pair_seen && !(m & (s->pair[0] | s->pair[1]))) {
		if (n)
			sf_out_str(o, " && ");
		if (and || n)
			sf_out_str(o, "(");
		sf_out_str(o, "!(");
		sf_out_str(o, name);
		sf_out_str(o, " & ");
		put_bits(o, d, t, s->pair[0], 1);
		sf_out_str(o, ") || !(");
		sf_out_str(o, name);
		sf_out_str(o, " & ");
		put_bits(o, d, t, s->pair[1], 1);
		sf_out_str(o, ")");
		if (and || n)
			sf_out_str(o, ")");
		n++;
	}
	return n;
}

/* "by == A && arg == X || by == B && arg == Y", in increasing order. */
static void put_pairs(struct sf_out *o, const struct sf_syscall *sc, unsigned arg, unsigned by,
		      const struct sf_pairs *p, int paren)
{
	const enum sf_type tb = arg_type(sc, by), ta = arg_type(sc, arg);
	uint64_t v[SF_PAIRS][2];
	unsigned n = p->n, i, j;

	for (i = 0; i < n; i++) {
		v[i][0] = p->v[i][0];
		v[i][1] = p->v[i][1];
	}
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && (value_less(tb, v[j][0], v[j - 1][0]) ||
				      (v[j][0] == v[j - 1][0] && value_less(ta, v[j][1], v[j - 1][1])));
		     j--) {
			uint64_t x = v[j][0], y = v[j][1];
			v[j][0] = v[j - 1][0];
			v[j][1] = v[j - 1][1];
			v[j - 1][0] = x;
			v[j - 1][1] = y;
		}
	if (paren && n > 1)
		sf_out_str(o, "(");
	for (i = 0; i < n; i++) {
		uint64_t a[SF_MAX_ARGS] = { 0 };
		struct sf_argdesc tmp;

		a[by] = v[i][0];
		if (i)
			sf_out_str(o, " || ");
		sf_out_str(o, sc->args[by].name);
		sf_out_str(o, " == ");
		sf_decode_value(o, sf_argdesc(sc->nr, by), tb, v[i][0]);
		sf_out_str(o, " && ");
		sf_out_str(o, sc->args[arg].name);
		sf_out_str(o, " == ");
		sf_decode_value(o, sf_argdesc_call(sc->nr, arg, a, &tmp), ta, v[i][1]);
	}
	if (paren && n > 1)
		sf_out_str(o, ")");
}

int sf_suggest(struct sf_out *out, long nr, const struct sf_obs *o, enum sf_argmode mode)
{
	return sf_suggest_pairs(out, nr, o, NULL, mode);
}

int sf_suggest_pairs(struct sf_out *out, long nr, const struct sf_obs *o,
		     const struct sf_pairs *p, enum sf_argmode mode)
{
	const struct sf_syscall *sc = sf_syscall_by_nr(nr);
	enum shape shapes[SF_MAX_ARGS];
	unsigned i, parts = 0, filtered = 0, arg = SF_NO_ARG, by = SF_NO_ARG;

	for (i = 0; i < SF_MAX_ARGS; i++) {
		shapes[i] = sc && i < sc->nargs ? shape_of(nr, i, &o->a[i], mode) : S_NONE;
		filtered += shapes[i] != S_NONE;
	}
	/* the pairs stand for both arguments' values, when both are filtered */
	if (p && !p->many && p->n && sf_pairs_args(nr, &arg, &by) &&
	    (shapes[arg] != S_VALUES || shapes[by] != S_VALUES))
		arg = by = SF_NO_ARG;
	for (i = 0; i < SF_MAX_ARGS; i++) {
		const struct sf_argobs *a = &o->a[i];
		struct sf_argdesc tmp;
		const struct sf_argdesc *d;
		const char *name;
		enum sf_type t;
		int paren;

		if (shapes[i] == S_NONE || i == arg)
			continue;
		d = sf_argdesc(nr, i);
		name = sc->args[i].name;
		t = arg_type(sc, i);
		if (parts++)
			sf_out_str(out, " && ");
		if (i == by) {
			put_pairs(out, sc, arg, by, p, filtered > 2);
			continue;
		}
		switch (shapes[i]) {
		case S_VALUES:
			paren = filtered > 1 && a->nvals > 1;
			if (paren)
				sf_out_str(out, "(");
			put_values(out, name, values_desc(nr, i, o, &tmp), t, a);
			if (paren)
				sf_out_str(out, ")");
			break;
		case S_RISKY:
			put_risky(out, name, d, t, a, filtered > 1);
			break;
		default: /* S_IN */
			sf_out_str(out, name);
			sf_out_str(out, " in ");
			put_bits(out, d, t, a->bits, 0);
			break;
		}
	}
	if (!parts)
		sf_out_str(out, "1");
	return (int)parts;
}

/* ---- reading the shapes back ---- */

#define MAX_CONJ 64

static int flatten(const struct sf_node *nodes, uint32_t i, enum sf_kind kind, uint32_t *out,
		   unsigned *n)
{
	if (nodes[i].kind == kind)
		return flatten(nodes, nodes[i].left, kind, out, n) ||
		       flatten(nodes, nodes[i].right, kind, out, n);
	if (*n >= MAX_CONJ)
		return -1;
	out[(*n)++] = i;
	return 0;
}

/* !(arg & m): the argument and m, or -1. */
static int not_bits(const struct sf_node *nodes, uint32_t i, uint64_t *m)
{
	const struct sf_node *n = &nodes[i];

	if (n->kind != SF_N_NOT || nodes[n->left].kind != SF_N_PRED ||
	    nodes[n->left].op != SF_OP_BITS)
		return -1;
	*m = nodes[n->left].value;
	return nodes[n->left].arg;
}

/* a == v && b == w || a == v2 && b == w2 ...: 0 with the two arguments
 * in *a, *b (as every alternative orders them), or -1. */
static int pair_alts(const struct sf_node *nodes, const uint32_t *alts, unsigned na, int *a,
		     int *b)
{
	unsigned k;

	*a = *b = -1;
	for (k = 0; k < na; k++) {
		const struct sf_node *n = &nodes[alts[k]], *l, *r;
		if (n->kind != SF_N_AND)
			return -1;
		l = &nodes[n->left];
		r = &nodes[n->right];
		if (l->kind != SF_N_PRED || l->op != SF_OP_EQ || r->kind != SF_N_PRED ||
		    r->op != SF_OP_EQ || l->arg == r->arg || (k && (l->arg != *a || r->arg != *b)))
			return -1;
		*a = l->arg;
		*b = r->arg;
	}
	return na ? 0 : -1;
}

/* One conjunct, on one argument: its shape read into o.  seen[arg] says
 * which shape was read for it already (only risky and pair go
 * together); pair[arg] that a pair was. */
static int read_conjunct(const struct sf_node *nodes, uint32_t c, long nr,
			 struct sf_obs *o, unsigned char *seen, unsigned char *pair)
{
	const struct sf_node *n = &nodes[c];
	uint32_t alts[MAX_CONJ];
	unsigned k, na = 0;
	uint64_t m, m2;
	int arg, a2;

	if (n->kind == SF_N_PRED && n->op == SF_OP_IN) {
		if (seen[n->arg])
			return -1;
		seen[n->arg] = S_IN;
		o->a[n->arg].many = 1;
		o->a[n->arg].bits = n->value;
		return 0;
	}
	if ((arg = not_bits(nodes, c, &m)) >= 0) {
		const struct sf_cset *s = flag_set(nr, (unsigned)arg);
		/* only the risky flags: anything else was not written by us,
		 * and reading it as "these were used" would lose it */
		if (!s || !m || (m & ~s->risky) || (seen[arg] && seen[arg] != S_PAIR))
			return -1;
		seen[arg] = S_RISKY;
		o->a[arg].many = 1;
		o->a[arg].bits = ~m;
		return 0;
	}
	if (n->kind == SF_N_OR) {
		if (flatten(nodes, c, SF_N_OR, alts, &na) < 0)
			return -1;
		/* the pair: !(arg & A) || !(arg & B) */
		if (na == 2 && (arg = not_bits(nodes, alts[0], &m)) >= 0 &&
		    (a2 = not_bits(nodes, alts[1], &m2)) == arg) {
			const struct sf_cset *s = flag_set(nr, (unsigned)arg);
			if (!s || !s->pair[0] || pair[arg] ||
			    !((m == s->pair[0] && m2 == s->pair[1]) ||
			      (m == s->pair[1] && m2 == s->pair[0])))
				return -1;
			pair[arg] = 1;
			if (seen[arg] == S_RISKY)
				return 0;
			if (seen[arg])
				return -1;
			/* the pair alone: every risky flag was used */
			seen[arg] = S_PAIR;
			o->a[arg].many = 1;
			o->a[arg].bits = ~0ull;
			return 0;
		}
		/* pairs: their values, each argument's apart */
		if (pair_alts(nodes, alts, na, &arg, &a2) == 0) {
			if (seen[arg] || seen[a2])
				return -1;
			seen[arg] = seen[a2] = S_VALUES;
			for (k = 0; k < na; k++) {
				obs_value(&o->a[arg], nodes[nodes[alts[k]].left].value);
				obs_value(&o->a[a2], nodes[nodes[alts[k]].right].value);
			}
			return o->a[arg].many || o->a[a2].many ? -1 : 0;
		}
	} else {
		alts[0] = c;
		na = 1;
	}
	/* values: arg == v || arg == w ... */
	arg = -1;
	for (k = 0; k < na; k++) {
		const struct sf_node *p = &nodes[alts[k]];
		if (p->kind != SF_N_PRED || p->op != SF_OP_EQ || (arg >= 0 && p->arg != arg))
			return -1;
		arg = p->arg;
	}
	if (arg < 0 || seen[arg])
		return -1;
	seen[arg] = S_VALUES;
	for (k = 0; k < na; k++)
		obs_value(&o->a[arg], nodes[alts[k]].value);
	return o->a[arg].many ? -1 : 0;
}

int sf_obs_of_filters(struct sf_obs *o, const struct sf_policy *p, long nr)
{
	const struct sf_sysrule *r;
	unsigned char seen[SF_MAX_ARGS] = { 0 }, pair[SF_MAX_ARGS] = { 0 };
	unsigned i, f;

	sf_obs_init(o);
	if (nr < 0 || nr >= SF_NR_COUNT)
		return 0;
	r = &p->sys[nr];
	if (!r->allowed || r->ret)
		return 0;
	for (f = 0; f < r->nfilters; f++) {
		const struct sf_filter *fl = &p->filters[sf_rule_first(p, r) + f];
		uint32_t conj[MAX_CONJ];
		unsigned n = 0, k;

		if (fl->fail || flatten(p->nodes, fl->root, SF_N_AND, conj, &n) < 0)
			return 0;
		for (k = 0; k < n; k++)
			if (read_conjunct(p->nodes, conj[k], nr, o, seen, pair) < 0)
				return 0;
	}
	for (i = 0; i < SF_MAX_ARGS; i++) {
		if (!seen[i])
			sf_argobs_any(&o->a[i]);
		else
			o->a[i].keep = 1;
		o->a[i].pair_seen = !pair[i];
	}
	return 1;
}

/* ---- pairs ---- */

int sf_pairs_args(long nr, unsigned *arg, unsigned *by)
{
	const struct sf_syscall *sc = sf_syscall_by_nr(nr);
	unsigned i;

	for (i = 0; sc && i < sc->nargs; i++) {
		const struct sf_argdesc *d = sf_argdesc(nr, i);
		if (d && (d->kind == SF_AK_ENUM || d->kind == SF_AK_FLAGS) && d->aux != SF_NO_ARG) {
			*arg = i;
			*by = d->aux;
			return 1;
		}
	}
	return 0;
}

static void pair_value(struct sf_pairs *p, uint64_t by, uint64_t arg)
{
	unsigned i;

	if (p->many)
		return;
	for (i = 0; i < p->n; i++)
		if (p->v[i][0] == by && p->v[i][1] == arg)
			return;
	if (p->n == SF_PAIRS) {
		p->many = 1;
		return;
	}
	p->v[p->n][0] = by;
	p->v[p->n++][1] = arg;
}

void sf_pairs_add(struct sf_pairs *p, long nr, const uint64_t a[6])
{
	const struct sf_syscall *sc = sf_syscall_by_nr(nr);
	unsigned arg, by;

	if (sf_pairs_args(nr, &arg, &by))
		pair_value(p, sf_normalize(a[by], arg_type(sc, by)),
			   sf_normalize(a[arg], arg_type(sc, arg)));
}

void sf_pairs_merge(struct sf_pairs *into, const struct sf_pairs *from)
{
	unsigned i;

	if (from->many)
		into->many = 1;
	for (i = 0; i < from->n; i++)
		pair_value(into, from->v[i][0], from->v[i][1]);
}

/* The pairs of a disjunction of them among filter f's conjuncts: 1 when
 * there is one. */
static int pairs_of_filter(struct sf_pairs *pp, const struct sf_node *nodes,
			   const struct sf_filter *f, unsigned arg, unsigned by)
{
	uint32_t conj[MAX_CONJ], alts[MAX_CONJ];
	unsigned n = 0, na, i, k;
	int a, b;

	if (flatten(nodes, f->root, SF_N_AND, conj, &n) < 0)
		return 0;
	for (i = 0; i < n; i++) {
		na = 0;
		if (nodes[conj[i]].kind != SF_N_OR ||
		    flatten(nodes, conj[i], SF_N_OR, alts, &na) < 0 ||
		    pair_alts(nodes, alts, na, &a, &b) < 0 || a != (int)by || b != (int)arg)
			continue;
		for (k = 0; k < na; k++)
			pair_value(pp, nodes[nodes[alts[k]].left].value,
				   nodes[nodes[alts[k]].right].value);
		return 1;
	}
	return 0;
}

void sf_pairs_of_filters(struct sf_pairs *pp, const struct sf_policy *p, long nr,
			 const struct sf_obs *o)
{
	const struct sf_argobs *x, *y;
	unsigned arg, by, f, i, j;

	pp->n = pp->many = 0;
	if (!sf_pairs_args(nr, &arg, &by))
		return;
	for (f = 0; f < p->sys[nr].nfilters; f++)
		if (pairs_of_filter(pp, p->nodes, &p->filters[sf_rule_first(p, &p->sys[nr]) + f],
				    arg, by))
			return;
	x = &o->a[arg];
	y = &o->a[by];
	if (x->many || y->many) {
		pp->many = 1;
		return;
	}
	for (i = 0; i < y->nvals; i++)
		for (j = 0; j < x->nvals; j++)
			pair_value(pp, y->vals[i], x->vals[j]);
}

/* ---- as text ---- */

static void hex(struct sf_out *o, uint64_t v)
{
	sf_out_digits(o, v, 16);
}

void sf_obs_format(struct sf_out *out, const struct sf_obs *o)
{
	unsigned i, k;

	hex(out, o->calls);
	for (i = 0; i < SF_MAX_ARGS; i++) {
		const struct sf_argobs *a = &o->a[i];
		sf_out_str(out, " ");
		hex(out, (uint64_t)(a->many | a->pair_seen << 1 | a->keep << 2));
		sf_out_str(out, ":");
		hex(out, a->bits);
		for (k = 0; k < a->nvals; k++) {
			sf_out_str(out, k ? "," : ":");
			hex(out, a->vals[k]);
		}
	}
}

static int read_hex(const char *s, size_t n, size_t *pos, uint64_t *v)
{
	size_t start = *pos;

	*v = 0;
	while (*pos < n) {
		char c = s[*pos];
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') :
			     c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) : 16;
		if (d == 16)
			break;
		if (*v >> 60)
			return -1;
		*v = *v << 4 | d;
		++*pos;
	}
	return *pos > start ? 0 : -1;
}

int sf_obs_parse(struct sf_obs *o, const char *s, size_t n)
{
	size_t pos = 0;
	uint64_t v;
	unsigned i;

	sf_obs_init(o);
	if (read_hex(s, n, &pos, &o->calls) < 0)
		return -1;
	for (i = 0; i < SF_MAX_ARGS; i++) {
		struct sf_argobs *a = &o->a[i];
		if (pos >= n || s[pos++] != ' ' || read_hex(s, n, &pos, &v) < 0 || v > 7)
			return -1;
		a->many = v & 1;
		a->pair_seen = (v >> 1) & 1;
		a->keep = (v >> 2) & 1;
		if (pos >= n || s[pos++] != ':' || read_hex(s, n, &pos, &a->bits) < 0)
			return -1;
		while (pos < n && (s[pos] == ':' || s[pos] == ',') &&
		       (s[pos] == ':') == (a->nvals == 0)) {
			pos++;
			if (a->nvals >= SF_OBS_VALUES || read_hex(s, n, &pos, &v) < 0)
				return -1;
			a->vals[a->nvals++] = v;
		}
	}
	return pos == n ? 0 : -1;
}
