/* Files and ports (landlock.h): the rights' names, the rules as applied
 * (scratch, then a frozen block), their canonical text, and the
 * enforcer.
 *
 * Like the rest of filter/ this is linked into the preload library:
 * memory through sf_mem_alloc, no libc I/O, and the enforcer's system
 * calls through the caller's function. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "fnv.h"
#include "internal.h"
#include "landlock.h"
#include "mem.h"

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif
#define LL_CREATE_RULESET_VERSION 1u
#define LL_RULE_PATH_BENEATH 1
#define LL_RULE_NET_PORT 2
#define LL_PR_SET_NO_NEW_PRIVS 38

/* The print order too: the shorthands first (a path's rights are
 * written with as many of them as fit, then the single rights). */
#define SF_FS_READ (SF_FS_READ_FILE | SF_FS_READ_DIR)
#define SF_FS_WRITE (SF_FS_WRITE_FILE | SF_FS_TRUNCATE | SF_FS_MAKE_CHAR | SF_FS_MAKE_DIR | \
		     SF_FS_MAKE_REG | SF_FS_MAKE_SOCK | SF_FS_MAKE_FIFO | SF_FS_MAKE_BLOCK | \
		     SF_FS_MAKE_SYM | SF_FS_REMOVE_FILE | SF_FS_REMOVE_DIR)
#define SF_FS_EXEC (SF_FS_EXECUTE | SF_FS_READ_FILE)

const struct sf_ll_right sf_ll_rights[] = {
	{ "fs.write", SF_FS_WRITE, 0 },
	{ "fs.read", SF_FS_READ, 0 },
	{ "fs.exec", SF_FS_EXEC, 0 },
	{ "fs.execute", SF_FS_EXECUTE, 0 },
	{ "fs.write_file", SF_FS_WRITE_FILE, 0 },
	{ "fs.read_file", SF_FS_READ_FILE, 0 },
	{ "fs.read_dir", SF_FS_READ_DIR, 0 },
	{ "fs.remove_dir", SF_FS_REMOVE_DIR, 0 },
	{ "fs.remove_file", SF_FS_REMOVE_FILE, 0 },
	{ "fs.make_char", SF_FS_MAKE_CHAR, 0 },
	{ "fs.make_dir", SF_FS_MAKE_DIR, 0 },
	{ "fs.make_reg", SF_FS_MAKE_REG, 0 },
	{ "fs.make_sock", SF_FS_MAKE_SOCK, 0 },
	{ "fs.make_fifo", SF_FS_MAKE_FIFO, 0 },
	{ "fs.make_block", SF_FS_MAKE_BLOCK, 0 },
	{ "fs.make_sym", SF_FS_MAKE_SYM, 0 },
	{ "fs.refer", SF_FS_REFER, 0 },
	{ "fs.truncate", SF_FS_TRUNCATE, 0 },
	{ "fs.ioctl_dev", SF_FS_IOCTL_DEV, 0 },
	{ "net.bind", SF_NET_BIND, 1 },
	{ "net.connect", SF_NET_CONNECT, 1 },
};
const unsigned sf_ll_right_count = sizeof(sf_ll_rights) / sizeof(sf_ll_rights[0]);
#define FIRST_SINGLE 3 /* sf_ll_rights[3..]: one bit each */

const char *sf_ll_right_name(uint64_t mask, int net)
{
	unsigned i;

	for (i = FIRST_SINGLE; i < sf_ll_right_count; i++)
		if (sf_ll_rights[i].net == net && (mask & sf_ll_rights[i].access))
			return sf_ll_rights[i].name;
	return "";
}

/* ---- The tree's rules, checked (apply.c's check_rule) ---- */

