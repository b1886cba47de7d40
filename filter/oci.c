/* OCI seccomp profiles (.json), read as Docker (moby's profile loader),
 * runc 1.1 and libseccomp 2.5 make of them for an x86-64 container
 * without added capabilities, into the tree the parser builds
 * (internal.h).  secfilter(7) "OTHER SYNTAXES" says what they mean and
 * where secfilter must differ.
 *
 * The steps, in the order they happen to a profile:
 *  - Docker keeps the entries whose includes/excludes hold: `arches`
 *    against "amd64", `caps` against an empty capability set (entries
 *    that need a capability go, entries excluded for one stay),
 *    `minKernel` against the running kernel; archMap gives the
 *    architectures of SCMP_ARCH_X86_64;
 *  - runc makes one rule per name; skips a rule whose action is the
 *    default action (libseccomp refuses those) and names libseccomp does
 *    not know; a rule that tests one argument twice becomes one rule per
 *    condition (its conditions OR-ed, not AND-ed);
 *  - libseccomp compares the whole 64-bit register; rules of one syscall
 *    with one action are OR-ed; the first rule without conditions decides
 *    the syscall alone; rules with different actions that can match one
 *    call are decided by the shape of libseccomp's rule tree, which is
 *    not reproduced here: such a profile is refused, saying which rules;
 *  - runc puts a stub in front of the filter when the profile names
 *    SCMP_ARCH_X86_64 and its default action stops calls: a number above
 *    the highest one the profile names gets ENOSYS (new syscalls look
 *    absent, and glibc falls back). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "json.h"
#include "mem.h"

/* libseccomp's actions, as profiles name them.  TRACE and NOTIFY hand
 * calls to another process: refused. */
enum { A_KILL_THREAD, A_KILL_PROCESS, A_TRAP, A_ERRNO, A_TRACE, A_LOG, A_ALLOW, A_NOTIFY };

static const char *const action_names[] = {
	"SCMP_ACT_KILL", "SCMP_ACT_KILL_THREAD", "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_TRAP",
	"SCMP_ACT_ERRNO", "SCMP_ACT_TRACE", "SCMP_ACT_LOG", "SCMP_ACT_ALLOW",
	"SCMP_ACT_NOTIFY", NULL,
};
static const int action_codes[] = {
	A_KILL_THREAD, A_KILL_THREAD, A_KILL_PROCESS, A_TRAP, A_ERRNO, A_TRACE, A_LOG,
	A_ALLOW, A_NOTIFY,
};

/* The architectures runc 1.1 knows. */
static const char *const arch_names[] = {
	"SCMP_ARCH_X86", "SCMP_ARCH_X86_64", "SCMP_ARCH_X32", "SCMP_ARCH_ARM",
	"SCMP_ARCH_AARCH64", "SCMP_ARCH_MIPS", "SCMP_ARCH_MIPS64", "SCMP_ARCH_MIPS64N32",
	"SCMP_ARCH_MIPSEL", "SCMP_ARCH_MIPSEL64", "SCMP_ARCH_MIPSEL64N32", "SCMP_ARCH_PPC",
	"SCMP_ARCH_PPC64", "SCMP_ARCH_PPC64LE", "SCMP_ARCH_S390", "SCMP_ARCH_S390X", NULL,
};

enum { OP_NE, OP_LT, OP_LE, OP_EQ, OP_GE, OP_GT, OP_MASKED_EQ };

static const char *const op_names[] = {
	"SCMP_CMP_NE", "SCMP_CMP_LT", "SCMP_CMP_LE", "SCMP_CMP_EQ", "SCMP_CMP_GE",
	"SCMP_CMP_GT", "SCMP_CMP_MASKED_EQ", NULL,
};

struct cond {
	uint8_t arg, op;
	uint64_t value, value2;
};

/* One libseccomp rule of one syscall. */
struct orule {
	uint16_t action; /* secfilter's: SF_ACTION_RUN, an errno, KILL, TRAP, LOG */
	uint8_t ncond;
	struct cond cond[SF_MAX_ARGS];
	uint32_t at;     /* the JSON value it comes from (its name), for messages */
};

struct oci {
	struct sf_front f; /* first: sf_front_state fills it; f.nr: struct orule */
	struct sf_json_doc doc;
	const char *release;
	uint32_t dflt_seccomp;      /* libseccomp's value of the default action */
	uint16_t dflt;              /* secfilter's, or SF_ACTION_RUN for ALLOW */
	int x86_64;                 /* architectures name SCMP_ARCH_X86_64 */
	int max_nr;                 /* the highest number the profile names */
};

/* ---- messages ---- */

