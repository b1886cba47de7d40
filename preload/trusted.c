/* The policy as a kernel seccomp filter (SPEC §4): trusted mode, the
 * narrowings of secfilter_apply in trusted mode, and the exec of a binary
 * that LD_PRELOAD cannot reach. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <stddef.h>
#include <linux/prctl.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>

#include "bpf.h"
#include "eval.h"
#include "ksig.h"
#include "mem.h"
#include "notify.h"
#include "sf.h"

static long set_filter(const struct sock_fprog *fp, unsigned long flags)
{
	long r = sf_sys(SYS_seccomp, SECCOMP_SET_MODE_FILTER, (long)flags, (long)fp, 0, 0, 0);

	/* With TSYNC, a positive result is a thread that could not follow;
	 * with a new listener, its fd (TSYNC_ESRCH then reports a thread). */
	return r > 0 && !(flags & SECCOMP_FILTER_FLAG_NEW_LISTENER) ? -EBUSY : r;
}

static long install(const struct sock_filter *prog, unsigned len, unsigned long flags)
{
	struct sock_fprog fp = { .len = (unsigned short)len,
				 .filter = (struct sock_filter *)prog };
	long r = sf_sys(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0);

	return r < 0 ? r : set_filter(&fp, flags);
}

/* ---- the SIGSYS guard ----
 * Under trusted mode's filter a denied call traps (SECCOMP_RET_TRAP) and
 * our SIGSYS handler reports it and kills the process.  The program must
 * not take that handler away: through libc it reaches a shadow (wrap.c),
 * and a raw rt_sigaction(SIGSYS, act) -- the program's own, or glibc's
 * posix_spawn child resetting every handled signal to SIG_DFL before its
 * exec -- meets this small filter, installed before the policy's: it
 * answers "done" (SECCOMP_RET_ERRNO with 0) and changes nothing.  Only
 * two stubs change SIGSYS (raw.S): one installs the library's handler,
 * the other SIG_DFL, each from an action in the library's read-only data;
 * whoever calls them can do no more.  The filter knows them by where
 * their `syscall` instruction ends within its page, which is the same in
 * every build and every image (they begin a page of sf_region): an image
 * exec'd under the inherited guard installs its own handler the same
 * way, wherever its copy of the library was mapped.  libc's one
 * rt_sigaction site ends elsewhere in its page (0x11f in Debian 12's), as
 * does every other syscall instruction of the library (t_lib_region).
 * The stubs were once a page at a fixed address (0x5ec0f17e0000), the
 * same in every image: no other mapping is near it, and its first write
 * took three new page-table pages, 60-560 us of an image's start on a VM
 * whose host keeps the page tables (README, *Starting a process*).
 *
 * This keeps honest code from the handler (posix_spawn, a runtime that
 * sets every signal's handler); it is not a wall: a program that writes
 * its own code with a `syscall` ending at a stub's offset can install its
 * own, and then a denied call fails instead of killing -- it still never
 * runs (tests/escape/a_guard_page.c). */
#define GUARD_IP_INSTALL 27u /* page offsets after the stubs' syscalls */
#define GUARD_IP_DEFAULT 59u
/* a value no disposition has after an exec (SIG_DFL or SIG_IGN) */
#define GUARD_SENTINEL ((void *)0x5ec0f17e0000ul)

long sf_guard_stub_install(void); /* raw.S: sf_guard_act, sf_guard_dfl */
long sf_guard_stub_default(void);

/* Whether the stubs are where the filter expects them (a build whose
 * sf_region lost its alignment must not install a guard that refuses
 * its own handler). */
static int stubs_in_place(void)
{
	uintptr_t i = (uintptr_t)sf_guard_stub_install, d = (uintptr_t)sf_guard_stub_default;

	return (i & 4095) == 0 && d == i + 32;
}

static int guard_used SF_HOT;

/* Installs the library's handler through its stub: 0, or -errno. */
long sf_guard_handler(void)
{
	if (!stubs_in_place())
		return -ENOEXEC;
	guard_used = 1;
	return sf_guard_stub_install();
}

/* SIGSYS back to SIG_DFL (to die of a SIGSYS that is not ours, as the
 * program asked); in interposition mode, directly. */
long sf_guard_default(void)
{
	if (!guard_used)
		return sf_sys(SYS_rt_sigaction, SIGSYS, (long)&sf_guard_dfl, 0, 8, 0, 0);
	return sf_guard_stub_default();
}

/* Whether an earlier image's guard is in force here (an image exec'd in
 * trusted mode): it answers a raw rt_sigaction(SIGSYS) from outside the
 * stubs "done" and changes nothing, not even the old action it was asked
 * for, which keeps the value put there before the call (a sentinel: after
 * an exec SIGSYS is SIG_DFL or SIG_IGN).  In a first image the probe
 * takes effect and is undone (old: the disposition before it): one call
 * in an image of a trusted tree, two in a first. */
