/* libsecfilter.so internals shared between the files of preload/.
 *
 * The library lives inside other people's processes.  Once dispatch is
 * armed, every syscall made outside the library's own code region traps,
 * so the library never enters the kernel through libc: it uses the raw
 * stubs below, whose `syscall` instructions all lie in one ELF section
 * (SF_SECTION), the Syscall User Dispatch allowed region. */
#ifndef SECFILTER_SF_H
#define SECFILTER_SF_H

#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
#include <linux/filter.h>

#include "eval.h"
#include "policy.h"

/* errno is libc's thread-local variable itself, bound by the loader like
 * any TLS symbol: the errno macro would call __errno_location through the
 * PLT, i.e. whatever the program exports under that name.
 *
 * The library needs no library (Makefile): as an audit module it would
 * otherwise bring a second libc into its namespace, about a quarter of
 * trusted mode's start-up.  What it takes from libc is weak: the copy in
 * the program's namespace binds it to the program's libc, the copy in an
 * audit namespace leaves it unbound and must not touch it (a weak TLS
 * symbol left unbound would be the thread pointer's own first word). */
#undef errno
extern __thread int errno __asm__("errno") __attribute__((weak));
extern char **environ __attribute__((weak));

/* Whether libc's symbols are bound in this copy. */
static inline int sf_libc_bound(void)
{
	return &environ != 0;
}

#define SF_EXPORT __attribute__((visibility("default")))
/* Small variables every start writes: in the library's .data, next to
 * the page that ld.so writes anyway (clearing .bss's first part), rather
 * than scattered over .bss between other files' arrays, where each
 * faulted a page in (two faults when read before written). */
#define SF_HOT __attribute__((section(".data.sf_hot")))
/* A page-aligned table, zero at start: in .lbss, after .bss, so that no
 * page alignment moves .bss off the page .data ends in.  That page is
 * one every start faults in anyway (the loader zeroes its tail), and the
 * allocator's arena (mem.c) now begins in it. */
#define SF_PAGE_BSS __attribute__((section(".lbss.sf_page"), aligned(4096)))
/* Zero at start and seldom used: out of that page too. */
#define SF_COLD_BSS __attribute__((section(".lbss.sf_cold")))
/* Code whose syscall instructions are allowed: it must never be inlined
 * into a caller outside the region, nor split into a cold part elsewhere. */
#define SF_REGION_IN(sec) __attribute__((section(sec), noinline, \
	optimize("no-reorder-blocks-and-partition")))
#define SF_REGION SF_REGION_IN("sf_region")

#define SF_SIGSYS_BIT (1ull << (SIGSYS - 1))
/* glibc's internal signals (SIGCANCEL, SIGSETXID): its pthread_sigmask
 * never blocks them, and neither do our wrappers of it. */
#define SF_GLIBC_INTERNAL_BITS ((1ull << 31) | (1ull << 32))

/* The region's bounds, from the linker. */
extern char __start_sf_region[] __attribute__((visibility("hidden")));
extern char __stop_sf_region[] __attribute__((visibility("hidden")));

/* raw.S: the region's out-of-line stubs. */
long sf_sys(long nr, long a0, long a1, long a2, long a3, long a4, long a5);
/* The same through int $0x80: an i386 call (log mode lets one proceed). */
long sf_sys32(long nr, long a0, long a1, long a2, long a3, long a4, long a5);
/* Issues clone/clone3 for a child given a new stack: the child starts
 * with its stack pointer at a copied signal frame, calls
 * sf_clone_child(how) there, and rt_sigreturns into the program (see
 * clone.c). */
long sf_clone_thread(long nr, long a0, long a1, long a2, long a3, long a4,
		     unsigned long how);
void sf_clone_child(unsigned long how);
/* A syscall made with the stack pointer at sp (16-byte aligned). */
long sf_sys_from(uintptr_t sp, long nr, long a0, long a1);
/* Restorers: the checked one is given to the program's handlers; the
 * plain one returns from our own SIGSYS handler. */
void sf_restorer_checked(void);
void sf_restorer_plain(void);
/* A `syscall` instruction OUTSIDE the region: the wrappers send calls that
 * need a full trap context (clone, rt_sigreturn...) through it. */
long sf_trap_syscall(long nr, long a0, long a1, long a2, long a3, long a4, long a5,
		     uintptr_t site);
