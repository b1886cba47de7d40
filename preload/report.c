/* Violation reports (SPEC §3): the 2011 patch's first line, then the
 * arguments by name, the rule that denied the call and a backtrace; then
 * SIGKILL of the whole process (or, in log mode, the call proceeds).
 *
 * Reporting runs in a process whose calls are being filtered: libunwind
 * and the symbol lookup make syscalls of their own (mmap, open of /proc/self/maps...)
 * that would trap.  In interposition mode the reporting thread switches
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
#include "sf.h"
#include "unw.h"

#define REPORT_CAP (64u << 10)
#define MAX_FRAMES 32

static int kernel_filtered(void)
{
	return sf_cfg.mode == SF_MODE_TRUSTED && sf_cur && !sf_cur->pending;
}

/* The policy the kernel filter enforces: the newest installed, which
 * sf_cur follows a moment later (api.c). */
static const struct sf_policy *kernel_policy(void)
{
	const struct sf_policy *k = __atomic_load_n(&sf_kpol, __ATOMIC_ACQUIRE);

	return k ? k : sf_cur;
}

/* Whether the reporter itself may make this call without being killed. */
static int may(long nr, long a0)
{
	uint64_t a[6] = { (uint64_t)a0, 0, 0, 0, 0, 0 };

	if (!kernel_filtered())
		return 1;
	return sf_decide(kernel_policy(), (uint64_t)nr, a) == SF_ALLOW;
}

int sf_may(long nr, long a0)
{
	return may(nr, a0);
}

void sf_die(void)
{
	for (;;) {
		long pid = sf_sys(SYS_getpid, 0, 0, 0, 0, 0, 0);
		sf_sys(SYS_kill, pid, SIGKILL, 0, 0, 0, 0);
	}
}

/* A 32-bit call (int $0x80) has no entry in the x86-64 table: its number
 * and arguments are shown raw; every other report's body is vcall.c's. */
static void put_i386(struct sf_buf *b, const struct sf_call *c)
{
	char comm[17] = "?";
	unsigned i;

	if (may(SYS_prctl, PR_GET_NAME))
		sf_sys(SYS_prctl, PR_GET_NAME, (long)comm, 0, 0, 0, 0);
	sf_puts(b, comm);
	sf_putc(b, '[');
	sf_putu(b, may(SYS_getpid, 0) ? (uint64_t)sf_sys(SYS_getpid, 0, 0, 0, 0, 0, 0) : 0);
	sf_puts(b, "]: system call ");
	sf_puti(b, c->nr);
	sf_puts(b, " (sys_ni_syscall) blocked at ip:");
	sf_putx(b, c->ip);
	sf_putc(b, '\n');
	for (i = 0; i < 6; i++) {
		sf_puts(b, "    arg");
		sf_putu(b, i);
		sf_puts(b, " = 0x");
		sf_putx(b, c->a[i]);
		sf_putc(b, '\n');
	}
	sf_puts(b, "    rule: a 32-bit system call (int $0x80, i386 number ");
	sf_puti(b, c->nr);
	sf_puts(b, "): the policy names x86-64 calls only\n");
}

/* Named from the object's symbol table (elfsym.c); the object from the
 * loader's list (objs.c), not dladdr: this runs with dispatch off, and a
 * dladdr the program exports would run unfiltered. */
static void put_frame(struct sf_buf *b, int i, uint64_t ip)
{
	struct sf_obj o;
	int have = sf_obj_at((uintptr_t)ip, &o) == 0 && o.name && o.name[0];

	sf_puts(b, "      #");
	sf_putu(b, (uint64_t)i);
	sf_puts(b, " 0x");
	sf_putx(b, ip);
	sf_putc(b, ' ');
	if (!have || sf_elf_symbol(o.name, o.base, ip, b) < 0)
		sf_putc(b, '?');
	if (have) {
		sf_puts(b, " (");
		sf_puts(b, o.name);
		sf_putc(b, ')');
		/* the main program's name is argv[0], maybe not a path */
		sf_src_line(o.main ? "/proc/self/exe" : o.name, ip - o.bias, b, may);
	}
	sf_putc(b, '\n');
}

static int unconditional(long nr)
{
	const struct sf_policy *p = kernel_policy();

	return p->sys[nr].allowed && !p->sys[nr].chain;
}

/* libunwind maps memory, probes addresses with a pipe and may read files:
 * under a kernel filter only when the policy lets it do all of that with
 * any argument (a denied call here kills the process on the spot). */
static int can_unwind(void)
{
	static const short calls[] = { SYS_mmap, SYS_munmap, SYS_write, SYS_pipe2,
				       SYS_mincore, SYS_rt_sigprocmask, SYS_openat,
				       SYS_read, SYS_close, SYS_newfstatat, SYS_fstat };
	unsigned i;

	if (!kernel_filtered())
		return 1;
	for (i = 0; i < sizeof calls / sizeof calls[0]; i++)
		if (!unconditional(calls[i]))
			return 0;
	return 1;
}