static int at_node(struct oci *o, const struct sf_json *v, int key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* An error at v (at its key when key is set and v has one). */
static int at_node(struct oci *o, const struct sf_json *v, int key, const char *fmt, ...)
{
	char msg[640];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!v)
		sf_error_src(o->f.err, -EINVAL, o->f.ast, o->f.src, 0, 0, 0, "%s", msg);
	else if (key && v->key)
		sf_error_src(o->f.err, -EINVAL, o->f.ast, o->f.src, v->key_line, v->key_col, v->key_len,
			     "%s", msg);
	else
		sf_error_src(o->f.err, -EINVAL, o->f.ast, o->f.src, v->line, v->col, v->len ? v->len : 1,
			     "%s", msg);
	return -EINVAL;
}

static int oom(struct oci *o, int rc)
{
	sf_error_src(o->f.err, rc, o->f.ast, o->f.src, 0, 0, 0, "%s",
		     rc == -E2BIG ? "profile too large" : "out of memory");
	return rc;
}

static const struct sf_json *J(const struct oci *o, uint32_t i)
{
	return sf_json_at(&o->doc, i);
}

static uint32_t idx(const struct oci *o, const struct sf_json *v)
{
	return (uint32_t)(v - &SF_VEC_AT(&o->doc.nodes, struct sf_json, 0));
}

static int str_is(const struct sf_json *v, const char *s)
{
	return v->kind == SF_J_STR && v->slen == strlen(s) && memcmp(v->str, s, v->slen) == 0;
}

/* The index of v's string in a NULL-terminated list, or -1. */
static int str_in(const struct sf_json *v, const char *const *list)
{
	int i;

	for (i = 0; list[i]; i++)
		if (str_is(v, list[i]))
			return i;
	return -1;
}

static const char *list_at(const void *ctx, unsigned i)
{
	return ((const char *const *)ctx)[i];
}

/* "unknown X 'v' (did you mean 'w'?)" over a NULL-terminated list. */
static int unknown(struct oci *o, const struct sf_json *v, const char *what,
		   const char *const *list)
{
	const char *near = sf_closest(v->str, v->slen, list_at, list);

	if (near)
		return at_node(o, v, 0, "unknown %s \"%s\" (did you mean \"%s\"?)", what, v->str,
			       near);
	return at_node(o, v, 0, "unknown %s \"%s\"", what, v->str);
}

/* ---- typed fields ---- */

struct field {
	const char *key;
	uint8_t kind;            /* enum sf_json_kind wanted */
	const struct sf_json *v; /* filled in: NULL when absent or null */
};

static const char *field_at(const void *ctx, unsigned i)
{
	return ((const struct field *)ctx)[i].key;
}

/* Fills the fields (a list ended by a NULL key) from an object.  A key it
 * does not know is an error: Docker ignores it, but a misspelt "args"
 * would silently allow more than its author meant. */
static int fields(struct oci *o, const struct sf_json *obj, const char *what, struct field *f)
{
	uint32_t c;
	unsigned i;

	if (obj->kind != SF_J_OBJ)
		return at_node(o, obj, 0, "%s must be an object, not %s", what,
			       sf_json_kind_name((enum sf_json_kind)obj->kind));
	for (c = obj->first; c != SF_J_NONE; c = J(o, c)->next) {
		const struct sf_json *v = J(o, c);

		for (i = 0; f[i].key; i++)
			if (strlen(f[i].key) == v->keylen && memcmp(f[i].key, v->key, v->keylen) == 0)
				break;
		if (!f[i].key) {
			char list[400];
			size_t k = 0;
			const char *near = sf_closest(v->key, v->keylen, field_at, f);

			if (near)
				return at_node(o, v, 1, "unknown key \"%s\" in %s (did you mean "
					       "\"%s\"?)", v->key, what, near);
			for (i = 0; f[i].key && k < sizeof(list); i++)
				k += (size_t)snprintf(list + k, sizeof(list) - k, "%s%s",
						      i ? ", " : "", f[i].key);
			return at_node(o, v, 1, "unknown key \"%s\" in %s (expected %s)", v->key,
				       what, list);
		}
		if (v->kind == SF_J_NULL)
			continue; /* as a Go decoder does: null leaves the field unset */
		if (v->kind != f[i].kind)
			return at_node(o, v, 0, "\"%s\" must be %s, not %s", f[i].key,
				       sf_json_kind_name((enum sf_json_kind)f[i].kind),
				       sf_json_kind_name((enum sf_json_kind)v->kind));
		f[i].v = v;
	}
	return 0;
}

/* Every element of an array of strings is a string. */
static int strings(struct oci *o, const struct sf_json *arr, const char *what)
{
	uint32_t c;

	for (c = arr ? arr->first : SF_J_NONE; c != SF_J_NONE; c = J(o, c)->next)
		if (J(o, c)->kind != SF_J_STR)
			return at_node(o, J(o, c), 0, "%s must be strings, not %s", what,
				       sf_json_kind_name((enum sf_json_kind)J(o, c)->kind));
	return 0;
}

static int contains(const struct oci *o, const struct sf_json *arr, const char *s)
{
	uint32_t c;

	for (c = arr ? arr->first : SF_J_NONE; c != SF_J_NONE; c = J(o, c)->next)
		if (str_is(J(o, c), s))
			return 1;
	return 0;
}

