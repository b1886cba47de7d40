/* The differential test SPEC §4 asks for: the kernel program decides
 * exactly as the userspace evaluator does -- which action, not only
 * whether the call runs.
 *
 * 1. Simulated: random policies (random syscalls of the table, random
 *    expression trees over their arguments with every operator, `in`
 *    included, constants biased to the boundaries of the types; `return
 *    E`, `else return E`, `default:` of every kind, `*`), written as policy
 *    text and parsed, so the evaluator's tests and the BPF come from the
 *    same tree by two independent lowerings; random registers biased to
 *    the traps (equal low words with different high words -- a 32-bit
 *    argument whose register has a non-zero upper half --, sign
 *    extension, the policy's own constants and their neighbours).  The
 *    program's RET must be what the evaluator's decision means
 *    (bpf_sim_expect), for each kill action the callers use.  At least a
 *    million vectors.
 * 2. Live: compiled programs installed in forked children with
 *    SECCOMP_RET_ERRNO(LIVE_ERRNO) as the kill action and errnos of their
 *    own (3000 and up) for `return`, real calls of syscalls that cannot
 *    hurt whatever their arguments (every fd closed first, so the
 *    fd-taking ones fail with EBADF when allowed): the errno each call
 *    gets is the one the evaluator names.  Not uretprobe (335) and uprobe
 *    (336): the kernel runs no seccomp filter for them (they act only when
 *    called from its uprobe trampolines).
 *
 * The seed is fixed (SECFILTER_DIFF_SEED overrides it) and printed. */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/audit.h>

#include "bpf.h"
#include "bpf_sim.h"
#include "eval.h"

#define MIN_VECTORS 1000000u
#define LIVE_ERRNO 3999 /* no syscall fails with it */

/* ---- Randomness ------------------------------------------------------ */

static uint64_t rng_state;

static uint64_t rnd(void) /* splitmix64 */
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static unsigned below(unsigned n)
{
	return (unsigned)(rnd() % n);
}

static const uint64_t boundaries[] = {
	0, 1, 2, 3, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x10000,
	0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff,
	0x100000000, 0x100000001, 0x1ffffffff, 0x7fffffffffffffff,
	0x8000000000000000, 0x8000000000000001, 0xffffffff00000000,
	0xffffffff7fffffff, 0xffffffff80000000, 0xfffffffffffffffe,
	0xffffffffffffffff, 0xffffffffffff8000, 0xffffffffffffff9c,
	0xffffff9c, 0x00000001ffffff9c, 0x8000000080000000,
};

static uint64_t biased(void)
{
	switch (below(8)) {
	case 0: return rnd();
	case 1: return rnd() & 0xffffffff;
	case 2: return rnd() << 32;
	case 3: return (uint64_t)(int64_t)(int32_t)rnd();
	case 4: return below(64);
	default: return boundaries[below(sizeof(boundaries) / sizeof(boundaries[0]))];
	}
}

/* ---- Random policy text ---------------------------------------------- */

struct konst { /* a constant of the policy, to aim registers at */
	unsigned nr, arg;
	uint64_t v;
};

struct gen {
	char *buf;
	size_t len, cap;
	struct konst k[4096];
	unsigned nk;
	const struct sf_syscall *const *pool; /* syscalls to choose from */
	unsigned npool;
	int live;  /* errnos of the live pass (3000 and up), no trap or log */
};

static void put(struct gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct gen *g, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(g->buf + g->len, g->cap - g->len, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < g->cap - g->len);
	g->len += (size_t)n;
}

static unsigned type_bits(enum sf_type t)
{
	return t == SF_T_U16 ? 16 : t <= SF_T_U32 ? 32 : 64;
}

/* v (normalized to t) in one of the spellings the language allows. */
static void put_value(struct gen *g, enum sf_type t, uint64_t v)
{
	const unsigned bits = type_bits(t);
	const uint64_t pattern = bits == 64 ? v : v & ((1ull << bits) - 1);
	uint64_t m;

	switch (below(6)) {
	case 0:
		if (sf_type_signed(t) && (int64_t)v < 0) {
			put(g, "-%" PRIu64, -v);
			return;
		}
		put(g, "%" PRIu64, pattern);
		return;
	case 1: /* ~x for the complement's pattern, if that fits too */
		if (bits == 64 || (sf_type_signed(t) && (int64_t)v < 0)) {
			put(g, "~%#" PRIx64, ~v);
			return;
		}
		break;
	case 2: /* a | b */
		m = rnd();
		if ((pattern & m) && (pattern & ~m)) {
			put(g, "%#" PRIx64 "|%#" PRIx64, pattern & m, pattern & ~m);
			return;
		}
		break;
	}
	put(g, "%#" PRIx64, pattern);
}

