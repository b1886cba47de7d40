/* See bpf_sim.h. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <linux/audit.h>

#include "bpf_sim.h"
#include "eval.h"

uint32_t bpf_sim_expect(const struct sf_policy *p, int64_t nr, const uint64_t args[6],
			uint32_t kill_action)
{
	int d = sf_decide(p, (uint64_t)nr, args);
	unsigned a = kill_action == SECCOMP_RET_LOG ? sf_action_log_mode(p, (uint64_t)nr, d)
						    : sf_action(p, (uint64_t)nr, d);

	switch (a) {
	case SF_ACTION_RUN: return SECCOMP_RET_ALLOW;
	case SF_ACTION_KILL: return kill_action;
	case SF_ACTION_TRAP: return SECCOMP_RET_TRAP;
	case SF_ACTION_LOG: return SECCOMP_RET_LOG;
	default: return SECCOMP_RET_ERRNO | a;
	}
}

uint32_t bpf_sim_canonical(uint32_t ret)
{
	if ((ret & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_KILL_THREAD)
		return SECCOMP_RET_KILL_PROCESS;
	if ((ret & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ERRNO && (ret & 0xffff) > SF_ERRNO_MAX)
		return SECCOMP_RET_ERRNO | SF_ERRNO_MAX;
	return ret;
}

static uint32_t sim_error(struct bpf_sim *st, const char *why)
{
	st->error = why;
	return SECCOMP_RET_KILL_THREAD;
}

static int jump_true(uint16_t op, uint32_t a, uint32_t k)
{
	switch (op) {
	case BPF_JEQ: return a == k;
	case BPF_JGT: return a > k;
	case BPF_JGE: return a >= k;
	default: return (a & k) != 0; /* BPF_JSET */
	}
}

/* The conditional jumps a filter of ours may use, and where one goes. */
#define CASE_COND_JUMPS                                                   \
	case BPF_JMP | BPF_JEQ | BPF_K: case BPF_JMP | BPF_JGT | BPF_K: \
	case BPF_JMP | BPF_JGE | BPF_K: case BPF_JMP | BPF_JSET | BPF_K

static unsigned cond_jump(const struct sock_filter *i, uint32_t a)
{
	return jump_true(BPF_OP(i->code), a, i->k) ? i->jt : i->jf;
}

static int alu(uint16_t op, uint32_t *a, uint32_t k)
{
	switch (op) {
	case BPF_ADD: *a += k; return 0;
	case BPF_SUB: *a -= k; return 0;
	case BPF_AND: *a &= k; return 0;
	case BPF_OR: *a |= k; return 0;
	case BPF_XOR: *a ^= k; return 0;
	case BPF_LSH: if (k >= 32) return -1; *a <<= k; return 0;
	case BPF_RSH: if (k >= 32) return -1; *a >>= k; return 0;
	default: return -1;
	}
}

/* The subset of classic BPF a seccomp filter of ours may use; anything else
 * is reported rather than guessed at. */
uint32_t bpf_sim_run(const struct sock_filter *prog, unsigned n,
		     const struct seccomp_data *d, struct bpf_sim *st)
{
	uint32_t a = 0;
	unsigned pc = 0;

	st->steps = 0;
	st->error = NULL;
	while (pc < n) {
		const struct sock_filter *i = &prog[pc];
		st->trace[st->steps++] = pc++;
		switch (i->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (i->k >= sizeof(*d) || i->k % 4)
				return sim_error(st, "load outside seccomp_data");
			memcpy(&a, (const char *)d + i->k, 4);
			break;
		case BPF_LD | BPF_IMM:
			a = i->k;
			break;
		case BPF_RET | BPF_K:
			return i->k;
		case BPF_RET | BPF_A:
			return a;
		case BPF_JMP | BPF_JA:
			if (i->k >= n - pc)
				return sim_error(st, "JA out of the program");
			pc += i->k;
			break;
		CASE_COND_JUMPS:
			pc += cond_jump(i, a);
			break;
		default:
			if (BPF_CLASS(i->code) == BPF_ALU && BPF_SRC(i->code) == BPF_K &&
			    alu(BPF_OP(i->code), &a, i->k) == 0)
				break;
			return sim_error(st, "unsupported instruction");
		}
	}
	return sim_error(st, "fell off the end of the program");
}

uint32_t bpf_sim_call(const struct sock_filter *prog, unsigned n, uint32_t arch,
		      int nr, const uint64_t args[6], struct bpf_sim *st)
{
	struct seccomp_data d = { .nr = nr, .arch = arch };

	if (args)
		memcpy(d.args, args, sizeof(d.args));
	return bpf_sim_run(prog, n, &d, st);
}

static int jump_op_ok(uint16_t code)
{
	uint16_t op = BPF_OP(code);

	return op == BPF_JA ? code == (BPF_JMP | BPF_JA)
			    : op == BPF_JEQ || op == BPF_JGT || op == BPF_JGE || op == BPF_JSET;
}