/* An unsigned field; max bounds what fits (Go's uint is 64 bits). */
static int uint_field(struct oci *o, const struct sf_json *v, uint64_t max, uint64_t *out)
{
	if (sf_json_uint(v, max, out) == 0)
		return 0;
	return at_node(o, v, 0, "\"%s\" must be a whole number from 0 to %llu, not %.*s",
		       v->key ? v->key : "value", (unsigned long long)max, (int)v->slen, v->str);
}

/* ---- kernel versions: "<kernel>.<major>", as Docker reads them ---- */

static int version_part(const char *s, size_t n, unsigned *out)
{
	unsigned v = 0;
	size_t i;

	if (n == 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned)(s[i] - '0');
		if (v > 255) /* strconv.ParseUint(_, 10, 8) */
			return -1;
	}
	*out = v;
	return 0;
}

/* minKernel: a string "K.M", each 0..255, not 0.0; "" is no constraint
 * (*set 0). */
static int min_kernel(struct oci *o, const struct sf_json *v, int *set, unsigned *k, unsigned *m)
{
	const char *dot;

	*set = 0;
	if (!v || v->slen == 0)
		return 0;
	dot = memchr(v->str, '.', v->slen);
	if (!dot || memchr(dot + 1, '.', v->slen - (size_t)(dot + 1 - v->str)) ||
	    version_part(v->str, (size_t)(dot - v->str), k) < 0 ||
	    version_part(dot + 1, v->slen - (size_t)(dot + 1 - v->str), m) < 0)
		return at_node(o, v, 0, "invalid kernel version \"%s\", expected \"<kernel>.<major>\" "
			       "(each 0 to 255)", v->str);
	if (*k == 0 && *m == 0)
		return at_node(o, v, 0, "invalid kernel version \"%s\": version cannot be 0.0", v->str);
	*set = 1;
	return 0;
}

/* The running kernel is at least k.m (its release read as "%d.%d"). */
static int kernel_at_least(struct oci *o, const struct sf_json *at, unsigned k, unsigned m,
			   int *yes)
{
	unsigned rk = 0, rm = 0;
	const char *s = o->release;

	if (*s < '0' || *s > '9')
		return at_node(o, at, 0, "cannot read the running kernel's version from \"%s\"", s);
	while (*s >= '0' && *s <= '9')
		rk = rk * 10 + (unsigned)(*s++ - '0');
	if (*s++ != '.' || *s < '0' || *s > '9')
		return at_node(o, at, 0, "cannot read the running kernel's version from \"%s\"",
			       o->release);
	while (*s >= '0' && *s <= '9')
		rm = rm * 10 + (unsigned)(*s++ - '0');
	*yes = rk > k || (rk == k && rm >= m);
	return 0;
}

/* includes/excludes, as read: the checks a Go decoder makes of them. */
struct ofilter {
	struct field f[4]; /* caps, arches, minKernel */
	int set;
	unsigned k, m;
};

static int read_filter(struct oci *o, const struct sf_json *obj, const char *what,
		       struct ofilter *of)
{
	static const struct field f0[] = {
		{ "caps", SF_J_ARR, NULL }, { "arches", SF_J_ARR, NULL },
		{ "minKernel", SF_J_STR, NULL }, { NULL, 0, NULL },
	};
	int rc;

	memcpy(of->f, f0, sizeof(f0));
	of->set = 0;
	if (!obj)
		return 0;
	if ((rc = fields(o, obj, what, of->f)) || (rc = strings(o, of->f[0].v, "caps")) ||
	    (rc = strings(o, of->f[1].v, "arches")))
		return rc;
	return min_kernel(o, of->f[2].v, &of->set, &of->k, &of->m);
}

/* Whether an entry stays: Docker's test of its includes (all must hold)
 * or excludes (one holding removes it), for an amd64 container whose
 * capability set is empty. */
static int filter_holds(struct oci *o, const struct ofilter *of, int excludes, int *holds)
{
	const struct sf_json *caps = of->f[0].v, *archs = of->f[1].v;
	int rc, ok;

	*holds = 0;
	if (excludes) {
		if (archs && archs->count && contains(o, archs, "amd64"))
			return 0;
		/* caps: no capability of an empty set is listed */
		if (of->set) {
			if ((rc = kernel_at_least(o, of->f[2].v, of->k, of->m, &ok)))
				return rc;
			if (ok)
				return 0;
		}
	} else {
		if (archs && archs->count && !contains(o, archs, "amd64"))
			return 0;
		if (caps && caps->count)
			return 0; /* the empty set holds none of them */
		if (of->set) {
			if ((rc = kernel_at_least(o, of->f[2].v, of->k, of->m, &ok)))
				return rc;
			if (!ok)
				return 0;
		}
	}
	*holds = 1;
	return 0;
}

/* ---- actions ---- */