const char *sf_ll_check_rule(const struct sf_ast *ast, const struct sf_rule *r)
{
	const struct sf_ll_item *it;
	uint32_t i;

	if (r->what == SF_R_LAYER)
		return NULL;
	if (r->nr >= sf_ll_right_count || sf_ll_rights[r->nr].net != (r->what == SF_R_NET))
		return "a file or port rule with a bad right";
	for (i = r->root; i < ast->ll.n; i++) {
		it = &SF_VEC_AT(&ast->ll, struct sf_ll_item, i);
		if (r->what == SF_R_FS && (!it->path || !it->len || it->path[0] != '/' ||
					   memchr(it->path, '\0', it->len)))
			return "a bad path";
		if (it->last)
			return NULL;
	}
	return "a file or port rule without its paths or ports";
}

/* ---- Applying: the scratch state ---- */

struct srule {
	const char *path;   /* not NUL-terminated: len bytes */
	const char *source; /* NUL-terminated */
	uint64_t access;
	uint32_t len, line, port;
	uint8_t layer, net;
};

static int push(struct sf_ll_scratch *s, const struct srule *r)
{
	struct srule *slot = sf_vec_push(&s->rules, sizeof(*r), SF_LL_MAX_RULES);

	if (!slot)
		return s->rules.n >= SF_LL_MAX_RULES ? -E2BIG : -ENOMEM;
	*slot = *r;
	return 0;
}

int sf_ll_load(struct sf_ll_scratch *s, const struct sf_landlock *cur)
{
	uint32_t i;
	int rc;

	memset(s, 0, sizeof(*s));
	if (!cur)
		return 0;
	s->nlayers = cur->nlayers;
	memcpy(s->handles, cur->handles, sizeof(s->handles));
	for (i = 0; i < cur->nrules; i++) {
		const struct sf_ll_rule *c = &cur->rules[i];
		struct srule r = {
			c->net ? NULL : cur->strings + c->path, cur->strings + c->source,
			c->access, c->net ? 0 : (uint32_t)strlen(cur->strings + c->path), c->line,
			c->port, c->layer, c->net,
		};
		if ((rc = push(s, &r)))
			return rc;
	}
	return 0;
}

void sf_ll_begin(struct sf_ll_scratch *s, int enforcing)
{
	s->open_new = enforcing || s->nlayers == 0;
}

void sf_ll_scratch_free(struct sf_ll_scratch *s)
{
	sf_vec_free(&s->rules, sizeof(struct srule));
}

int sf_ll_apply(struct sf_ll_scratch *s, const struct sf_ast *ast, const struct sf_rule *r,
		struct sf_error *err)
{
	const struct sf_src *src = &SF_VEC_AT(&ast->srcs, struct sf_src, r->src);
	const struct sf_ll_item *it;
	uint32_t i = r->root;
	int rc;

	if (r->what == SF_R_LAYER) {
		/* a new layer only after one with rules: none is empty */
		s->open_new = s->nlayers > 0;
		return 0;
	}
	if (s->open_new) {
		if (s->nlayers >= SF_LL_MAX_LAYERS) {
			sf_error_src(err, -E2BIG, ast, r->src, r->line, r->col, r->len,
				     "more than %d layers of file and port rules (Landlock's limit)",
				     SF_LL_MAX_LAYERS);
			return -E2BIG;
		}
		s->nlayers++;
		s->open_new = 0;
	}
	s->handles[s->nlayers - 1] |= r->what == SF_R_FS ? SF_LL_FS : SF_LL_NET;
	do {
		it = &SF_VEC_AT(&ast->ll, struct sf_ll_item, i++);
		struct srule x = {
			r->what == SF_R_FS ? it->path : NULL, src->name, sf_ll_rights[r->nr].access,
			r->what == SF_R_FS ? it->len : 0, r->line, it->port,
			(uint8_t)(s->nlayers - 1), r->what == SF_R_NET,
		};
		if ((rc = push(s, &x))) {
			sf_error_src(err, rc, ast, r->src, r->line, r->col, r->len, "%s",
				     rc == -E2BIG ? "too many file and port rules" : "out of memory");
			return rc;
		}
	} while (!it->last);
	return 0;
}

/* ---- Freezing ---- */

