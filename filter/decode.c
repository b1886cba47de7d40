/* Arguments as people read them (decode.h): constants by name, file names
 * and socket addresses.  No libc: the preload library formats its reports
 * with this, possibly inside a trapped malloc. */
#include "decode.h"

#define AT_FDCWD_VALUE ((uint64_t)(int64_t)-100)

const struct sf_argdesc *sf_argdesc(long nr, unsigned arg)
{
	unsigned lo = 0, hi = sf_argdesc_count;
	long key = nr * 8 + (long)arg;

	if (nr < 0 || nr >= SF_NR_COUNT || arg >= SF_MAX_ARGS)
		return NULL;
	while (lo < hi) { /* the first row of the argument: see sf_argdesc_call */
		unsigned mid = lo + (hi - lo) / 2;
		long k = (long)sf_argdescs[mid].nr * 8 + sf_argdescs[mid].arg;
		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < sf_argdesc_count && sf_argdescs[lo].nr == nr && sf_argdescs[lo].arg == arg)
		return &sf_argdescs[lo];
	return NULL;
}

static enum sf_type arg_type(long nr, unsigned arg)
{
	const struct sf_syscall *sc = sf_syscall_by_nr(nr);

	return sc && arg < sc->nargs ? (enum sf_type)sc->args[arg].type : SF_T_U64;
}

const struct sf_argdesc *sf_argdesc_call(long nr, unsigned arg, const uint64_t a[6],
					 struct sf_argdesc *tmp)
{
	const struct sf_argdesc *d = sf_argdesc(nr, arg), *end = sf_argdescs + sf_argdesc_count;
	const struct sf_argdesc *row;
	enum sf_type t;

	if (!d || (d->kind != SF_AK_ENUM && d->kind != SF_AK_FLAGS) || d->aux == SF_NO_ARG)
		return d;
	t = arg_type(nr, d->aux);
	/* the argument's rows, one per value of the other argument */
	for (row = d; row < end && row->nr == d->nr && row->arg == d->arg; row++)
		if (sf_normalize(a[d->aux], t) == sf_normalize(row->cond, t))
			return row;
	*tmp = *d;
	tmp->kind = SF_AK_NUM;
	return tmp;
}

static uint64_t width_mask(enum sf_type t)
{
	return t == SF_T_U16 ? 0xffff : t == SF_T_S32 || t == SF_T_U32 ? 0xffffffffull
								     : ~0ull;
}

static const struct sf_const *item(unsigned i)
{
	return &sf_consts[sf_cset_items[i]];
}

/* A number as the canonical printer writes one: signed types in decimal,
 * others in decimal up to 0xffff and in hex above; pointers in hex. */
static void plain(struct sf_out *o, enum sf_type t, uint64_t v)
{
	if (sf_type_signed(t))
		sf_out_s64(o, (int64_t)v);
	else
		sf_out_u64(o, v, t != SF_T_PTR && v <= 0xffff ? 10 : 16);
}

static void octal(struct sf_out *o, uint64_t v)
{
	char d[24];
	int i = sizeof d;

	do {
		d[--i] = (char)('0' + (v & 7));
		v >>= 3;
	} while (v);
	if (d[i] != '0')
		d[--i] = '0';
	sf_out_mem(o, d + i, sizeof d - (size_t)i);
}

static const char *enum_name(const struct sf_cset *s, unsigned first, unsigned n,
			     enum sf_type t, uint64_t v)
{
	unsigned i;

	(void)s;
	for (i = first; i < first + n; i++)
		if (sf_normalize(item(i)->value, t) == v)
			return item(i)->name;
	return NULL;
}

/* The field's values that are among the bits of *rest, by name, taken out
 * of *rest: a mask's field bits (O_WRONLY|O_RDWR for 3). */
static void field_bits(struct sf_out *o, const struct sf_cset *s, uint64_t *rest, int *parts)
{
	unsigned i;

	for (i = s->field_first; i < s->field_first + s->field_count; i++) {
		uint64_t c = item(i)->value;
		if (!c || (*rest & c) != c)
			continue;
		if ((*parts)++)
			sf_out_str(o, "|");
		sf_out_str(o, item(i)->name);
		*rest &= ~c;
	}
}

