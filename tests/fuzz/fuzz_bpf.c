/* libFuzzer target for SPEC §4's promise: the compiled kernel program
 * decides exactly as the userspace evaluator does, on every call.
 *
 * An input is a header byte, a policy text up to a NUL (or the end) and
 * the calls to decide:
 *   header & 1   a second text follows, up to the next NUL, applied on
 *                top of the first as secfilter_apply does (a narrowing;
 *                when refused, the first policy is the one tested)
 *   header & 6   the action for a denial: SECCOMP_RET_KILL_PROCESS,
 *                SECCOMP_RET_TRAP, SECCOMP_RET_ERRNO | n, SECCOMP_RET_LOG
 *   the rest     calls, decoded by next_call: a syscall number and six
 *                registers, each chosen among the policy's own
 *                syscalls and constants or spelled out
 * When the input's bytes run out the decoder goes on with bytes drawn from
 * a generator seeded by the input, for DERIVED more calls: a text alone is
 * a full test, and each call is aimed at the boundaries the policy draws.
 *
 * For each call: the evaluator's decision and the simulated program's
 * action agree (which action: the policy's return, else return and
 * default: included); the call with the upper halves of its 32- and 16-bit
 * arguments changed gets the same decision (the kernel reads only the low
 * bits); the policy printed and parsed again decides the same; a syscall
 * the kernel caches as always allowed is allowed.  The program must be
 * one the kernel loads.  Run with `make fuzz`. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/audit.h>

#include "bpf.h"
#include "bpf_sim.h"
#include "eval.h"

#define MAX_CALLS 256 /* spelled out by one input */
#define DERIVED 48    /* drawn from the generator after them */

static struct sock_filter prog[SF_BPF_MAX];

/* ---- The decision, as the kernel acts on it -------------------------- */

/* What the evaluator's answer means for the call, as the program must
 * return it: the policy's actions (return E, else return E, default:)
 * with deny as what `kill` compiles to (bpf_sim_expect). */
static uint32_t eval_action(const struct sf_policy *p, int nr, const uint64_t args[6],
			    uint32_t deny)
{
	return bpf_sim_expect(p, nr, args, deny);
}

/* ---- Bytes: the input's, then the generator's ------------------------ */

struct src {
	const uint8_t *p, *end;
	uint64_t rng; /* splitmix64 state, seeded by the input */
};

static uint8_t byte(struct src *s)
{
	uint64_t z;

	if (s->p < s->end)
		return *s->p++;
	z = (s->rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (uint8_t)(z ^ (z >> 31));
}

static uint64_t bytes(struct src *s, unsigned n)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)byte(s) << (8 * i);
	return v;
}

/* ---- The policy's own syscalls and constants ------------------------- */

struct konst {
	int nr;
	unsigned arg;
	uint64_t v;
};

struct aims {
	int nrs[SF_NR_COUNT]; /* syscalls in S, those with filters first */
	unsigned nnrs, nfiltered;
	struct konst *k;
	unsigned nk;
};

/* Every predicate's constant, with its syscall and argument. */
static void collect(const struct sf_policy *p, struct aims *a)
{
	uint32_t *stack = malloc((p->nnodes + 1) * sizeof(*stack));
	unsigned nr, i, pass;

	a->k = malloc((p->nnodes + 1) * sizeof(*a->k));
	a->nk = a->nnrs = 0;
	for (pass = 0; pass < 2; pass++) {
		for (nr = 0; nr < SF_NR_COUNT; nr++)
			if (p->sys[nr].allowed && (p->sys[nr].nfilters > 0) == (pass == 0))
				a->nrs[a->nnrs++] = (int)nr;
		if (pass == 0)
			a->nfiltered = a->nnrs;
	}
	for (nr = 0; nr < SF_NR_COUNT; nr++) {
		const struct sf_sysrule *r = &p->sys[nr];

		for (i = 0; r->allowed && i < r->nfilters; i++) {
			unsigned top = 0;

			stack[top++] = p->filters[sf_rule_first(p, r) + i].root;
			while (top) {
				const struct sf_node *n = &p->nodes[stack[--top]];

				switch (n->kind) {
				case SF_N_PRED:
					if (a->nk < p->nnodes)
						a->k[a->nk++] = (struct konst){ (int)nr, n->arg, n->value };
					break;
				case SF_N_NOT:
					stack[top++] = n->left;
					break;
				default:
					if (top + 2 > p->nnodes + 1)
						abort(); /* more children than nodes: a cycle */
					stack[top++] = n->left;
					stack[top++] = n->right;
				}
			}
		}
	}
	free(stack);
}