int sf_guard_inherited(const struct sf_ksigaction *old)
{
	static const struct sf_ksigaction probe = { (void *)SIG_IGN, SA_RESTORER, GUARD_SENTINEL,
						    0 };
	struct sf_ksigaction was = { GUARD_SENTINEL, 0, 0, 0 };

	if (sf_sys(SYS_rt_sigaction, SIGSYS, (long)&probe, (long)&was, 8, 0, 0) < 0)
		return 0;
	if (was.handler == GUARD_SENTINEL)
		return 1;
	sf_sys(SYS_rt_sigaction, SIGSYS, (long)old, 0, 8, 0, 0);
	return 0;
}

#define LD(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define JNE(k, skip) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), 0, (skip))
#define RET(k) BPF_STMT(BPF_RET | BPF_K, (k))

/* rt_sigaction(SIGSYS, act != NULL) from anywhere but the stubs: done,
 * nothing changed.  Every other call passes; the path of any syscall but
 * rt_sigaction reads only nr and arch, so the kernel caches it. */
int sf_guard_install(void)
{
	/* Offsets in struct seccomp_data: nr 0, arch 4, ip 8, args 16. */
	struct sock_filter prog[] = {
		/* 0 */ LD(4), JNE(AUDIT_ARCH_X86_64, 13),
		/* 2 */ LD(0), JNE(SYS_rt_sigaction, 11),
		/* 4 */ LD(16), JNE(SIGSYS, 9),       /* sig: an int, low half */
		/* 6 */ LD(24), JNE(0, 2),            /* act, low half */
		/* 8 */ LD(28), BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 5, 0), /* act == NULL */
		/* 10 */ LD(8), BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 4095),  /* ip in its page */
		/* 12 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, GUARD_IP_INSTALL, 2, 0),
		/* 13 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, GUARD_IP_DEFAULT, 1, 0),
		/* 14 */ RET(SECCOMP_RET_ERRNO | 0),
		/* 15 */ RET(SECCOMP_RET_ALLOW),
	};

	if (!guard_used)
		return -ENOENT;
	return (int)install(prog, sizeof prog / sizeof prog[0], 0);
}

/* What the policy's kill does under a kernel filter.  SECFILTER_ACTION=log:
 * the kernel logs every denial (audit) and lets it proceed, as the library
 * does and as `secfilter run --trusted --log` does.  Otherwise trusted mode
 * traps into our handler, which reports and kills (the trap's data tells
 * it from the policy's own `default: trap`); before the exec of a static
 * binary there is no handler to come, the kernel kills.  The policy's
 * errnos, trap and log are the kernel's own actions (bpf.h). */
static uint32_t denied_action(int all_threads)
{
	if (sf_cfg.action == SF_ACT_LOG)
		return SECCOMP_RET_LOG;
	if (all_threads && sf_notify_wanted)
		return SECCOMP_RET_USER_NOTIF; /* to the listener (notify.c) */
	return all_threads ? SECCOMP_RET_TRAP | SF_BPF_TRAP_KILL : SECCOMP_RET_KILL_PROCESS;
}

/* ---- the mark: does an inherited filter already carry this program? ----
 * An image exec'd in trusted mode starts under its parent's filters and
 * used to install its own copy of the policy's on top: the same program
 * again, and the kernel's JIT and the TLB shootdowns of loading it, in
 * every process a filtered shell or make starts.  So each program we load
 * is followed by a mark, a filter of its own: sched_yield(MARK_TAG, id),
 * id a hash of the program, returns -MARK_ERRNO from the mark of that id,
 * and runs (a yield) through every other filter of ours: the policy's
 * program begins with a pass for the tag; sched_yield with any other
 * first argument is the policy's to decide.  The image asks, and loads
 * nothing when the answer says a filter with the very same program is in
 * force: the kernel runs every filter of the stack, so that program is
 * enforced already.  The id is a hash of what the program is made from:
 * this build (its build id), the action for a denied call, and the
 * policy's short form, which is canonical (one policy prints one text;
 * the fuzzers check it) and which every exec'd image of the tree parses
 * from its environment.  So an image asks before compiling, and one under
 * a filter of its very policy compiles nothing (15k instructions and the
 * program's pages of a start).  A library without a build id hashes the
 * program instead, after compiling it.
 *
 * Why a filter of its own: the policy's program is loaded with
 * SECCOMP_FILTER_FLAG_LOG, under which the kernel writes every answer but
 * "allow" to the audit log; a mark inside it put one record in the
 * kernel's log for every image a filtered shell started, and cost that
 * image 7 to 60 us.  The mark's filter has no such flag, and every call
 * but sched_yield passes it on its number alone, which the kernel caches:
 * it costs the other calls nothing.  It goes in after the program, never
 * before: a mark whose program failed to load would make the next image
 * believe a policy nothing enforces.  And only where the program lets
 * seccomp() through (otherwise the image keeps the inherited filter
 * anyway, init.c).
 *
 * Who can make the answer lie: a filter the program itself installed
 * (the policy allowing seccomp) that answers for the id of a policy it
 * then passes in SECFILTER_POLICY.  The image would then believe that
 * policy, while the kernel still enforces every filter the tree started
 * under: nothing the program could not do by exec'ing without the
 * library.  What the mark costs the policy: sched_yield(MARK_TAG, ...)
 * yields even where sched_yield is denied.  sched_yield, because other
 * filters a process may run under (a container's, a service manager's)
 * allow it; an unassigned number would be their default action, often a
 * kill. */