static int bytes_cmp(const char *a, uint32_t la, const char *b, uint32_t lb)
{
	uint32_t i, n = la < lb ? la : lb;

	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return (unsigned char)a[i] < (unsigned char)b[i] ? -1 : 1;
	return la < lb ? -1 : la > lb;
}

/* Layer, then paths before ports, then the path or the port. */
static int srule_cmp(const struct srule *a, const struct srule *b)
{
	if (a->layer != b->layer)
		return a->layer < b->layer ? -1 : 1;
	if (a->net != b->net)
		return a->net < b->net ? -1 : 1;
	if (a->net)
		return a->port < b->port ? -1 : a->port > b->port;
	return bytes_cmp(a->path, a->len, b->path, b->len);
}

/* A merge sort into tmp and back: stable, so that the first rule for a
 * path is the one messages name. */
static void sort_rules(struct srule *v, struct srule *tmp, uint32_t n)
{
	uint32_t mid = n / 2, i = 0, j = mid, k = 0;

	if (n < 2)
		return;
	sort_rules(v, tmp, mid);
	sort_rules(v + mid, tmp, n - mid);
	while (i < mid || j < n)
		tmp[k++] = j >= n || (i < mid && srule_cmp(&v[i], &v[j]) <= 0) ? v[i++] : v[j++];
	memcpy(v, tmp, (size_t)n * sizeof(*v));
}

/* Sources are few: each kept once. */
static uint32_t intern(char *strings, uint32_t *used, const char *s)
{
	uint32_t off = 0;

	while (off < *used) {
		if (strcmp(strings + off, s) == 0)
			return off;
		off += (uint32_t)strlen(strings + off) + 1;
	}
	memcpy(strings + off, s, strlen(s) + 1);
	*used += (uint32_t)strlen(s) + 1;
	return off;
}

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* Sorted, the rules of one path (or port) in a layer lie together: one
 * rule each, their rights merged; n is what is left. */
static uint32_t merge_same(struct srule *v, uint32_t n)
{
	uint32_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (k && srule_cmp(&v[k - 1], &v[i]) == 0)
			v[k - 1].access |= v[i].access;
		else
			v[k++] = v[i];
	}
	return k;
}

int sf_ll_freeze(const struct sf_ll_scratch *s, struct sf_landlock **out)
{
	uint32_t n = s->rules.n, i, used = 0;
	size_t bytes = 0, off_rules, off_strings, size, vsize = (size_t)n * sizeof(struct srule);
	struct srule *v, *tmp;
	struct sf_ll_rule *rules;
	struct sf_landlock *ll;
	char *strings;

	*out = NULL;
	if (!s->nlayers)
		return 0;
	v = sf_mem_alloc(vsize ? vsize : 1);
	tmp = sf_mem_alloc(vsize ? vsize : 1);
	if (!v || !tmp) {
		if (v)
			sf_mem_free(v, vsize ? vsize : 1);
		if (tmp)
			sf_mem_free(tmp, vsize ? vsize : 1);
		return -ENOMEM;
	}
	if (n)
		memcpy(v, s->rules.data, vsize);
	sort_rules(v, tmp, n);
	n = merge_same(v, n);
	for (i = 0; i < n; i++)
		bytes += v[i].len + 1 + strlen(v[i].source) + 1;
	off_rules = align8(sizeof(*ll));
	off_strings = off_rules + (size_t)n * sizeof(*rules);
	size = off_strings + bytes + 1;
	ll = sf_mem_alloc(size);
	if (ll) {
		rules = (struct sf_ll_rule *)((char *)ll + off_rules);
		strings = (char *)ll + off_strings;
		ll->size = size;
		ll->nrules = n;
		ll->nlayers = s->nlayers;
		memcpy(ll->handles, s->handles, sizeof(ll->handles));
		/* the sources first, interned; the paths after them */
		for (i = 0; i < n; i++)
			rules[i].source = intern(strings, &used, v[i].source);
		for (i = 0; i < n; i++) {
			rules[i].access = v[i].access;
			rules[i].line = v[i].line;
			rules[i].port = (uint16_t)v[i].port;
			rules[i].layer = v[i].layer;
			rules[i].net = v[i].net;
			rules[i].path = used;
			memcpy(strings + used, v[i].path ? v[i].path : "", v[i].len);
			strings[used + v[i].len] = '\0';
			used += v[i].len + 1;
		}
		ll->rules = rules;
		ll->strings = strings;
	}
	sf_mem_free(v, vsize ? vsize : 1);
	sf_mem_free(tmp, vsize ? vsize : 1);
	*out = ll;
	return ll ? 0 : -ENOMEM;
}

