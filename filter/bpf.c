/* The kernel back end: a policy block compiled to a classic-BPF seccomp
 * program (SPEC §4).
 *
 * Shape of the program:
 *
 *	ld [arch]; jeq AUDIT_ARCH_X86_64 else kill; ld [nr]
 *	dispatch tree on nr                        (JGE / JEQ only)
 *	argument filters of the filtered syscalls  (at the end)
 *
 * The dispatch tree is a balanced binary search over the ranges of
 * consecutive numbers that share an outcome, over the whole 32-bit domain
 * of nr: everything from 512 up, the x32 range (bit 30) included, is one
 * denied range, so the x32 rejection costs no instruction of its own.  A
 * syscall allowed with `1` reaches its RET ALLOW through loads of arch and
 * nr, JEQ/JGE/JA only, which the kernel's constant-action emulator
 * understands: such syscalls are cached as always-allowed and never run
 * the program.  A syscall with `return E` reaches its RET ERRNO the same
 * way (the kernel caches only allowed numbers, but its path reads no
 * argument either).
 *
 * Outcomes: RET ALLOW; the policy's default action (what the caller's
 * kill_action and the policy's `default:` make of it, see bpf.h) for a
 * number outside S, a foreign architecture and a false filter without an
 * else; the action of `X: ACTION` and `else ACTION`: RET ERRNO|E,
 * kill_action for kill, RET TRAP, RET LOG.
 *
 * The program is emitted backwards, from its last instruction to its first
 * (as libseccomp does): every jump target then already has a position when
 * the jump is written.  A target is named by its id, its distance from the
 * end of the program (the last instruction is 1); a jump at id j reaches t
 * with offset j - t - 1.  Conditional jumps reach 255 instructions forward;
 * a farther target gets a trampoline next to the jump: a fresh copy when it
 * is a RET, a JA otherwise.
 *
 * Each predicate loads the word it tests; a jump whose target begins by
 * loading the word A already holds goes past that load, and a load that
 * no jump reaches any more is deleted (so `fd == 1 || fd == 2` loads fd
 * once).
 *
 * Nothing is allocated: the compiler also runs inside the preload library
 * at exec time.  Instructions are written at the top of the caller's buffer
 * and moved down at the end. */
#include <errno.h>
#include <stddef.h>

#include <linux/audit.h>
#include <linux/seccomp.h>

#include "bpf.h"

#define JMAX 255 /* farthest a conditional jump reaches */

/* Symbolic targets: "the" RET ALLOW, RET of the default action ("kill"),
 * RET ERRNO|E, and the RETs of the kill, trap and log actions of a rule
 * (X: kill, else trap...).  They resolve to the nearest copy in reach, or
 * to a new copy. */
#define L_ALLOW 0xfff0u /* above any id (SF_BPF_MAX), and 16 bits (see push) */
#define L_KILL 0xfff1u  /* the default action */
#define L_XKILL 0xfff2u /* a rule's kill: the caller's kill_action */
#define L_TRAP 0xfff3u
#define L_LOG 0xfff4u
#define L_ERRNO(e) (0xe000u + (e)) /* e: 1..4095, so 0xe001..0xefff */
#define IS_L_ERRNO(t) ((t) > 0xe000u && (t) <= L_ERRNO(SF_ERRNO_MAX))
#define NEAR_RETS 8 /* RET ERRNO copies remembered, newest first */

/* Frames of lower()'s stack kept in struct ctx; deeper ones go to the
 * unused bottom of the output buffer. */
#define FRAMES 128


#define OFF_NR offsetof(struct seccomp_data, nr)
#define OFF_ARCH offsetof(struct seccomp_data, arch)
#define OFF_ARG(i, hi) (offsetof(struct seccomp_data, args) + 8u * (i) + 4u * (hi))

struct ctx {
	const struct sf_policy *p;
	struct sock_filter *buf;
	unsigned lim;        /* most instructions the program may have */
	unsigned n;          /* instructions emitted: id of the first one */
	unsigned sp;         /* frames on the stack (see lower) */
	struct sock_filter frames[FRAMES];
	uint32_t kill;       /* the default action's RET value */
	uint32_t xkill, trap, log; /* the RET values of a rule's kill, trap and log */
	unsigned near_allow; /* id of the newest RET ALLOW, 0 if none */
	unsigned near_kill;  /* id of the newest RET kill, 0 if none */
	struct { uint32_t k; unsigned id; } near_ret[NEAR_RETS]; /* RET ERRNOs */
	unsigned tramp_at;   /* id of the newest JA trampoline, 0 if none */
	unsigned tramp_to;   /* its target */
	unsigned long steps;  /* expression nodes visited, all filters together */
	int err;             /* 0, -E2BIG or -EINVAL; sticky */
	const char *why;     /* -EINVAL: what is malformed */
};