#define MARK_TAG 0x5ec0f17e6d61726bull /* "secfilter" "mark" */
#define MARK_ERRNO 4093
#define MARK_ERRNO_HEARD 4092 /* the program's kill goes to a listener (notify.c) */
#define PASS_LEN 9

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

#define FNV_BASIS 0xcbf29ce484222325ull /* FNV-1a */

/* The id of the program this build compiles from the policy whose short
 * form is text, for all_threads; 0 without a build id. */
static uint64_t text_id(const char *text, size_t len, int all_threads)
{
	unsigned n = 0;
	const unsigned char *bid = sf_self_build_id(&n);
	uint32_t deny = denied_action(all_threads);
	uint64_t h;

	/* The listener's kill and the handler's deny the same calls: an
	 * image exec'd under the one has the program of the other in force. */
	if (deny == SECCOMP_RET_USER_NOTIF)
		deny = SECCOMP_RET_TRAP | SF_BPF_TRAP_KILL;

	if (!bid || !n)
		return 0;
	h = fnv(FNV_BASIS, bid, n);
	h = fnv(h, &deny, sizeof deny);
	h = fnv(h, text, len);
	return h ? h : 1;
}

/* Puts the tag's pass before the program's len instructions (relative
 * jumps: the program is unchanged by the move).  0 when it would not fit. */
static int add_pass(struct sock_filter *f, unsigned *len)
{
	const struct sock_filter pass[PASS_LEN] = {
		/* 0 */ LD(4), JNE(AUDIT_ARCH_X86_64, 7),
		/* 2 */ LD(0), JNE(SYS_sched_yield, 5),
		/* 4 */ LD(16), JNE((uint32_t)MARK_TAG, 3),
		/* 6 */ LD(20), JNE((uint32_t)(MARK_TAG >> 32), 1),
		/* 8 */ RET(SECCOMP_RET_ALLOW),
	};
	unsigned i;

	if (*len + PASS_LEN > SF_BPF_MAX)
		return 0;
	for (i = *len; i-- > 0;)
		f[i + PASS_LEN] = f[i];
	sf_memcpy(f, pass, sizeof pass);
	*len += PASS_LEN;
	return 1;
}

/* The mark of the program id, after it (flags: its TSYNC), where p (the
 * policy the program was compiled from, which decides as it does) lets
 * this very call through.  No prctl: the program's load set
 * no_new_privs, and the program may deny prctl. */
static void install_mark(const struct sf_policy *p, uint64_t id, unsigned long flags)
{
	const struct sock_filter mark[] = {
		/* 0 */ LD(4), JNE(AUDIT_ARCH_X86_64, 11),
		/* 2 */ LD(0), JNE(SYS_sched_yield, 9),
		/* 4 */ LD(16), JNE((uint32_t)MARK_TAG, 7),
		/* 6 */ LD(20), JNE((uint32_t)(MARK_TAG >> 32), 5),
		/* 8 */ LD(24), JNE((uint32_t)id, 3),
		/* 10 */ LD(28), JNE((uint32_t)(id >> 32), 1),
		/* 12 */ RET(SECCOMP_RET_ERRNO | (sf_notify_wanted ? MARK_ERRNO_HEARD : MARK_ERRNO)),
		/* 13 */ RET(SECCOMP_RET_ALLOW),
	};
	struct sock_fprog fp = { .len = sizeof mark / sizeof mark[0],
				 .filter = (struct sock_filter *)mark };
	uint64_t args[6] = { SECCOMP_SET_MODE_FILTER, flags, (uint64_t)&fp, 0, 0, 0 };

	/* failing, it leaves no mark: the next image compiles and loads */
	if (sf_decide(p, SYS_seccomp, args) == SF_ALLOW)
		set_filter(&fp, flags);
}