#define RET_ERRNO(e) (0x00050000u | ((e) & 0xffffu))

/* An action and its errnoRet: libseccomp's value (for runc's "same as
 * the default" test) and secfilter's. */
static int action_of(struct oci *o, const struct sf_json *name, const struct sf_json *errno_ret,
		     int is_default, uint32_t *seccomp, uint16_t *ours)
{
	uint64_t e = 1; /* runc's EPERM when errnoRet is absent */
	int i, a;

	if (!name || name->kind != SF_J_STR)
		return at_node(o, name, 0, "missing action");
	i = str_in(name, action_names);
	if (i < 0)
		return unknown(o, name, "action", action_names);
	a = action_codes[i];
	if (a == A_TRACE)
		return at_node(o, name, 0, "SCMP_ACT_TRACE hands the call to a ptrace tracer; "
			       "secfilter has none (without one, the kernel fails the call with "
			       "ENOSYS: say SCMP_ACT_ERRNO with errnoRet 38)");
	if (a == A_NOTIFY)
		return at_node(o, name, 0, "SCMP_ACT_NOTIFY hands the call to a supervisor "
			       "process; secfilter has none");
	switch (a) {
	case A_KILL_THREAD: *seccomp = 0; *ours = SF_ACTION_KILL; break;
	case A_KILL_PROCESS: *seccomp = 0x80000000u; *ours = SF_ACTION_KILL; break;
	case A_TRAP: *seccomp = 0x00030000u; *ours = SF_ACTION_TRAP; break;
	case A_LOG: *seccomp = 0x7ffc0000u; *ours = SF_ACTION_LOG; break;
	case A_ALLOW: *seccomp = 0x7fff0000u; *ours = SF_ACTION_RUN; break;
	default: /* A_ERRNO: runc passes int16(errnoRet), libseccomp keeps
		    16 bits and takes 0 to 4094 */
		if (errno_ret && uint_field(o, errno_ret, UINT64_MAX, &e))
			return -EINVAL;
		if ((e & 0xffff) == 0)
			return at_node(o, errno_ret, 0, "%s %llu makes the call return 0 without "
				       "running it, which secfilter cannot express: an errno is 1 "
				       "to 4094 here", is_default ? "defaultErrnoRet" : "errnoRet",
				       (unsigned long long)e);
		if ((e & 0xffff) >= SF_ERRNO_MAX)
			return at_node(o, errno_ret, 0, "%s %llu: libseccomp takes errno numbers "
				       "below 4095, and runc refuses the profile",
				       is_default ? "defaultErrnoRet" : "errnoRet", (unsigned long long)e);
		*seccomp = RET_ERRNO(e);
		*ours = (uint16_t)(e & 0xffff);
	}
	return 0;
}

/* ---- conditions ---- */

/* Whether some 64-bit x meets both conditions (each on one register). */
struct set {
	int kind; /* 0 interval [lo, hi], 1 all but v (lo), 2 masked: x & m == d */
	uint64_t lo, hi, m, d;
};

static int set_of(const struct cond *c, struct set *s)
{
	uint64_t v = c->value;

	memset(s, 0, sizeof(*s));
	s->hi = UINT64_MAX;
	switch (c->op) {
	case OP_EQ: s->lo = s->hi = v; break;
	case OP_NE: s->kind = 1; s->lo = v; break;
	case OP_LT: if (v == 0) return 0; s->hi = v - 1; break;
	case OP_LE: s->hi = v; break;
	case OP_GT: if (v == UINT64_MAX) return 0; s->lo = v + 1; break;
	case OP_GE: s->lo = v; break;
	default: /* masked: value is the mask, valueTwo the datum, which
		    libseccomp cuts to the mask */
		s->kind = 2;
		s->m = c->value;
		s->d = c->value2 & c->value;
	}
	return 1; /* not empty */
}

/* The least x >= lo with x & m == d (d within m); 0 with *none when none. */
static uint64_t least_masked(uint64_t lo, uint64_t m, uint64_t d, int *none)
{
	uint64_t prefix = 0, alt = 0;
	int have_alt = 0, i;

	*none = 0;
	for (i = 63; i >= 0; i--) {
		uint64_t bit = 1ull << i, below = bit - 1;
		if (m & bit) {
			uint64_t want = d & bit;
			if (want > (lo & bit))
				return prefix | want | (d & below);
			if (want < (lo & bit)) {
				*none = !have_alt;
				return alt;
			}
			prefix |= want;
		} else {
			if (!(lo & bit)) {
				alt = prefix | bit | (d & below);
				have_alt = 1;
			}
			prefix |= lo & bit;
		}
	}
	return prefix;
}

static int is_point(const struct set *s, uint64_t *v)
{
	if (s->kind == 0 && s->lo == s->hi)
		return *v = s->lo, 1;
	if (s->kind == 2 && s->m == UINT64_MAX)
		return *v = s->d, 1;
	return 0;
}

