/* Violation reports (SPEC §3): the 2011 patch's first line, then the
 * arguments by name, the rule that denied the call and a backtrace; then
 * SIGKILL of the whole process (or, in log mode, the call proceeds).
 *
 * Reporting runs in a process whose calls are being filtered: the
 * unwinder's readability probes and the symbol lookup's file reads are
 * syscalls of their own that would trap.  In interposition mode the reporting thread switches
 * dispatch off and blocks every signal while it reports (the process is
 * about to die; in log mode it re-arms afterwards).  In trusted mode the
 * kernel filter cannot be switched off: every call the reporter makes is
 * first checked against the policy and skipped when denied. */
#include <errno.h>
#include <fcntl.h>
#include <linux/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include "bpf.h"
#include "internal.h"
#include "report.h"
#include "unw.h"

#define REPORT_CAP (64u << 10)
#define MAX_FRAMES 32

void sf_die(void)
{
	for (;;) {
		long pid = sf_sys(SYS_getpid, 0, 0, 0, 0, 0, 0);
		sf_sys(SYS_kill, pid, SIGKILL, 0, 0, 0, 0);
	}
}

extern const char __ehdr_start[] __attribute__((visibility("hidden")));
extern const char _end[] __attribute__((visibility("hidden")));

static int same_code(const uint64_t *a, const uint64_t *b)
{
	return a[0] == b[0] && a[1] == b[1];
}

/* ip, in an object loaded at bias, is the library's restorer: ours, or
 * another copy's (trusted mode loads the library as an audit module too,
 * and a handler returns through the copy that installed it): the same
 * place in the object, the same code. */
static int at_restorer(uint64_t ip, uintptr_t bias)
{
	const uintptr_t ours = (uintptr_t)sf_restorer_checked;

	return ip == ours || (ip - bias == ours - (uintptr_t)__ehdr_start &&
			      same_code((const uint64_t *)ip, (const uint64_t *)ours));
}

/* Where a frame's source line is: a caller's ip is its return address,
 * the instruction after the call, maybe on the next line: the call is
 * one byte earlier.  Not where the code stopped exactly (interrupted by
 * a signal), nor at the library's restorer, whose byte before is the
 * nop its unwind information covers, not a call. */
static uint64_t line_ip(const struct sf_unw *u, uint64_t ip, uintptr_t bias)
{
	return u->exact_ip || at_restorer(ip, bias) ? ip : ip - 1;
}

static void put_frame(struct sf_buf *b, struct sf_unw *u, int i, uint64_t ip)
{
	char name[512];
	uintptr_t bias = 0;
	int obj = sf_unw_object(u, ip, name, sizeof name, &bias), have = obj >= 0;

	sf_puts(b, "      #");
	sf_putu(b, (uint64_t)i);
	sf_puts(b, " 0x");
	sf_putx(b, ip);
	sf_putc(b, ' ');
	/* The file's full symbol table first (main of a PIE, static
	 * functions), the dynamic one in memory when the file cannot be read
	 * (the vDSO, a deleted file, a policy that denies the reads). */
	if (!(have && name[0] && sf_elf_symbol(name, bias, ip, b, sf_may_call) == 0) &&
	    !(have && sf_unw_dynsym(u, ip, b) == 0))
		sf_putc(b, '?');
	if (have && name[0]) {
		sf_puts(b, " (");
		sf_puts(b, name);
		sf_putc(b, ')');
		/* the main program's name is argv[0], maybe not a path */
		sf_src_line(obj == 1 ? "/proc/self/exe" : name, line_ip(u, ip, bias) - bias, b,
			    sf_may_call);
	}
	sf_putc(b, '\n');
}

/* The library's own frames are not the program's: a program handler that
 * ran while the SIGSYS handler issued a call (raise's kill) returns
 * through sf_restorer_checked into the SIGSYS handler's frames, and then
 * through sf_restorer_plain into the trapped code.  The checked restorer
 * stays, as the mark of a signal handler's frame. */
static int library_frame(uint64_t ip)
{
	return ip >= (uintptr_t)__ehdr_start && ip < (uintptr_t)_end &&
	       ip != (uintptr_t)sf_restorer_checked;
}

/* The frames from the call site outwards: from the trap's registers, or,
 * for a wrapper, from here, skipping the library's own frames up to the
 * call site (the wrapper's return address). */
static void put_backtrace(struct sf_buf *b, const struct sf_call *c)
{
	struct sf_unw u;
	int i = 0, skipping = 1, skipped = 0;
	uint64_t probe[6];
	long probe_nr = sf_page_probe(4096, probe);

	if (sf_kernel_filtered() && !sf_may_call(probe_nr, probe)) {
		sf_puts(b, "    backtrace: unavailable (the policy denies rt_sigprocmask, "
			   "with which the unwinder checks what it reads)\n");
		return;
	}
	if (c->uc)
		sf_unw_init_uc(&u, c->uc);
	else
		sf_unw_init_here(&u);
	u.may = sf_kernel_filtered() ? sf_may_call : NULL;
	u.self_path = sf_cfg.lib_path;
	sf_puts(b, "    backtrace:\n");
	do {
		uint64_t ip = sf_unw_ip(&u);
		if (skipping && ip == c->ip)
			skipping = 0;
		if (skipping && ++skipped > 16)
			skipping = 0; /* the site was not found: show everything */
		if (!skipping && !library_frame(ip))
			put_frame(b, &u, i++, ip);
	} while (i < MAX_FRAMES && sf_unw_step(&u) > 0);
}