/* The program of the policy an image starts under: compiled once, before
 * any code of the program runs, into storage of its own, so that a start
 * maps and unmaps nothing for it (an munmap is a TLB flush). */
static struct sock_filter boot_insns[SF_BPF_MAX];

/* out->id: the text's id, or 0 for the program's hash. */
static int compile_into(const struct sf_policy *p, int all_threads, struct sf_prog *out,
			struct sf_error *err)
{
	int r;

	out->len = 0;
	out->all_threads = all_threads;
	sf_memset(err, 0, sizeof *err);
	if (!out->insns)
		return -ENOMEM;
	r = sf_bpf_compile(p, denied_action(all_threads), out->insns, SF_BPF_MAX, &out->len, err);
	if (r < 0)
		return r;
	if (!out->id)
		out->id = fnv(FNV_BASIS, out->insns, out->len * sizeof *out->insns);
	if (!add_pass(out->insns, &out->len))
		out->id = 0;
	return r;
}

/* p's short form, printed for its id: the narrowings of secfilter_apply
 * and the exec of a static binary, not a start. */
static uint64_t policy_id(const struct sf_policy *p, int all_threads)
{
	size_t len = sf_policy_print_short(p, NULL, 0);
	char *text = sf_mem_alloc(len + 1);
	uint64_t id;

	if (!text)
		return 0;
	sf_policy_print_short(p, text, len + 1);
	id = text_id(text, len, all_threads);
	sf_mem_free(text, len + 1);
	return id;
}

int sf_trusted_compile(const struct sf_policy *p, int all_threads,
		       struct sf_prog *out, struct sf_error *err)
{
	out->size = SF_BPF_MAX * sizeof(struct sock_filter);
	out->insns = sf_pages(out->size);
	out->id = policy_id(p, all_threads);
	return compile_into(p, all_threads, out, err);
}

void sf_trusted_boot_id(const char *text, size_t len, struct sf_prog *out)
{
	out->insns = NULL;
	out->len = 0;
	out->all_threads = 1;
	out->id = text_id(text, len, 1);
}

int sf_trusted_compile_boot(const struct sf_policy *p, struct sf_prog *out, struct sf_error *err)
{
	out->insns = boot_insns;
	out->size = 0; /* not ours to unmap */
	return compile_into(p, 1, out, err);
}

/* Whether a filter in force carries prog's id already (see the mark).
 * Only under an inherited guard: the call is then one our filters
 * expect. */
int sf_trusted_in_force(const struct sf_prog *prog)
{
	long r = prog->id ? sf_sys(SYS_sched_yield, (long)MARK_TAG, (long)prog->id, 0, 0, 0, 0) : 0;

	if (r == -MARK_ERRNO_HEARD)
		sf_notify_heard = 1;
	return r == -MARK_ERRNO || r == -MARK_ERRNO_HEARD;
}

/* Installs on this thread; in trusted mode on every thread of the process
 * (TSYNC), so that a narrowing made through the API cannot be escaped by
 * another thread.  0 or -errno; when the kill goes to a listener
 * (notify.c), the fd of the filter's listener.  The exec of a static binary installs on the calling
 * thread only: the exec ends the others. */
int sf_trusted_load(struct sf_prog *prog, const struct sf_policy *p, struct sf_error *err)
{
	/* FLAG_LOG: a trap is written to the kernel's audit log too, the only
	 * report when the program blocked SIGSYS (the kernel then kills at
	 * once, our handler never runs). */
	unsigned long flags = SECCOMP_FILTER_FLAG_LOG |
			      (prog->all_threads ? SECCOMP_FILTER_FLAG_TSYNC : 0) |
			      (prog->all_threads && sf_notify_wanted ? SF_NOTIFY_FLAGS : 0);
	long r = install(prog->insns, prog->len, flags);

	if (r >= 0 && prog->id)
		install_mark(p, prog->id, flags & SECCOMP_FILTER_FLAG_TSYNC);
	if (r < 0 && !err->text[0]) {
		struct sf_buf b = { err->text, 0, sizeof err->text };
		sf_puts(&b, "secfilter: cannot install the kernel filter: ");
		sf_puts(&b, sf_strerror((int)-r));
		err->code = (int)r;
	}
	if (prog->size)
		sf_unpages(prog->insns, prog->size);
	prog->insns = NULL;
	return (int)r;
}

int sf_trusted_install(const struct sf_policy *p, int all_threads, struct sf_error *err)
{
	struct sf_prog prog;
	int r = sf_trusted_compile(p, all_threads, &prog, err);

	if (r < 0) {
		if (prog.insns && prog.size)
			sf_unpages(prog.insns, prog.size);
		return r;
	}
	return sf_trusted_load(&prog, p, err);
}
