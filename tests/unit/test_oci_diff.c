/* OCI profiles both ways, against libseccomp itself (SPEC §2, issue 11):
 *
 * 1. Reading: a profile through secfilter's reader and evaluator, and
 *    the same profile made into a libseccomp filter as runc 1.1 makes it
 *    (runc_filter below: its own reading of the JSON rules -- Docker's
 *    includes and excludes, runc's rule per name and its other habits,
 *    libseccomp's seccomp_rule_add_array --, exported with
 *    seccomp_export_bpf, runc's ENOSYS stub in front, run in bpf_sim),
 *    decide alike.
 * 2. Writing: every policy of the test corpus (the fuzz seeds, the e2e
 *    policies, secfilter.conf.example, random policies), written by
 *    `compile --format=oci` (oci_profile), loaded through runc_filter,
 *    decides as secfilter's evaluator decides the policy.
 *
 * Random registers aimed at the constants of the rules, their
 * neighbours, the same low word under a random upper half (the 32-bit
 * arguments), sign edges.  Compared: every x86-64 number libseccomp 2.5
 * knows (it skips newer names, as runc does; secfilter reads them as a
 * libseccomp that knows the whole table would) -- not the x32 range nor a
 * foreign architecture, which libseccomp gives its bad-architecture
 * action and secfilter the default one (secfilter(7)), nor numbers above
 * the table, which runc's stub answers with ENOSYS. */
#include <errno.h>
#include <glob.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/audit.h>
#include <seccomp.h>

#include "bpf_sim.h"
#include "eval.h"
#include "json.h"
#include "oci_out.h"
#include "tcommon.h"
#include "tsupport.h"

#define RELEASE "6.18.0-test"
#define RANDOM_POLICIES 200

/* ---- runc, independently ------------------------------------------- */

struct runc {
	struct sock_filter prog[SF_BPF_MAX * 4];
	unsigned n;
	int stub_max;         /* runc's stub: ENOSYS above this, or -1 */
	int known[SF_NR_COUNT]; /* libseccomp knows the table's name */
	uint64_t konst[6][1024]; /* values of the conditions, by argument */
	unsigned nk[6];
};

static const struct sf_json *get(const struct sf_json_doc *d, const struct sf_json *obj,
				 const char *key)
{
	uint32_t c;

	if (!obj || obj->kind != SF_J_OBJ)
		return NULL;
	for (c = obj->first; c != SF_J_NONE; c = sf_json_at(d, c)->next) {
		const struct sf_json *v = sf_json_at(d, c);
		if (strcmp(v->key, key) == 0)
			return v->kind == SF_J_NULL ? NULL : v;
	}
	return NULL;
}

static int has_string(const struct sf_json_doc *d, const struct sf_json *arr, const char *s)
{
	uint32_t c;

	for (c = arr ? arr->first : SF_J_NONE; c != SF_J_NONE; c = sf_json_at(d, c)->next)
		if (strcmp(sf_json_at(d, c)->str, s) == 0)
			return 1;
	return 0;
}

static uint64_t num(const struct sf_json *v)
{
	uint64_t x = 0;

	if (v)
		assert_int_equal(sf_json_uint(v, UINT64_MAX, &x), 0);
	return x;
}

/* Docker's minKernel test against RELEASE's 6.18. */
static int kernel_ge(const struct sf_json *v)
{
	unsigned k = 0, m = 0;

	if (!v || !v->slen)
		return -1;
	assert_int_equal(sscanf(v->str, "%u.%u", &k, &m), 2);
	return 6 > k || (6 == k && 18 >= m);
}

/* moby's setupSeccomp, for amd64 and an empty capability set. */
static int docker_keeps(const struct sf_json_doc *d, const struct sf_json *e)
{
	const struct sf_json *ex = get(d, e, "excludes"), *in = get(d, e, "includes"), *a;

	if (ex) {
		a = get(d, ex, "arches");
		if (a && a->count && has_string(d, a, "amd64"))
			return 0;
		if (kernel_ge(get(d, ex, "minKernel")) == 1)
			return 0;
	}
	if (in) {
		a = get(d, in, "arches");
		if (a && a->count && !has_string(d, a, "amd64"))
			return 0;
		a = get(d, in, "caps");
		if (a && a->count)
			return 0;
		if (kernel_ge(get(d, in, "minKernel")) == 0)
			return 0;
	}
	return 1;
}