static int next_nr(struct src *s, const struct aims *a)
{
	static const int odd[] = {
		-1, -2, INT32_MIN, INT32_MAX, SF_NR_COUNT, SF_NR_COUNT + 1, 0x40000000,
		0x40000000 | 1, 0x40000000 | 59, 0x40000000 | 322, 0x40000000 | 512,
		0x3fffffff, 0x7fffffff, 0x80000000 | 0, 0xffff,
	};
	uint8_t c = byte(s);

	switch (c & 7) {
	case 0: case 1: case 2: case 3: /* filtered ones most */
		if (a->nfiltered)
			return a->nrs[byte(s) % a->nfiltered];
		/* fall through */
	case 4: case 5:
		if (a->nnrs)
			return a->nrs[byte(s) % a->nnrs];
		/* fall through */
	case 6:
		return (int)(bytes(s, 2) % 1024); /* the table, its gaps, past it */
	default:
		return odd[byte(s) % (sizeof(odd) / sizeof(odd[0]))];
	}
}

static uint64_t aimed(struct src *s, const struct aims *a, int nr, unsigned arg)
{
	unsigned i, n = 0, want;

	for (i = 0; i < a->nk; i++)
		n += a->k[i].nr == nr && a->k[i].arg == arg;
	if (!n)
		return bytes(s, 8);
	want = byte(s) % n;
	for (i = 0; a->k[i].nr != nr || a->k[i].arg != arg || want--; i++)
		;
	return a->k[i].v;
}

/* One register: spelled out, or one of the policy's constants for this
 * argument, near it, or with its low word kept under a chosen high word. */
static uint64_t next_arg(struct src *s, const struct aims *a, int nr, unsigned arg)
{
	uint8_t c = byte(s);

	switch (c % 8) {
	case 0: return bytes(s, 8);
	case 1: return aimed(s, a, nr, arg);
	case 2: return aimed(s, a, nr, arg) + (uint64_t)(int64_t)(int8_t)byte(s);
	case 3: return (aimed(s, a, nr, arg) & 0xffffffff) | bytes(s, 4) << 32;
	case 4: return aimed(s, a, nr, arg) ^ (1ull << (byte(s) % 64));
	case 5: return (uint64_t)(int64_t)(int32_t)bytes(s, 4);
	case 6: return bytes(s, 4) | 0xffffffff00000000ull;
	default: return (uint64_t)(int64_t)(int8_t)byte(s);
	}
}

/* ---- The checks ------------------------------------------------------ */

/* The high bits of the arguments nr reads as 32 or 16 bits, changed. */
static int reshape(int nr, const uint64_t args[6], uint64_t out[6], uint64_t noise)
{
	const struct sf_syscall *sc = sf_syscall_by_nr(nr);
	unsigned i;
	int changed = 0;

	memcpy(out, args, 6 * sizeof(*out));
	for (i = 0; sc && i < sc->nargs; i++) {
		enum sf_type t = (enum sf_type)sc->args[i].type;
		uint64_t high = t == SF_T_U16 ? ~0xffffull : ~0xffffffffull;

		if (t != SF_T_S32 && t != SF_T_U32 && t != SF_T_U16)
			continue;
		out[i] = (args[i] & ~high) | ((args[i] ^ (noise | 1ull << 40)) & high);
		changed = 1;
	}
	return changed;
}

static void one_call(const struct sf_policy *p, const struct sf_policy *reparsed,
		     unsigned n, uint32_t deny, uint32_t arch, int nr, const uint64_t args[6],
		     uint64_t noise)
{
	struct bpf_sim st;
	uint64_t other[6];
	uint32_t want, got;

	memset(&st, 0, sizeof(st));
	/* Another architecture's calls: the program gives them all the
	 * default action, as a number outside the table; the evaluator never
	 * sees one. */
	want = eval_action(p, arch == AUDIT_ARCH_X86_64 ? nr : SF_NR_COUNT, args, deny);
	got = bpf_sim_call(prog, n, arch, nr, args, &st);
	if (st.error || got != want)
		abort(); /* the kernel would decide otherwise than the evaluator */
	if (arch != AUDIT_ARCH_X86_64)
		return;
	if (eval_action(reparsed, nr, args, deny) != want)
		abort(); /* the canonical text means something else */
	if (reshape(nr, args, other, noise)) {
		if (eval_action(p, nr, other, deny) != want)
			abort(); /* the evaluator reads bits the kernel does not */
		if (bpf_sim_call(prog, n, arch, nr, other, &st) != want || st.error)
			abort();
	}
	if (want != SECCOMP_RET_ALLOW && bpf_sim_const_allow(prog, n, nr, arch))
		abort(); /* the kernel would cache a syscall the policy restricts */
	if (nr >= 0 && nr < SF_NR_COUNT && p->sys[nr].allowed && !p->sys[nr].chain &&
	    !bpf_sim_const_allow(prog, n, nr, arch))
		abort(); /* a plain `X: 1` must cost the kernel no filter run */
}