/* mask: v is a mask, not a value (see sf_decode_mask). */
static void flags_text(struct sf_out *o, const struct sf_cset *s, enum sf_type t, uint64_t v,
		       int mask)
{
	uint64_t rest = v & width_mask(t);
	const char *zero = NULL;
	int parts = 0;
	unsigned i;

	if (s->field && mask) {
		field_bits(o, s, &rest, &parts);
	} else if (s->field) {
		uint64_t fv = rest & s->field;
		const char *name = enum_name(s, s->field_first, s->field_count, SF_T_U64, fv);
		if (name) {
			sf_out_str(o, name);
			parts++;
		} else if (fv) {
			sf_out_u64(o, fv, 16);
			parts++;
		}
		rest &= ~s->field;
	}
	for (i = s->first; i < s->first + s->count; i++) {
		uint64_t c = item(i)->value;
		if (!c) {
			zero = mask ? NULL : item(i)->name;
			continue;
		}
		if ((rest & c) != c)
			continue;
		if (parts++)
			sf_out_str(o, "|");
		sf_out_str(o, item(i)->name);
		rest &= ~c;
	}
	if (rest) {
		if (parts++)
			sf_out_str(o, "|");
		sf_out_u64(o, rest, 16);
	}
	if (!parts)
		sf_out_str(o, zero ? zero : "0");
}

void sf_decode_value(struct sf_out *o, const struct sf_argdesc *d, enum sf_type t, uint64_t v)
{
	const struct sf_cset *s;
	const char *name;

	v = sf_normalize(v, t);
	if (!d) {
		plain(o, t, v);
		return;
	}
	switch (d->kind) {
	case SF_AK_DIRFD:
		if (v == sf_normalize(AT_FDCWD_VALUE, t)) {
			sf_out_str(o, "AT_FDCWD");
			return;
		}
		break;
	case SF_AK_MODE:
		octal(o, v);
		return;
	case SF_AK_ENUM:
		s = &sf_csets[d->set];
		name = enum_name(s, s->first, s->count, t, v);
		if (name) {
			sf_out_str(o, name);
			return;
		}
		break;
	case SF_AK_FLAGS:
		flags_text(o, &sf_csets[d->set], t, v, 0);
		return;
	default:
		break;
	}
	plain(o, t, v);
}

void sf_decode_mask(struct sf_out *o, const struct sf_argdesc *d, enum sf_type t,
		    uint64_t v)
{
	if (d && d->kind == SF_AK_FLAGS)
		flags_text(o, &sf_csets[d->set], t, sf_normalize(v, t), 1);
	else
		sf_decode_value(o, d, t, v);
}

static int is_pointer_kind(const struct sf_argdesc *d)
{
	return d && (d->kind == SF_AK_PATH || d->kind == SF_AK_STR || d->kind == SF_AK_SOCKADDR);
}

void sf_decode_arg(struct sf_out *o, long nr, unsigned arg, const uint64_t a[6])
{
	struct sf_argdesc tmp;
	const struct sf_argdesc *d = sf_argdesc_call(nr, arg, a, &tmp);
	enum sf_type t = arg_type(nr, arg);
	uint64_t v = sf_normalize(a[arg], t);
	char sym[512], num[32];
	struct sf_out so = { sym, sizeof sym, 0 }, no = { num, sizeof num, 0 };
	size_t i;

	if (t == SF_T_PTR || is_pointer_kind(d)) {
		sf_out_u64(o, v, 16);
		return;
	}
	sf_decode_value(&so, d, t, v);
	sf_out_end(&so);
	if (d && d->kind == SF_AK_FLAGS)
		sf_out_u64(&no, v & width_mask(t), 16);
	else if (d && d->kind == SF_AK_MODE)
		octal(&no, v);
	else
		plain(&no, t, v);
	sf_out_end(&no);
	sf_out_str(o, sym);
	for (i = 0; sym[i] && sym[i] == num[i]; i++)
		;
	if (sym[i] || num[i]) {
		sf_out_str(o, " (");
		sf_out_str(o, num);
		sf_out_str(o, ")");
	}
}

