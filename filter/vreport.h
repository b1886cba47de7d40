/* The violation report of SPEC §3, written the same way by the preload
 * library (in the process, possibly inside a trapped malloc) and by
 * `secfilter run` (outside it, for kernel-filtered processes):
 *
 *   ls[1234]: system call 41 (sys_socket) blocked at ip:7f3a9c2e1b27
 *       family = AF_UNIX (1)
 *       type = SOCK_STREAM|SOCK_NONBLOCK|SOCK_CLOEXEC (0x80801)
 *       protocol = 0
 *       rule: not in the allowed set
 *       add: sys_socket: family == AF_UNIX && type == SOCK_STREAM|SOCK_NONBLOCK|SOCK_CLOEXEC
 *
 * Each argument line is "NAME = VALUE", VALUE symbolic with the number
 * in parentheses when they differ; a string or socket address the call
 * points to is shown before the pointer.  The rule is quoted as its
 * source wrote it.  The "add:" line is the smallest rule, in learn's
 * style, under which the call would have run: appended to the policy, it
 * permits the call (secfilter(1), REPORTS).  Library-safe: no libc, no
 * allocation. */
#ifndef SECFILTER_VREPORT_H
#define SECFILTER_VREPORT_H

#include "decode.h"

struct sf_vcall {
	long nr;
	uint64_t a[6];
	uint64_t ip;
	const char *comm;
	long pid;
	const struct sf_policy *p; /* the policy that denied it */
	int decision;              /* sf_decide's */
	/* Reads up to n bytes at addr of the process into buf, for display
	 * only; returns how many it could (0 when none), never faults.
	 * NULL: nothing is read. */
	size_t (*read)(void *ctx, uint64_t addr, void *buf, size_t n);
	void *ctx;
	int logged; /* log mode: the call was let through, not blocked */
};

/* Reads up to n bytes at addr of process pid, for an sf_vcall's read:
 * page by page, what lies before the first page it cannot read.  readv
 * is process_vm_readv(pid, local, 1, remote, 1, 0), made the caller's way
 * (the library's raw call, the tool's libc); it returns what the call
 * does. */
struct iovec;
size_t sf_vm_read_paged(long pid, uint64_t addr, void *buf, size_t n,
			long (*readv)(long pid, const struct iovec *local,
				      const struct iovec *remote));

/* "COMM[PID]: system call NR (sys_NAME) blocked at ip:HEX\n", or "let
 * through at ip:" for a call log mode let run. */
void sf_vreport_head(struct sf_out *o, const struct sf_vcall *c);
/* "    NAME = VALUE\n" for each argument. */
void sf_vreport_args(struct sf_out *o, const struct sf_vcall *c);
/* "    rule: ...\n" for SF_NOT_IN_SET, SF_RETURN (X: kill, trap, log) and a
 * filter's index; 0, or -1 for another decision (the caller says what it
 * is). */
int sf_vreport_rule(struct sf_out *o, const struct sf_vcall *c);
/* "    add: RULE\n" (nothing for a decision it cannot widen). */
void sf_vreport_add(struct sf_out *o, const struct sf_vcall *c);
/* The four in order: the whole report of c, other_rule being the rule
 * line's text for a decision sf_vreport_rule does not know. */
void sf_vreport(struct sf_out *o, const struct sf_vcall *c, const char *other_rule);
/* Log mode's line for a call it let run, the whole of what it says by
 * default (secfilter-preload(7), secfilter(1)):
 *   LOG COMM[PID]: sys_NAME(ARG, ...) let through (RULE); add: FIX\n
 * RULE "not in the allowed set", or "denied by " and the rule as the
 * report's rule line quotes it (other_rule for a decision sf_vreport_rule
 * does not know); no "; add:" when there is none. */
void sf_vreport_line(struct sf_out *o, const struct sf_vcall *c, const char *other_rule);

/* The rule to add for calls of nr that got decision d (SF_NOT_IN_SET, SF_RETURN or
 * a filter's index) in policy p, obs being those calls: "sys_X: EXPR",
 * or, when X has filters, "sys_X: 0; sys_X: ..." with each filter the
 * calls may have failed or'ed with what they need.  call: one call, whose
 * arguments tell exactly which filters failed; NULL: a summary of many,
 * and every filter from d on is widened.  Returns the length, as
 * sf_out_end would; nothing is written for another decision. */
void sf_vreport_fix(struct sf_out *o, const struct sf_policy *p, long nr, int d,
		    const struct sf_obs *obs, const uint64_t *call);

/* What a log keeps of the calls of one (syscall, decision). */
struct sf_vsum {
	long nr;
	int decision;
	uint64_t calls;
	struct sf_obs obs;
};

/* A summary's line for syscall e[i].nr: when e[i] is the first entry of
 * e[0, n) for it, the rule that lets all its calls run (every entry of
 * the syscall merged, widened from the first filter any of them failed)
 * is written and their count returned; else nothing, and 0. */
uint64_t sf_vsum_fix(struct sf_out *o, const struct sf_policy *p, const struct sf_vsum *e,
		     size_t n, size_t i);

/* Whether filter f of p is true of arguments a (the evaluator's answer
 * for that one filter). */
int sf_filter_holds(const struct sf_policy *p, const struct sf_filter *f, const uint64_t a[6]);

#endif
