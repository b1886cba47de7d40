/* The kernel filter, ours against libseccomp's for the same policy:
 *  - BPF instructions executed per syscall (counted by the simulator,
 *    tests/unit/bpf_sim.c), mean and max over the policy's syscalls, for
 *    (a) an allow list of ~300 syscalls and (b) the same list with
 *    argument filters on some of them;
 *  - per-call ns of getppid (allowed with 1: the kernel caches it) and of
 *    a filtered call (lseek on a closed fd: the program runs), natively
 *    and under each program of (b); median of several runs of a loop of
 *    calls, each in a forked child, the configurations interleaved.
 * libseccomp gets its best: the binary tree (SCMP_FLTATR_CTL_OPTIMIZE 2).
 * Its comparisons are 64-bit wide, so the filters of (b) are written to
 * mean the same for ordinary registers (it also checks the high words of
 * 32-bit arguments, which the kernel ignores: a difference of semantics,
 * not measured here). */
#include <errno.h>
#include <inttypes.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/audit.h>

#include "bench.h"
#include "bpf.h"
#include "bpf_sim.h"
#include "eval.h"

#define RUNS 11
#define NCONF 4 /* native, a one-instruction RET ALLOW program, ours, libseccomp's */
#define CALLS 1000000u

/* Out of the allow list, as container runtimes leave them out. */
static const char *const denied[] = {
	"acct", "add_key", "bpf", "clock_adjtime", "clock_settime", "create_module",
	"delete_module", "finit_module", "get_kernel_syms", "get_mempolicy",
	"init_module", "ioperm", "iopl", "kcmp", "kexec_file_load", "kexec_load",
	"keyctl", "lookup_dcookie", "mbind", "mount", "move_pages",
	"name_to_handle_at", "nfsservctl", "open_by_handle_at", "perf_event_open",
	"personality", "pivot_root", "process_vm_readv", "process_vm_writev",
	"ptrace", "query_module", "quotactl", "reboot", "request_key",
	"set_mempolicy", "setns", "settimeofday", "swapon", "swapoff", "sysfs",
	"_sysctl", "umount2", "unshare", "uselib", "userfaultfd", "ustat",
	"vm86", "vm86old", "fsconfig", "fsmount", "fsopen", "fspick", "open_tree",
	"move_mount", "mount_setattr", "syslog", "vhangup", "afs_syscall",
	"tuxcall", "security", "putpmsg", "getpmsg", "epoll_ctl_old",
	"epoll_wait_old", "uretprobe", "uprobe", "modify_ldt", "lsm_set_self_attr",
	"quotactl_fd", "open_tree_attr", "kexec_file_load", "create_module",
};

/* The filters of policy (b): our text, libseccomp's rules (ORed; the
 * comparisons of one rule ANDed), and arguments of an allowed call. */
struct filtered {
	const char *name, *expr;
	unsigned nrules;
	struct { unsigned n; struct scmp_arg_cmp c[2]; } rules[4];
	uint64_t pass[6];
};

#define NEG(x) ((uint64_t)(int64_t)(x))
/* SCMP_A0(op, a[, b]) spelled out: its initializer leaves fields unnamed. */
#define CMP(arg, op, a, b) { (arg), (op), (a), (b) }