/* runc's getAction. */
static uint32_t runc_action(const struct sf_json *act, const struct sf_json *errno_ret)
{
	const char *a = act->str;

	if (!strcmp(a, "SCMP_ACT_KILL") || !strcmp(a, "SCMP_ACT_KILL_THREAD"))
		return SCMP_ACT_KILL_THREAD;
	if (!strcmp(a, "SCMP_ACT_KILL_PROCESS"))
		return SCMP_ACT_KILL_PROCESS;
	if (!strcmp(a, "SCMP_ACT_TRAP"))
		return SCMP_ACT_TRAP;
	if (!strcmp(a, "SCMP_ACT_LOG"))
		return SCMP_ACT_LOG;
	if (!strcmp(a, "SCMP_ACT_ALLOW"))
		return SCMP_ACT_ALLOW;
	assert_string_equal(a, "SCMP_ACT_ERRNO");
	/* libseccomp-golang: SetReturnCode(int16(errnoRet)) */
	return SCMP_ACT_ERRNO((uint16_t)(int16_t)(errno_ret ? num(errno_ret) : EPERM));
}

static enum scmp_compare ops_by_name(const char *op)
{
	static const struct { const char *name; enum scmp_compare op; } ops[] = {
		{ "SCMP_CMP_NE", SCMP_CMP_NE }, { "SCMP_CMP_LT", SCMP_CMP_LT },
		{ "SCMP_CMP_LE", SCMP_CMP_LE }, { "SCMP_CMP_EQ", SCMP_CMP_EQ },
		{ "SCMP_CMP_GE", SCMP_CMP_GE }, { "SCMP_CMP_GT", SCMP_CMP_GT },
		{ "SCMP_CMP_MASKED_EQ", SCMP_CMP_MASKED_EQ },
	};
	unsigned i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(op, ops[i].name))
			return ops[i].op;
	fail_msg("operator %s", op);
	return SCMP_CMP_EQ;
}

static void aim(struct runc *r, unsigned arg, uint64_t v)
{
	if (r->nk[arg] < sizeof(r->konst[0]) / sizeof(r->konst[0][0]))
		r->konst[arg][r->nk[arg]++] = v;
}