/* A predicate on an argument by name or argN, or on a register read as
 * another type (a cast: what minijail and OCI profiles compare), any of
 * the six for a syscall without arguments. */
static void gen_pred(struct gen *g, const struct sf_syscall *sc)
{
	static const char *const ops[] = { "==", "!=", "<", "<=", ">", ">=", "&", "in" };
	static const char *const casts[] = { "u16", "u32", "s32", "u64", "s64" };
	static const enum sf_type cast_types[] = { SF_T_U16, SF_T_U32, SF_T_S32, SF_T_U64,
						   SF_T_S64 };
	int cast = sc->nargs == 0 || below(6) == 0;
	unsigned arg = below(cast ? SF_MAX_ARGS : sc->nargs), c = below(5);
	enum sf_type t = cast ? cast_types[c] : (enum sf_type)sc->args[arg].type;
	uint64_t v = sf_normalize(biased(), t);

	if (cast && arg < sc->nargs && below(2))
		put(g, "%s(%s) ", casts[c], sc->args[arg].name);
	else if (cast)
		put(g, "%s(arg%u) ", casts[c], arg);
	else if (below(4) == 0)
		put(g, "arg%u ", arg);
	else
		put(g, "%s ", sc->args[arg].name);
	put(g, "%s ", ops[below(8)]);
	put_value(g, t, v);
	if (g->nk < sizeof(g->k) / sizeof(g->k[0]))
		g->k[g->nk++] = (struct konst){ (unsigned)sc->nr, arg, v };
}

static void gen_expr(struct gen *g, const struct sf_syscall *sc, int depth)
{
	unsigned r = depth > 0 ? below(12) : 0, i, n;

	if (r < 4) {
		gen_pred(g, sc);
	} else if (r < 6) {
		put(g, "!(");
		gen_expr(g, sc, depth - 1);
		put(g, ")");
	} else if (r < 10) {
		put(g, "(");
		gen_expr(g, sc, depth - 1);
		put(g, r < 8 ? " && " : " || ");
		gen_expr(g, sc, depth - 1);
		put(g, ")");
	} else { /* a flat chain: precedence and long runs on one argument */
		n = 2 + below(8);
		for (i = 0; i < n; i++) {
			if (i)
				put(g, below(3) ? " || " : " && ");
			if (below(5) == 0) {
				put(g, "(");
				gen_expr(g, sc, depth - 1);
				put(g, ")");
			} else {
				gen_pred(g, sc);
			}
		}
	}
}

static const struct sf_syscall *pick(struct gen *g)
{
	return g->pool[below(g->npool)];
}

/* An errno for `return`: names and numbers, the edges 1 and 4095; in the
 * live pass, numbers no syscall returns of itself. */
static void put_errno(struct gen *g)
{
	static const char *const e[] = { "EPERM", "ENOSYS", "1", "4095", "EACCES", "77" };

	if (g->live)
		put(g, "%u", 3000 + below(8));
	else
		put(g, "%s", e[below(sizeof(e) / sizeof(e[0]))]);
}

/* A few syscalls with expressions of hundreds of predicates: jumps
 * beyond 255, trampolines, long runs on one argument. */
static void gen_giant(struct gen *g)
{
	unsigned i, j, n = 1 + below(3);

	for (i = 0; i < n; i++) {
		const struct sf_syscall *sc = pick(g);
		unsigned terms = 100 + below(300);

		put(g, "%s: ", sc->name);
		for (j = 0; j < terms; j++) {
			if (j)
				put(g, below(4) ? " || " : " && ");
			if (below(6) == 0) {
				put(g, "(");
				gen_expr(g, sc, 3);
				put(g, ")");
			} else {
				gen_pred(g, sc);
			}
		}
		put(g, "\n");
	}
}

/* An action of a rule: return E, and, but in the live pass (which tells
 * outcomes by their errno), kill, trap and log. */
static void put_action(struct gen *g)
{
	static const char *const a[] = { "kill", "trap", "log" };
	unsigned r = below(6);

	if (g->live || r >= 3)
		put(g, "return "), put_errno(g);
	else
		put(g, "%s", a[r]);
}