static const struct filtered filters[] = {
	{ "read", "fd == 0", 1, { { 1, { CMP(0, SCMP_CMP_EQ, 0, 0) } } }, { 0 } },
	{ "write", "fd == 1 || fd == 2", 2,
	  { { 1, { CMP(0, SCMP_CMP_EQ, 1, 0) } }, { 1, { CMP(0, SCMP_CMP_EQ, 2, 0) } } }, { 2 } },
	{ "close", "fd > 2", 1, { { 1, { CMP(0, SCMP_CMP_GT, 2, 0) } } }, { 5 } },
	{ "lseek", "whence <= 2", 1, { { 1, { CMP(2, SCMP_CMP_LE, 2, 0) } } }, { 3, 0, 1 } },
	{ "mmap", "!(prot & PROT_EXEC)", 1, { { 1, { CMP(2, SCMP_CMP_MASKED_EQ, 4, 0) } } },
	  { 0, 4096, 3 } },
	{ "mprotect", "!(prot & PROT_EXEC)", 1,
	  { { 1, { CMP(2, SCMP_CMP_MASKED_EQ, 4, 0) } } }, { 0, 4096, 1 } },
	{ "openat", "dfd == AT_FDCWD && !(flags & O_ACCMODE)", 1,
	  { { 2, { CMP(0, SCMP_CMP_EQ, NEG(-100), 0), CMP(2, SCMP_CMP_MASKED_EQ, 3, 0) } } },
	  { NEG(-100), 0, 0 } },
	{ "ioctl", "fd <= 2 && (cmd == TCGETS || cmd == TIOCGWINSZ)", 2,
	  { { 2, { CMP(0, SCMP_CMP_LE, 2, 0), CMP(1, SCMP_CMP_EQ, 0x5401, 0) } },
	    { 2, { CMP(0, SCMP_CMP_LE, 2, 0), CMP(1, SCMP_CMP_EQ, 0x5413, 0) } } },
	  { 1, 0x5413 } },
	{ "socket", "family == AF_UNIX || family == AF_INET", 2,
	  { { 1, { CMP(0, SCMP_CMP_EQ, 1, 0) } }, { 1, { CMP(0, SCMP_CMP_EQ, 2, 0) } } }, { 2 } },
	{ "clone", "!(clone_flags & 0x7e020000)", 1,
	  { { 1, { CMP(0, SCMP_CMP_MASKED_EQ, 0x7e020000, 0) } } }, { 0x11 } },
	{ "fcntl", "cmd == 1 || cmd == 2 || cmd == F_GETFL || cmd == 4", 4,
	  { { 1, { CMP(1, SCMP_CMP_EQ, 1, 0) } }, { 1, { CMP(1, SCMP_CMP_EQ, 2, 0) } },
	    { 1, { CMP(1, SCMP_CMP_EQ, 3, 0) } }, { 1, { CMP(1, SCMP_CMP_EQ, 4, 0) } } },
	  { 3, 4 } },
	{ "kill", "sig == 0", 1, { { 1, { CMP(1, SCMP_CMP_EQ, 0, 0) } } }, { 1, 0 } },
	{ "prctl", "option == PR_SET_NAME || option == 16", 2,
	  { { 1, { CMP(0, SCMP_CMP_EQ, 15, 0) } }, { 1, { CMP(0, SCMP_CMP_EQ, 16, 0) } } }, { 16 } },
	{ "madvise", "behavior == MADV_DONTNEED", 1, { { 1, { CMP(2, SCMP_CMP_EQ, 4, 0) } } },
	  { 0, 0, 4 } },
	{ "setsockopt", "level == SOL_SOCKET", 1, { { 1, { CMP(1, SCMP_CMP_EQ, 1, 0) } } }, { 3, 1 } },
};

static int is_denied(const char *name)
{
	unsigned i;

	for (i = 0; i < sizeof(denied) / sizeof(denied[0]); i++)
		if (strcmp(denied[i], name) == 0)
			return 1;
	return 0;
}

static const struct filtered *filter_of(const char *name, int with_filters)
{
	unsigned i;

	for (i = 0; with_filters && i < sizeof(filters) / sizeof(filters[0]); i++)
		if (strcmp(filters[i].name, name) == 0)
			return &filters[i];
	return NULL;
}

struct prog {
	struct sock_filter insns[SF_BPF_MAX];
	unsigned n;
};

static void die(const char *what)
{
	fprintf(stderr, "bpf_bench: %s\n", what);
	exit(1);
}

static struct sf_policy *our_policy(int with_filters, unsigned *count)
{
	static char text[1 << 16];
	struct sf_policy *p;
	struct sf_error err;
	size_t len = 0;
	unsigned i;