static int meet(const struct set *a, const struct set *b)
{
	uint64_t p, x;
	int none;

	if (a->kind > b->kind)
		return meet(b, a);
	if (a->kind == 0 && b->kind == 0)
		return (a->lo > b->lo ? a->lo : b->lo) <= (a->hi < b->hi ? a->hi : b->hi);
	if (a->kind == 1 || b->kind == 1) {
		const struct set *other = a->kind == 1 ? b : a, *ne = a->kind == 1 ? a : b;
		if (other->kind == 1)
			return 1;
		return !(is_point(other, &p) && p == ne->lo);
	}
	if (a->kind == 0) { /* interval and masked */
		x = least_masked(a->lo, b->m, b->d, &none);
		return !none && x <= a->hi;
	}
	return ((a->d ^ b->d) & a->m & b->m) == 0;
}

/* Whether one call can meet both rules. */
static int overlap(const struct orule *r1, const struct orule *r2)
{
	struct set s1[SF_MAX_ARGS], s2[SF_MAX_ARGS];
	int has1[SF_MAX_ARGS] = { 0 }, has2[SF_MAX_ARGS] = { 0 };
	unsigned i;

	for (i = 0; i < r1->ncond; i++) {
		if (!set_of(&r1->cond[i], &s1[r1->cond[i].arg]))
			return 0;
		has1[r1->cond[i].arg] = 1;
	}
	for (i = 0; i < r2->ncond; i++) {
		if (!set_of(&r2->cond[i], &s2[r2->cond[i].arg]))
			return 0;
		has2[r2->cond[i].arg] = 1;
	}
	for (i = 0; i < SF_MAX_ARGS; i++)
		if (has1[i] && has2[i] && !meet(&s1[i], &s2[i]))
			return 0;
	return 1;
}

/* ---- the entries ---- */

static int add_rule(struct oci *o, unsigned nr, const struct orule *r)
{
	struct orule *slot = sf_vec_push(&o->f.nr[nr], sizeof(*r), 1u << 16);

	if (!slot)
		return oom(o, o->f.nr[nr].n >= (1u << 16) ? -E2BIG : -ENOMEM);
	*slot = *r;
	return 0;
}

/* args: the conditions of one entry.  check: the types, which a Go
 * decoder checks in every entry; else what runc and libseccomp check in
 * the entries Docker keeps. */
static int conditions(struct oci *o, const struct sf_json *args, int check, struct cond *c,
		      unsigned *n, int *twice)
{
	unsigned seen[SF_MAX_ARGS] = { 0 };
	uint32_t k;
	int rc, i;

	*n = 0;
	*twice = 0;
	for (k = args ? args->first : SF_J_NONE; k != SF_J_NONE; k = J(o, k)->next) {
		struct field f[] = {
			{ "index", SF_J_NUM, NULL }, { "value", SF_J_NUM, NULL },
			{ "valueTwo", SF_J_NUM, NULL }, { "op", SF_J_STR, NULL }, { NULL, 0, NULL },
		};
		uint64_t index = 0, v = 0, v2 = 0;

		if ((rc = fields(o, J(o, k), "an argument condition", f)))
			return rc;
		if ((f[0].v && (rc = uint_field(o, f[0].v, UINT64_MAX, &index))) ||
		    (f[1].v && (rc = uint_field(o, f[1].v, UINT64_MAX, &v))) ||
		    (f[2].v && (rc = uint_field(o, f[2].v, UINT64_MAX, &v2))))
			return rc;
		if (check)
			continue;
		if (!f[3].v)
			return at_node(o, J(o, k), 0, "a condition without \"op\" (SCMP_CMP_EQ, ...)");
		i = str_in(f[3].v, op_names);
		if (i < 0)
			return unknown(o, f[3].v, "operator", op_names);
		if (index >= SF_MAX_ARGS)
			return at_node(o, f[0].v ? f[0].v : J(o, k), 0, "syscalls have six arguments: "
				       "\"index\" is 0 to 5");
		if (*n >= SF_MAX_ARGS)
			return at_node(o, J(o, k), 0, "more than six conditions in one entry "
				       "(libseccomp takes six at most)");
		*twice |= seen[index]++ > 0;
		c[*n].arg = (uint8_t)index;
		c[*n].op = (uint8_t)i;
		c[*n].value = v;
		c[*n].value2 = v2;
		++*n;
	}
	return 0;
}

/* One entry of "syscalls": checked as a Go decoder checks it, then, if
 * Docker keeps it, its rules. */