/* size: how many rules, roughly; depth: of each expression. */
static void gen_policy(struct gen *g, unsigned size, int depth)
{
	unsigned i;

	g->len = 0;
	g->nk = 0;
	if (below(4) == 0) {
		put(g, "default: ");
		if (below(2))
			put(g, "return "), put_errno(g);
		else
			put(g, "%s", g->live ? "kill" : below(2) ? "trap" : "log");
		put(g, "\n");
	}
	if (below(5) == 0)
		put(g, "*: 1\nio_uring_setup: 0\n");
	else if (below(12) == 0)
		put(g, "*: return "), put_errno(g), put(g, "\n");
	if (depth < 0) {
		gen_giant(g);
		return;
	}
	for (i = 0; i < size; i++) {
		const struct sf_syscall *sc = pick(g);
		unsigned r = below(10);

		if (r == 2) {
			put(g, "%s: ", sc->name);
			put_action(g);
			put(g, "\n");
		} else if (r < 2 || (sc->nargs == 0 && r < 5)) {
			put(g, "%s: %s\n", sc->name, r == 0 ? "0" : "1");
		} else {
			put(g, "%s: ", sc->name);
			gen_expr(g, sc, below((unsigned)depth + 1));
			if (below(3) == 0)
				put(g, " else "), put_action(g);
			put(g, "\n");
		}
	}
}

/* ---- Random registers ------------------------------------------------ */

static uint64_t aimed(const struct gen *g, unsigned nr, unsigned arg)
{
	unsigned i, n = 0, want;
	uint64_t v;

	for (i = 0; i < g->nk; i++)
		n += g->k[i].nr == nr && g->k[i].arg == arg;
	if (!n || below(5) == 0)
		return biased();
	want = below(n);
	for (i = 0; g->k[i].nr != nr || g->k[i].arg != arg || want--; i++)
		;
	v = g->k[i].v;
	switch (below(9)) {
	case 0: return v + 1;
	case 1: return v - 1;
	case 2: return (v & 0xffffffff) | rnd() << 32;      /* same low word */
	case 3: return (v & 0xffffffff) | 0xffffffff00000000; /* sign-extended or not */
	case 4: return v & 0xffffffff;
	case 5: return v ^ 0x80000000;
	case 6: return v ^ 0x8000000000000000;
	case 7: return v ^ (1ull << below(64));
	default: return v;
	}
}

static int pick_nr(const struct gen *g, const struct sf_policy *p)
{
	unsigned r = below(20);

	if (r == 0)
		return (int)(0x40000000u | below(600));
	if (r == 1)
		return (int)(SF_NR_COUNT + below(64)) * (below(2) ? 1 : -1);
	if (r < 4)
		return (int)below(SF_NR_COUNT);
	if (g->nk && r < 16)
		return (int)g->k[below(g->nk)].nr;
	for (;;) {
		int nr = (int)below(SF_NR_COUNT);
		if (p->sys[nr].allowed || below(8) == 0)
			return nr;
	}
}

static void pick_args(const struct gen *g, int nr, uint64_t args[6])
{
	unsigned i;

	for (i = 0; i < 6; i++)
		args[i] = nr >= 0 && nr < SF_NR_COUNT ? aimed(g, (unsigned)nr, i) : biased();
}

/* ---- The simulated pass ---------------------------------------------- */

static struct sf_policy *parse(const char *text, size_t len)
{
	struct sf_policy *p = NULL;
	struct sf_error err;

	if (sf_policy_apply(NULL, "<diff>", text, len, &p, &err))
		fail_msg("generated policy rejected: %s\n%.*s", err.text, (int)len, text);
	return p;
}

static uint64_t seed_from_env(void)
{
	const char *s = getenv("SECFILTER_DIFF_SEED");

	return s && *s ? strtoull(s, NULL, 0) : 0x5ecf117e4b9f0001ull;
}

static const struct sf_syscall *pool_all[SF_NR_COUNT];

/* g writes into text (cap bytes) about any syscall; the generator's
 * numbers are the seed's, salted per test. */
static void gen_start(struct gen *g, char *text, size_t cap, uint64_t salt)
{
	unsigned i;

	rng_state = seed_from_env() ^ salt;
	g->buf = text;
	g->cap = cap;
	for (i = 0; i < sf_syscall_count; i++)
		pool_all[i] = &sf_syscalls[i];
	g->pool = pool_all;
	g->npool = sf_syscall_count;
}

