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

/* Whether the reporter itself may make this call without being killed. */
static int may(long nr, long a0)
{
	uint64_t a[6] = { (uint64_t)a0, 0, 0, 0, 0, 0 };

	if (!kernel_filtered())
		return 1;
	return sf_decide(sf_cur, (uint64_t)nr, a) == SF_ALLOW;
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

/* A number the table does not name is, in the kernel's own table, an
 * entry of sys_ni_syscall: the line keeps its (sys_NAME) form. */
static void put_name(struct sf_buf *b, long nr)
{
	const struct sf_syscall *sc = sf_syscall_by_nr(nr);

	sf_puts(b, sc ? sc->entry : "sys_ni_syscall");
}

static void put_header(struct sf_buf *b, const struct sf_call *c)
{
	char comm[17] = "?";

	if (may(SYS_prctl, PR_GET_NAME))
		sf_sys(SYS_prctl, PR_GET_NAME, (long)comm, 0, 0, 0, 0);
	sf_puts(b, comm);
	sf_putc(b, '[');
	sf_putu(b, may(SYS_getpid, 0) ? (uint64_t)sf_sys(SYS_getpid, 0, 0, 0, 0, 0, 0) : 0);
	sf_puts(b, "]: system call ");
	sf_puti(b, c->nr);
	sf_puts(b, " (");
	if (c->i386) /* not a call of the table */
		sf_puts(b, "sys_ni_syscall");
	else
		put_name(b, c->nr);
	sf_puts(b, ") blocked at ip:");
	sf_putx(b, c->ip);
	sf_putc(b, '\n');
}

static void put_arg(struct sf_buf *b, const char *name, unsigned type, uint64_t v)
{
	sf_puts(b, "    ");
	sf_puts(b, name);
	sf_puts(b, " = ");
	v = sf_normalize(v, (enum sf_type)type);
	if (type == SF_T_PTR) {
		sf_puts(b, "0x");
		sf_putx(b, v);
	} else if (sf_type_signed((enum sf_type)type)) {
		sf_puti(b, (int64_t)v);
	} else {
		sf_putu(b, v);
	}
	sf_putc(b, '\n');
}

static void put_args(struct sf_buf *b, const struct sf_call *c)
{
	const struct sf_syscall *sc = c->i386 ? NULL : sf_syscall_by_nr(c->nr);
	static const char *const anon[6] = { "arg0", "arg1", "arg2", "arg3", "arg4", "arg5" };
	unsigned i;

	if (!sc) {
		for (i = 0; i < 6; i++)
			put_arg(b, anon[i], SF_T_PTR, c->a[i]);
		return;
	}
	for (i = 0; i < sc->nargs; i++)
		put_arg(b, sc->args[i].name, sc->args[i].type, c->a[i]);
}

static void put_rule(struct sf_buf *b, const struct sf_call *c, int d)
{
	const struct sf_policy *p = sf_cur;
	char expr[2048];

	sf_puts(b, "    rule: ");
	if (d == SF_DENY_DISPATCH) {
		sf_puts(b, c->nr == SYS_ptrace
				   ? "ptrace(PTRACE_SET_SYSCALL_USER_DISPATCH_CONFIG) would switch a "
				     "tracee's filter off\n"
				   : "prctl(PR_SET_SYSCALL_USER_DISPATCH) would switch the filter off\n");
	} else if (d == SF_DENY_I386) {
		sf_puts(b, "a 32-bit system call (int $0x80, i386 number ");
		sf_puti(b, c->nr);
		sf_puts(b, "): the policy names x86-64 calls only\n");
	} else if (d == SF_DENY_UNFOLLOWABLE) {
		sf_puts(b, "a CLONE_VM child without its own stack cannot be followed\n");
	} else if (d >= 0 && p && (uint32_t)d < p->nfilters) {
		const struct sf_filter *f = &p->filters[d];
		sf_filter_print(p, (unsigned)c->nr, f, expr, sizeof expr);
		sf_puts(b, "sys_");
		sf_puts(b, sf_syscall_by_nr(c->nr) ? sf_syscall_by_nr(c->nr)->name : "unknown");
		sf_puts(b, ": ");
		sf_puts(b, expr);
		sf_puts(b, " (");
		sf_puts(b, sf_filter_source(p, f));
		sf_putc(b, ':');
		sf_putu(b, f->line);
		sf_puts(b, ")\n");
	} else if (d == SF_RETURN && p && (unsigned long)c->nr < SF_NR_COUNT &&
		   p->sys[c->nr].ret) {
		/* X: kill, X: trap, X: log */
		struct sf_out o = { expr, sizeof expr, 0 };
		sf_print_action(&o, p->sys[c->nr].ret);
		sf_out_end(&o);
		sf_puts(b, "sys_");
		sf_puts(b, sf_syscall_by_nr(c->nr) ? sf_syscall_by_nr(c->nr)->name : "unknown");
		sf_puts(b, ": ");
		sf_puts(b, expr);
		sf_putc(b, '\n');
	} else {
		sf_puts(b, "not in the allowed set\n");
	}
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
	}
	sf_putc(b, '\n');
}