/* The profile text as a libseccomp program, as runc 1.1 loads it. */
static void runc_filter(const char *text, struct runc *r)
{
	struct sf_ast ast;
	struct sf_json_doc d;
	struct sf_error err;
	const struct sf_json *root, *sys, *archs, *dflt;
	uint32_t src, k, c;
	uint32_t def;
	scmp_filter_ctx ctx;
	int x86_64 = 0, fd, rc;
	unsigned i;
	ssize_t len;

	memset(r, 0, sizeof(*r));
	r->stub_max = -1;
	for (i = 0; i < sf_syscall_count; i++)
		r->known[sf_syscalls[i].nr] =
			seccomp_syscall_resolve_name(sf_syscalls[i].name) == sf_syscalls[i].nr;
	sf_ast_init(&ast);
	assert_int_equal(sf_ast_src(&ast, "p.json", text, strlen(text), &src), 0);
	if (sf_json_parse(&d, &ast, src, &err))
		fail_msg("%s", err.text);
	root = sf_json_at(&d, 0);
	dflt = get(&d, root, "defaultAction");
	def = runc_action(dflt, get(&d, root, "defaultErrnoRet"));
	ctx = seccomp_init(def);
	assert_non_null(ctx);
	/* architectures, or archMap's entry for SCMP_ARCH_X86_64 */
	archs = get(&d, root, "architectures");
	if (!archs && get(&d, root, "archMap"))
		for (k = get(&d, root, "archMap")->first; k != SF_J_NONE; k = sf_json_at(&d, k)->next)
			if (!strcmp(get(&d, sf_json_at(&d, k), "architecture")->str, "SCMP_ARCH_X86_64")) {
				x86_64 = 1;
				archs = get(&d, sf_json_at(&d, k), "subArchitectures");
				break;
			}
	for (k = archs ? archs->first : SF_J_NONE; k != SF_J_NONE; k = sf_json_at(&d, k)->next) {
		const char *a = sf_json_at(&d, k)->str;
		x86_64 |= !strcmp(a, "SCMP_ARCH_X86_64");
		rc = seccomp_arch_add(ctx, !strcmp(a, "SCMP_ARCH_X86") ? SCMP_ARCH_X86
					   : !strcmp(a, "SCMP_ARCH_X32") ? SCMP_ARCH_X32
					   : SCMP_ARCH_X86_64);
		assert_true(rc == 0 || rc == -EEXIST);
	}
	sys = get(&d, root, "syscalls");
	for (k = sys ? sys->first : SF_J_NONE; k != SF_J_NONE; k = sf_json_at(&d, k)->next) {
		const struct sf_json *e = sf_json_at(&d, k), *names = get(&d, e, "names"),
				     *args = get(&d, e, "args"), *name1 = get(&d, e, "name");
		struct scmp_arg_cmp cmp[6];
		unsigned n = 0, seen[6] = { 0 };
		int twice = 0;
		uint32_t act;

		if (!docker_keeps(&d, e))
			continue;
		act = runc_action(get(&d, e, "action"), get(&d, e, "errnoRet"));
		for (c = args ? args->first : SF_J_NONE; c != SF_J_NONE; c = sf_json_at(&d, c)->next) {
			const struct sf_json *a = sf_json_at(&d, c);
			uint64_t ix = num(get(&d, a, "index"));
			assert_true(ix < 6 && n < 6);
			cmp[n].arg = (unsigned)ix;
			cmp[n].op = ops_by_name(get(&d, a, "op")->str);
			cmp[n].datum_a = num(get(&d, a, "value"));
			cmp[n].datum_b = num(get(&d, a, "valueTwo"));
			aim(r, cmp[n].arg, cmp[n].datum_a);
			aim(r, cmp[n].arg, cmp[n].datum_b);
			twice |= seen[ix]++ > 0;
			n++;
		}
		c = name1 ? (uint32_t)(name1 - sf_json_at(&d, 0)) : names ? names->first : SF_J_NONE;
		for (; c != SF_J_NONE; c = name1 ? SF_J_NONE : sf_json_at(&d, c)->next) {
			int nr = seccomp_syscall_resolve_name(sf_json_at(&d, c)->str);
			unsigned j;

			if (nr == __NR_SCMP_ERROR)
				continue; /* runc: "unknown seccomp syscall ignored" */
			if (nr > r->stub_max)
				r->stub_max = nr;
			if (act == def)
				continue; /* runc: redundant */
			if (!n) {
				rc = seccomp_rule_add(ctx, act, nr, 0);
			} else if (!twice) {
				rc = seccomp_rule_add_array(ctx, act, nr, n, cmp);
			} else {
				for (j = 0, rc = 0; j < n && !rc; j++)
					rc = seccomp_rule_add_array(ctx, act, nr, 1, &cmp[j]);
			}
			if (rc)
				fail_msg("libseccomp refuses the rule of %s: %s\n%.3000s",
					 sf_json_at(&d, c)->str, strerror(-rc), text);
		}
	}
	/* runc's stub: only with SCMP_ARCH_X86_64 listed, not for a default
	 * that lets calls run */
	if (!x86_64 || def == SCMP_ACT_ALLOW || def == SCMP_ACT_LOG || r->stub_max <= 0)
		r->stub_max = -1;
	fd = memfd_create("bpf", 0);
	assert_true(fd >= 0);
	assert_int_equal(seccomp_export_bpf(ctx, fd), 0);
	len = lseek(fd, 0, SEEK_END);
	assert_true(len > 0 && len % 8 == 0);
	r->n = (unsigned)(len / 8);
	if ((size_t)len <= sizeof(r->prog))
		assert_int_equal(pread(fd, r->prog, (size_t)len, 0), len);
	close(fd);
	seccomp_release(ctx);
	sf_json_free(&d);
	sf_ast_free(&ast);
}

/* What runc's filter returns for a native call. */
static uint32_t runc_decides(const struct runc *r, int nr, const uint64_t a[6])
{
	struct bpf_sim st;
	uint32_t ret;

	if (r->stub_max >= 0 && nr > r->stub_max)
		return SECCOMP_RET_ERRNO | ENOSYS;
	ret = bpf_sim_call(r->prog, r->n, AUDIT_ARCH_X86_64, nr, a, &st);
	if (st.error)
		fail_msg("libseccomp's program misbehaves: %s", st.error);
	return ret;
}

/* ---- the comparison ------------------------------------------------ */

static uint64_t rng = 0x0c1d1ff5eedull;

static uint64_t rnd(void)
{
	return t_rnd(&rng);
}

/* A register for argument arg of syscall nr, aimed at the constants the
 * rules and the policy compare it with. */