static void simulated_agrees(void **state)
{
	static struct sock_filter prog[SF_BPF_MAX];
	static struct bpf_sim st;
	static struct gen g;
	static char text[1 << 20];
	const uint64_t seed = seed_from_env();
	unsigned long vectors = 0, policies = 0, e2big = 0, allowed = 0, maxlen = 0, errnos = 0;
	unsigned long insns = 0, far = 0;

	(void)state;
	gen_start(&g, text, sizeof(text), 0);
	while (vectors < MIN_VECTORS) {
		unsigned r = below(100);
		unsigned size = r < 70 ? 1 + below(8) : r < 93 ? 10 + below(40) : 60 + below(100);
		struct sf_policy *p;
		struct sf_error err;
		unsigned n, i;
		int rc;

		/* the kill actions of run, of the library's trusted mode and
		 * of log mode */
		uint32_t kill = below(4) == 0 ? SECCOMP_RET_TRAP | SF_BPF_TRAP_KILL
			      : below(6) == 0 ? SECCOMP_RET_LOG : SECCOMP_RET_KILL_PROCESS;

		gen_policy(&g, size, r < 93 ? 4 : r < 97 ? 6 : -1);
		p = parse(g.buf, g.len);
		rc = sf_bpf_compile(p, kill, prog, SF_BPF_MAX, &n, &err);
		policies++;
		if (rc == -E2BIG) {
			e2big++;
			sf_policy_free(p);
			continue;
		}
		if (rc)
			fail_msg("sf_bpf_compile: %d %s", rc, err.text);
		if (bpf_sim_check(prog, n))
			fail_msg("the kernel would refuse: %s\n%s", bpf_sim_check(prog, n), g.buf);
		maxlen = n > maxlen ? n : maxlen;
		far += n > 256;
		for (i = 0; i < 500; i++) {
			uint64_t args[6];
			int nr = pick_nr(&g, p);
			uint32_t ret, want;

			pick_args(&g, nr, args);
			want = bpf_sim_expect(p, nr, args, kill);
			ret = bpf_sim_call(prog, n, AUDIT_ARCH_X86_64, nr, args, &st);
			if (st.error)
				fail_msg("program misbehaved (%s, %#x)", st.error, ret);
			if (ret != want)
				fail_msg("seed %#" PRIx64 ", policy %lu: nr %d args %#" PRIx64 " %#" PRIx64
					 " %#" PRIx64 " %#" PRIx64 " %#" PRIx64 " %#" PRIx64
					 ": evaluator %#x, BPF %#x (kill %#x)\n%s",
					 seed, policies, nr, args[0], args[1], args[2], args[3], args[4],
					 args[5], want, ret, kill, g.buf);
			vectors++;
			allowed += ret == SECCOMP_RET_ALLOW;
			errnos += (ret & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ERRNO;
			insns += st.steps;
		}
		sf_policy_free(p);
	}
	print_message("differential: seed %#" PRIx64 ", %lu policies (%lu over 4096 "
		      "instructions, %lu over 256, longest %lu), %lu vectors agree "
		      "(%lu allowed, %lu errno), %.1f instructions per run\n",
		      seed, policies, e2big, far, maxlen, vectors, allowed, errnos,
		      (double)insns / (double)vectors);
	assert_true(vectors >= MIN_VECTORS);
	assert_true(e2big * 20 < policies);
}

/* ---- The live pass --------------------------------------------------- */

/* Harmless with any arguments once every fd is closed: they fail with
 * EBADF (or EINVAL, ESRCH...) when allowed, or only read process state. */
static const char *const live_names[] = {
	"read", "write", "close", "lseek", "pread64", "pwrite64", "dup", "dup2",
	"fcntl", "flock", "fsync", "ftruncate", "fchdir", "fchmod", "getpgid",
	"getsid", "getpriority", "fadvise64", "ioprio_get", "dup3", "getppid",
};

#define LIVE_CALLS 200

struct live_call {
	int nr;
	uint64_t args[6];
};

/* In a child: every fd closed, the filter on, the calls made; results go
 * to memory shared with the parent, the only thing the child writes.
 * Returns the child's exit status. */
static int live_child(const struct sock_filter *prog, unsigned n,
		       const struct live_call *calls, unsigned ncalls, uint16_t *res)
{
	struct sock_fprog fprog = { (unsigned short)n, (struct sock_filter *)prog };
	unsigned i;

	if (syscall(SYS_close_range, 0, ~0u, 0) != 0)
		return 2;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) != 0)
		return 3;
	for (i = 0; i < ncalls; i++) {
		const struct live_call *c = &calls[i];
		long r;

		errno = 0;
		r = syscall(c->nr, c->args[0], c->args[1], c->args[2], c->args[3],
			    c->args[4], c->args[5]);
		/* which errno of ours, or 0: it ran (and may have failed) */
		res[i] = r == -1 && errno >= 3000 && errno <= LIVE_ERRNO ? (uint16_t)errno : 0;
	}
	return 0;
}