static const char *text_end(const uint8_t *p, const uint8_t *end)
{
	const uint8_t *z = memchr(p, 0, (size_t)(end - p));

	return (const char *)(z ? z : end);
}

static struct sf_policy *reparse(const struct sf_policy *p)
{
	size_t len = sf_policy_print(p, NULL, 0);
	char *text = malloc(len + 1);
	struct sf_policy *q;
	struct sf_error err;

	sf_policy_print(p, text, len + 1);
	if (sf_policy_apply_src(NULL, "<printed>", SF_SRC_NO_INCLUDE, text, len, &q, &err) != 0)
		abort(); /* the printer wrote what the parser refuses */
	free(text);
	return q;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t denials[4] = {
		SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_TRAP, SECCOMP_RET_ERRNO | EPERM,
		SECCOMP_RET_LOG,
	};
	static struct aims a;
	const uint8_t *end = data + size, *p;
	const char *t1, *t1_end;
	struct sf_policy *base, *top = NULL, *pol, *reparsed;
	struct sf_error err;
	struct src s;
	uint32_t deny, errno_v;
	uint64_t h = 0xcbf29ce484222325ull;
	unsigned n, i, ncalls;
	uint8_t header;
	int rc;
	size_t k;

	if (size < 1)
		return 0;
	for (k = 0; k < size; k++) /* FNV-1a: the generator's seed */
		h = (h ^ data[k]) * 0x100000001b3ull;
	header = data[0];
	t1 = (const char *)data + 1;
	t1_end = text_end(data + 1, end);
	p = (const uint8_t *)t1_end + (t1_end < (const char *)end);
	/* no @include: the fuzzer is not to read the machine's files */
	if (sf_policy_apply_src(NULL, "<fuzz>", SF_SRC_NO_INCLUDE, t1, (size_t)(t1_end - t1),
				&base, &err) != 0)
		return 0;
	pol = base;
	if (header & 1) {
		const char *t2 = (const char *)p, *t2_end = text_end(p, end);

		p = (const uint8_t *)t2_end + (t2_end < (const char *)end);
		if (sf_policy_apply_src(base, "<api>", SF_SRC_NO_INCLUDE, t2, (size_t)(t2_end - t2),
					&top, &err) == 0)
			pol = top;
	}
	/* The errno of SECCOMP_RET_ERRNO from the header's high bits. */
	errno_v = 1 + (header >> 3);
	deny = denials[(header >> 1) & 3];
	if (deny == (SECCOMP_RET_ERRNO | EPERM))
		deny = SECCOMP_RET_ERRNO | errno_v;
	rc = sf_bpf_compile(pol, deny, prog, SF_BPF_MAX, &n, &err);
	if (rc == 0) {
		if (bpf_sim_check(prog, n))
			abort(); /* the kernel would refuse the program */
		reparsed = reparse(pol);
		collect(pol, &a);
		s.p = p;
		s.end = end;
		s.rng = h;
		ncalls = (unsigned)((end - p) / 8);
		ncalls = (ncalls > MAX_CALLS ? MAX_CALLS : ncalls) + DERIVED;
		for (i = 0; i < ncalls; i++) {
			uint64_t args[6];
			uint32_t arch = AUDIT_ARCH_X86_64;
			int nr = next_nr(&s, &a);
			unsigned j;

			for (j = 0; j < 6; j++)
				args[j] = next_arg(&s, &a, nr, j);
			if ((byte(&s) & 31) == 0)
				arch = byte(&s) & 1 ? AUDIT_ARCH_I386 : AUDIT_ARCH_AARCH64;
			one_call(pol, reparsed, n, deny, arch, nr, args, bytes(&s, 8));
		}
		free(a.k);
		sf_policy_free(reparsed);
	} else if (rc != -E2BIG) {
		abort(); /* a policy that parsed must compile, or be too long */
	}
	if (top)
		sf_policy_free(top);
	sf_policy_free(base);
	return 0;
}