	*count = 0;
	for (i = 0; i < sf_syscall_count; i++) {
		const struct sf_syscall *sc = &sf_syscalls[i];
		const struct filtered *f = filter_of(sc->name, with_filters);
		if (is_denied(sc->name))
			continue;
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s: %s\n", sc->name,
					f ? f->expr : "1");
		++*count;
	}
	if (sf_policy_apply(NULL, "<bench>", text, len, &p, &err))
		die(err.text);
	return p;
}

static void our_prog(const struct sf_policy *p, struct prog *out)
{
	struct sf_error err;

	if (sf_bpf_compile(p, SECCOMP_RET_KILL_PROCESS, out->insns, SF_BPF_MAX, &out->n, &err))
		die(err.text);
}

static void libseccomp_prog(int with_filters, struct prog *out)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
	unsigned i, r;
	int fd;
	ssize_t got;

	if (!ctx || seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2))
		die("seccomp_init");
	for (i = 0; i < sf_syscall_count; i++) {
		const struct sf_syscall *sc = &sf_syscalls[i];
		const struct filtered *f = filter_of(sc->name, with_filters);
		if (is_denied(sc->name))
			continue;
		if (!f) {
			if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, sc->nr, 0))
				die("seccomp_rule_add");
			continue;
		}
		for (r = 0; r < f->nrules; r++)
			if (seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, sc->nr, f->rules[r].n,
						   f->rules[r].c))
				die("seccomp_rule_add_array");
	}
	fd = memfd_create("libseccomp-bpf", 0);
	if (fd < 0 || seccomp_export_bpf(ctx, fd) || lseek(fd, 0, SEEK_SET) != 0)
		die("seccomp_export_bpf");
	got = read(fd, out->insns, sizeof(out->insns));
	if (got <= 0 || got % sizeof(struct sock_filter))
		die("reading libseccomp's program");
	out->n = (unsigned)(got / sizeof(struct sock_filter));
	close(fd);
	seccomp_release(ctx);
}

/* ---- Instructions per syscall ---------------------------------------- */

struct counts {
	double mean, fmean;  /* all the policy's syscalls; the filtered ones */
	unsigned max, fmax;
};

static unsigned steps(const struct prog *pr, int nr, const uint64_t args[6])
{
	static struct bpf_sim st;
	uint32_t ret = bpf_sim_call(pr->insns, pr->n, AUDIT_ARCH_X86_64, nr, args, &st);

	if (st.error || ret != SECCOMP_RET_ALLOW)
		die("a call of the policy is not allowed by a program");
	return st.steps;
}

static struct counts count(const struct prog *pr, int with_filters)
{
	static const uint64_t zero[6];
	struct counts c = { 0, 0, 0, 0 };
	unsigned i, n = 0, nf = 0, s;

	for (i = 0; i < sf_syscall_count; i++) {
		const struct sf_syscall *sc = &sf_syscalls[i];
		const struct filtered *f = filter_of(sc->name, with_filters);
		if (is_denied(sc->name))
			continue;
		s = steps(pr, sc->nr, f ? f->pass : zero);
		c.mean += s;
		c.max = s > c.max ? s : c.max;
		n++;
		if (f) {
			c.fmean += s;
			c.fmax = s > c.fmax ? s : c.fmax;
			nf++;
		}
	}
	c.mean /= n;
	c.fmean = nf ? c.fmean / nf : 0;
	return c;
}

/* ---- Time per call --------------------------------------------------- */

/* ns per call of nr(args) in a child under pr (NULL: none); the result
 * comes back through shared memory, as the child may not write. */
