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
#include "fnv.h"
#include "mem.h"
#include "notify.h"
#include "trap.h"

static long set_filter(const struct sock_fprog *fp, unsigned long flags)
{
	long r = sf_sys(SYS_seccomp, SECCOMP_SET_MODE_FILTER, (long)flags, (long)fp, 0, 0, 0);

	/* With TSYNC, a positive result is a thread that could not follow;
	 * with a new listener, its fd (TSYNC_ESRCH then reports a thread). */
	return r > 0 && !(flags & SECCOMP_FILTER_FLAG_NEW_LISTENER) ? -EBUSY : r;
}

long sf_seccomp_install(const struct sock_filter *prog, unsigned len, unsigned long flags)
{
	struct sock_fprog fp = { .len = (unsigned short)len,
				 .filter = (struct sock_filter *)prog };
	long r = sf_sys(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0);

	return r < 0 ? r : set_filter(&fp, flags);
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
/* Subtracted from either: the policy denies rt_sigprocmask(SIG_UNBLOCK),
 * which an image under the filter would otherwise have to parse the
 * policy to learn (init.c unblocks SIGSYS when it may). */
#define MARK_NO_UNBLOCK 2
#define PASS_LEN 9

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
	h = sf_fnv1a(SF_FNV1A_BASIS, bid, n);
	h = sf_fnv1a(h, &deny, sizeof deny);
	h = sf_fnv1a(h, text, len);
	return h ? h : 1;
}

/* Puts the tag's pass before the program's len instructions (relative
 * jumps: the program is unchanged by the move).  0 when it would not fit. */
static int add_pass(struct sock_filter *f, unsigned *len)
{
	const struct sock_filter pass[PASS_LEN] = {
		/* 0 */ SF_LD(4), SF_JNE(AUDIT_ARCH_X86_64, 7),
		/* 2 */ SF_LD(0), SF_JNE(SYS_sched_yield, 5),
		/* 4 */ SF_LD(16), SF_JNE((uint32_t)MARK_TAG, 3),
		/* 6 */ SF_LD(20), SF_JNE((uint32_t)(MARK_TAG >> 32), 1),
		/* 8 */ SF_RET(SECCOMP_RET_ALLOW),
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
 * no_new_privs, and the program may deny prctl.  It answers for a
 * second id too (the same when there is none): that of the text the
 * start read, when that is not the short form -- the user's own, which
 * the images a process under LD_AUDIT alone execs inherit, and which
 * parses to the same policy; they then hand it on as it is
 * (entry/init.c). */
static void install_mark(const struct sf_policy *p, uint64_t id, uint64_t id2,
			 unsigned long flags)
{
	struct sock_filter mark[] = {
		/* 0 */ SF_LD(4), SF_JNE(AUDIT_ARCH_X86_64, 16),
		/* 2 */ SF_LD(0), SF_JNE(SYS_sched_yield, 14),
		/* 4 */ SF_LD(16), SF_JNE((uint32_t)MARK_TAG, 12),
		/* 6 */ SF_LD(20), SF_JNE((uint32_t)(MARK_TAG >> 32), 10),
		/* 8 */ SF_LD(24), SF_JNE((uint32_t)id, 3),
		/* 10 */ SF_LD(28), SF_JNE((uint32_t)(id >> 32), 1),
		/* 12 */ BPF_JUMP(BPF_JMP | BPF_JA, 4, 0, 0),
		/* 13 */ SF_LD(24), SF_JNE((uint32_t)id2, 3),
		/* 15 */ SF_LD(28), SF_JNE((uint32_t)(id2 >> 32), 1),
		/* 17 */ SF_RET(SECCOMP_RET_ERRNO | (sf_notify_wanted ? MARK_ERRNO_HEARD : MARK_ERRNO)),
		/* 18 */ SF_RET(SECCOMP_RET_ALLOW),
	};
	struct sock_fprog fp = { .len = sizeof mark / sizeof mark[0],
				 .filter = (struct sock_filter *)mark };
	uint64_t args[6] = { SECCOMP_SET_MODE_FILTER, flags, (uint64_t)&fp, 0, 0, 0 };
	/* sf_decision's, not a copy of sf_decide here: the start's text has
	 * no room for one (hot.txt) */
	const struct sf_call unblock = { .nr = SYS_rt_sigprocmask, .a = { SIG_UNBLOCK } };

	if (sf_decision(p, &unblock) != SF_ALLOW)
		mark[17].k -= MARK_NO_UNBLOCK;
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
		out->id = sf_fnv1a(SF_FNV1A_BASIS, out->insns, out->len * sizeof *out->insns);
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
	out->text_id = 0;
	return compile_into(p, all_threads, out, err);
}

void sf_trusted_boot_id(const char *text, size_t len, struct sf_prog *out)
{
	out->insns = NULL;
	out->len = 0;
	out->all_threads = 1;
	out->id = text_id(text, len, 1);
	out->text_id = 0;
}

int sf_trusted_compile_boot(const struct sf_policy *p, struct sf_prog *out, struct sf_error *err)
{
	out->insns = boot_insns;
	out->size = 0; /* not ours to unmap */
	return compile_into(p, 1, out, err);
}

/* Whether a filter in force carries prog's id already (see the mark):
 * 0, or SF_MARK_IN_FORCE with SF_MARK_MAY_UNBLOCK when its policy lets
 * the library unblock SIGSYS.  Only under an inherited guard: the call
 * is then one our filters expect. */
int sf_trusted_in_force(const struct sf_prog *prog)
{
	long r = prog->id ? sf_sys(SYS_sched_yield, (long)MARK_TAG, (long)prog->id, 0, 0, 0, 0) : 0;
	/* 0..3: bit 0 clear when heard, bit 1 clear with MARK_NO_UNBLOCK */
	unsigned long v = (unsigned long)(-r - (MARK_ERRNO_HEARD - MARK_NO_UNBLOCK));

	if (v > 3)
		return 0;
	if (!(v & 1))
		sf_notify_heard = 1;
	return SF_MARK_IN_FORCE | (v & 2 ? SF_MARK_MAY_UNBLOCK : 0);
}

/* Installs on this thread; in trusted mode on every thread of the process
 * (TSYNC), so that a narrowing made through the API cannot be escaped by
 * another thread.  0 or -errno; when the kill goes to a listener
 * (notify.c), the fd of the filter's listener.  The exec of a static
 * binary installs on the calling thread only: the exec ends the others. */
int sf_trusted_load(struct sf_prog *prog, const struct sf_policy *p, struct sf_error *err)
{
	/* FLAG_LOG: a trap is written to the kernel's audit log too, the only
	 * report when the program blocked SIGSYS (the kernel then kills at
	 * once, our handler never runs). */
	unsigned long flags = SECCOMP_FILTER_FLAG_LOG |
			      (prog->all_threads ? SECCOMP_FILTER_FLAG_TSYNC : 0) |
			      (prog->all_threads && sf_notify_wanted ? SF_NOTIFY_FLAGS : 0);
	long r = sf_seccomp_install(prog->insns, prog->len, flags);

	if (r >= 0 && prog->id)
		install_mark(p, prog->id, prog->text_id ? prog->text_id : prog->id,
			     flags & SECCOMP_FILTER_FLAG_TSYNC);
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