/* seccomp_check_filter() and bpf_check_classic(), for what we emit. */
const char *bpf_sim_check(const struct sock_filter *prog, unsigned n)
{
	unsigned pc;

	if (n == 0 || n > SF_BPF_MAX)
		return "length out of 1..4096";
	for (pc = 0; pc < n; pc++) {
		const struct sock_filter *i = &prog[pc];
		switch (BPF_CLASS(i->code)) {
		case BPF_LD:
			if (i->code == (BPF_LD | BPF_W | BPF_ABS) &&
			    (i->k >= sizeof(struct seccomp_data) || i->k % 4))
				return "load outside seccomp_data";
			if (i->code != (BPF_LD | BPF_W | BPF_ABS) && i->code != (BPF_LD | BPF_IMM))
				return "load mode seccomp refuses";
			break;
		case BPF_ALU:
			if (BPF_SRC(i->code) != BPF_K)
				return "ALU on X";
			break;
		case BPF_JMP:
			if (!jump_op_ok(i->code))
				return "bad jump";
			if (i->code == (BPF_JMP | BPF_JA) ? i->k >= n - pc - 1
			    : (unsigned)i->jt >= n - pc - 1 || (unsigned)i->jf >= n - pc - 1)
				return "jump out of the program";
			break;
		case BPF_RET:
			break;
		default:
			return "instruction class not used by seccomp filters here";
		}
	}
	return BPF_CLASS(prog[n - 1].code) == BPF_RET ? NULL : "does not end in RET";
}

/* A copy of seccomp_is_const_allow(), Linux 5.11 and later. */
int bpf_sim_const_allow(const struct sock_filter *prog, unsigned n, int nr, uint32_t arch)
{
	uint32_t reg = 0;
	unsigned pc;

	for (pc = 0; pc < n; pc++) {
		const struct sock_filter *i = &prog[pc];
		switch (i->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (i->k == offsetof(struct seccomp_data, nr))
				reg = (uint32_t)nr;
			else if (i->k == offsetof(struct seccomp_data, arch))
				reg = arch;
			else
				return 0;
			break;
		case BPF_RET | BPF_K:
			return i->k == SECCOMP_RET_ALLOW;
		case BPF_JMP | BPF_JA:
			pc += i->k;
			break;
		CASE_COND_JUMPS:
			pc += cond_jump(i, reg);
			break;
		case BPF_ALU | BPF_AND | BPF_K:
			reg &= i->k;
			break;
		default:
			return 0;
		}
	}
	return 0;
}

/* ---- Policy blocks by hand ------------------------------------------- */

#define TP_NODES 8192
#define TP_FILTERS 1024

struct tp {
	uint8_t allowed[SF_NR_COUNT];
	struct sf_node nodes[TP_NODES];
	struct { unsigned nr; uint32_t root; } rules[TP_FILTERS]; /* in order */
	unsigned nnodes, nrules;
	int overflow;
};

struct tp *tp_new(void)
{
	return calloc(1, sizeof(struct tp));
}

void tp_allow(struct tp *b, unsigned nr)
{
	b->allowed[nr] = 1;
}

void tp_deny(struct tp *b, unsigned nr)
{
	unsigned i, j = 0;

	b->allowed[nr] = 0;
	for (i = 0; i < b->nrules; i++)
		if (b->rules[i].nr != nr)
			b->rules[j++] = b->rules[i];
	b->nrules = j;
}

static uint32_t tp_node(struct tp *b, struct sf_node n)
{
	if (b->nnodes == TP_NODES) {
		b->overflow = 1;
		return 0;
	}
	b->nodes[b->nnodes] = n;
	return b->nnodes++;
}

uint32_t tp_pred(struct tp *b, unsigned arg, enum sf_type t, enum sf_op op, uint64_t raw)
{
	return tp_node(b, (struct sf_node){ .kind = SF_N_PRED, .op = op, .arg = arg,
					    .type = t, .value = sf_normalize(raw, t) });
}

uint32_t tp_not(struct tp *b, uint32_t a)
{
	return tp_node(b, (struct sf_node){ .kind = SF_N_NOT, .left = a });
}

uint32_t tp_and(struct tp *b, uint32_t l, uint32_t r)
{
	return tp_node(b, (struct sf_node){ .kind = SF_N_AND, .left = l, .right = r });
}

uint32_t tp_or(struct tp *b, uint32_t l, uint32_t r)
{
	return tp_node(b, (struct sf_node){ .kind = SF_N_OR, .left = l, .right = r });
}

void tp_filter(struct tp *b, unsigned nr, uint32_t root)
{
	b->allowed[nr] = 1;
	if (b->nrules == TP_FILTERS) {
		b->overflow = 1;
		return;
	}
	b->rules[b->nrules].nr = nr;
	b->rules[b->nrules++].root = root;
}

struct sf_policy *tp_build(struct tp *b)
{
	struct sf_policy *p = calloc(1, sizeof(*p));
	struct sf_filter *filters = calloc(b->nrules + 1, sizeof(*filters));
	struct sf_node *nodes = calloc(b->nnodes + 1, sizeof(*nodes));
	struct sf_sysidx *idx = calloc(SF_NR_COUNT, sizeof(*idx));
	unsigned nr, i, k = 0;

	if (!p || !filters || !nodes || !idx || b->overflow) {
		free(p), free(filters), free(nodes), free(idx), free(b);
		return NULL;
	}
	memcpy(nodes, b->nodes, b->nnodes * sizeof(*nodes));
	for (nr = 0; nr < SF_NR_COUNT; nr++) {
		p->sys[nr].allowed = b->allowed[nr];
		idx[nr].first = k;
		for (i = 0; i < b->nrules; i++) {
			if (b->rules[i].nr != nr)
				continue;
			filters[k].root = b->rules[i].root;
			filters[k].line = k + 1;
			k++;
		}
		p->sys[nr].nfilters = (uint16_t)(k - idx[nr].first);
	}
	p->size = sizeof(*p);
	p->nfilters = k;
	p->nnodes = b->nnodes;
	p->idx = idx;
	p->filters = filters;
	p->nodes = nodes;
	p->strings = "<test>";
	p->nstrings = 7;
	free(b);
	return p;
}

void tp_free(struct sf_policy *p)
{
	if (!p)
		return;
	free((void *)p->idx);
	free((void *)p->filters);
	free((void *)p->nodes);
	free(p);
}
