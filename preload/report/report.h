/* libsecfilter.so's fourth floor (HACKING.md): reports of denied calls
 * and where they go (standard error, syslog, a file, `secfilter run`'s
 * socket), log mode's summary.  Above state/, obj/ and base/. */
#ifndef SECFILTER_REPORT_H
#define SECFILTER_REPORT_H

#include "state.h"

/* report.c */
/* p: the policy that decided the call (its filter index is decision). */
void sf_violation(const struct sf_call *c, int decision, const struct sf_policy *p);
/* A SIGSYS of the kernel filter's kill (trusted mode): reported, then the
 * process dies. */
void sf_report_trusted(const siginfo_t *si, ucontext_t *uc) __attribute__((noreturn));
void sf_die(void) __attribute__((noreturn));
/* The backtrace of a call reported from outside the process (trusted
 * mode's listener, trap/notify.c), from its thread's context uc, from
 * the frame of site on (0: the first), into b: the listener writes it
 * with the rest of the report. */
void sf_report_backtrace(struct sf_buf *b, ucontext_t *uc, uintptr_t site);
/* Trusted mode: where a listener hears the kernel filter's kills, the
 * call is made again for it to report and end the process (set by
 * trap/notify.c; returns only when nobody heard it). */
extern int (*sf_on_trusted_violation)(const struct sf_call *c, int decision,
				       const struct sf_policy *p);

/* vcall.c: the report's header, arguments, rule and add: line into b;
 * p is the policy that denied the call.  form: a call killed for, one
 * log mode let through (reported in full), or log mode's one line. */
enum sf_report_form { SF_FORM_KILLED, SF_FORM_LOGGED, SF_FORM_LINE };
struct sf_buf;
void sf_report_body(struct sf_buf *b, const struct sf_call *c, int decision,
		    const struct sf_policy *p, enum sf_report_form form);
/* The same body from v, for a call seen from outside (the listener). */
struct sf_out;
struct sf_vcall;
void sf_report_vbody(struct sf_out *o, const struct sf_vcall *v, enum sf_report_form form);
/* The form of the report of a call given action a (SF_ACTION_*): log
 * mode's line, unless full reports were asked for or go to a file. */
enum sf_report_form sf_report_form_of(unsigned a);
/* Reads n bytes at addr of process *(long *)ctx for display. */
size_t sf_vm_read(void *ctx, uint64_t addr, void *buf, size_t n);

/* logdest.c: text out where SECFILTER_LOG says, in one write; -1 when it
 * went nowhere (standard error closed, as coreutils leave it at exit; a
 * file or syslog that refused it is then said on standard error, and the
 * text written there).
 * sf_log_check: at the start, a SECFILTER_LOG file that cannot be opened
 * for appending ends the process (status 125) with the path and why. */
int sf_log_emit(const char *s, size_t n);
void sf_log_check(void);

/* logsum.c: log mode's counting.  sf_logsum_record counts c, denied with
 * decision d, and returns 1 when its (syscall, rule) is new in this
 * process (it is then reported in full), 0 for a repeat.
 * sf_logsum_flush sends or writes the summary (exit_group, exec);
 * sf_logsum_active: something was counted. */
int sf_logsum_record(const struct sf_call *c, int d);
/* A denial by Landlock in log mode (where it still fails: Landlock has no
 * log mode) whose add: rule is fix[0, n), by a call of nr: 1 when it is
 * the first of its kind in this process (it is then reported), 0 for a
 * repeat (counted for the summary). */
int sf_logsum_landlock(long nr, const char *fix, size_t n);
void sf_logsum_flush(void);
extern int sf_logsum_active;

/* Before an allowed exit_group leaves (the trap path, _exit's wrapper):
 * log mode's summary of this process, unless it is a vfork child.  Always
 * inline: a copy of its own in .text was a 64 KiB window of text every
 * dash subshell faulted in at its _exit. */
static inline __attribute__((always_inline)) void sf_logsum_before(long nr)
{
	if (__builtin_expect(__atomic_load_n(&sf_logsum_active, __ATOMIC_RELAXED), 0) &&
	    nr == SYS_exit_group && !sf_in_vfork)
		sf_logsum_flush();
}

/* supervise.c: tells `secfilter run`, if it is listening, that this
 * process is about to be killed for c; with the report's text when it
 * could not be written here (NULL: it was). */
void sf_tell_supervisor(const struct sf_call *c, const char *report, size_t n);

/* llreport.c: a call's failure Landlock may have caused, reported when
 * the policy's fs./net. rules do not grant what it needed (r: its
 * result).  Called only on an error return while sf_ll_watch is set (the
 * process entered layers of its own: entry/landlock.c). */
extern int sf_ll_watch;
/* Whether the add: line fix was said before, by its place in set (n
 * slots, zeroed): each is reported once (sf_seen). */
int sf_ll_said(uint64_t *set, unsigned n, const char *fix, size_t len);
void sf_ll_result(long nr, long r, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
		  uint64_t a4, uint64_t a5) __attribute__((cold));
static inline __attribute__((always_inline)) long sf_ll_seen(long nr, long r, uint64_t a0,
							      uint64_t a1, uint64_t a2,
							      uint64_t a3, uint64_t a4,
							      uint64_t a5)
{
	if (__builtin_expect((unsigned long)r > -4096UL, 0) &&
	    __atomic_load_n(&sf_ll_watch, __ATOMIC_RELAXED))
		sf_ll_result(nr, r, a0, a1, a2, a3, a4, a5);
	return r;
}

#endif