/* ---- The canonical text ----
 * Per layer (the second and later after `landlock.layer: 1`): one line
 * per right that some path has, in sf_ll_rights' order, listing those
 * paths in byte order.  A path's rights are spelt with the shorthands
 * that fit in whole (write, read, exec, in that order), then the single
 * rights left: the same rights give the same lines, however written. */

/* Whether right k is among those that spell access (of a path, or of
 * a port when net). */
static int spelt_with(uint64_t access, int net, unsigned k)
{
	uint64_t left = access;
	unsigned i;

	for (i = 0; i < sf_ll_right_count; i++) {
		uint64_t m = sf_ll_rights[i].access;
		int used = sf_ll_rights[i].net == net && (m & left) == m;

		if (used)
			left &= ~m;
		if (i == k)
			return used;
	}
	return 0;
}

static void print_path(struct sf_out *o, const char *path)
{
	const char *c;
	int quote = 0;

	for (c = path; *c; c++)
		quote |= *c == ' ' || *c == '\t' || *c == ';' || *c == '#';
	if (quote)
		sf_out_str(o, "\"");
	sf_out_str(o, path);
	if (quote)
		sf_out_str(o, "\"");
}

static void print_right(struct sf_out *o, const struct sf_landlock *ll, uint32_t from,
			uint32_t to, unsigned k)
{
	const struct sf_ll_right *rt = &sf_ll_rights[k];
	uint32_t i;
	int any = 0;

	for (i = from; i < to; i++) {
		const struct sf_ll_rule *r = &ll->rules[i];
		if (r->net != rt->net || !spelt_with(r->access, r->net, k))
			continue;
		if (!any)
			sf_out_str(o, rt->name), sf_out_str(o, ":");
		any = 1;
		sf_out_str(o, " ");
		if (r->net)
			sf_out_u64(o, r->port, 10);
		else
			print_path(o, ll->strings + r->path);
	}
	if (any)
		sf_out_str(o, "\n");
}

void sf_ll_print(struct sf_out *o, const struct sf_landlock *ll)
{
	uint32_t from = 0, to;
	unsigned layer, k;

	if (!ll)
		return;
	for (layer = 0; layer < ll->nlayers; layer++, from = to) {
		for (to = from; to < ll->nrules && ll->rules[to].layer == layer; to++)
			;
		if (layer)
			sf_out_str(o, "landlock.layer: 1\n");
		for (k = 0; k < sf_ll_right_count; k++)
			print_right(o, ll, from, to, k);
	}
}

size_t sf_landlock_print(const struct sf_landlock *ll, char *buf, size_t cap)
{
	struct sf_out o = { buf, cap, 0 };

	sf_ll_print(&o, ll);
	return sf_out_end(&o);
}

/* ---- Enforcement ---- */

/* What the kernel's struct landlock_ruleset_attr (its first two fields:
 * every ABI that has Landlock takes them, zeros past what it knows) and
 * its rule attributes are. */
struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
};

struct ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

struct ll_net_port_attr {
	uint64_t allowed_access;
	uint64_t port;
};

int sf_ll_abi(sf_ll_sys_fn sys)
{
	long v = sys(__NR_landlock_create_ruleset, 0, 0, LL_CREATE_RULESET_VERSION, 0, 0, 0);

	return v > 0 ? (int)v : 0;
}