static uint64_t aimed(const struct runc *r, const struct sf_policy *p, int nr, unsigned arg)
{
	const struct sf_sysrule *sr = &p->sys[nr];
	uint64_t v = rnd();
	unsigned k;

	switch (rnd() % 10) {
	case 0: return rnd();
	case 1: return rnd() & 0xffffffff;
	case 2: return rnd() % 64;
	case 3: return (uint64_t)(int64_t)(int32_t)rnd();
	default:
		if (r->nk[arg] && rnd() % 2) {
			v = r->konst[arg][rnd() % r->nk[arg]];
		} else if (sr->nfilters) {
			/* a predicate of this syscall's filters on this argument */
			const struct sf_filter *f = &p->filters[sf_rule_first(p, sr) + rnd() % sr->nfilters];
			/* its tree: the nodes before its root (children first) */
			for (k = 0; k < 16; k++) {
				uint32_t back = (uint32_t)(rnd() % 16);
				const struct sf_node *n = &p->nodes[f->root >= back ? f->root - back : 0];
				if (n->kind == SF_N_PRED && n->arg == arg) {
					v = n->value;
					break;
				}
			}
		} else if (p->nnodes) {
			v = p->nodes[rnd() % p->nnodes].value;
		}
		switch (rnd() % 8) {
		case 0: return v + 1;
		case 1: return v - 1;
		case 2: return (v & 0xffffffff) | rnd() << 32; /* a 32-bit arg's upper half */
		case 3: return v ^ (1ull << (rnd() % 64));
		case 4: return v & 0xffffffff;
		case 5: return ~v;
		default: return v;
		}
	}
}

struct tally {
	unsigned long vectors, run, errnos, stopped;
	unsigned long profiles, insns, max_insns, too_long;
};

static void differ(const char *what, const struct sf_policy *p, const char *profile, int nr,
		   const uint64_t a[6], uint32_t want, uint32_t got)
{
	fail_msg("%s: %s(%#" PRIx64 ", %#" PRIx64 ", %#" PRIx64 ", %#" PRIx64 ", %#" PRIx64
		 ", %#" PRIx64 "): secfilter %#x, runc with libseccomp %#x\n--- policy:\n%s"
		 "--- profile:\n%.4000s", what, sf_syscall_by_nr(nr)->name, a[0], a[1], a[2],
		 a[3], a[4], a[5], want, got, t_print(p), profile);
}

/* Every syscall with conditions, every combination of the values its
 * arguments are compared with, their neighbours and their low words under
 * another upper half (at most GRID calls a syscall). */
#define GRID 20000