void sf_decode_string(struct sf_out *o, const char *s, size_t n, int trunc)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	sf_out_str(o, "\"");
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char e[4] = { '\\', 0, 0, 0 };
		switch (c) {
		case '\n': e[1] = 'n'; break;
		case '\t': e[1] = 't'; break;
		case '"': e[1] = '"'; break;
		case '\\': e[1] = '\\'; break;
		default:
			if (c >= 0x20 && c < 0x7f) {
				sf_out_mem(o, (const char *)&c, 1);
				continue;
			}
			e[1] = 'x';
			e[2] = hex[c >> 4];
			e[3] = hex[c & 15];
			sf_out_mem(o, e, 4);
			continue;
		}
		sf_out_mem(o, e, 2);
	}
	sf_out_str(o, trunc ? "\"..." : "\"");
}

static void family_name(struct sf_out *o, unsigned family)
{
	unsigned i;

	for (i = 0; i < sf_cset_count; i++)
		if (sf_csets[i].name[0] == 'a' && sf_csets[i].name[1] == 'f' && !sf_csets[i].name[2]) {
			const char *name = enum_name(&sf_csets[i], sf_csets[i].first,
						     sf_csets[i].count, SF_T_U32, family);
			if (name) {
				sf_out_str(o, name);
				return;
			}
		}
	sf_out_u64(o, family, 10);
}

static unsigned be16(const unsigned char *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

static void inet6(struct sf_out *o, const unsigned char *a)
{
	unsigned w[8], i, best = 8, bestlen = 0;

	for (i = 0; i < 8; i++)
		w[i] = be16(a + 2 * i);
	/* the longest run of zero words, at least two, becomes "::" */
	for (i = 0; i < 8;) {
		unsigned j = i;
		while (j < 8 && !w[j])
			j++;
		if (j - i > bestlen && j - i >= 2) {
			best = i;
			bestlen = j - i;
		}
		i = j > i ? j : i + 1;
	}
	for (i = 0; i < 8; i++) {
		if (i == best) {
			sf_out_str(o, "::");
			i += bestlen - 1;
			continue;
		}
		if (i && i != best + bestlen)
			sf_out_str(o, ":");
		{
			char h[5];
			int k = 4;
			unsigned v = w[i];
			h[4] = 0;
			do {
				h[--k] = "0123456789abcdef"[v & 15];
				v >>= 4;
			} while (v);
			sf_out_str(o, h + k);
		}
	}
}

void sf_decode_sockaddr(struct sf_out *o, const unsigned char *sa, size_t n)
{
	unsigned family;
	size_t i;

	if (n < 2) {
		sf_out_str(o, "{}");
		return;
	}
	family = (unsigned)sa[0] | (unsigned)sa[1] << 8;
	sf_out_str(o, "{");
	family_name(o, family);
	sf_out_str(o, ", ");
	if (family == 1 /* AF_UNIX */) {
		size_t len = 0;
		if (n > 2 && sa[2] == 0) { /* abstract: the name is every byte given */
			sf_out_str(o, "@");
			sf_decode_string(o, (const char *)sa + 3, n - 3, 0);
		} else {
			while (2 + len < n && sa[2 + len])
				len++;
			sf_decode_string(o, (const char *)sa + 2, len, 0);
		}
	} else if (family == 2 /* AF_INET */ && n >= 8) {
		for (i = 0; i < 4; i++) {
			if (i)
				sf_out_str(o, ".");
			sf_out_u64(o, sa[4 + i], 10);
		}
		sf_out_str(o, ":");
		sf_out_u64(o, be16(sa + 2), 10);
	} else if (family == 10 /* AF_INET6 */ && n >= 24) {
		sf_out_str(o, "[");
		inet6(o, sa + 8);
		sf_out_str(o, "]:");
		sf_out_u64(o, be16(sa + 2), 10);
	} else {
		sf_out_u64(o, n, 10);
		sf_out_str(o, " bytes");
	}
	sf_out_str(o, "}");
}