static void put_backtrace(struct sf_buf *b, const struct sf_call *c)
{
	unw_context_t ctx;
	unw_cursor_t cur;
	unw_word_t ip;
	int i = 0, skipping = 1, steps = 0;

	if (!sf_unw.step) {
		sf_puts(b, "    backtrace: unavailable (libunwind.so.8 could not be loaded)\n");
		return;
	}
	if (!can_unwind()) {
		sf_puts(b, "    backtrace: unavailable (the policy denies the calls libunwind makes)\n");
		return;
	}
	if (c->uc) {
		if (sf_unw.init_local2(&cur, (unw_context_t *)c->uc, UNW_INIT_SIGNAL_FRAME) < 0)
			return;
	} else {
		sf_unw.getcontext(&ctx);
		if (sf_unw.init_local(&cur, &ctx) < 0)
			return;
	}
	sf_puts(b, "    backtrace:\n");
	do {
		if (sf_unw.get_reg(&cur, UNW_REG_IP, &ip) < 0 || ip == 0)
			break;
		/* From a wrapper or our trampoline: our own frames first, up
		 * to the call site. */
		if (skipping && ip == c->ip)
			skipping = 0;
		if (skipping && ++steps > 16) {
			skipping = 0;
			continue;
		}
		if (!skipping)
			put_frame(b, i++, ip);
	} while (i < MAX_FRAMES && sf_unw.step(&cur) > 0);
}

/* dying: the process is killed next, and run (if it listens) is told;
 * with the report when it could not go out here. */
static void report(const struct sf_call *c, int d, const struct sf_policy *p, int dying)
{
	char small[4096];
	char *mem = may(SYS_mmap, 0) ? sf_pages(REPORT_CAP) : NULL;
	struct sf_buf b = { mem ? mem : small, 0, mem ? REPORT_CAP : sizeof small };

	if (c->i386)
		put_i386(&b, c);
	else
		sf_report_body(&b, c, d, p);
#ifdef SF_DEBUG_VIA /* which path saw the call: for tuning the wrappers */
	sf_puts(&b, c->uc ? "    via: trap\n" : "    via: wrapper\n");
#endif
	/* The essentials go out before the backtrace, which may fail. */
	if (sf_log_emit(b.p, b.len) == 0)
		b.len = 0;
	if (dying)
		sf_tell_supervisor(c, b.len ? b.p : NULL, b.len);
	b.len = 0;
	put_backtrace(&b, c);
	sf_log_emit(b.p, b.len);
	if (mem)
		sf_unpages(mem, REPORT_CAP);
}

/* Log and trap report and go on (action.c carries on for them); kill,
 * and an errno where the caller cannot answer with one, end the process. */
static int must_die(unsigned a)
{
	return a != SF_ACTION_LOG && a != SF_ACTION_TRAP;
}

/* The task reporting from this thread's TLS, 0 if none: the calls
 * libunwind makes through our own wrappers (a write to a pipe to probe
 * memory...) are the reporter's, not the program's.  A task id, not a
 * flag: a posix_spawn child shares its parent's memory and TLS, and a
 * child killed while reporting must not leave the parent thread marked
 * (its violations would then all be let through). */
static __thread long in_report;

void sf_violation(const struct sf_call *c, int d, const struct sf_policy *p)
{
	unsigned a = sf_call_action(p, c, d);
	int saved_errno = errno;
	uint64_t all = ~0ull, old = 0;
	int interpose = sf_cfg.mode == SF_MODE_INTERPOSE || (sf_cur && sf_cur->pending);
	long self = may(SYS_gettid, 0) ? sf_sys(SYS_gettid, 0, 0, 0, 0, 0, 0) : 1;
	int masked;

	if (in_report == self)
		return;
	in_report = self;
	masked = may(SYS_rt_sigprocmask, SIG_SETMASK);
	if (masked)
		sf_sys(SYS_rt_sigprocmask, SIG_SETMASK, (long)&all, (long)&old, 8, 0, 0);
	if (interpose)
		sf_disarm();
	/* log mode: a (syscall, rule) in full once, its repeats counted for
	 * the summary at exit (logsum.c) */
	if (a != SF_ACTION_LOG || sf_logsum_record(c, d))
		report(c, d, p, must_die(a));
	if (must_die(a))
		sf_die();
	if (interpose && sf_arm() != 0)
		sf_die();
	if (masked)
		sf_sys(SYS_rt_sigprocmask, SIG_SETMASK, (long)&old, 0, 8, 0, 0);
	in_report = 0;
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

	if (si->si_errno != SF_BPF_TRAP_KILL) { /* `default: trap`, or not ours */
		sf_kernel_trap((siginfo_t *)si, uc);
		return;
	}
	sf_call_of_trap(&c, si, uc);
	p = kernel_policy();
	d = c.i386 ? SF_DENY_I386 : p ? sf_decide(p, (uint64_t)c.nr, c.a) : SF_NOT_IN_SET;
	report(&c, d, p, 1);
	sf_die();
}