static struct sock_filter *insn_at(struct ctx *c, unsigned id)
{
	return &c->buf[c->lim - id];
}

static int is_label(const struct ctx *c, unsigned id)
{
	return id >= 1 && id <= c->n;
}

static int is_cond_jump(uint16_t code)
{
	return BPF_CLASS(code) == BPF_JMP && BPF_OP(code) != BPF_JA;
}

static void malformed(struct ctx *c, const char *why)
{
	if (!c->err) {
		c->err = -EINVAL;
		c->why = why;
	}
}

/* Slots of the output buffer the stack of lower() spilled into. */
static unsigned spilled(const struct ctx *c)
{
	return c->sp > FRAMES ? c->sp - FRAMES : 0;
}

/* The newest copy of RET k goes first in near_ret. */
static void remember_ret(struct ctx *c, uint32_t k, unsigned id)
{
	unsigned i;

	for (i = 0; i < NEAR_RETS - 1 && c->near_ret[i].id && c->near_ret[i].k != k; i++)
		;
	for (; i > 0; i--)
		c->near_ret[i] = c->near_ret[i - 1];
	c->near_ret[0].k = k;
	c->near_ret[0].id = id;
}

static unsigned near_ret(const struct ctx *c, uint32_t k)
{
	unsigned i;

	for (i = 0; i < NEAR_RETS && c->near_ret[i].id; i++)
		if (c->near_ret[i].k == k)
			return c->near_ret[i].id;
	return 0;
}

/* The RET value of a symbolic target. */
static uint32_t sym_ret(const struct ctx *c, unsigned t)
{
	switch (t) {
	case L_ALLOW: return SECCOMP_RET_ALLOW;
	case L_KILL: return c->kill;
	case L_XKILL: return c->xkill;
	case L_TRAP: return c->trap;
	case L_LOG: return c->log;
	default: return SECCOMP_RET_ERRNO | (t - 0xe000u);
	}
}

static int is_sym(unsigned t)
{
	return (t >= L_ALLOW && t <= L_LOG) || IS_L_ERRNO(t);
}

/* Writes one instruction in front of the program; returns its id (0 once
 * an error is set: callers carry on and the error is reported at the end). */
static void remember_ret(struct ctx *c, uint32_t k, unsigned id);

static unsigned emit(struct ctx *c, uint16_t code, uint8_t jt, uint8_t jf, uint32_t k)
{
	if (c->err)
		return 0;
	if (c->n + spilled(c) >= c->lim) {
		c->err = -E2BIG;
		return 0;
	}
	c->n++;
	*insn_at(c, c->n) = (struct sock_filter){ code, jt, jf, k };
	if (code == (BPF_RET | BPF_K)) {
		if (k == SECCOMP_RET_ALLOW)
			c->near_allow = c->n;
		else if (k == c->kill)
			c->near_kill = c->n;
		else
			remember_ret(c, k, c->n);
	}
	return c->n;
}

static unsigned emit_ret(struct ctx *c, uint32_t k)
{
	return emit(c, BPF_RET | BPF_K, 0, 0, k);
}

static unsigned emit_ld(struct ctx *c, uint32_t off)
{
	return emit(c, BPF_LD | BPF_W | BPF_ABS, 0, 0, off);
}

static unsigned emit_alu(struct ctx *c, uint16_t op, uint32_t k)
{
	return emit(c, BPF_ALU | op | BPF_K, 0, 0, k);
}

/* A label that a jump written after at most `slack` more instructions
 * reaches with an 8-bit offset: t itself, or a trampoline to it. */