static int entry(struct oci *o, const struct sf_json *e)
{
	struct field f[] = {
		{ "names", SF_J_ARR, NULL }, { "name", SF_J_STR, NULL },
		{ "action", SF_J_STR, NULL }, { "errnoRet", SF_J_NUM, NULL },
		{ "args", SF_J_ARR, NULL }, { "comment", SF_J_STR, NULL },
		{ "includes", SF_J_OBJ, NULL }, { "excludes", SF_J_OBJ, NULL },
		{ NULL, 0, NULL },
	};
	struct ofilter inc, exc;
	struct cond c[SF_MAX_ARGS];
	uint64_t e_ret;
	unsigned n, i;
	uint32_t seccomp, k;
	uint16_t ours;
	int rc, holds, twice;

	if ((rc = fields(o, e, "a syscall entry", f)) || (rc = strings(o, f[0].v, "names")) ||
	    (rc = read_filter(o, f[6].v, "\"includes\"", &inc)) ||
	    (rc = read_filter(o, f[7].v, "\"excludes\"", &exc)) ||
	    (f[3].v && (rc = uint_field(o, f[3].v, UINT64_MAX, &e_ret))) ||
	    (rc = conditions(o, f[4].v, 1, c, &n, &twice)))
		return rc;
	if (f[1].v && f[0].v && f[0].v->count)
		return at_node(o, f[1].v, 1, "both 'name' and 'names' are specified in the seccomp "
			       "profile, use either 'name' or 'names'");
	if (f[7].v && ((rc = filter_holds(o, &exc, 1, &holds)) || !holds))
		return rc;
	if (f[6].v && ((rc = filter_holds(o, &inc, 0, &holds)) || !holds))
		return rc;
	if ((rc = action_of(o, f[2].v ? f[2].v : e, f[3].v, 0, &seccomp, &ours)) ||
	    (rc = conditions(o, f[4].v, 0, c, &n, &twice)))
		return rc;
	k = f[1].v ? idx(o, f[1].v) : f[0].v ? f[0].v->first : SF_J_NONE;
	for (; k != SF_J_NONE; k = f[1].v ? SF_J_NONE : J(o, k)->next) {
		const struct sf_json *name = J(o, k);
		const struct sf_syscall *sc = sf_syscall_lookup(name->str, name->slen);
		struct orule r = { .action = ours, .at = k };

		/* names libseccomp does not know are runc's to skip; so are
		 * the table's entry-point aliases (sys_read) */
		if (!sc || strlen(sc->name) != name->slen || memcmp(sc->name, name->str, name->slen))
			continue;
		if (sc->nr > o->max_nr)
			o->max_nr = sc->nr;
		if (seccomp == o->dflt_seccomp)
			continue; /* runc: "this rule is redundant" */
		if (!twice) {
			r.ncond = (uint8_t)n;
			memcpy(r.cond, c, sizeof(c));
			if ((rc = add_rule(o, (unsigned)sc->nr, &r)))
				return rc;
			continue;
		}
		/* runc: an argument tested twice, each condition its own rule */
		for (i = 0; i < n; i++) {
			r.ncond = 1;
			r.cond[0] = c[i];
			if ((rc = add_rule(o, (unsigned)sc->nr, &r)))
				return rc;
		}
	}
	return 0;
}

/* ---- the tree ---- */

static int push_op(struct oci *o, uint32_t node)
{
	uint32_t *slot = sf_vec_push(&o->f.ops, sizeof(node), UINT32_MAX);

	if (!slot)
		return oom(o, -ENOMEM);
	*slot = node;
	return 0;
}

static int chain(struct oci *o, enum sf_kind kind, uint32_t base, uint32_t *out)
{
	int rc = sf_ast_chain(o->f.ast, kind, &SF_VEC_AT(&o->f.ops, uint32_t, base), o->f.ops.n - base,
			      out);

	o->f.ops.n = base;
	return rc ? oom(o, rc) : 0;
}

static int pred(struct oci *o, unsigned arg, enum sf_op op, uint64_t v, uint32_t *out)
{
	int rc = sf_ast_pred(o->f.ast, arg, SF_T_U64, op, v, out);

	return rc ? oom(o, rc) : 0;
}

/* One condition, on the whole register (libseccomp compares 64 bits).
 * x & m == d is `x in ~(m & ~d)` and one `x & b` for each bit b of d
 * (libseccomp cuts d to m first: a bit of d outside m is dropped). */
static int condition(struct oci *o, const struct cond *c, uint32_t *out)
{
	static const enum sf_op ops[] = {
		[OP_NE] = SF_OP_NE, [OP_LT] = SF_OP_LT, [OP_LE] = SF_OP_LE, [OP_EQ] = SF_OP_EQ,
		[OP_GE] = SF_OP_GE, [OP_GT] = SF_OP_GT,
	};
	uint32_t base = o->f.ops.n, node;
	uint64_t d = c->value2, m = c->value, b;
	int rc;

	if (c->op != OP_MASKED_EQ)
		return pred(o, c->arg, ops[c->op], c->value, out);
	d &= m;
	if ((rc = pred(o, c->arg, SF_OP_IN, ~(m & ~d), &node)) || (rc = push_op(o, node)))
		return rc;
	for (b = 1; b; b <<= 1)
		if ((d & b) && ((rc = pred(o, c->arg, SF_OP_BITS, b, &node)) ||
				(rc = push_op(o, node))))
			return rc;
	return chain(o, SF_N_AND, base, out);
}