/* Ends a child with a bare exit_group: not through exit() or _exit(),
 * nor any noreturn call, where a sanitizer steps in (leak checks, stack
 * bookkeeping) with syscalls the filter may deny. */
#define CHILD_EXIT(status)                                  \
	do {                                                \
		int status_ = (status);                     \
		for (;;)                                    \
			syscall(SYS_exit_group, status_);   \
	} while (0)

static void run_child(const struct sock_filter *prog, unsigned n,
		      const struct live_call *calls, unsigned ncalls, uint16_t *res)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		CHILD_EXIT(live_child(prog, n, calls, ncalls, res));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("live child: status %#x (3: the kernel refused the program)", status);
}

static void live_agrees(void **state)
{
	static struct sock_filter prog[SF_BPF_MAX];
	static const struct sf_syscall *pool[sizeof(live_names) / sizeof(live_names[0])];
	static struct gen g;
	static char text[1 << 16];
	static struct live_call calls[LIVE_CALLS];
	const unsigned npolicies = 150;
	uint16_t *res = mmap(NULL, LIVE_CALLS * sizeof(*res), PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	unsigned long checked = 0, allowed = 0, errnos = 0;
	unsigned i, k, n;

	(void)state;
	assert_true(res != MAP_FAILED);
	rng_state = seed_from_env() ^ 0x11fe;
	for (i = 0; i < sizeof(live_names) / sizeof(live_names[0]); i++) {
		pool[i] = sf_syscall_lookup(live_names[i], strlen(live_names[i]));
		assert_non_null(pool[i]);
	}
	g.buf = text;
	g.cap = sizeof(text);
	g.pool = pool;
	g.npool = i;
	g.live = 1;
	for (k = 0; k < npolicies; k++) {
		struct sf_policy *p;
		struct sf_error err;

		gen_policy(&g, 1 + below(12), 4);
		/* The child must be able to exit. */
		g.len += (size_t)snprintf(g.buf + g.len, g.cap - g.len, "exit_group: 1\n");
		p = parse(g.buf, g.len);
		assert_int_equal(sf_bpf_compile(p, SECCOMP_RET_ERRNO | LIVE_ERRNO, prog,
						SF_BPF_MAX, &n, &err), 0);
		for (i = 0; i < LIVE_CALLS; i++) {
			unsigned r = below(40);
			calls[i].nr = r == 0 ? (int)(0x40000000u | (unsigned)pool[below(g.npool)]->nr)
				    : r == 1 ? 337 + (int)below(87) /* a gap of the table */
					     : pool[below(g.npool)]->nr;
			pick_args(&g, calls[i].nr, calls[i].args);
		}
		memset(res, 0xff, LIVE_CALLS * sizeof(*res));
		run_child(prog, n, calls, LIVE_CALLS, res);
		for (i = 0; i < LIVE_CALLS; i++) {
			uint32_t want = bpf_sim_expect(p, calls[i].nr, calls[i].args,
						       SECCOMP_RET_ERRNO | LIVE_ERRNO);
			unsigned e = want == SECCOMP_RET_ALLOW ? 0 : want & SECCOMP_RET_DATA;
			if (res[i] != e)
				fail_msg("live: nr %d args %#" PRIx64 " %#" PRIx64 " %#" PRIx64
					 " %#" PRIx64 ": kernel %u, evaluator %u (0: runs)\n%s",
					 calls[i].nr, calls[i].args[0], calls[i].args[1],
					 calls[i].args[2], calls[i].args[3], res[i], e, g.buf);
			checked++;
			allowed += !e;
			errnos += e && e != LIVE_ERRNO;
		}
		sf_policy_free(p);
	}
	print_message("live: %u policies in the kernel, %lu calls agree (%lu allowed, %lu "
		      "errnos of the policy)\n", npolicies, checked, allowed, errnos);
	munmap(res, LIVE_CALLS * sizeof(*res));
}

/* The architecture check, live: an int 0x80 call from a 64-bit process
 * is i386 to seccomp (getpid is 20 there). */
static void live_foreign_arch(void **state)
{
	static struct sock_filter prog[SF_BPF_MAX];
	const char *text = "*: 1";
	struct sf_policy *p = parse(text, strlen(text));
	struct sf_error err;
	unsigned n;
	int status;
	pid_t pid;

	(void)state;
	assert_int_equal(sf_bpf_compile(p, SECCOMP_RET_ERRNO | LIVE_ERRNO, prog,
					SF_BPF_MAX, &n, &err), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct sock_fprog fprog = { (unsigned short)n, prog };
		long ret = 20;

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) != 0)
			CHILD_EXIT(3);
		if (getppid() <= 0) /* a native call goes through */
			CHILD_EXIT(4);
		/* A kernel without IA32 emulation answers int 0x80 with a
		 * general protection fault: let it kill the child (cmocka's
		 * handler would turn it into an exit status) and skip. */
		signal(SIGSEGV, SIG_DFL);
		__asm__ volatile("int $0x80" : "+a"(ret) : : "memory", "r8", "r9", "r10", "r11");
		CHILD_EXIT(ret == -LIVE_ERRNO ? 0 : 5);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status)) /* no IA32 emulation in this kernel */
		print_message("live i386 call: skipped (signal %d)\n", WTERMSIG(status));
	else
		assert_int_equal(WEXITSTATUS(status), 0);
	sf_policy_free(p);
}