/* The whole report built first and written in one call: a report
 * written in pieces had the program's own lines (a server's error log)
 * land inside it.  dying: the process is killed next, and run (if it
 * listens) is told; with the report when it could not go out here.  Log
 * mode's line has no backtrace. */
static void report(const struct sf_call *c, int d, const struct sf_policy *p, int dying,
		   enum sf_report_form form)
{
	char small[4096];
	char *mem = sf_may(SYS_mmap, 0) ? sf_pages(REPORT_CAP) : NULL;
	struct sf_buf b = { mem ? mem : small, 0, mem ? REPORT_CAP : sizeof small };
	int written;

	sf_report_body(&b, c, d, p, form);
#ifdef SF_DEBUG_VIA /* which path saw the call: for tuning the wrappers */
	sf_puts(&b, c->uc ? "    via: trap\n" : "    via: wrapper\n");
#endif
	if (form != SF_FORM_LINE)
		put_backtrace(&b, c);
	written = sf_log_emit(b.p, b.len) == 0;
	if (dying)
		sf_tell_supervisor(c, written ? NULL : b.p, written ? 0 : b.len);
	if (mem)
		sf_unpages(mem, REPORT_CAP);
}

/* The backtrace of a call the listener reports from outside (notify.c):
 * it comes from the thread itself, whose context at the call the
 * listener's SIGSYS interrupted (uc): from site, for a call the library
 * made again for the listener, past its own frames (of either copy). */
void sf_report_backtrace(struct sf_buf *b, ucontext_t *uc, uintptr_t site)
{
	struct sf_call c;

	sf_memset(&c, 0, sizeof c);
	c.uc = uc;
	c.ip = site ? site : (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	put_backtrace(b, &c);
}

/* Set by every start (trap/notify.c): SF_HOT, not a .bss page of its own. */
int (*sf_on_trusted_violation)(const struct sf_call *c, int decision, const struct sf_policy *p) SF_HOT;

/* Log and trap report and go on (action.c carries on for them); kill,
 * and an errno where the caller cannot answer with one, end the process. */
static int must_die(unsigned a)
{
	return a != SF_ACTION_LOG && a != SF_ACTION_TRAP;
}

/* Log mode says a line per (syscall, rule) by default: a prototyping run
 * sees its violations and the summary on one screen.  In full (with the
 * backtrace) when asked (SECFILTER_ACTION=log-full) and in a log file,
 * read later, where the backtrace is what tells the calls apart. */
enum sf_report_form sf_report_form_of(unsigned a)
{
	if (a != SF_ACTION_LOG)
		return SF_FORM_KILLED;
	return sf_cfg.log_full || sf_cfg.log == SF_LOG_FILE ? SF_FORM_LOGGED : SF_FORM_LINE;
}

/* The task reporting from this thread's TLS, 0 if none: a violation
 * found while reporting is the reporter's, not the program's.  A task id, not a
 * flag: a posix_spawn child shares its parent's memory and TLS, and a
 * child killed while reporting must not leave the parent thread marked
 * (its violations would then all be let through). */
static __thread long in_report;

void sf_violation(const struct sf_call *c, int d, const struct sf_policy *p)
{
	unsigned a;
	int saved_errno = sf_libc_bound() ? errno : 0;
	uint64_t all = ~0ull, old = 0;
	const struct sf_policy *cur = sf_policy_now();
	int interpose = sf_cfg.mode == SF_MODE_INTERPOSE || (cur && cur->pending);
	long self;
	int masked, heard;

	if (sf_authority) { /* its handler, its unwinder, its log summary */
		sf_authority->violation(c, d, p);
		return;
	}
	/* the listener reports and kills; or, for a call log mode lets
	 * through, reports it when the call reaches the kernel */
	heard = sf_cfg.mode == SF_MODE_TRUSTED && sf_on_trusted_violation &&
		sf_on_trusted_violation(c, d, p);
	a = sf_call_action(p, c, d);
	if ((self = sf_may_sys(SYS_gettid, 0, 0, 0, 0)) < 0)
		self = 1;
	if (in_report == self)
		return;
	in_report = self;
	masked = sf_may(SYS_rt_sigprocmask, SIG_SETMASK);
	if (masked)
		sf_sys(SYS_rt_sigprocmask, SIG_SETMASK, (long)&all, (long)&old, 8, 0, 0);
	if (interpose)
		sf_disarm();
	/* log mode: a (syscall, rule) reported once, its repeats counted for
	 * the summary at exit (logsum.c) */
	if ((a != SF_ACTION_LOG || sf_logsum_record(c, d)) && !heard)
		report(c, d, p, must_die(a), sf_report_form_of(a));
	if (must_die(a))
		sf_die();
	if (interpose && sf_arm() != 0)
		sf_die();
	if (masked)
		sf_sys(SYS_rt_sigprocmask, SIG_SETMASK, (long)&old, 0, 8, 0, 0);
	in_report = 0;
	if (sf_libc_bound())
		errno = saved_errno;
}

/* SIGSYS from the kernel filter (trusted mode).  The handler runs with
 * SIGSYS blocked: if the policy denies a call made here, the kernel kills
 * the process on the spot. */
void sf_report_trusted(const siginfo_t *si, ucontext_t *uc)
{
	const struct sf_policy *p;
	struct sf_call c;
	int d;

	sf_call_of_trap(&c, si, uc);
	p = sf_kernel_policy();
	d = sf_kernel_decision(p, &c);
	report(&c, d, p, 1, SF_FORM_KILLED);
	sf_die();
}