/* The file-system rights a kernel of Landlock ABI abi handles. */
static uint64_t abi_fs(int abi)
{
	uint64_t m = SF_FS_MAKE_SYM * 2 - 1; /* ABI 1: EXECUTE .. MAKE_SYM */

	if (abi >= 2)
		m |= SF_FS_REFER;
	if (abi >= 3)
		m |= SF_FS_TRUNCATE;
	if (abi >= 5)
		m |= SF_FS_IOCTL_DEV;
	return m;
}

static int abi_of(uint64_t bit)
{
	return bit == SF_FS_REFER ? 2 : bit == SF_FS_TRUNCATE ? 3 : bit == SF_FS_IOCTL_DEV ? 5 : 1;
}

static const char *errno_text(long e)
{
	const char *t = sf_errno_text((unsigned)e);

	return t ? t : "error";
}

/* The first rule of a layer (for the source its messages name). */
static const struct sf_ll_rule *layer_rule(const struct sf_landlock *ll, unsigned layer)
{
	uint32_t i;

	for (i = 0; i < ll->nrules; i++)
		if (ll->rules[i].layer == layer)
			return &ll->rules[i];
	return NULL;
}

/* A right the layer restricts and the kernel cannot: an error naming
 * it (0 when none). */
static int abi_check(const struct sf_landlock *ll, unsigned layer, int abi,
		     struct sf_error *err)
{
	const struct sf_ll_rule *first = layer_rule(ll, layer);
	const char *source = first ? ll->strings + first->source : "<policy>";
	uint64_t everywhere = 0, missing;
	uint32_t i;

	if (!abi) {
		sf_error_at(err, -EOPNOTSUPP, source, "", 0, 0, 0, 0,
			    "the policy has file or port rules (fs., net.), and the running "
			    "kernel has no Landlock to enforce them (not built, or not in the "
			    "boot's lsm= list)");
		return -EOPNOTSUPP;
	}
	if ((ll->handles[layer] & SF_LL_NET) && abi < 4) {
		sf_error_at(err, -EOPNOTSUPP, source, "", 0, 0, 0, 0,
			    "net. rules need Landlock ABI 4 (Linux 6.7); the running kernel's "
			    "is ABI %d, which cannot restrict TCP ports", abi);
		return -EOPNOTSUPP;
	}
	if (!(ll->handles[layer] & SF_LL_FS))
		return 0;
	for (i = 0; i < ll->nrules; i++)
		if (ll->rules[i].layer == layer && !ll->rules[i].net &&
		    strcmp(ll->strings + ll->rules[i].path, "/") == 0)
			everywhere |= ll->rules[i].access;
	missing = SF_FS_ALL & ~everywhere & ~abi_fs(abi);
	if (!missing)
		return 0;
	missing &= -missing;
	sf_error_at(err, -EOPNOTSUPP, source, "", 0, 0, 0, 0,
		    "%s: the policy's fs. rules restrict it, and the running kernel's "
		    "Landlock (ABI %d) cannot (ABI %d can); to accept that, grant it "
		    "everywhere: '%s: /'", sf_ll_right_name(missing, 0), abi, abi_of(missing),
		    sf_ll_right_name(missing, 0));
	return -EOPNOTSUPP;
}