static int unconditional(long nr)
{
	return sf_cur->sys[nr].allowed && !sf_cur->sys[nr].chain;
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

static void to_fd(int fd, const char *s, size_t n)
{
	if (may(SYS_write, fd))
		sf_write_all(fd, s, n);
}

static void to_file(const char *path, const char *s, size_t n)
{
	long fd;

	if (!may(SYS_openat, AT_FDCWD) || !may(SYS_close, 0)) {
		to_fd(2, s, n);
		return;
	}
	fd = sf_sys(SYS_openat, AT_FDCWD, (long)path,
		    O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644, 0, 0);
	if (fd < 0) {
		to_fd(2, s, n);
		return;
	}
	to_fd((int)fd, s, n);
	sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
}

/* One datagram per line to /dev/log, as syslog(3) would send them. */
static void to_syslog(const char *s, size_t n)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = "/dev/log" };
	char line[1024];
	long fd;

	if (!may(SYS_socket, AF_UNIX) || !may(SYS_connect, 0) || !may(SYS_sendto, 0) ||
	    (fd = sf_sys(SYS_socket, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, 0, 0, 0)) < 0) {
		to_fd(2, s, n);
		return;
	}
	if (sf_sys(SYS_connect, fd, (long)&sa, sizeof sa, 0, 0, 0) < 0) {
		sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
		to_fd(2, s, n);
		return;
	}
	while (n) {
		struct sf_buf b = { line, 0, sizeof line };
		size_t k = 0;
		while (k < n && s[k] != '\n')
			k++;
		sf_puts(&b, "<12>secfilter: ");
		sf_putn(&b, s, k);
		sf_sys(SYS_sendto, fd, (long)b.p, (long)b.len, 0, 0, 0);
		s += k + (k < n);
		n -= k + (k < n);
	}
	sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
}

static void emit(const char *s, size_t n)
{
	switch (sf_cfg.log) {
	case SF_LOG_FILE: to_file(sf_cfg.log_path, s, n); break;
	case SF_LOG_SYSLOG: to_syslog(s, n); break;
	default: to_fd(2, s, n); break;
	}
}

static void report(const struct sf_call *c, int d)
{
	char small[4096];
	char *mem = may(SYS_mmap, 0) ? sf_pages(REPORT_CAP) : NULL;
	struct sf_buf b = { mem ? mem : small, 0, mem ? REPORT_CAP : sizeof small };

	put_header(&b, c);
#ifdef SF_DEBUG_VIA /* which path saw the call: for tuning the wrappers */
	sf_puts(&b, c->uc ? "    via: trap\n" : "    via: wrapper\n");
#endif
	put_args(&b, c);
	put_rule(&b, c, d);
	/* The essentials go out before the backtrace, which may fail. */
	emit(b.p, b.len);
	b.len = 0;
	put_backtrace(&b, c);
	emit(b.p, b.len);
	if (mem)
		sf_unpages(mem, REPORT_CAP);
}

/* Log and trap report and go on (action.c carries on for them); kill,
 * and an errno where the caller cannot answer with one, end the process. */
static int must_die(const struct sf_call *c, int d)
{
	unsigned a = sf_call_action(sf_enforcing(), c, d);

	return a != SF_ACTION_LOG && a != SF_ACTION_TRAP;
}

/* The task reporting from this thread's TLS, 0 if none: the calls
 * libunwind makes through our own wrappers (a write to a pipe to probe
 * memory...) are the reporter's, not the program's.  A task id, not a
 * flag: a posix_spawn child shares its parent's memory and TLS, and a
 * child killed while reporting must not leave the parent thread marked
 * (its violations would then all be let through). */
static __thread long in_report;

void sf_violation(const struct sf_call *c, int d)
{
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
	report(c, d);
	if (must_die(c, d)) {
		sf_tell_supervisor(c);
		sf_die();
	}
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
	struct sf_call c;
	int d;

	if (si->si_errno != SF_BPF_TRAP_KILL) { /* `default: trap`, or not ours */
		sf_kernel_trap((siginfo_t *)si, uc);
		return;
	}
	sf_call_of_trap(&c, si, uc);
	d = c.i386 ? SF_DENY_I386 : sf_cur ? sf_decide(sf_cur, (uint64_t)c.nr, c.a) : SF_NOT_IN_SET;
	report(&c, d);
	sf_tell_supervisor(&c);
	sf_die();
}