/* A rule: its conditions AND-ed. */
static int rule_expr(struct oci *o, const struct orule *r, uint32_t *out)
{
	uint32_t base = o->f.ops.n, node;
	unsigned i;
	int rc;

	for (i = 0; i < r->ncond; i++)
		if ((rc = condition(o, &r->cond[i], &node)) || (rc = push_op(o, node)))
			return rc;
	return chain(o, SF_N_AND, base, out);
}

static int emit(struct oci *o, const struct sf_json *at, const struct sf_rule *r0)
{
	struct sf_rule r = *r0;
	int rc;

	r.src = (uint16_t)o->f.src;
	r.line = at ? at->line : 0;
	r.col = at ? at->col : 0;
	r.len = at ? at->len : 0;
	rc = sf_ast_rule(o->f.ast, &r);
	return rc ? oom(o, rc) : 0;
}

static const char *action_text(uint16_t a, char *buf, size_t cap)
{
	struct sf_out out = { buf, cap, 0 };

	if (a == SF_ACTION_RUN)
		sf_out_str(&out, "allow");
	else
		sf_print_action(&out, a);
	sf_out_end(&out);
	return buf;
}

/* The rules of one syscall as filters (see the top of the file). */
static int emit_syscall(struct oci *o, unsigned nr)
{
	const struct orule *l = o->f.nr[nr].data;
	const unsigned n = o->f.nr[nr].n;
	struct sf_rule r = { .what = SF_R_SYSCALL, .nr = (uint16_t)nr };
	uint32_t base = o->f.ops.n, all, node, neg;
	unsigned i, j;
	int rc;

	for (i = 0; i < n; i++)
		if (l[i].ncond == 0) {
			/* libseccomp: the first rule without conditions is the
			 * syscall's whole filter */
			r.rhs = l[i].action == SF_ACTION_RUN ? SF_RHS_ALLOW : SF_RHS_RETURN;
			r.action = l[i].action;
			return emit(o, J(o, l[i].at), &r);
		}
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (l[i].action != l[j].action && overlap(&l[i], &l[j])) {
				char a[32], b[32];
				const struct sf_json *ai = J(o, l[i].at);
				return at_node(o, J(o, l[j].at), 0, "a call of %s can match this rule "
					       "(%s) and the one at line %u (%s); libseccomp decides it "
					       "by the shape of its rule tree, which secfilter does not "
					       "reproduce: make the conditions of rules with different "
					       "actions exclusive", sf_syscall_by_nr(nr)->name,
					       action_text(l[j].action, a, sizeof a), ai->line,
					       action_text(l[i].action, b, sizeof b));
			}
	/* one filter per action but allow: false where the action's rules
	 * match (they match no other action's calls) */
	for (i = 0; i < n; i++) {
		for (j = 0; j < i; j++)
			if (l[j].action == l[i].action)
				break;
		if (j < i || l[i].action == SF_ACTION_RUN)
			continue;
		for (j = i; j < n; j++)
			if (l[j].action == l[i].action &&
			    ((rc = rule_expr(o, &l[j], &node)) || (rc = push_op(o, node))))
				return rc;
		if ((rc = chain(o, SF_N_OR, base, &node)))
			return rc;
		if ((rc = sf_ast_not(o->f.ast, node, &neg)))
			return oom(o, rc);
		r.rhs = SF_RHS_EXPR;
		r.root = neg;
		r.action = l[i].action;
		if ((rc = emit(o, J(o, l[i].at), &r)))
			return rc;
	}
	if (o->dflt == SF_ACTION_RUN)
		return 0; /* what matched nothing runs */
	/* what matched nothing gets the default action */
	for (i = 0; i < n; i++)
		if ((rc = rule_expr(o, &l[i], &node)) || (rc = push_op(o, node)))
			return rc;
	if ((rc = chain(o, SF_N_OR, base, &all)))
		return rc;
	r.rhs = SF_RHS_EXPR;
	r.root = all;
	r.action = 0;
	return emit(o, J(o, l[0].at), &r);
}

