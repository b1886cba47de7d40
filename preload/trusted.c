/* The policy as a kernel seccomp filter (SPEC §4): trusted mode, the
 * narrowings of secfilter_apply in trusted mode, and the exec of a binary
 * that LD_PRELOAD cannot reach. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <stddef.h>
#include <sys/mman.h>
#include <linux/prctl.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>

#include "bpf.h"
#include "sf.h"

static long install(const struct sock_filter *prog, unsigned len, unsigned long flags)
{
	struct sock_fprog fp = { .len = (unsigned short)len,
				 .filter = (struct sock_filter *)prog };
	long r;

	r = sf_sys(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0);
	if (r < 0)
		return r;
	r = sf_sys(SYS_seccomp, SECCOMP_SET_MODE_FILTER, (long)flags, (long)&fp, 0, 0, 0);
	/* With TSYNC, a positive result is a thread that could not follow. */
	return r > 0 ? -EBUSY : r;
}

/* ---- the SIGSYS guard ----
 * With a kernel filter whose kill action is SECCOMP_RET_TRAP, the process
 * dies only because our SIGSYS handler kills it.  A program replacing that
 * handler through libc is stopped by wrap.c; a raw rt_sigaction(SIGSYS)
 * is stopped by this small filter, installed before the policy's: it
 * kills the process for any rt_sigaction(SIGSYS, act != NULL) except the
 * one issued from a stub at a fixed address.  The address is the same in
 * every image, so an image exec'd in trusted mode (which inherits the
 * guard) can still install its own handler. */
#define GUARD_PAGE 0x5ec0f17e0000ul
/* mov %rcx,%r10; mov $13,%eax; syscall; ret */
static const unsigned char guard_stub[] = { 0x49, 0x89, 0xca, 0xb8, 0x0d, 0x00, 0x00,
					    0x00, 0x0f, 0x05, 0xc3 };
#define GUARD_IP (GUARD_PAGE + 10) /* after its syscall instruction */

static int guard_mapped;

/* Maps the stub; 0, or -errno (then no guard: see the README). */
int sf_guard_map(void)
{
	long r = sf_sys(SYS_mmap, (long)GUARD_PAGE, 4096, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (sf_is_err(r) || (unsigned long)r != GUARD_PAGE)
		return sf_is_err(r) ? (int)r : -EEXIST;
	sf_memcpy((void *)GUARD_PAGE, guard_stub, sizeof guard_stub);
	r = sf_sys(SYS_mprotect, (long)GUARD_PAGE, 4096, PROT_READ | PROT_EXEC, 0, 0, 0);
	if (r == 0)
		guard_mapped = 1;
	return (int)r;
}

/* rt_sigaction through the stub when it is there. */
long sf_guarded_sigaction(int sig, const void *act, void *oact)
{
	if (!guard_mapped)
		return sf_sys(SYS_rt_sigaction, sig, (long)act, (long)oact, 8, 0, 0);
	return ((long (*)(long, long, long, long))GUARD_PAGE)(sig, (long)act, (long)oact, 8);
}

#define LD(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define JNE(k, skip) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), 0, (skip))
#define RET(k) BPF_STMT(BPF_RET | BPF_K, (k))

int sf_guard_install(void)
{
	/* Offsets in struct seccomp_data: nr 0, arch 4, ip 8, args 16. */
	struct sock_filter prog[] = {
		/* 0 */ LD(4), JNE(AUDIT_ARCH_X86_64, 12),
		/* 2 */ LD(0), JNE(SYS_rt_sigaction, 10),
		/* 4 */ LD(16), JNE(SIGSYS, 8),       /* sig: an int, low half */
		/* 6 */ LD(24), JNE(0, 2),            /* act, low half */
		/* 8 */ LD(28), BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 4, 0), /* act == NULL */
		/* 10 */ LD(8), JNE((uint32_t)GUARD_IP, 3),
		/* 12 */ LD(12), BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(GUARD_IP >> 32), 0, 1),
		/* 14 */ RET(SECCOMP_RET_ALLOW),
		/* 15 */ RET(SECCOMP_RET_KILL_PROCESS),
	};

	if (!guard_mapped)
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
	return all_threads ? SECCOMP_RET_TRAP | SF_BPF_TRAP_KILL : SECCOMP_RET_KILL_PROCESS;
}

int sf_trusted_compile(const struct sf_policy *p, int all_threads,
		       struct sf_prog *out, struct sf_error *err)
{
	out->size = SF_BPF_MAX * sizeof(struct sock_filter);
	out->insns = sf_pages(out->size);
	out->len = 0;
	out->all_threads = all_threads;
	sf_memset(err, 0, sizeof *err);
	if (!out->insns)
		return -ENOMEM;
	return sf_bpf_compile(p, denied_action(all_threads), out->insns, SF_BPF_MAX, &out->len,
			      err);
}

/* Installs on this thread; in trusted mode on every thread of the process
 * (TSYNC), so that a narrowing made through the API cannot be escaped by
 * another thread.  The exec of a static binary installs on the calling
 * thread only: the exec ends the others. */
int sf_trusted_load(struct sf_prog *prog, struct sf_error *err)
{
	unsigned long flags = prog->all_threads ? SECCOMP_FILTER_FLAG_TSYNC : 0;
	long r = install(prog->insns, prog->len, flags);

	if (r < 0 && !err->text[0]) {
		struct sf_buf b = { err->text, 0, sizeof err->text };
		sf_puts(&b, "secfilter: cannot install the kernel filter: ");
		sf_puts(&b, sf_strerror((int)-r));
		err->code = (int)r;
	}
	sf_unpages(prog->insns, prog->size);
	prog->insns = NULL;
	return (int)r;
}

int sf_trusted_install(const struct sf_policy *p, int all_threads, struct sf_error *err)
{
	struct sf_prog prog;
	int r = sf_trusted_compile(p, all_threads, &prog, err);

	if (r < 0) {
		if (prog.insns)
			sf_unpages(prog.insns, prog.size);
		return r;
	}
	return sf_trusted_load(&prog, err);
}