extern char sf_trap_syscall_ret[];
/* Back to a trapped context without rt_sigreturn (dispatch.c). */
void sf_trap_return(ucontext_t *uc, uint64_t xfeatures) __attribute__((noreturn));

/* Inline raw syscalls, for SF_REGION functions only. */
static inline __attribute__((always_inline)) long
sf_sc6(long nr, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

static inline int sf_is_err(long r)
{
	return (unsigned long)r > -4096ul;
}

/* Settings (init.c). */
#define SF_SUPERVISOR_MAX 100 /* an abstract socket name: sun_path less its 0 */
enum sf_action { SF_ACT_KILL, SF_ACT_LOG };
enum sf_logkind { SF_LOG_STDERR, SF_LOG_SYSLOG, SF_LOG_FILE };
enum sf_mode { SF_MODE_INTERPOSE, SF_MODE_TRUSTED };

struct sf_settings {
	int active;           /* a policy was given: the library is not inert */
	enum sf_action action;
	enum sf_logkind log;
	enum sf_mode mode;
	const char *log_path; /* SF_LOG_FILE: in env_log */
	/* What exec passes on, "SECFILTER_ACTION=kill"...: copies, since the
	 * program may overwrite its environment strings (setproctitle).  The
	 * long ones are the allocator's, NULL until set: sf_str() reads them.
	 * (They were 4 KiB arrays here: three pages every start faulted in
	 * for strings of a few dozen bytes.) */
	char env_action[32], env_mode[32];
	const char *env_log;        /* "SECFILTER_LOG=..." */
	const char *env_audit;      /* "LD_AUDIT=<lib_path>": trusted mode */
	const char *lib_path;       /* absolute path of this library */
	/* SECFILTER_SUPERVISOR, set by `secfilter run`: NULL when unset, and
	 * then supervisor is NULL (supervise.c). */
	const char *env_supervisor;
	const char *supervisor;
};
static inline const char *sf_str(const char *s)
{
	return s ? s : "";
}
extern struct sf_settings sf_cfg;
int sf_settings_from_env(const char **msg); /* init.c */
uintptr_t sf_main_stack_hint(void);         /* init.c: on the main stack */

/* The policy in force.  sf_cur is the latest block (possibly pending);
 * sf_enforce is the same block when it is enforced here, else NULL: the
 * hot path reads only sf_enforce.  Blocks are never freed: a reader on
 * another thread may still be deciding against an old one. */
extern const struct sf_policy *sf_cur;
extern const struct sf_policy *sf_enforce;
/* Trusted mode: the policy of the newest kernel filter, set before that
 * filter is installed and before sf_cur follows (api.c).  A call the new
 * filter denies traps in between, and its report must name the rule that
 * denied it, which the older sf_cur may not have.  NULL: sf_cur's. */
extern const struct sf_policy *sf_kpol;
/* What exec passes on: "SECFILTER_POLICY=<canonical text, not pending>". */
extern const char *sf_env_policy;

static inline const struct sf_policy *sf_enforcing(void)
{
	return __atomic_load_n(&sf_enforce, __ATOMIC_ACQUIRE);
}

/* The program's call site of a trap (the trampoline's site argument when
 * the call came through sf_trap_syscall). */
static inline uintptr_t sf_trap_site(const ucontext_t *uc)
{
	const greg_t *g = uc->uc_mcontext.gregs;

	if ((uintptr_t)g[REG_RIP] == (uintptr_t)sf_trap_syscall_ret)
		return ((const uintptr_t *)g[REG_RSP])[2];
	return (uintptr_t)g[REG_RIP];
}

/* One syscall as the program made it. */
struct sf_call {
	long nr;
	uint64_t a[6];
	uintptr_t ip;   /* where in the program it was issued */
	ucontext_t *uc; /* the trap frame, or NULL from a wrapper */
	int i386;       /* a 32-bit call (int $0x80): nr and a[] are i386's */
	int plain;      /* set by sf_handle for a trap: allowed and issued as made, no more */
};

#ifndef AUDIT_ARCH_X86_64
#define AUDIT_ARCH_X86_64 0xc000003eu /* linux/audit.h */
#endif

/* The call a SIGSYS reports (a dispatch trap or a kernel filter's).  The
 * kernel says which table the number is from (si_arch): a 32-bit call
 * (int $0x80) has its own numbers and its arguments in other registers. */
static inline void sf_call_of_trap(struct sf_call *c, const siginfo_t *si, ucontext_t *uc)
{
	const greg_t *g = uc->uc_mcontext.gregs;

	c->nr = si->si_syscall;
	c->i386 = si->si_arch != AUDIT_ARCH_X86_64;
	if (c->i386) {
		c->a[0] = (uint32_t)g[REG_RBX];
		c->a[1] = (uint32_t)g[REG_RCX];
		c->a[2] = (uint32_t)g[REG_RDX];
		c->a[3] = (uint32_t)g[REG_RSI];
		c->a[4] = (uint32_t)g[REG_RDI];
		c->a[5] = (uint32_t)g[REG_RBP];
	} else {
		c->a[0] = (uint64_t)g[REG_RDI];
		c->a[1] = (uint64_t)g[REG_RSI];
		c->a[2] = (uint64_t)g[REG_RDX];
		c->a[3] = (uint64_t)g[REG_R10];
		c->a[4] = (uint64_t)g[REG_R8];
		c->a[5] = (uint64_t)g[REG_R9];
	}
	c->ip = sf_trap_site(uc);
	c->uc = uc;
	c->plain = 0;
}

/* Trusted mode started through LD_AUDIT (audit.c).  rtld loads the
 * library as an audit module, in a namespace of its own, before anything
 * of the program; that copy installs the kernel filter and becomes the
 * authority: it owns the policy, the SIGSYS handler and its shadow.  A
 * copy loaded into the program's namespace (LD_PRELOAD, -lsecfilter) is
 * handed this table before its first instruction runs and delegates
 * through it; sf_authority is NULL in the authority and without one. */
struct sf_authority {
	const struct sf_policy *const *cur;     /* the authority's sf_cur */
	int (*apply)(const char *policy);       /* secfilter_apply: 0, -errno */
	const char *(*error)(void);             /* secfilter_error */
	long (*shadow)(const uint64_t *act, uint64_t *oact);
	void (*violation)(const struct sf_call *c, int decision, const struct sf_policy *p);
};
extern const struct sf_authority *sf_authority;
extern const struct sf_authority sf_authority_iface; /* api.c: what it hands out */
int sf_boot_trusted(void); /* init.c: from la_version; 1 when it became the authority */
const unsigned char *sf_self_build_id(unsigned *len); /* audit.c: NULL if none */

/* Decisions of our own, beside eval.h's SF_ALLOW, SF_NOT_IN_SET, >= 0. */
#define SF_DENY_DISPATCH (-100) /* prctl(PR_SET_SYSCALL_USER_DISPATCH) and
				 * ptrace(PTRACE_SET_SYSCALL_USER_DISPATCH_CONFIG) */
#define SF_PTRACE_SET_SUD 0x4210 /* linux/ptrace.h, Linux 6.4 */
#define SF_DENY_UNFOLLOWABLE (-101) /* CLONE_VM, no stack, no CLONE_VFORK */
#define SF_DENY_I386 (-102) /* a 32-bit call: the policy speaks x86-64's table */

/* dispatch.c */
int sf_arm(void);                 /* this thread; 0 or -errno */
/* Dispatch was armed in this process (and so is in each of its threads):
 * a wrapper of a call the catch-all handles specially does the same. */
extern int sf_armed;
void sf_disarm(void);
long sf_handle(struct sf_call *c); /* decide + special handling + issue */
/* SF_ALLOW or why not (p: the policy in force, sf_enforcing()). */
int sf_decision(const struct sf_policy *p, const struct sf_call *c);
/* The program's SIGSYS disposition gets (si, uc), as if the kernel had sent
 * it; forced: as seccomp's RET_TRAP, which kills when it is SIG_IGN. */
void sf_sigsys_to_program(siginfo_t *si, ucontext_t *uc, int forced);

/* action.c: what a call the policy does not let run gets.  sf_act returns
 * 1 with *res the call's result when it is not to be issued (an errno, a
 * trap), 0 when it is to be issued (log); kill does not return. */
unsigned sf_call_action(const struct sf_policy *p, const struct sf_call *c, int d);
int sf_act(const struct sf_policy *p, struct sf_call *c, int d, long *res);
void sf_kernel_trap(siginfo_t *si, ucontext_t *uc); /* trusted: not our kill */
void sf_where_counts(const void *c); /* api.c: where show finds them */
struct sf_ksigaction;
/* known: SIGSYS's action now, when the caller has just read it (else NULL) */
int sf_install_sigsys(const struct sf_ksigaction *known);
long sf_sigsys_shadow_action(const uint64_t *act, uint64_t *oact);
long sf_shadow_rt_sigaction(const void *act, void *oact); /* special.c: 0 or -errno */

/* special.c: which calls need more than re-issuing (the syscall()
 * wrapper sends those through a trap), and the issuing of any call. */
int sf_is_special(long nr);
long sf_issue(struct sf_call *c);
/* Gives a kernel sigaction our restorer and a mask without SIGSYS. */
void sf_rt_sigaction_fix(uint64_t *kact);
size_t sf_fpstate_size(const void *fp);
uint64_t sf_fpstate_xfeatures(const void *fp);

/* clone.c */
long sf_clone(struct sf_call *c);

/* exec.c */
long sf_exec(struct sf_call *c);
void sf_exec_reap(void); /* after a CLONE_VM|CLONE_VFORK child: see exec.c */

/* report.c */
/* p: the policy that decided the call (its filter index is decision). */
void sf_violation(const struct sf_call *c, int decision, const struct sf_policy *p);
/* Whether the library may make this call itself without being killed:
 * always, but under its own kernel filter only when the policy allows it
 * (judged on the first argument alone). */
int sf_may(long nr, long a0);
/* Trusted mode: the policy's kernel filter is in force on this process
 * (installed here, or inherited across exec): the library's own calls
 * are judged by it too, so the optional ones ask sf_may first. */
extern int sf_kernel_on;
void sf_report_trusted(const siginfo_t *si, ucontext_t *uc);
void sf_die(void) __attribute__((noreturn));
void sf_fatal(const char *msg) __attribute__((noreturn)); /* exit 125 */

/* vcall.c: the report's header, arguments, rule and add: line into b;
 * p is the policy that denied the call. */
struct sf_buf;
void sf_report_body(struct sf_buf *b, const struct sf_call *c, int decision,
		    const struct sf_policy *p);

/* srcline.c: " at FILE:LINE" for address addr of the object in file path
 * (its own address: less its load bias), appended to b; 0, or -1 with b
 * unchanged when the file has no line for it or may refuses a call. */
int sf_src_line(const char *path, uint64_t addr, struct sf_buf *b,
		int (*may)(long nr, long a0));

/* logdest.c: text out where SECFILTER_LOG says; -1 when it went nowhere
 * (standard error closed, as coreutils leave it at exit). */
int sf_log_emit(const char *s, size_t n);

/* logsum.c: log mode's counting.  sf_logsum_record counts c, denied with
 * decision d, and returns 1 when its (syscall, rule) is new in this
 * process (it is then reported in full), 0 for a repeat.
 * sf_logsum_flush sends or writes the summary (exit_group, exec);
 * sf_logsum_active: something was counted. */
int sf_logsum_record(const struct sf_call *c, int d);
void sf_logsum_flush(void);
extern int sf_logsum_active;
/* Set from libc's vfork() until it returns in the parent (wrap.c, raw.S):
 * the child shares the parent's memory, log mode's table included, and
 * must not flush the parent's summary at its exec or exit. */
extern int sf_in_vfork;

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

/* objs.c: the loaded objects, from the loader's own list (see there). */
struct sf_obj {
	const char *name;       /* the loader's name */
	uintptr_t bias;         /* load bias */
	const Elf64_Phdr *phdr;
	unsigned phnum;
	const Elf64_Dyn *dyn;
};
int sf_objs_init(int argc, char **argv);  /* the constructor's arguments; 0 or -1 */
const char *sf_obj_self(void); /* our file's name on the program's list */
int sf_obj_soname(const char *soname, struct sf_obj *o);
void *sf_obj_sym(const struct sf_obj *o, const char *name);
/* For the reporter's unwinder, which reads the list with checked reads:
 * the loader's _r_debug (NULL if not found), and the main program's
 * program headers from the auxiliary vector and its argv[0] (0, or -1
 * when the auxiliary vector did not give them). */
struct r_debug;
const struct r_debug *sf_objs_rdebug(void);
int sf_objs_main(uintptr_t *phdr, unsigned *phnum, const char **name);
const char *sf_loader_path(void); /* the loader that loaded this process */
/* A function of libc itself, never another object's. */
void *sf_libc_sym(const char *name);
/* libc's function, or before the constructor has run (no policy in force
 * yet), the next definition after ours (wrap.c). */
void *sf_next_fn(const char *name);
/* 1 when references to every name bind to libc's own definition. */
int sf_libc_binds(const char *const *names, unsigned n);
extern int (*sf_setcanceltype)(int, int *);

/* fmt.c: a tiny formatter, no stdio. */
struct sf_buf {
	char *p;
	size_t len, cap;
};
void sf_puts(struct sf_buf *b, const char *s);
void sf_putn(struct sf_buf *b, const char *s, size_t n);
void sf_putc(struct sf_buf *b, char c);
void sf_putu(struct sf_buf *b, uint64_t v);
void sf_puti(struct sf_buf *b, int64_t v);
void sf_putx(struct sf_buf *b, uint64_t v); /* hex, no 0x */
const char *sf_strerror(int e);
/* Memory read or written 8 bytes at a time (fmt.c, user.c): any type
 * may lie there, at any alignment (fine on x86-64). */
typedef uint64_t __attribute__((may_alias, aligned(1))) sf_word;
size_t sf_strlen(const char *s);
int sf_streq(const char *a, const char *b);
int sf_startswith(const char *s, const char *prefix);
void sf_memcpy(void *d, const void *s, size_t n);
void sf_memset(void *d, int c, size_t n);
int sf_write_all(int fd, const char *s, size_t n); /* 0, or -1: not all written */

/* elfsym.c: "name+0xoff" for ip in the object at base read from path.
 * may: whether a call may be made (NULL: any). */
typedef int (*sf_may_fn)(long nr, const uint64_t a[6]);
int sf_elf_symbol(const char *path, uintptr_t base, uintptr_t ip, struct sf_buf *b,
		  sf_may_fn may);

/* api.c */
int sf_publish(const struct sf_policy *p); /* state mapping + env text */
int sf_arm_all_threads(void);
int sf_other_threads(void);
void sf_ack_arm(void);
#define SF_ARM_MAGIC 0x5ecf17e1

/* trusted.c: compile, then load (split so that the constructor can answer
 * the tool's handshake while it still may write), or both at once.
 * all_threads: trusted mode's filters go on every thread (TSYNC); the one
 * before the exec of a static binary on the calling thread only. */
struct sf_prog {
	struct sock_filter *insns;
	size_t size;
	unsigned len;
	int all_threads;
	uint64_t id; /* the id its mark answers (trusted.c), 0 for none */
};
int sf_trusted_compile(const struct sf_policy *p, int all_threads,
		       struct sf_prog *out, struct sf_error *err);
/* A start: the id of the policy whose short form is text (prog->id, 0
 * when none), to ask the mark before compiling with compile_boot, which
 * keeps that id. */
void sf_trusted_boot_id(const char *text, size_t len, struct sf_prog *out);
/* The start's: on every thread, into static storage (trusted.c) */
int sf_trusted_compile_boot(const struct sf_policy *p, struct sf_prog *out,
			    struct sf_error *err);
/* Loads prog, compiled from p, and its mark (trusted.c) */
int sf_trusted_load(struct sf_prog *prog, const struct sf_policy *p, struct sf_error *err);
int sf_trusted_in_force(const struct sf_prog *prog);
int sf_our_name(const char *path); /* audit.c */
int sf_trusted_install(const struct sf_policy *p, int all_threads, struct sf_error *err);
long sf_guard_handler(void);
extern const struct sf_ksigaction sf_guard_act, sf_guard_dfl; /* dispatch.c */
long sf_guard_default(void);
int sf_guard_inherited(const struct sf_ksigaction *old);
int sf_guard_install(void);

/* user.c: the program's memory as the kernel reads it: 0, or -EFAULT for
 * a bad pointer (checked in interposition mode). */
long sf_user_read(void *dst, const void *src, size_t n);
/* execve's path, argv and envp, strings included: the path's length */
long sf_user_exec_args(const char *path, char *const *argv, char *const *envp);
long sf_user_writable(void *p, size_t n);
/* Pages [lo, hi] (page addresses) are readable for the call being
 * handled: old gets what was known before, to put back (user.c). */
void sf_user_known(uintptr_t lo, uintptr_t hi, uintptr_t *old);
/* The probe itself, for any mode: whether the page at `page` can be
 * read.  The caller decides whether it may make the call. */
int sf_page_readable(uintptr_t page);

/* Pages from the kernel (mem.c). */
void *sf_pages(size_t n);
void sf_unpages(void *p, size_t n);

#endif