static double time_once(const struct prog *pr, long nr, const long args[3], double *shared)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		struct sock_fprog fp = { pr ? (unsigned short)pr->n : 0,
					 pr ? (struct sock_filter *)pr->insns : NULL };
		double t0;
		unsigned i;

		if (pr && (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
			   syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp)))
			syscall(SYS_exit_group, 3);
		for (i = 0; i < CALLS / 10; i++) /* warm up */
			syscall(nr, args[0], args[1], args[2]);
		t0 = now_ns();
		for (i = 0; i < CALLS; i++)
			syscall(nr, args[0], args[1], args[2]);
		*shared = (now_ns() - t0) / CALLS;
		syscall(SYS_exit_group, 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		die("timing child failed");
	return *shared;
}

/* Medians over RUNS rounds; each round times every configuration once, so
 * that a change of load on the machine hits them alike. */
static void time_calls(const struct prog *const progs[NCONF], long nr, const long args[3],
		       double out[NCONF])
{
	double *shared = mmap(NULL, sizeof(double), PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	double t[NCONF][RUNS];
	unsigned r, k;

	if (shared == MAP_FAILED)
		die("mmap");
	for (r = 0; r < RUNS; r++)
		for (k = 0; k < NCONF; k++)
			t[k][r] = time_once(progs[k], nr, args, shared);
	for (k = 0; k < NCONF; k++) {
		qsort(t[k], RUNS, sizeof(double), cmp_double);
		out[k] = t[k][RUNS / 2];
	}
	munmap(shared, sizeof(double));
}

int main(void)
{
	static struct prog ours[2], theirs[2];
	struct counts co[2], ct[2];
	unsigned nsys[2], w;
	const long getppid_args[3] = { 0, 0, 0 }, lseek_args[3] = { -1, 0, 1 };
	static struct prog allow_all = { { BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) }, 1 };
	const struct prog *progs[NCONF] = { NULL, &allow_all, &ours[1], &theirs[1] };
	double t[2][NCONF];

	for (w = 0; w < 2; w++) {
		struct sf_policy *p = our_policy((int)w, &nsys[w]);
		our_prog(p, &ours[w]);
		libseccomp_prog((int)w, &theirs[w]);
		co[w] = count(&ours[w], (int)w);
		ct[w] = count(&theirs[w], (int)w);
		sf_policy_free(p);
	}
	printf("BPF instructions executed per syscall of the policy (simulated)\n");
	printf("%-40s %17s %17s %9s\n", "policy", "secfilter", "libseccomp", "length");
	printf("%-40s %17s %17s %9s\n", "", "mean   max", "mean   max", "ours/lsc");
	for (w = 0; w < 2; w++) {
		char name[64];
		unsigned k = w ? (unsigned)(sizeof(filters) / sizeof(filters[0])) : nsys[0];

		snprintf(name, sizeof(name), w ? "(b) the same, %u of them filtered"
					       : "(a) allow list of %u syscalls", k);
		printf("%-40s %11.1f %5u %11.1f %5u %4u/%u\n", name, co[w].mean, co[w].max,
		       ct[w].mean, ct[w].max, ours[w].n, theirs[w].n);
		if (w)
			printf("%-40s %11.1f %5u %11.1f %5u\n", "    the filtered syscalls only",
			       co[w].fmean, co[w].fmax, ct[w].fmean, ct[w].fmax);
	}
	time_calls(progs, SYS_getppid, getppid_args, t[0]);
	time_calls(progs, SYS_lseek, lseek_args, t[1]);
	printf("\nns per call, median of %u runs of %u calls: natively, under a program\n"
	       "that only allows (the floor of seccomp), under the programs of (b)\n", RUNS, CALLS);
	printf("%-34s %8s %10s %10s %10s\n", "call", "native", "RET ALLOW", "secfilter",
	       "libseccomp");
	printf("%-34s %8.1f %10.1f %10.1f %10.1f\n", "getppid (allowed with 1: cached)",
	       t[0][0], t[0][1], t[0][2], t[0][3]);
	printf("%-34s %8.1f %10.1f %10.1f %10.1f\n", "lseek(-1, 0, 1) (filtered: runs)",
	       t[1][0], t[1][1], t[1][2], t[1][3]);
	return 0;
}