/* ---- Shapes at the limits ------------------------------------------ */

/* Installs prog in a child and makes one call: whether the kernel took it
 * (a SIGSYS death is fine: the policy may deny exit_group). */
static void loads_in_kernel(const struct sock_filter *prog, unsigned n)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		struct sock_fprog fprog = { (unsigned short)n, (struct sock_filter *)prog };
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) != 0)
			CHILD_EXIT(3);
		CHILD_EXIT(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0) &&
	    !(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS))
		fail_msg("the kernel refused a program of %u instructions (status %#x)", n, status);
}

/* Compiles text (which must parse), checks the program the kernel's way
 * and against the evaluator on n_vectors aimed vectors; returns the
 * compiler's result and the length. */
static int compile_agrees(struct gen *g, const char *text, size_t len, unsigned n_vectors,
			  unsigned *plen)
{
	static struct sock_filter prog[SF_BPF_MAX];
	static struct bpf_sim st;
	struct sf_policy *p = parse(text, len);
	struct sf_error err;
	unsigned n = 0, i;
	int rc;

	memset(&err, 0, sizeof(err));
	rc = sf_bpf_compile(p, SECCOMP_RET_KILL_PROCESS, prog, SF_BPF_MAX, &n, &err);
	*plen = n;
	if (rc == -E2BIG) {
		if (!err.text[0])
			fail_msg("-E2BIG without a message");
		sf_policy_free(p);
		return rc;
	}
	if (rc != 0)
		fail_msg("a policy the parser accepts fails to compile: %d '%s'", rc, err.text);
	if (n > SF_BPF_MAX || bpf_sim_check(prog, n))
		fail_msg("the kernel would refuse: %s", bpf_sim_check(prog, n));
	for (i = 0; i < n_vectors; i++) {
		uint64_t args[6];
		int nr = pick_nr(g, p), want, got;

		pick_args(g, nr, args);
		want = sf_decide(p, (uint64_t)(int64_t)nr, args) == SF_ALLOW;
		got = bpf_sim_call(prog, n, AUDIT_ARCH_X86_64, nr, args, &st) == SECCOMP_RET_ALLOW;
		if (st.error)
			fail_msg("program misbehaved: %s", st.error);
		if (got != want)
			fail_msg("nr %d args %#" PRIx64 " %#" PRIx64 " %#" PRIx64 ": evaluator %s, BPF %s",
				 nr, args[0], args[1], args[2], want ? "allows" : "denies",
				 got ? "allows" : "kills");
	}
	loads_in_kernel(prog, n);
	sf_policy_free(p);
	return 0;
}

/* The highest-numbered syscall with at least two arguments: its filters
 * are lowered last, when the program is longest. */
static const struct sf_syscall *last_with_args(void)
{
	const struct sf_syscall *best = NULL;
	unsigned i;

	for (i = 0; i < sf_syscall_count; i++)
		if (sf_syscalls[i].nargs >= 2 && (!best || sf_syscalls[i].nr > best->nr))
			best = &sf_syscalls[i];
	return best;
}