static int emit_all(struct oci *o, const struct sf_json *dflt_at)
{
	struct sf_rule r = { .what = SF_R_DEFAULT, .rhs = SF_RHS_ACTION };
	unsigned nr;
	int rc;

	if (o->dflt == SF_ACTION_RUN) {
		/* Everything runs: every syscall of the table, and a number
		 * it lacks gets the ENOSYS the kernel would give */
		r.action = ENOSYS;
		if ((rc = emit(o, dflt_at, &r)))
			return rc;
		r.what = SF_R_ALL;
		r.rhs = SF_RHS_ALLOW;
		r.action = 0;
	} else {
		r.action = o->dflt;
	}
	if ((rc = emit(o, dflt_at, &r)))
		return rc;
	for (nr = 0; nr < SF_NR_COUNT; nr++)
		if (o->f.nr[nr].n && (rc = emit_syscall(o, nr)))
			return rc;
	/* runc's stub: past the highest number named, ENOSYS */
	if (o->x86_64 && o->dflt != SF_ACTION_RUN && o->dflt != SF_ACTION_LOG && o->max_nr > 0) {
		r.what = SF_R_SYSCALL;
		r.rhs = SF_RHS_RETURN;
		r.action = ENOSYS;
		for (nr = (unsigned)o->max_nr + 1; nr < SF_NR_COUNT; nr++) {
			if (!sf_syscall_by_nr(nr))
				continue;
			r.nr = (uint16_t)nr;
			if ((rc = emit(o, dflt_at, &r)))
				return rc;
		}
	}
	return 0;
}

/* ---- the profile ---- */

static int profile(struct oci *o)
{
	const struct sf_json *root = J(o, 0), *dflt_at;
	struct field f[] = {
		{ "defaultAction", SF_J_STR, NULL }, { "defaultErrnoRet", SF_J_NUM, NULL },
		{ "architectures", SF_J_ARR, NULL }, { "archMap", SF_J_ARR, NULL },
		{ "flags", SF_J_ARR, NULL }, { "listenerPath", SF_J_STR, NULL },
		{ "listenerMetadata", SF_J_STR, NULL }, { "syscalls", SF_J_ARR, NULL },
		{ NULL, 0, NULL },
	};
	uint32_t k, s;
	int rc;

	if ((rc = fields(o, root, "the profile", f)))
		return rc;
	if ((!f[0].v || f[0].v->slen == 0) && (!f[7].v || f[7].v->count == 0))
		return at_node(o, root, 0, "a profile without defaultAction and syscalls turns "
			       "seccomp off in Docker: there is no policy to enforce");
	if (f[2].v && f[2].v->count && f[3].v && f[3].v->count)
		return at_node(o, f[3].v, 1, "both 'architectures' and 'archMap' are specified in "
			       "the seccomp profile, use either 'architectures' or 'archMap'");
	if (f[4].v && f[4].v->count)
		return at_node(o, f[4].v, 1, "seccomp flags are not supported by runc 1.1 (Debian "
			       "12's), which refuses the profile");
	if ((rc = strings(o, f[2].v, "architectures")) || (rc = strings(o, f[4].v, "flags")))
		return rc;
	for (k = f[2].v ? f[2].v->first : SF_J_NONE; k != SF_J_NONE; k = J(o, k)->next) {
		if (str_in(J(o, k), arch_names) < 0)
			return unknown(o, J(o, k), "architecture", arch_names);
		o->x86_64 |= str_is(J(o, k), "SCMP_ARCH_X86_64");
	}
	/* archMap: the first entry for SCMP_ARCH_X86_64 gives the
	 * architectures, the others are for other machines */
	for (k = f[3].v ? f[3].v->first : SF_J_NONE; k != SF_J_NONE; k = J(o, k)->next) {
		struct field a[] = {
			{ "architecture", SF_J_STR, NULL }, { "subArchitectures", SF_J_ARR, NULL },
			{ NULL, 0, NULL },
		};
		int matched = o->x86_64;
		if ((rc = fields(o, J(o, k), "an archMap entry", a)) ||
		    (rc = strings(o, a[1].v, "subArchitectures")))
			return rc;
		if (matched || !a[0].v || !str_is(a[0].v, "SCMP_ARCH_X86_64"))
			continue;
		o->x86_64 = 1;
		for (s = a[1].v ? a[1].v->first : SF_J_NONE; s != SF_J_NONE; s = J(o, s)->next)
			if (str_in(J(o, s), arch_names) < 0)
				return unknown(o, J(o, s), "architecture", arch_names);
	}
	dflt_at = f[0].v ? f[0].v : root;
	if ((rc = action_of(o, f[0].v ? f[0].v : root, f[1].v, 1, &o->dflt_seccomp, &o->dflt)))
		return rc;
	for (k = f[7].v ? f[7].v->first : SF_J_NONE; k != SF_J_NONE; k = J(o, k)->next)
		if ((rc = entry(o, J(o, k))))
			return rc;
	return emit_all(o, dflt_at);
}

int sf_oci_parse(struct sf_ast *ast, uint32_t src, const char *kernel_release,
		 struct sf_error *err)
{
	int rc;
	/* SF_SRC_TEXT: a profile includes nothing */
	struct oci *o = sf_front_state(ast, src, SF_SRC_TEXT, "profile", sizeof(*o), err, &rc);

	if (!o)
		return rc;
	o->release = kernel_release;
	o->max_nr = -1;
	rc = sf_json_parse(&o->doc, ast, src, err);
	if (!rc)
		rc = profile(o);
	sf_json_free(&o->doc);
	sf_front_free(&o->f, sizeof(*o), sizeof(struct orule));
	return rc;
}