static void warn(const struct sf_ll_env *env, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(const struct sf_ll_env *env, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	if (!env->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	env->warn(env->ctx, msg);
}

/* One path-beneath rule: 0, 1 when skipped (the path cannot be opened,
 * or none of the rights applies to what it is), or -errno. */
static long add_path(const struct sf_ll_env *env, long rfd, const char *path, uint64_t access,
		     uint64_t handled, int *open_errno)
{
	struct ll_path_beneath_attr a;
	struct stat st;
	long fd, rc;

	fd = env->sys(SYS_openat, AT_FDCWD, (long)path, O_PATH | O_CLOEXEC, 0, 0, 0);
	if (fd < 0) {
		*open_errno = (int)-fd;
		return 1;
	}
	rc = env->sys(SYS_fstat, fd, (long)&st, 0, 0, 0, 0);
	if (rc == 0) {
		a.allowed_access = access & handled;
		if (!S_ISDIR(st.st_mode))
			a.allowed_access &= SF_FS_ON_FILE;
		a.parent_fd = (int32_t)fd;
		rc = a.allowed_access ? env->sys(__NR_landlock_add_rule, rfd, LL_RULE_PATH_BENEATH,
						 (long)&a, 0, 0, 0)
				      : 1;
	}
	env->sys(SYS_close, fd, 0, 0, 0, 0, 0);
	*open_errno = 0;
	return rc;
}

static int add_rules(const struct sf_landlock *ll, unsigned layer, const struct sf_ll_env *env,
		     long rfd, uint64_t handled_fs, struct sf_error *err)
{
	uint32_t i;
	long rc;
	int oe;

	for (i = 0; i < ll->nrules; i++) {
		const struct sf_ll_rule *r = &ll->rules[i];
		const char *source = ll->strings + r->source, *path = ll->strings + r->path;

		if (r->layer != layer)
			continue;
		if (r->net) {
			struct ll_net_port_attr a = { r->access, r->port };
			rc = env->sys(__NR_landlock_add_rule, rfd, LL_RULE_NET_PORT, (long)&a, 0, 0, 0);
		} else {
			rc = add_path(env, rfd, path, r->access, handled_fs, &oe);
			if (rc == 1 && oe)
				warn(env, "%s:%u: warning: '%s' cannot be opened (%s): skipped, so "
				     "nothing is granted beneath it", source, r->line, path,
				     errno_text(oe));
			else if (rc == 1)
				warn(env, "%s:%u: warning: '%s' is not a directory: of its rights only "
				     "fs.execute, fs.read_file, fs.write_file, fs.truncate and "
				     "fs.ioctl_dev apply to a file, and it has none of them",
				     source, r->line, path);
		}
		if (rc < 0) {
			char where[300], what[32];
			snprintf(where, sizeof(where), "%s:%u", source, r->line);
			snprintf(what, sizeof(what), "port %u", r->port);
			sf_error_at(err, (int)rc, where, "", 0, 0, 0, 0,
				    "cannot add the rule for %s to the Landlock ruleset: %s",
				    r->net ? what : path, errno_text(-rc));
			return (int)rc;
		}
	}
	/* secfilter's own rules: one that cannot be added is skipped, as a
	 * missing path is (it only narrows) */
	for (i = 0; handled_fs && i < env->nextra; i++)
		(void)add_path(env, rfd, env->extra[i].path, env->extra[i].access, handled_fs, &oe);
	return 0;
}

void sf_ll_close(struct sf_ll_fds *f, sf_ll_sys_fn sys)
{
	unsigned i;

	for (i = 0; i < f->n; i++)
		sys(SYS_close, f->fd[i], 0, 0, 0, 0, 0);
	f->n = 0;
}

int sf_ll_build(const struct sf_landlock *ll, unsigned first, const struct sf_ll_env *env,
		struct sf_ll_fds *out, struct sf_error *err)
{
	int abi = sf_ll_abi(env->sys), rc;
	unsigned layer;

	out->n = 0;
	out->flags = abi >= 7 ? env->log : 0;
	err->code = 0;
	err->text[0] = '\0';
	for (layer = first; ll && layer < ll->nlayers; layer++)
		if ((rc = abi_check(ll, layer, abi, err)))
			return rc;
	for (layer = first; ll && layer < ll->nlayers; layer++) {
		struct ll_ruleset_attr attr = {
			ll->handles[layer] & SF_LL_FS ? abi_fs(abi) : 0,
			ll->handles[layer] & SF_LL_NET ? SF_NET_BIND | SF_NET_CONNECT : 0,
		};
		long fd = env->sys(__NR_landlock_create_ruleset, (long)&attr, sizeof(attr), 0, 0, 0, 0);

		if (fd < 0) {
			const struct sf_ll_rule *r = layer_rule(ll, layer);
			sf_error_at(err, (int)fd, r ? ll->strings + r->source : "<policy>", "", 0,
				    0, 0, 0, "cannot create a Landlock ruleset: %s", errno_text(-fd));
			sf_ll_close(out, env->sys);
			return (int)fd;
		}
		out->fd[out->n++] = (int)fd;
		if ((rc = add_rules(ll, layer, env, fd, attr.handled_access_fs, err))) {
			sf_ll_close(out, env->sys);
			return rc;
		}
	}
	return 0;
}

int sf_ll_restrict(const struct sf_ll_fds *f, sf_ll_sys_fn sys)
{
	unsigned i;
	long rc;

	if (!f->n)
		return 0;
	rc = sys(SYS_prctl, LL_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0);
	for (i = 0; rc == 0 && i < f->n; i++)
		rc = sys(__NR_landlock_restrict_self, f->fd[i], f->flags, 0, 0, 0, 0);
	return (int)rc;
}

int sf_landlock_enforce(const struct sf_landlock *ll, unsigned first,
			const struct sf_ll_env *env, struct sf_error *err)
{
	struct sf_ll_fds f;
	int rc = sf_ll_build(ll, first, env, &f, err);

	if (rc)
		return rc;
	rc = sf_ll_restrict(&f, env->sys);
	if (rc) {
		const struct sf_ll_rule *r = layer_rule(ll, first);
		sf_error_at(err, rc, r ? ll->strings + r->source : "<policy>", "", 0, 0, 0, 0,
			    "cannot enforce the Landlock ruleset: %s", errno_text(-rc));
	}
	sf_ll_close(&f, env->sys);
	return rc;
}

/* ---- What an exec'd image inherits ---- */

/* Layers 0..n-1 only: a policy narrowed later (secfilter_apply) still
 * matches the fact its first layers were entered under. */
static uint64_t layers_hash(const struct sf_landlock *ll, unsigned n)
{
	uint64_t h = SF_FNV1A_BASIS;
	uint32_t i;

	for (i = 0; i < ll->nrules && ll->rules[i].layer < n; i++) {
		const struct sf_ll_rule *r = &ll->rules[i];
		const char *path = r->net ? "" : ll->strings + r->path;

		h = sf_fnv1a(h, &r->access, sizeof r->access);
		h = sf_fnv1a(h, &r->port, sizeof r->port);
		h = sf_fnv1a(h, &r->layer, sizeof r->layer);
		h = sf_fnv1a(h, &r->net, sizeof r->net);
		h = sf_fnv1a(h, path, strlen(path) + 1);
	}
	return sf_fnv1a(h, &n, sizeof n);
}

size_t sf_ll_fact(const struct sf_landlock *ll, unsigned n, char *buf, size_t cap)
{
	static const char hexd[] = "0123456789abcdef";
	char text[sizeof SF_LL_FACT_VAR + 24], *o = text;
	uint64_t h = layers_hash(ll, n);
	int i;

	memcpy(o, SF_LL_FACT_VAR "=", sizeof SF_LL_FACT_VAR);
	o += sizeof SF_LL_FACT_VAR;
	*o++ = (char)('a' + n); /* n <= 16 */
	*o++ = ':';
	for (i = 60; i >= 0; i -= 4)
		*o++ = hexd[(h >> i) & 15];
	*o = '\0';
	if ((size_t)(o - text) < cap)
		memcpy(buf, text, (size_t)(o - text) + 1);
	return (size_t)(o - text);
}

unsigned sf_ll_fact_entered(const struct sf_landlock *ll, const char *value)
{
	char mine[sizeof SF_LL_FACT_VAR + 24];
	unsigned n;

	if (!ll || !value || value[0] < 'a' || value[0] > 'a' + ll->nlayers)
		return 0;
	n = (unsigned)(value[0] - 'a');
	sf_ll_fact(ll, n, mine, sizeof mine);
	return strcmp(mine + sizeof SF_LL_FACT_VAR, value) == 0 ? n : 0;
}