static unsigned reach(struct ctx *c, unsigned t, unsigned slack)
{
	uint32_t k;
	unsigned near;

	if (c->err)
		return 0;
	if (is_sym(t)) {
		k = sym_ret(c, t);
		near = k == SECCOMP_RET_ALLOW ? c->near_allow : k == c->kill ? c->near_kill
		       : near_ret(c, k);
		if (near && c->n + slack - near <= JMAX)
			return near;
		return emit_ret(c, k);
	}
	if (!is_label(c, t)) {
		malformed(c, "jump to an unknown label");
		return 0;
	}
	if (c->n + slack - t <= JMAX)
		return t;
	k = insn_at(c, t)->k;
	if (insn_at(c, t)->code == (BPF_RET | BPF_K))
		return k == SECCOMP_RET_ALLOW ? reach(c, L_ALLOW, slack)
		     : k == c->kill	  ? reach(c, L_KILL, slack)
		     : (k & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ERRNO
		       ? reach(c, L_ERRNO(k & SECCOMP_RET_DATA), slack)
		       : emit_ret(c, k);
	/* The jumps of a long chain often share a far target: one JA each
	 * 255 instructions serves them all. */
	if (c->tramp_at && c->tramp_to == t && c->n + slack - c->tramp_at <= JMAX)
		return c->tramp_at;
	/* JA at id n+1 reaches t with offset n - t: 32 bits, always enough. */
	c->tramp_to = t;
	return c->tramp_at = emit(c, BPF_JMP | BPF_JA, 0, 0, c->n - t);
}

/* What A holds: the word at off of seccomp_data, then, when alu is not 0,
 * that word `alu` k (BPF_AND or BPF_XOR). */
struct word {
	uint32_t off;
	uint16_t alu;
	uint32_t k;
};

/* A jump to t made with w in A may skip t's reload of w: seccomp_data
 * does not change during a run. */
static unsigned skip_reload(struct ctx *c, const struct word *w, unsigned t)
{
	const struct sock_filter *i;

	if (!w || c->err || !is_label(c, t) || t < 3)
		return t;
	i = insn_at(c, t);
	if (i->code != (BPF_LD | BPF_W | BPF_ABS) || i->k != w->off)
		return t;
	if (!w->alu)
		return t - 1;
	i = insn_at(c, t - 1);
	return i->code == (BPF_ALU | w->alu | BPF_K) && i->k == w->k ? t - 2 : t;
}

/* `if (A op k) goto t; else goto f;` with w in A (NULL: unknown). */
static unsigned emit_jump(struct ctx *c, const struct word *w, uint16_t op, uint32_t k,
			  unsigned t, unsigned f)
{
	unsigned jt = reach(c, skip_reload(c, w, t), 1);
	unsigned jf = reach(c, skip_reload(c, w, f), 0);

	if (c->err)
		return 0;
	if (c->n - jt > JMAX || c->n - jf > JMAX) { /* never: fail closed */
		malformed(c, "jump out of reach");
		return 0;
	}
	return emit(c, BPF_JMP | op | BPF_K, (uint8_t)(c->n - jt), (uint8_t)(c->n - jf), k);
}

/* Makes the instruction written next fall through to t. */
static unsigned emit_goto(struct ctx *c, unsigned t)
{
	if (t == c->n && !c->err)
		return t;
	if (is_sym(t))
		return emit_ret(c, sym_ret(c, t));
	if (!is_label(c, t)) {
		malformed(c, "jump to an unknown label");
		return 0;
	}
	if (insn_at(c, t)->code == (BPF_RET | BPF_K))
		return emit_ret(c, insn_at(c, t)->k);
	return emit(c, BPF_JMP | BPF_JA, 0, 0, c->n - t);
}

/* The ids the instruction j jumps to (0: none). */
static void targets_of(struct ctx *c, unsigned j, unsigned t[2])
{
	const struct sock_filter *in = insn_at(c, j);

	t[0] = t[1] = 0;
	if (in->code == (BPF_JMP | BPF_JA)) {
		t[0] = j - 1 - in->k;
	} else if (is_cond_jump(in->code)) {
		t[0] = j - 1 - in->jt;
		t[1] = j - 1 - in->jf;
	}
}

/* The code just emitted, ids (x, n], was the only code that could jump to
 * the load x (the continuation it was given).  When each of its jumps
 * skipped that reload (skip_reload), nothing reaches x any more: x is
 * deleted, and the code moves down one place to close the gap.  Labels
 * into that code (*entry, the nearest RETs, the trampoline) follow it;
 * nothing else holds one, as it is brand new.  Returns whether x was dropped. */
static int drop_unreached_load(struct ctx *c, unsigned x, unsigned *entry)
{
	unsigned j, t[2];
	struct sock_filter in;

	if (c->err || x == 0 || c->n <= x || *entry == x ||
	    insn_at(c, x)->code != (BPF_LD | BPF_W | BPF_ABS) ||
	    (BPF_CLASS(insn_at(c, x + 1)->code) != BPF_JMP &&
	     BPF_CLASS(insn_at(c, x + 1)->code) != BPF_RET)) /* falls through into x */
		return 0;
	for (j = x + 1; j <= c->n; j++) {
		targets_of(c, j, t);
		if (t[0] == x || t[1] == x)
			return 0;
	}
	for (j = x + 1; j <= c->n; j++) {
		targets_of(c, j, t);
		in = *insn_at(c, j);
		if (in.code == (BPF_JMP | BPF_JA))
			in.k -= t[0] < x;
		else if (is_cond_jump(in.code))
			in.jt = (uint8_t)(in.jt - (t[0] < x)), in.jf = (uint8_t)(in.jf - (t[1] < x));
		*insn_at(c, j - 1) = in;
	}
	if (is_label(c, *entry) && *entry > x)
		--*entry;
	c->near_allow -= c->near_allow > x;
	c->near_kill -= c->near_kill > x;
	for (j = 0; j < NEAR_RETS; j++)
		c->near_ret[j].id -= c->near_ret[j].id > x;
	c->tramp_at -= c->tramp_at > x;
	c->tramp_to -= c->tramp_to > x;
	c->n--;
	return 1;
}

/* ---- Predicates ------------------------------------------------------ */

/* A predicate as compiled.  The argument's value x is what the type reads
 * of the register (sf_normalize): 16, 32 or 64 bits wide.  For ordering,
 * x and the constant are mapped to their "key": the same bits with the sign
 * bit flipped for signed types, so that unsigned JGT/JGE order them as the
 * signed values.  Each predicate loads what it needs into A (emit_jump
 * drops the reloads of what A already holds). */
struct pred {
	unsigned arg;
	unsigned width; /* 16, 32 or 64 */
	int sign;
	uint64_t v; /* the node's value (normalized to the type) */
};

/* The low word of the register holds all of a 16- or 32-bit type's bits
 * (the kernel ignores the high word): masked for 16-bit types, its sign
 * bit flipped for a signed order. */
static struct word word_low(const struct pred *pr, int flip)
{
	struct word w = { OFF_ARG(pr->arg, 0), 0, 0 };

	if (pr->width == 16)
		w.alu = BPF_AND, w.k = 0xffff;
	else if (flip && pr->width == 32)
		w.alu = BPF_XOR, w.k = 0x80000000u;
	return w;
}

static struct word word_high(const struct pred *pr, int flip)
{
	struct word w = { OFF_ARG(pr->arg, 1), 0, 0 };

	if (flip)
		w.alu = BPF_XOR, w.k = 0x80000000u;
	return w;
}

/* Emits the load of w (it comes before the jumps that test it); returns
 * its entry. */
static unsigned emit_word(struct ctx *c, const struct word *w)
{
	if (w->alu)
		emit_alu(c, w->alu, w->k);
	return emit_ld(c, w->off);
}

/* x == v.  64-bit values compare as hi/lo pairs; the invariant of every
 * 64-bit predicate: x OP v is decided by the high words when they differ,
 * and by the low words, compared unsigned, when they are equal (with the
 * sign bit of the high words flipped for a signed order, so that high
 * words order like the whole keys do). */
static unsigned lower_eq(struct ctx *c, const struct pred *pr, unsigned t, unsigned f)
{
	const struct word lo = word_low(pr, 0), hi = word_high(pr, 0);
	unsigned entry;

	emit_jump(c, &lo, BPF_JEQ, (uint32_t)pr->v, t, f);
	entry = emit_word(c, &lo);
	if (pr->width < 64)
		return entry;
	emit_jump(c, &hi, BPF_JEQ, (uint32_t)(pr->v >> 32), entry, f);
	return emit_word(c, &hi);
}

/* (x & v) != 0.  For s32, x and v are sign-extended, so their high halves
 * share a set bit only if both have bit 31 set: the low words decide.  A
 * 16-bit v has no bit above 15 (it is normalized): no mask needed. */
static unsigned lower_bits(struct ctx *c, const struct pred *pr, unsigned t, unsigned f)
{
	const struct word lo = { OFF_ARG(pr->arg, 0), 0, 0 }, hi = word_high(pr, 0);
	const uint32_t vl = (uint32_t)pr->v, vh = (uint32_t)(pr->v >> 32);

	if (vl) {
		emit_jump(c, &lo, BPF_JSET, vl, t, f);
		f = emit_word(c, &lo);
	}
	if (vh && pr->width == 64) {
		emit_jump(c, &hi, BPF_JSET, vh, t, f);
		f = emit_word(c, &hi);
	}
	return f; /* v == 0: always false */
}

/* (x & ~v) == 0: x in v.  As for lower_bits, the low word decides for
 * s32 (x's high half copies its bit 31, which ~v's low word tests). */
static unsigned lower_in(struct ctx *c, const struct pred *pr, unsigned t, unsigned f)
{
	const struct word lo = { OFF_ARG(pr->arg, 0), 0, 0 }, hi = word_high(pr, 0);
	const uint64_t m = ~pr->v & (pr->width == 64 ? UINT64_MAX : (1ull << pr->width) - 1);
	const uint32_t ml = (uint32_t)m, mh = (uint32_t)(m >> 32);

	if (ml) {
		emit_jump(c, &lo, BPF_JSET, ml, f, t);
		t = emit_word(c, &lo);
	}
	if (mh) {
		emit_jump(c, &hi, BPF_JSET, mh, f, t);
		t = emit_word(c, &hi);
	}
	return t; /* v has every bit: always true */
}

/* key(x) > k, k below the type's largest key. */
static unsigned lower_gt(struct ctx *c, const struct pred *pr, uint64_t k, unsigned t, unsigned f)
{
	const struct word lo = word_low(pr, pr->sign), hi = word_high(pr, pr->sign);
	const uint32_t kl = (uint32_t)k, kh = (uint32_t)(k >> 32);
	unsigned entry, next;

	if (pr->width < 64) {
		emit_jump(c, &lo, BPF_JGT, kl, t, f);
		return emit_word(c, &lo);
	}
	if (kl == 0xffffffffu) { /* x > kh:ffffffff  <=>  xh > kh */
		emit_jump(c, &hi, BPF_JGT, kh, t, f);
		return emit_word(c, &hi);
	}
	emit_jump(c, &lo, BPF_JGT, kl, t, f);
	entry = emit_word(c, &lo);
	/* Unequal high words decide; with kh == 0 a high word not above is
	 * equal, with kh == 0xffffffff one not below is. */
	if (kh == 0xffffffffu) {
		emit_jump(c, &hi, BPF_JEQ, kh, entry, f);
	} else {
		next = entry;
		if (kh != 0)
			next = emit_jump(c, &hi, BPF_JEQ, kh, entry, f);
		emit_jump(c, &hi, BPF_JGT, kh, t, next);
	}
	return emit_word(c, &hi);
}

static uint64_t pred_key(const struct pred *pr, uint64_t v)
{
	if (pr->width == 16)
		return (uint16_t)v;
	if (pr->width == 32)
		return (uint32_t)v ^ (pr->sign ? 0x80000000u : 0);
	return v ^ (pr->sign ? 1ull << 63 : 0);
}

static uint64_t pred_max_key(const struct pred *pr)
{
	return pr->width == 64 ? UINT64_MAX : (1ull << pr->width) - 1;
}

/* <, <=, >, >= as key > k with the targets swapped where needed; predicates
 * that the type makes constant (x >= 0 on an unsigned type) emit nothing. */
static unsigned lower_order(struct ctx *c, const struct pred *pr, enum sf_op op,
			    unsigned t, unsigned f)
{
	uint64_t k = pred_key(pr, pr->v);
	unsigned tmp;

	if (op == SF_OP_GE || op == SF_OP_LT) { /* x >= v  <=>  x > v-1 */
		if (k == 0)
			return op == SF_OP_GE ? t : f;
		k--;
	}
	if (op == SF_OP_LE || op == SF_OP_LT) {
		tmp = t;
		t = f;
		f = tmp;
	}
	if (k == pred_max_key(pr))
		return f;
	return lower_gt(c, pr, k, t, f);
}

static int pred_of(struct ctx *c, const struct sf_node *n, struct pred *pr)
{
	if (n->arg >= SF_MAX_ARGS || n->type > SF_T_PTR || n->op > SF_OP_IN) {
		malformed(c, "bad predicate");
		return -1;
	}
	if (sf_normalize(n->value, (enum sf_type)n->type) != n->value) {
		malformed(c, "predicate value not normalized to its type");
		return -1;
	}
	pr->arg = n->arg;
	pr->width = n->type == SF_T_U16 ? 16 : n->type <= SF_T_U32 ? 32 : 64;
	pr->sign = sf_type_signed((enum sf_type)n->type);
	pr->v = n->value;
	return 0;
}

static unsigned lower_pred(struct ctx *c, const struct sf_node *n, unsigned t, unsigned f)
{
	struct pred pr;

	if (t == f || pred_of(c, n, &pr) < 0)
		return t;
	switch (n->op) {
	case SF_OP_EQ: return lower_eq(c, &pr, t, f);
	case SF_OP_NE: return lower_eq(c, &pr, f, t);
	case SF_OP_BITS: return lower_bits(c, &pr, t, f);
	case SF_OP_IN: return lower_in(c, &pr, t, f);
	default: return lower_order(c, &pr, (enum sf_op)n->op, t, f);
	}
}

/* ---- Expressions ----------------------------------------------------- */

/* Short-circuit code for the tree at node i: goes to t when it is true, to
 * f when false; returns its entry.  An operator's right operand is lowered
 * first (its code comes last), then the left one with the right one's
 * entry as its continuation: AND(l, r) is l with (entry(r), f), OR(l, r)
 * is l with (t, entry(r)), NOT swaps t and f.
 *
 * No recursion, as a policy may hold long chains in either direction:
 * the left operands waiting for their right one are kept on a stack, the
 * first FRAMES in struct ctx, the others in the unused bottom of the
 * output buffer (the program grows down from its top); the two meeting is
 * -E2BIG.  A frame is one sock_filter:
 *  - jt = the operator: k = the left operand's node, code = its target that
 *    is already known;
 *  - under each such frame, jt = FRONT: code = the id of the first
 *    instruction before the right operand was lowered (to tell its own
 *    code from older labels it may return);
 *  - jt = MARK: code = the right operand's entry, new code, that the left
 *    operand being lowered continues to (see drop_unreached_load). */
#define FRONT 0xfe
#define MARK 0xff
static struct sock_filter *frame_at(struct ctx *c, unsigned i)
{
	return i < FRAMES ? &c->frames[i] : &c->buf[i - FRAMES];
}

static int push(struct ctx *c, uint32_t node, unsigned fixed, uint8_t kind)
{
	if (c->sp >= FRAMES && c->n + spilled(c) + 1 > c->lim) {
		c->err = -E2BIG;
		return -1;
	}
	*frame_at(c, c->sp++) = (struct sock_filter){ (uint16_t)fixed, kind, 0, node };
	return 0;
}

static struct sock_filter pop(struct ctx *c)
{
	return *frame_at(c, --c->sp);
}

static unsigned lower(struct ctx *c, uint32_t i, unsigned t, unsigned f)
{
	const unsigned base = c->sp;
	const struct sf_node *n;
	struct sock_filter fr;
	unsigned entry, tmp, front;

	for (;;) {
		/* Down the right operands to a predicate. */
		for (;;) {
			if (c->err)
				goto out;
			/* Every filter is a tree of its own (apply copies
			 * them), so a valid block has each node visited once,
			 * however many narrowings grew it; more is a cycle. */
			if (i >= c->p->nnodes || ++c->steps > c->p->nnodes) {
				malformed(c, "bad expression node");
				goto out;
			}
			n = &c->p->nodes[i];
			if (n->kind == SF_N_PRED)
				break;
			if (n->kind == SF_N_NOT) {
				tmp = t;
				t = f;
				f = tmp;
				i = n->left;
				continue;
			}
			if (n->kind != SF_N_AND && n->kind != SF_N_OR) {
				malformed(c, "bad expression node");
				goto out;
			}
			if (push(c, 0, c->n, FRONT) < 0 ||
			    push(c, n->left, n->kind == SF_N_AND ? f : t, n->kind) < 0)
				goto out;
			i = n->right;
		}
		entry = lower_pred(c, n, t, f);
		do {
			if (c->sp == base)
				return entry;
			fr = pop(c);
			if (fr.jt == MARK)
				drop_unreached_load(c, fr.code, &entry);
		} while (fr.jt == MARK);
		/* Then the left operand whose right one this completes. */
		front = pop(c).code;
		i = fr.k;
		t = fr.jt == SF_N_AND ? entry : fr.code;
		f = fr.jt == SF_N_AND ? fr.code : entry;
		if (entry == c->n && entry > front && push(c, 0, entry, MARK) < 0)
			goto out;
	}
out:
	c->sp = base;
	return t;
}

/* The target of an action of the policy's rules. */
static unsigned action_target(unsigned a)
{
	switch (a) {
	case SF_ACTION_RUN: return L_ALLOW;
	case SF_ACTION_KILL: return L_XKILL;
	case SF_ACTION_TRAP: return L_TRAP;
	case SF_ACTION_LOG: return L_LOG;
	default: return a <= SF_ERRNO_MAX ? L_ERRNO(a) : L_XKILL; /* never: fail closed */
	}
}

/* What a call that filter f is false of gets. */
static unsigned fail_target(const struct sf_filter *f)
{
	return f->fail ? action_target(f->fail) : L_KILL;
}

/* All filters of one syscall must hold: each one's true target is the
 * next one's entry, each false target its else, or the default action. */
static unsigned lower_filters(struct ctx *c, const struct sf_sysrule *r)
{
	unsigned entry = L_ALLOW, before = c->n;
	unsigned k;

	if ((uint64_t)sf_rule_first(c->p, r) + r->nfilters > c->p->nfilters) {
		malformed(c, "bad filter index");
		return L_KILL;
	}
	/* Only new code, the next filter's own, can be dropped. */
	for (k = r->nfilters; k-- > 0;) {
		unsigned next = entry;
		int fresh = is_label(c, next) && next == c->n && next > before;

		before = c->n;
		entry = lower(c, c->p->filters[sf_rule_first(c->p, r) + k].root, next,
			      fail_target(&c->p->filters[sf_rule_first(c->p, r) + k]));
		if (fresh)
			before -= drop_unreached_load(c, next, &entry);
	}
	return entry;
}

/* ---- Dispatch on nr -------------------------------------------------- */

/* [start, next range's start) of syscall numbers going to target. */
struct range {
	uint32_t start;
	unsigned target;
};

/* Ranges [lo, hi) are searched.  Two ranges take one JGE; three whose
 * outer ones agree and whose middle one is a single number take one JEQ. */
static unsigned emit_tree(struct ctx *c, const struct range *r, unsigned lo, unsigned hi)
{
	unsigned mid, right, left;

	if (hi - lo == 1)
		return r[lo].target;
	if (hi - lo == 3 && r[lo].target == r[lo + 2].target &&
	    r[lo + 2].start - r[lo + 1].start == 1)
		return emit_jump(c, NULL, BPF_JEQ, r[lo + 1].start, r[lo + 1].target, r[lo].target);
	mid = lo + (hi - lo) / 2;
	right = emit_tree(c, r, mid, hi);
	left = emit_tree(c, r, lo, mid);
	return emit_jump(c, NULL, BPF_JGE, r[mid].start, right, left);
}

/* The outcome of each number: L_ALLOW, L_KILL, L_ERRNO(E) or the entry of
 * its filters.
 * The filters are emitted here, before the tree, so they come after it and
 * the tree stays compact; the lowest number's come last, leaving the
 * highest ones next to the tree's high end, which is the end nearest to
 * them. */
static unsigned build_ranges(struct ctx *c, struct range *r)
{
	unsigned entry[SF_NR_COUNT];
	unsigned nr, count = 0;

	for (nr = 0; nr < SF_NR_COUNT; nr++) {
		const struct sf_sysrule *s = &c->p->sys[nr];
		entry[nr] = !s->allowed ? L_KILL
			  : s->ret ? action_target(s->ret)
			  : !s->nfilters ? L_ALLOW : lower_filters(c, s);
	}
	for (nr = 0; nr < SF_NR_COUNT; nr++) {
		int same = count && r[count - 1].target == entry[nr] && is_sym(entry[nr]);
		if (!same)
			r[count++] = (struct range){ nr, entry[nr] };
	}
	/* 512 and up, the x32 range included: never a syscall of the table. */
	if (r[count - 1].target != L_KILL)
		r[count++] = (struct range){ SF_NR_COUNT, L_KILL };
	return count;
}

/* ---- Dead code ------------------------------------------------------ */

/* A safety net behind drop_unreached_load: whatever no path reaches is
 * dropped.  That only shortens the jumps across it, so every jump still
 * reaches.  prog is in forward order; returns the new length. */
#define LIVE_WORDS (SF_BPF_MAX / 64)

static void set_live(uint64_t *live, unsigned i, unsigned n)
{
	if (i < n)
		live[i / 64] |= 1ull << (i % 64);
}

static int is_live(const uint64_t *live, unsigned i)
{
	return (live[i / 64] >> (i % 64)) & 1;
}

/* Live instructions in [from, to). */
static unsigned live_between(const uint64_t *live, unsigned from, unsigned to)
{
	unsigned i, k = 0;

	for (i = from; i < to; i++)
		k += (unsigned)is_live(live, i);
	return k;
}

static unsigned drop_unreached(struct sock_filter *prog, unsigned n)
{
	uint64_t live[LIVE_WORDS] = { 0 };
	unsigned i, j;

	set_live(live, 0, n);
	for (i = 0; i < n; i++) {
		const struct sock_filter *in = &prog[i];
		if (!is_live(live, i) || BPF_CLASS(in->code) == BPF_RET)
			continue;
		if (in->code == (BPF_JMP | BPF_JA)) {
			set_live(live, i + 1 + in->k, n);
		} else if (is_cond_jump(in->code)) {
			set_live(live, i + 1 + in->jt, n);
			set_live(live, i + 1 + in->jf, n);
		} else {
			set_live(live, i + 1, n);
		}
	}
	for (i = j = 0; i < n; i++) {
		struct sock_filter in = prog[i];
		if (!is_live(live, i))
			continue;
		if (in.code == (BPF_JMP | BPF_JA)) {
			in.k = live_between(live, i + 1, i + 1 + in.k);
		} else if (is_cond_jump(in.code)) {
			in.jt = (uint8_t)live_between(live, i + 1, i + 1 + in.jt);
			in.jf = (uint8_t)live_between(live, i + 1, i + 1 + in.jf);
		}
		prog[j++] = in;
	}
	return j;
}

/* ---- Errors ---------------------------------------------------------- */

static char *put_str(char *s, char *end, const char *t)
{
	while (*t && s < end)
		*s++ = *t++;
	return s;
}

static char *put_uint(char *s, char *end, unsigned v)
{
	char digits[12];
	unsigned n = 0;

	do
		digits[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (n && s < end)
		*s++ = digits[--n];
	return s;
}

/* err->text = a [num] b.  No snprintf: this also runs inside the preload
 * library. */
static int fail(struct sf_error *err, int code, const char *a, long num, const char *b)
{
	char *s, *end;

	if (!err)
		return code;
	err->code = code;
	err->line = err->col = 0;
	s = err->text;
	end = err->text + sizeof(err->text) - 1;
	s = put_str(s, end, a);
	if (num >= 0)
		s = put_uint(s, end, (unsigned)num);
	if (b)
		s = put_str(s, end, b);
	*s = '\0';
	return code;
}

/* The RET of the policy's default action (bpf.h). */
static uint32_t default_ret(const struct sf_policy *p, uint32_t kill_action)
{
	if (kill_action == SECCOMP_RET_LOG)
		return SECCOMP_RET_LOG;
	if (kill_action == SF_BPF_NOTIFY_LOG)
		return SECCOMP_RET_USER_NOTIF;
	switch (p->dflt) {
	case SF_ACTION_KILL: return kill_action;
	case SF_ACTION_TRAP: return SECCOMP_RET_TRAP;
	case SF_ACTION_LOG:
		/* the supervisor reports it, and lets it run */
		return kill_action == SECCOMP_RET_USER_NOTIF ? SECCOMP_RET_USER_NOTIF
							     : SECCOMP_RET_LOG;
	default:
		return p->dflt >= 1 && p->dflt <= SF_ERRNO_MAX ? SECCOMP_RET_ERRNO | p->dflt
							       : kill_action;
	}
}

int sf_bpf_compile(const struct sf_policy *p, uint32_t kill_action,
		   struct sock_filter *out, unsigned cap, unsigned *len,
		   struct sf_error *err)
{
	struct range ranges[SF_NR_COUNT + 1];
	struct ctx c = { 0 };
	unsigned nranges, i;

	if (len)
		*len = 0;
	if (!p || !out || !len || kill_action == SECCOMP_RET_ALLOW)
		return fail(err, -EINVAL, "internal error: bad arguments to the BPF compiler", -1, NULL);
	c.p = p;
	c.buf = out;
	c.lim = cap < SF_BPF_MAX ? cap : SF_BPF_MAX;
	c.kill = default_ret(p, kill_action);
	/* log mode: a rule's kill and trap are logged too (eval.h); under a
	 * supervisor (bpf.h) what is logged goes to it, which reports it and
	 * lets it run */
	switch (kill_action) {
	case SECCOMP_RET_LOG:
		c.xkill = c.trap = c.log = SECCOMP_RET_LOG;
		break;
	case SF_BPF_NOTIFY_LOG:
		c.xkill = c.trap = c.log = SECCOMP_RET_USER_NOTIF;
		break;
	case SECCOMP_RET_USER_NOTIF:
		c.xkill = c.log = SECCOMP_RET_USER_NOTIF;
		c.trap = SECCOMP_RET_TRAP;
		break;
	default:
		c.xkill = kill_action;
		c.trap = SECCOMP_RET_TRAP;
		c.log = SECCOMP_RET_LOG;
	}

	nranges = build_ranges(&c, ranges);
	emit_goto(&c, emit_tree(&c, ranges, 0, nranges));
	emit_ld(&c, OFF_NR);
	emit_jump(&c, NULL, BPF_JEQ, AUDIT_ARCH_X86_64, c.n, L_KILL);
	emit_ld(&c, OFF_ARCH);

	if (c.err == -E2BIG)
		return c.lim == SF_BPF_MAX
			? fail(err, -E2BIG, "policy compiles to more than ", SF_BPF_MAX,
			       " BPF instructions (the kernel limit)")
			: fail(err, -E2BIG, "policy compiles to more than ", c.lim,
			       " BPF instructions (the size of the buffer)");
	if (c.err)
		return fail(err, c.err, "internal error: malformed policy block: ", -1, c.why);
	for (i = 0; i < c.n; i++)
		out[i] = out[c.lim - c.n + i];
	*len = drop_unreached(out, c.n);
	return 0;
}