static void grid(const char *what, const struct sf_policy *p, const struct runc *r,
		 const char *profile, struct tally *t)
{
	uint64_t vals[6][64];
	unsigned nv[6], arg, i, nr;

	for (arg = 0; arg < 6; arg++) {
		nv[arg] = 0;
		vals[arg][nv[arg]++] = 0;
		for (i = 0; i < r->nk[arg] && nv[arg] + 4 <= 64; i++) {
			uint64_t k = r->konst[arg][i];
			vals[arg][nv[arg]++] = k;
			vals[arg][nv[arg]++] = k - 1;
			vals[arg][nv[arg]++] = k + 1;
			vals[arg][nv[arg]++] = (k & 0xffffffff) | 0x500000000ull;
		}
	}
	for (nr = 0; nr < SF_NR_COUNT; nr++) {
		unsigned long combos = 1, c;
		if (!sf_syscall_by_nr((long)nr) || !r->known[nr] || !p->sys[nr].nfilters)
			continue;
		for (arg = 0; arg < 6; arg++)
			combos *= nv[arg];
		for (c = 0; c < combos && c < GRID; c++) {
			unsigned long x = combos <= GRID ? c : rnd() % combos;
			uint64_t a[6];
			uint32_t want, got;
			for (arg = 0; arg < 6; arg++) {
				a[arg] = vals[arg][x % nv[arg]];
				x /= nv[arg];
			}
			want = bpf_sim_canonical(bpf_sim_expect(p, (int)nr, a, SECCOMP_RET_KILL_PROCESS));
			got = bpf_sim_canonical(runc_decides(r, (int)nr, a));
			if (want != got)
				differ(what, p, profile, (int)nr, a, want, got);
			t->vectors++;
			t->run += want == SECCOMP_RET_ALLOW;
			t->errnos += (want & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ERRNO;
			t->stopped += want != SECCOMP_RET_ALLOW &&
				      (want & SECCOMP_RET_ACTION_FULL) != SECCOMP_RET_ERRNO;
		}
	}
}

/* n random calls: p and runc's reading of profile agree. */
static void agree(const char *what, const struct sf_policy *p, const char *profile, unsigned n,
		  struct tally *t)
{
	static struct runc r;
	unsigned i, k;

	runc_filter(profile, &r);
	t->profiles++;
	t->insns += r.n;
	if (r.n > t->max_insns)
		t->max_insns = r.n;
	if (r.n > SF_BPF_MAX) {
		/* more than the kernel loads: runc would fail, not decide */
		t->too_long++;
		return;
	}
	grid(what, p, &r, profile, t);
	for (i = 0; i < n; i++) {
		uint64_t a[6];
		uint32_t want, got;
		int nr;

		do
			nr = (int)(rnd() % 4 ? rnd() % (SF_NR_COUNT - 42) : 0);
		while (!sf_syscall_by_nr(nr) || !r.known[nr]);
		if (rnd() % 3 == 0) { /* often a syscall the policy talks about */
			for (k = 0; k < 8; k++) {
				int c = (int)(rnd() % (SF_NR_COUNT - 42));
				if (sf_syscall_by_nr(c) && r.known[c] && p->sys[c].allowed) {
					nr = c;
					break;
				}
			}
		}
		for (k = 0; k < 6; k++)
			a[k] = aimed(&r, p, nr, k);
		want = bpf_sim_canonical(bpf_sim_expect(p, nr, a, SECCOMP_RET_KILL_PROCESS));
		got = bpf_sim_canonical(runc_decides(&r, nr, a));
		if (want != got)
			differ(what, p, profile, nr, a, want, got);
		t->vectors++;
		t->run += want == SECCOMP_RET_ALLOW;
		t->errnos += (want & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ERRNO;
		t->stopped += want != SECCOMP_RET_ALLOW &&
			      (want & SECCOMP_RET_ACTION_FULL) != SECCOMP_RET_ERRNO;
	}
}

/* One profile, read by secfilter and by runc. */
static void read_one(const char *path, unsigned n, struct tally *t)
{
	char *text = t_slurp(path, NULL);
	struct sf_error err;
	struct sf_policy *p;

	if (!text)
		fail_msg("cannot read %s", path);
	p = t_oci(RELEASE, text, &err);
	if (!p)
		fail_msg("%s", err.text);
	agree(path, p, text, n, t);
	sf_policy_free(p);
	free(text);
}

/* Profiles that use what Docker's uses, and more: our reading, runc's.
 * OCI_DIFF_PROFILES=a.json:b.json adds others (Docker's own default
 * profile, which is not ours to check in). */
static void reading_agrees(void **state)
{
	static const char *const profiles[] = {
		"tests/e2e/policies/docker-like.json",
		"tests/e2e/policies/oci-actions.json",
	};
	const char *extra = getenv("OCI_DIFF_PROFILES");
	struct tally t = { 0 };
	unsigned i, n = 0;

	(void)state;
	for (i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++, n++)
		read_one(profiles[i], 200000, &t);
	while (extra && *extra) {
		char path[4096];
		size_t len = strcspn(extra, ":");
		if (len && len < sizeof(path)) {
			memcpy(path, extra, len);
			path[len] = '\0';
			read_one(path, 200000, &t);
			n++;
		}
		extra += len + (extra[len] == ':');
	}
	print_message("reading: %u profiles, %lu calls agree with runc and libseccomp "
		      "(%lu run, %lu errno, %lu kill/trap/log)\n", n, t.vectors, t.run, t.errnos,
		      t.stopped);
}

/* One policy, written and read back. */
static int write_and_compare(const char *what, const struct sf_policy *p, unsigned n,
			     struct tally *t)
{
	char why[1024], *text = NULL;
	size_t len;

	if (oci_profile(p, &text, &len, why, sizeof(why)) != 0)
		return 0;
	agree(what, p, text, n, t);
	free(text);
	return 1;
}

/* The test corpus, found rather than listed, so that a policy added to it
 * is written too. */
static const char *const corpus[] = {
	"tests/fuzz/seeds/parse/*", "tests/fuzz/seeds/bpf/*", "secfilter.conf.example",
	"tests/e2e/policies/*.conf", "tests/e2e/policies/*.policy", "tests/e2e/policies/*.json",
	"tests/e2e/policies/*/*.policy",
};

static void writing_agrees(void **state)
{
	glob_t files;
	size_t f;
	struct tally t = { 0 };
	unsigned i, written = 0, refused = 0, random = 0, bad = 0, nfiles;
	static char text[1 << 16];

	(void)state;
	t_glob(corpus, sizeof(corpus) / sizeof(corpus[0]), &files);
	for (f = 0; f < files.gl_pathc; f++) {
		const char *name = files.gl_pathv[f];
		char *body = t_slurp(name, NULL);
		struct sf_error err;
		struct sf_policy *p;

		if (!body)
			fail_msg("cannot read %s", name);
		if (strstr(name, "seeds/bpf/")) /* fuzz_bpf's header byte, then the text */
			memmove(body, body + 1, strlen(body));
		p = sf_syntax_of(name) == SF_SYNTAX_OCI ? t_oci(RELEASE, body, &err)
			: t_parse_syntax(sf_syntax_of(name), name, body, &err);
		free(body);
		if (!p) { /* the seeds hold bad policies on purpose, named so */
			const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
			if (strncmp(base, "err-", 4) != 0)
				fail_msg("%s", err.text);
			bad++;
			continue;
		}
		if (write_and_compare(name, p, 50000, &t))
			written++;
		else
			refused++;
		sf_policy_free(p);
	}
	nfiles = (unsigned)files.gl_pathc;
	globfree(&files);
	/* and random ones, every construct of the language */
	for (i = 0; i < RANDOM_POLICIES; i++) {
		uint64_t seed = 0x5eed0000u + i;
		struct sf_error err;
		struct sf_policy *p = NULL;

		t_random_policy(text, sizeof(text), &seed, 6);
		if (sf_policy_apply(NULL, "random", text, strlen(text), &p, &err))
			fail_msg("%s", err.text);
		if (write_and_compare("random policy", p, 2000, &t))
			random++;
		else
			refused++;
		sf_policy_free(p);
	}
	print_message("writing: %u corpus files, %u invalid on purpose; %u corpus policies and "
		      "%u random ones written, %u not (pending, "
		      "return 4095, or too many conditions); libseccomp's programs %lu instructions "
		      "on average, %lu at most, %lu over the kernel's 4096; %lu calls agree with "
		      "runc and libseccomp (%lu run, %lu errno, %lu kill/trap/log)\n", nfiles, bad,
		      written, random,
		      refused, t.profiles ? t.insns / t.profiles : 0, t.max_insns, t.too_long,
		      t.vectors, t.run, t.errnos, t.stopped);
	assert_true(written >= 20);
}

/* libseccomp 2.5.4 compiles two rules of one syscall that compare an
 * argument with an order and test another one into a program that lets
 * through calls neither rule matches.  secfilter decides as the rules say
 * (stricter); secfilter(7) says so.  This shows the difference, whichever
 * way a later libseccomp goes. */
static void libseccomp_faults(void **state)
{
	static const char profile[] =
		"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [\n"
		" {\"names\": [\"ioctl\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": [\n"
		"   {\"index\": 0, \"value\": 3, \"op\": \"SCMP_CMP_GE\"},\n"
		"   {\"index\": 1, \"value\": 21504, \"op\": \"SCMP_CMP_EQ\"}]},\n"
		" {\"names\": [\"ioctl\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": [\n"
		"   {\"index\": 0, \"value\": 2, \"op\": \"SCMP_CMP_LE\"},\n"
		"   {\"index\": 1, \"value\": 21505, \"op\": \"SCMP_CMP_EQ\"}]}]}";
	static struct runc r;
	const uint64_t call[6] = { 0, 0x5400, 0, 0, 0, 0 }; /* fd 0: neither rule */
	struct sf_error err;
	struct sf_policy *p = t_oci(RELEASE, profile, &err);
	uint32_t theirs;

	(void)state;
	assert_non_null(p);
	runc_filter(profile, &r);
	assert_int_equal(bpf_sim_expect(p, 16, call, SECCOMP_RET_KILL_PROCESS),
			 SECCOMP_RET_ERRNO | EPERM);
	theirs = runc_decides(&r, 16, call);
	print_message("libseccomp %s: ioctl(0, 0x5400) against [fd >= 3 && cmd == 0x5400] or "
		      "[fd <= 2 && cmd == 0x5401]: %s (secfilter: EPERM, as the rules say)\n",
		      seccomp_version()->major == 2 && seccomp_version()->minor == 5 ? "2.5" : "",
		      theirs == SECCOMP_RET_ALLOW ? "allowed" : "as the rules say");
	assert_true(theirs == SECCOMP_RET_ALLOW || theirs == (SECCOMP_RET_ERRNO | EPERM));
	sf_policy_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reading_agrees),
		cmocka_unit_test(writing_agrees),
		cmocka_unit_test(libseccomp_faults),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