/* Nesting 64 deep (the parser's limit) in the shapes that stack the most:
 * each level a || whose right operand is an && ending in the next level. */
static void gen_deep(struct gen *g, const struct sf_syscall *sc, unsigned levels, int nots)
{
	unsigned d, open = 0;

	put(g, "%s: ", sc->name);
	for (d = levels; d > 0; d--) {
		put(g, "arg0 == %u && arg1 != %u || arg0 != %u && ", d, d, d + 1000);
		if (g->nk + 2 < sizeof(g->k) / sizeof(g->k[0])) {
			g->k[g->nk++] = (struct konst){ (unsigned)sc->nr, 0, d };
			g->k[g->nk++] = (struct konst){ (unsigned)sc->nr, 1, d };
		}
		if (nots && d > 1 && d % 2) { /* '!' and '(' are a level each */
			put(g, "!(");
			d--;
		} else {
			put(g, "(");
		}
		open++;
	}
	put(g, "arg1 > 7");
	while (open--)
		put(g, ")");
	put(g, "\n");
}

static void deep_nesting(void **state)
{
	static struct gen g;
	static char text[1 << 16];
	const struct sf_syscall *sc = last_with_args();
	unsigned n, levels;
	int nots;

	(void)state;
	gen_start(&g, text, sizeof(text), 0xdee9);
	for (nots = 0; nots < 2; nots++) {
		/* the deepest the parser takes, and one past it */
		for (levels = 62; levels <= 66; levels++) {
			struct sf_policy *p = NULL;
			struct sf_error err;

			g.len = 0;
			g.nk = 0;
			put(&g, "*: 1\nio_uring_setup: 0\n");
			gen_deep(&g, sc, levels, nots);
			if (sf_policy_apply(NULL, "<deep>", g.buf, g.len, &p, &err) != 0)
				continue; /* over the nesting limit */
			sf_policy_free(p);
			assert_int_equal(compile_agrees(&g, g.buf, g.len, 20000, &n), 0);
		}
	}
}

/* One argument, thousands of alternatives: every jump to the allow at the
 * end is far, many times over; and the same with the test negated. */
static void long_chains(void **state)
{
	static struct gen g;
	static char text[1 << 18];
	const char *const shapes[] = { "fd == %u", "fd != %u", "!(fd == %u)", "fd & %u" };
	const char *const joins[] = { " || ", " && " };
	unsigned n, s, j, terms, i;

	(void)state;
	gen_start(&g, text, sizeof(text), 0xc4a1);
	for (s = 0; s < 4; s++)
		for (j = 0; j < 2; j++)
			for (terms = 200; terms <= 3200; terms *= 2) {
				g.len = 0;
				g.nk = 0;
				put(&g, "*: 1\nio_uring_setup: 0\nwrite: ");
				for (i = 0; i < terms; i++) {
					unsigned v = s == 3 ? 1u << (i % 32) : i * 3;
					if (i)
						put(&g, "%s", joins[j]);
					put(&g, shapes[s], v);
					if (g.nk < sizeof(g.k) / sizeof(g.k[0]))
						g.k[g.nk++] = (struct konst){ 1, 0, v };
				}
				put(&g, "\n");
				if (compile_agrees(&g, g.buf, g.len, 20000, &n) == 0)
					assert_true(n > 255 || terms < 255);
			}
}

/* Many filters on one syscall (all must hold), and one filter on every
 * syscall that has an argument. */
static void many_filters(void **state)
{
	static struct gen g;
	static char text[1 << 18];
	unsigned n, i, k;

	(void)state;
	gen_start(&g, text, sizeof(text), 0x3a7f);
	for (k = 100; k <= 1600; k *= 2) {
		g.len = 0;
		g.nk = 0;
		put(&g, "*: 1\nio_uring_setup: 0\n");
		for (i = 0; i < k; i++) {
			put(&g, "write: fd != %u || count < %u\n", i, i * 7);
			if (g.nk + 1 < sizeof(g.k) / sizeof(g.k[0])) {
				g.k[g.nk++] = (struct konst){ 1, 0, i };
				g.k[g.nk++] = (struct konst){ 1, 2, (uint64_t)i * 7 };
			}
		}
		compile_agrees(&g, g.buf, g.len, 20000, &n);
	}
	for (k = 0; k < 3; k++) {
		g.len = 0;
		g.nk = 0;
		for (i = 0; i < sf_syscall_count; i++) {
			const struct sf_syscall *sc = &sf_syscalls[i];
			if (sc->nargs == 0) {
				put(&g, "%s: 1\n", sc->name);
				continue;
			}
			put(&g, "%s: ", sc->name);
			gen_expr(&g, sc, (int)k);
			put(&g, "\n");
		}
		if (compile_agrees(&g, g.buf, g.len, 50000, &n) == -E2BIG)
			fail_msg("every syscall with a small filter: over 4096 instructions");
	}
}

