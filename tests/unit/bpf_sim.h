/* Test support for the BPF back end:
 *  - a classic-BPF interpreter over struct seccomp_data, which also records
 *    the path it took;
 *  - the kernel's own view of a program: its validity checks and the
 *    constant-action emulator that decides which syscalls are cached;
 *  - a builder of policy blocks by hand (tp_*), for what the policy text
 *    cannot say (malformed blocks, numbers the syscall table lacks).  The
 *    blocks have no evaluator tests: for the BPF compiler only. */
#ifndef SECFILTER_TEST_BPF_SIM_H
#define SECFILTER_TEST_BPF_SIM_H

#include <stdint.h>

#include <linux/filter.h>
#include <linux/seccomp.h>

#include "bpf.h"
#include "policy.h"

struct bpf_sim {
	unsigned steps;             /* instructions executed */
	unsigned trace[SF_BPF_MAX]; /* their indexes, in order */
	const char *error;          /* set when the program misbehaved */
};

/* Runs prog on d.  Returns the action; on an invalid program (a jump out
 * of it, an unknown opcode, falling off the end) sets st->error and
 * returns SECCOMP_RET_KILL_THREAD. */
uint32_t bpf_sim_run(const struct sock_filter *prog, unsigned n,
		     const struct seccomp_data *d, struct bpf_sim *st);

/* Convenience: the action for nr with args on x86-64. */
uint32_t bpf_sim_call(const struct sock_filter *prog, unsigned n, uint32_t arch,
		      int nr, const uint64_t args[6], struct bpf_sim *st);

/* NULL when the kernel would load prog (seccomp's checks: known opcodes,
 * aligned loads inside seccomp_data, jumps inside, a RET at the end), or
 * why not. */
const char *bpf_sim_check(const struct sock_filter *prog, unsigned n);

/* The kernel's seccomp_is_const_allow() (kernel/seccomp.c): nonzero when
 * the kernel caches nr as always allowed for this arch. */
int bpf_sim_const_allow(const struct sock_filter *prog, unsigned n, int nr, uint32_t arch);

/* What the program compiled from p with kill_action (bpf.h) must return
 * for a call, by the evaluator's decision and sf_action: RET ALLOW, RET
 * ERRNO|E, kill_action for kill, RET TRAP for trap, RET LOG for log and
 * for any default action when kill_action is RET LOG (log mode). */
uint32_t bpf_sim_expect(const struct sf_policy *p, int64_t nr, const uint64_t args[6],
			uint32_t kill_action);

/* ret as the kernel acts on it, for comparing two filters' answers:
 * KILL_THREAD and KILL_PROCESS both kill (secfilter kills the process:
 * stricter), an errno past 4095 is 4095. */
uint32_t bpf_sim_canonical(uint32_t ret);

/* ---- Policy blocks by hand ----------------------------------------- */

struct tp; /* a block under construction */

struct tp *tp_new(void);
void tp_allow(struct tp *b, unsigned nr); /* nr: 1 */
void tp_deny(struct tp *b, unsigned nr);  /* nr: 0 */
/* A predicate on argument arg of type t; raw is cut to the type as the
 * parser does it.  Returns a node index. */
uint32_t tp_pred(struct tp *b, unsigned arg, enum sf_type t, enum sf_op op, uint64_t raw);
uint32_t tp_not(struct tp *b, uint32_t a);
uint32_t tp_and(struct tp *b, uint32_t l, uint32_t r);
uint32_t tp_or(struct tp *b, uint32_t l, uint32_t r);
void tp_filter(struct tp *b, unsigned nr, uint32_t root); /* nr: expr */
/* The block (without evaluator tests), and b freed.  NULL if a fixed
 * capacity was exceeded. */
struct sf_policy *tp_build(struct tp *b);
void tp_free(struct sf_policy *p);

#endif