/* Policies right at 4096 instructions: the longest that compiles is
 * installed in the kernel, and one rule more is -E2BIG with a message --
 * also when a filter nested 64 deep is lowered last, when the program is
 * longest. */
static void at_the_limit(void **state)
{
	static struct gen g;
	static char text[1 << 18];
	const struct sf_syscall *sc = last_with_args();
	unsigned lo, hi, n, deep;

	(void)state;
	gen_start(&g, text, sizeof(text), 0x4096);
	for (deep = 0; deep < 2; deep++) {
		unsigned best_len = 0;

		/* Padding: k filters "fd != i" on write, about one
		 * instruction each; the largest k that fits, by bisection. */
		lo = 0;
		hi = 8192;
		while (lo + 1 < hi) {
			unsigned mid = (lo + hi) / 2, i;

			g.len = 0;
			g.nk = 0;
			put(&g, "*: 1\nio_uring_setup: 0\n");
			for (i = 0; i < mid; i++)
				put(&g, "write: fd != %u\n", i);
			if (deep)
				gen_deep(&g, sc, 64, 0);
			if (compile_agrees(&g, g.buf, g.len, 2000, &n) == 0) {
				lo = mid;
				best_len = n;
			} else {
				hi = mid;
			}
		}
		print_message("at the limit%s: %u padding filters, %u instructions\n",
			      deep ? " (deep filter last)" : "", lo, best_len);
		/* One filter more must not fit: the program was within a few
		 * instructions of the limit, whatever the compiler's scratch
		 * space held while it was lowering. */
		if (best_len + 8 <= SF_BPF_MAX)
			fail_msg("-E2BIG at %u filters although %u fit in %u instructions",
				 hi, lo, best_len);
	}
}

/* A block that narrowings (secfilter_apply) grew to millions of nodes is
 * as valid as a small one: filters that fold to constants compile to
 * nothing, and the compiler must not take their size for a malformed
 * block (-EINVAL). */
static void grown_blocks(void **state)
{
	static struct sock_filter prog[SF_BPF_MAX];
	const size_t cap = SF_MAX_TEXT;
	char *text = malloc(cap);
	struct sf_policy *cur = NULL, *next;
	struct sf_error err;
	unsigned n, round;
	int rc;

	(void)state;
	assert_non_null(text);
	cur = parse("*: 1; io_uring_setup: 0", 23);
	for (round = 0; round < 6; round++) {
		size_t len = 0;
		/* 63 '!' and an always-true test, or'ed: ~1 node a byte */
		len += (size_t)snprintf(text, cap, "write: ");
		while (len + 80 < cap) {
			memset(text + len, '!', 63);
			len += 63;
			len += (size_t)snprintf(text + len, cap - len, "fd>=0||");
		}
		len += (size_t)snprintf(text + len, cap - len, "fd>=0\n");
		memset(&err, 0, sizeof(err));
		if (sf_policy_apply(cur, "<grow>", text, len, &next, &err) != 0)
			fail_msg("narrowing %u refused: %s", round, err.text);
		sf_policy_free(cur);
		cur = next;
	}
	memset(&err, 0, sizeof(err));
	rc = sf_bpf_compile(cur, SECCOMP_RET_KILL_PROCESS, prog, SF_BPF_MAX, &n, &err);
	print_message("grown block: %u nodes, compiled: %d (%u instructions) %s\n",
		      cur->nnodes, rc, n, err.text);
	assert_int_equal(rc, 0);
	sf_policy_free(cur);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(simulated_agrees),
		cmocka_unit_test(live_agrees),
		cmocka_unit_test(live_foreign_arch),
		cmocka_unit_test(deep_nesting),
		cmocka_unit_test(long_chains),
		cmocka_unit_test(many_filters),
		cmocka_unit_test(at_the_limit),
		cmocka_unit_test(grown_blocks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
