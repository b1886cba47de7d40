/* The rewritten syscall sites of libsecfilter.so (preload/rewrite/rewrite.c),
 * seen from a program: its own `syscall` instructions in two shapes,
 *   site_a(nr, a0, a1, a2)  mov %rdi,%rax; mov %rsi,%rdi; mov %rdx,%rsi;
 *                           mov %rcx,%rdx; syscall   (Go's shape: the
 *                           jump must cover the syscall itself)
 *   regs_site               mov $8,%eax; syscall     (glibc's shape: an
 *                           lseek that checks every register around it)
 *   site_d(fd)              mov $1,%eax; mov $4,%edx; lea msg(%rip),%rsi;
 *                           syscall: writes "lea\n" (the lea, re-aimed)
 *   site_c(fd, buf, n)      xor %eax,%eax; syscall; cmp; ret   (glibc's
 *                           __read_nocancel: the jump covers the syscall
 *                           and the first byte after it)
 *   site_e(p)               mov %rcx,%rcx; mov (%rdi),%rcx; mov $39,%eax;
 *                           syscall: getpid, whose one movable start (the
 *                           load may fault, it stays) lies at byte 6 of a
 *                           16-byte line: the jump's bytes straddle 8, one
 *                           16-byte cmpxchg or no rewrite (rewrite.c's
 *                           cx16, from libc's copy of cpuid)
 * Usage: lib_rewrite MODE [ARG]
 *   sites          calls each site twice; "site_a rewritten yes|no", same
 *                  for regs_site and site_c (its bytes changed in memory);
 *                  "site_c read 2 2 000" (two reads of /dev/zero)
 *   inside         rewrites site_a and site_c, then enters each at its
 *                  syscall (now inside the jump): "inside: 0 wrong; ..."
 *   regs           regs_site twice; "regs N ok" when every register the
 *                  program keeps across a syscall (general, flags with CF
 *                  and DF set, xmm0-15) and the red zone came back intact
 *   regs-signals N regs_site N times, silent unless wrong, while another
 *                  thread keeps sending SIGUSR1, whose handler makes a
 *                  syscall and uses vector registers: "regs-signals N
 *                  wrong K, signals handled"
 *   alt-regs       regs twice, then vregs, with an alternate signal stack
 *                  (the trap's frame is built there)
 *   vregs          a getpid between full-width vector loads and stores,
 *                  three times: "vregs ymm ok" when ymm0-15 came back
 *                  whole, "vregs zmm ok" for zmm0-31 and k1-7 (either
 *                  "absent" when the CPU or the kernel lacks it): the
 *                  state a trap's signal frame saves and must give back
 *   loops N        N getppid through site_a in main, in a thread and in a
 *                  forked child (for a count of SIGSYS under strace)
 *   thread NR      getppid through site_a, then a thread calls NR there
 *   fork NR        getppid through site_a, then a child calls NR there;
 *                  prints how the child ended
 *   forks N NR     N children through libc's fork(), its clone site
 *                  rewritten after the first: each checks that fork gave
 *                  it the parent's robust list (else exits 4), calls NR
 *                  through site_a and exits 3; "forks: E exited 3, K
 *                  killed"
 *   narrow POLICY  getppid through site_a, secfilter_apply(POLICY), getppid
 *                  again
 *   repeat NR N    gettid through site_a, then NR N times ("ret R" each,
 *                  R 1 for a positive result)
 *   errno          bad pointers through site_a, twice each: uname(1), and
 *                  signalfd(-1, 1, 8), whose mask the library reads:
 *                  "name first/second: -ERR"
 *   block          a thread's read through site_a blocks; a SIGUSR1
 *                  handler (SA_RESTART) runs meanwhile; then data comes
 *   race N         8 threads call site_a N times each from the start
 *                  (the site is rewritten while they run it) while main
 *                  forks children that call it too; "race wrong K" counts
 *                  the results that were not getppid's
 * sites and race end with "wx mappings K": the mappings both writable
 * and executable, and "site page PERMS": the protection of site_a's page.
 * Every mode first prints "site_a ip HEX", the address after its syscall
 * (the ip a report names). */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

long site_a(long nr, long a0, long a1, long a2);
long site_c(long fd, void *buf, long n);
long site_d(long fd);
extern const unsigned char site_d_start[];
extern const unsigned char site_c_start[];
extern const unsigned char site_a_start[], site_a_ret[];
void regs_site(const uint64_t *in, uint64_t *out);
void ymm_site(const uint8_t *in, uint8_t *out);
void zmm_site(const uint8_t *in, uint8_t *out);
extern const unsigned char regs_start[], regs_sys[];

__asm__(".text\n"
	".p2align 4\n"
	".globl site_a\n"
	".type site_a,@function\n"
	"site_a:\n"
	".cfi_startproc\n"
	".globl site_a_start\n"
	"site_a_start:\n"
	"	mov %rdi, %rax\n"
	"	mov %rsi, %rdi\n"
	"	mov %rdx, %rsi\n"
	"	mov %rcx, %rdx\n"
	"	syscall\n"
	".globl site_a_ret\n"
	"site_a_ret:\n"
	"	ret\n"
	".cfi_endproc\n"
	".size site_a, .-site_a\n");

__asm__(".text\n"
	".p2align 4\n"
	".globl site_c\n"
	".type site_c,@function\n"
	"site_c:\n"
	".cfi_startproc\n"
	".globl site_c_start\n"
	"site_c_start:\n"
	"	xor %eax, %eax\n"
	"	syscall\n"
	"	cmp $-4095, %rax\n"
	"	ret\n"
	".cfi_endproc\n"
	".size site_c, .-site_c\n");

__asm__(".section .rodata\n"
	"site_d_msg: .ascii \"lea\\n\"\n"
	".text\n"
	".p2align 4\n"
	".globl site_d\n"
	".type site_d,@function\n"
	"site_d:\n"
	".cfi_startproc\n"
	".globl site_d_start\n"
	"site_d_start:\n"
	"	mov $1, %eax\n"
	"	mov $4, %edx\n"
	"	lea site_d_msg(%rip), %rsi\n"
	"	syscall\n"
	"	ret\n"
	".cfi_endproc\n"
	".size site_d, .-site_d\n");

long site_e(const long *p);
extern const unsigned char site_e_start[];
__asm__(".text\n"
	".p2align 4\n"
	".globl site_e\n"
	".type site_e,@function\n"
	"site_e:\n"
	".cfi_startproc\n"
	".globl site_e_start\n"
	"site_e_start:\n"
	"	.byte 0x48, 0x89, 0xc9\n"     /* mov %rcx,%rcx, 3 bytes */
	"	.byte 0x48, 0x8b, 0x0f\n"     /* mov (%rdi),%rcx */
	"	.byte 0xb8, 39, 0, 0, 0\n"    /* mov $39,%eax, at byte 6 */
	"	syscall\n"
	"	ret\n"
	".cfi_endproc\n"
	".size site_e, .-site_e\n");

/* jump_into(addr, nr, a0, a1, a2): enters code at addr (an instruction
 * boundary inside a site) with the syscall registers set, as a jump from
 * elsewhere in a function would. */
long jump_into(const void *addr, long nr, long a0, long a1, long a2);
__asm__(".text\n"
	".globl jump_into\n"
	".type jump_into,@function\n"
	"jump_into:\n"
	".cfi_startproc\n"
	"	mov %rdi, %r11\n"
	"	mov %rsi, %rax\n"
	"	mov %rdx, %rdi\n"
	"	mov %rcx, %rsi\n"
	"	mov %r8, %rdx\n"
	"	call *%r11\n"
	"	ret\n"
	".cfi_endproc\n"
	".size jump_into, .-jump_into\n");

/* in/out words: 0-31 xmm0-15; 32 rbx 33 rbp 34 r12 35 r13 36 r14 37 r15
 * 38 rdi 39 rsi 40 rdx 41 r10 42 r8 43 r9; 44 rflags (out); 45-60 the
 * red zone, 16 words below the stack pointer. */
#define W_RFLAGS 44
#define W_RED 45
#define NWORDS 61
/* M of each register number of a kind: 16 xmm/ymm, 32 zmm, mask k1-7. */
#define EACH16(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) \
	M(8) M(9) M(10) M(11) M(12) M(13) M(14) M(15)
#define EACH32(M) EACH16(M) M(16) M(17) M(18) M(19) M(20) M(21) M(22) M(23) \
	M(24) M(25) M(26) M(27) M(28) M(29) M(30) M(31)
#define EACH_K(M) M(1) M(2) M(3) M(4) M(5) M(6) M(7)
#define LOAD_RED(k) "mov " #k "*8+360(%rax), %rcx\n mov %rcx, -8-" #k "*8(%rsp)\n"
#define SAVE_RED(k) "mov -8-" #k "*8(%rsp), %rcx\n mov %rcx, " #k "*8+360(%r11)\n"
#define XMMIN(n) "movdqu " #n "*16(%rax), %xmm" #n "\n"
#define XMMOUT(n) "movdqu %xmm" #n ", " #n "*16(%r11)\n"
/* The general registers of the in/out words, with their offsets. */
#define EACH_GP(M)                                                        \
	M(rbx, 256) M(rbp, 264) M(r12, 272) M(r13, 280) M(r14, 288) M(r15, 296) \
	M(rdi, 304) M(rsi, 312) M(rdx, 320) M(r10, 328) M(r8, 336) M(r9, 344)
#define GPIN(r, off) "mov " #off "(%rax), %" #r "\n"
#define GPOUT(r, off) "mov %" #r ", " #off "(%r11)\n"
#define PUSH(r) "push %" #r "\n .cfi_adjust_cfa_offset 8\n"
#define POP(r) "pop %" #r "\n .cfi_adjust_cfa_offset -8\n"
__asm__(".text\n"
	".p2align 4\n"
	".globl regs_site\n"
	".type regs_site,@function\n"
	"regs_site:\n"
	".cfi_startproc\n"
	PUSH(rbx) PUSH(rbp) PUSH(r12) PUSH(r13) PUSH(r14) PUSH(r15) PUSH(rsi)
	"	mov %rdi, %rax\n"
	EACH16(XMMIN) EACH16(LOAD_RED) EACH_GP(GPIN)
	"	std\n"
	"	stc\n"
	".globl regs_start\n"
	"regs_start:\n"
	"	mov $8, %eax\n"
	".globl regs_sys\n"
	"regs_sys:\n"
	"	syscall\n"
	"	mov (%rsp), %r11\n"
	EACH16(SAVE_RED)
	"	pushfq\n"
	"	pop %rcx\n"
	"	cld\n"
	"	mov %rcx, 352(%r11)\n"
	EACH16(XMMOUT) EACH_GP(GPOUT)
	POP(rsi) POP(r15) POP(r14) POP(r13) POP(r12) POP(rbp) POP(rbx)
	"	ret\n"
	".cfi_endproc\n"
	".size regs_site, .-regs_site\n");

static unsigned char orig_a[16], orig_regs[16], orig_c[16], orig_d[16], orig_e[16];

static int changed(const unsigned char *now, const unsigned char *was)
{
	return memcmp(now, was, 16) != 0;
}

static unsigned regs_check(int round, int verbose)
{
	uint64_t in[NWORDS], out[NWORDS];
	unsigned i, bad = 0;

	for (i = 0; i < NWORDS; i++)
		in[i] = 0x0123456789abcdefull * (i + 1) ^ ((uint64_t)round << 56);
	in[38] = 0xffffffffull; /* rdi: lseek's fd, EBADF */
	memset(out, 0, sizeof out);
	regs_site(in, out);
	for (i = 0; i < NWORDS; i++) {
		if (i == W_RFLAGS)
			continue;
		if (in[i] != out[i]) {
			if (verbose)
				printf("regs %d: word %u was %#llx, is %#llx\n", round, i,
				       (unsigned long long)in[i], (unsigned long long)out[i]);
			bad++;
		}
	}
	if ((out[W_RFLAGS] & 0x401) != 0x401) { /* CF, DF */
		if (verbose)
			printf("regs %d: flags %#llx lost CF or DF\n", round,
			       (unsigned long long)out[W_RFLAGS]);
		bad++;
	}
	return bad;
}

static void regs(int round)
{
	if (!regs_check(round, 1))
		printf("regs %d ok\n", round);
}

/* regs-signals: SIGUSR1 keeps arriving from another thread while regs_site
 * traps; the handler traps too and uses the vector registers. */
static volatile sig_atomic_t handled;
static volatile int stop_signals;
static pthread_t main_thread;

static void usr1(int sig)
{
	volatile double x = sig;
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "a"((long)SYS_getppid) : "rcx", "r11", "memory");
	x = x * 1.5 + (double)r;
	handled = handled + (x > 0);
}

static void *send_usr1(void *a)
{
	(void)a;
	while (!stop_signals)
		pthread_kill(main_thread, SIGUSR1);
	return NULL;
}

/* ymm_site(in, out): ymm0-15 from in (512 bytes), getpid, ymm0-15 to out.
 * zmm_site(in, out): zmm0-31 (2048 bytes) and k1-7 (56) likewise. */
#define VLD(n) "vmovdqu " #n "*32(%rdi), %ymm" #n "\n"
#define VST(n) "vmovdqu %ymm" #n ", " #n "*32(%rsi)\n"
#define ZLD(n) "vmovdqu64 " #n "*64(%rdi), %zmm" #n "\n"
#define ZST(n) "vmovdqu64 %zmm" #n ", " #n "*64(%rsi)\n"
#define KLD(n) "kmovq 2048+" #n "*8-8(%rdi), %k" #n "\n"
#define KST(n) "kmovq %k" #n ", 2048+" #n "*8-8(%rsi)\n"
__asm__(".text\n"
	".globl ymm_site\n"
	".type ymm_site,@function\n"
	"ymm_site:\n"
	EACH16(VLD)
	"	mov $39, %eax\n"
	"	syscall\n"
	EACH16(VST)
	"	vzeroupper\n"
	"	ret\n"
	".size ymm_site, .-ymm_site\n"
	".globl zmm_site\n"
	".type zmm_site,@function\n"
	"zmm_site:\n"
	EACH32(ZLD)
	EACH_K(KLD)
	"	mov $39, %eax\n"
	"	syscall\n"
	EACH32(ZST)
	EACH_K(KST)
	"	vzeroupper\n"
	"	ret\n"
	".size zmm_site, .-zmm_site\n");

static void vregs(const char *name, void (*site)(const uint8_t *, uint8_t *), size_t n)
{
	static uint8_t in[2048 + 56], out[2048 + 56];
	unsigned round, bad = 0;
	size_t i;

	for (round = 1; round <= 3; round++) {
		for (i = 0; i < n; i++)
			in[i] = (uint8_t)(i * 131 + round * 7 + 1);
		memset(out, 0, n);
		site(in, out);
		for (i = 0; i < n; i++)
			bad += in[i] != out[i];
	}
	if (bad)
		printf("vregs %s: %u bytes wrong\n", name, bad);
	else
		printf("vregs %s ok\n", name);
}

static long getppid_a(void)
{
	return site_a(SYS_getppid, 0, 0, 0);
}

static long call_nr;
static long loops;

static void *thread_call(void *a)
{
	(void)a;
	printf("thread: ret %ld\n", site_a(call_nr, 0, 0, 0));
	fflush(stdout);
	return NULL;
}

static void *thread_loop(void *a)
{
	long i;

	(void)a;
	for (i = 0; i < loops; i++)
		getppid_a();
	return NULL;
}

static pthread_barrier_t go;
static long expect_ppid, wrong;

static void *thread_race(void *a)
{
	long i, bad = 0;

	(void)a;
	pthread_barrier_wait(&go);
	for (i = 0; i < loops; i++)
		bad += getppid_a() != expect_ppid;
	__atomic_add_fetch(&wrong, bad, __ATOMIC_RELAXED);
	return NULL;
}

/* The mappings both writable and executable, and the protection of the
 * page holding `at`. */
static void maps_check(const void *at)
{
	char line[512], perms[8] = "?";
	unsigned long lo, hi;
	int wx = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof line, f)) {
		char p[8];
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, p) != 3)
			continue;
		wx += p[1] == 'w' && p[2] == 'x';
		if ((uintptr_t)at >= lo && (uintptr_t)at < hi)
			memcpy(perms, p, sizeof perms);
	}
	if (f)
		fclose(f);
	printf("wx mappings %d\nsite page %s\n", wx, perms);
}

static int rd_pipe[2];
static volatile sig_atomic_t handled;

static void on_usr1(int s)
{
	(void)s;
	handled++;
}

static void *thread_read(void *a)
{
	char c = 0;
	long r;

	(void)a;
	r = site_a(SYS_read, rd_pipe[0], (long)&c, 1);
	printf("block: read %ld '%c', handler ran %d\n", r, c, (int)handled);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "sites";
	pthread_t th;
	int st;

	memcpy(orig_a, site_a_start, 16);
	memcpy(orig_regs, regs_start, 16);
	memcpy(orig_c, site_c_start, 16);
	memcpy(orig_d, site_d_start, 16);
	memcpy(orig_e, site_e_start, 16);
	printf("site_a ip %lx\n", (unsigned long)(uintptr_t)site_a_ret);
	fflush(stdout);
	if (!strcmp(mode, "sites")) {
		getppid_a();
		getppid_a();
		regs(1);
		regs(2);
		{
			int z = open("/dev/zero", O_RDONLY);
			char buf[4] = "abc";
			long r1 = site_c(z, buf, 2), r2 = site_c(z, buf + 1, 2);
			printf("site_c read %ld %ld %d%d%d\n", r1, r2, buf[0], buf[1], buf[2]);
		}
		printf("site_a rewritten %s\n", changed(site_a_start, orig_a) ? "yes" : "no");
		printf("site_c rewritten %s\n", changed(site_c_start, orig_c) ? "yes" : "no");
		fflush(stdout);
		site_d(1);
		site_d(1);
		printf("site_d rewritten %s\n", changed(site_d_start, orig_d) ? "yes" : "no");
		{
			long word = 0, p1 = site_e(&word), p2 = site_e(&word);
			printf("site_e pid %s\n", p1 == getpid() && p2 == p1 ? "ok" : "wrong");
			printf("site_e rewritten %s\n", changed(site_e_start, orig_e) ? "yes" : "no");
		}
		printf("regs_site rewritten %s\n", changed(regs_start, orig_regs) ? "yes" : "no");
		maps_check(site_a_start);
	} else if (!strcmp(mode, "race") && argc > 2) {
		pthread_t t[8];
		int i, k, bad_children = 0;
		loops = atol(argv[2]);
		expect_ppid = getppid();
		pthread_barrier_init(&go, NULL, 9);
		for (i = 0; i < 8; i++)
			pthread_create(&t[i], NULL, thread_race, NULL);
		pthread_barrier_wait(&go);
		for (k = 0; k < 20; k++) {
			pid_t p = fork();
			if (p == 0) {
				long j, bad = 0;
				for (j = 0; j < 100; j++)
					bad += getppid_a() != getppid();
				_exit(bad ? 1 : 0);
			}
			waitpid(p, &st, 0);
			bad_children += st != 0;
		}
		for (i = 0; i < 8; i++)
			pthread_join(t[i], NULL);
		printf("race wrong %ld, children wrong %d\n", wrong, bad_children);
		printf("site_a rewritten %s\n", changed(site_a_start, orig_a) ? "yes" : "no");
		maps_check(site_a_start);
	} else if (!strcmp(mode, "inside")) {
		/* Rewrite both, then land on their syscall, now inside the
		 * jump: it must still be a syscall (it traps). */
		long want = getppid(), k, bad = 0;
		char c[2];
		int z = open("/dev/zero", O_RDONLY);
		getppid_a();
		getppid_a();
		site_c(z, c, 1);
		site_c(z, c, 1);
		for (k = 0; k < 3; k++) {
			bad += jump_into(site_a_ret - 2, SYS_getppid, 0, 0, 0) != want;
			bad += jump_into(site_c_start + 2, SYS_getppid, 0, 0, 0) != want;
			bad += jump_into(site_c_start + 2, SYS_read, z, (long)c, 2) != 2;
		}
		printf("inside: %ld wrong; rewritten %s %s\n", bad,
		       changed(site_a_start, orig_a) ? "yes" : "no",
		       changed(site_c_start, orig_c) ? "yes" : "no");
	} else if (!strcmp(mode, "vregs") || !strcmp(mode, "alt-regs")) {
		static char alt[1 << 16];
		stack_t ss = { .ss_sp = alt, .ss_size = sizeof alt };
		if (!strcmp(mode, "alt-regs")) {
			if (sigaltstack(&ss, NULL))
				perror("sigaltstack");
			regs(1);
			regs(2);
		}
		__builtin_cpu_init();
		if (__builtin_cpu_supports("avx"))
			vregs("ymm", ymm_site, 512);
		else
			printf("vregs ymm absent\n");
		if (__builtin_cpu_supports("avx512bw"))
			vregs("zmm", zmm_site, 2048 + 56);
		else
			printf("vregs zmm absent\n");
	} else if (!strcmp(mode, "regs-signals") && argc > 2) {
		long k, n = atol(argv[2]), wrong = 0;
		main_thread = pthread_self();
		signal(SIGUSR1, usr1);
		pthread_create(&th, NULL, send_usr1, NULL);
		for (k = 0; k < n; k++)
			wrong += regs_check((int)(k & 0xff), wrong == 0) != 0;
		stop_signals = 1;
		pthread_join(th, NULL);
		printf("regs-signals %ld wrong %ld, %s\n", n, wrong,
		       handled > 0 ? "signals handled" : "no signal handled");
	} else if (!strcmp(mode, "regs")) {
		regs(1);
		regs(2);
		regs(3);
	} else if (!strcmp(mode, "loops") && argc > 2) {
		long i;
		loops = atol(argv[2]);
		for (i = 0; i < loops; i++)
			getppid_a();
		pthread_create(&th, NULL, thread_loop, NULL);
		pthread_join(th, NULL);
		if (fork() == 0) {
			thread_loop(NULL);
			_exit(0);
		}
		wait(&st);
		printf("loops done, child status %d\n", st);
	} else if (!strcmp(mode, "thread") && argc > 2) {
		getppid_a();
		call_nr = atol(argv[2]);
		pthread_create(&th, NULL, thread_call, NULL);
		pthread_join(th, NULL);
		printf("thread joined\n");
	} else if (!strcmp(mode, "fork") && argc > 2) {
		pid_t p;
		getppid_a();
		fflush(stdout);
		if ((p = fork()) == 0) {
			printf("child: ret %ld\n", site_a(atol(argv[2]), 0, 0, 0));
			fflush(stdout);
			_exit(0);
		}
		waitpid(p, &st, 0);
		if (WIFSIGNALED(st))
			printf("fork: child killed by signal %d\n", WTERMSIG(st));
		else
			printf("fork: child exited %d\n", WEXITSTATUS(st));
	} else if (!strcmp(mode, "forks") && argc > 3) {
		long i, n = atol(argv[2]), nr = atol(argv[3]), three = 0, killed = 0;
		void *head = NULL, *h;
		size_t len;
		fflush(stdout);
		if (syscall(SYS_get_robust_list, 0, &head, &len) != 0 || !head)
			return 1;
		for (i = 0; i < n; i++) {
			pid_t p = fork();
			if (p == 0) {
				/* the kernel clears a child's robust list; glibc's
				 * fork sets it again, at a site the parent rewrote */
				h = NULL;
				if (syscall(SYS_get_robust_list, 0, &h, &len) != 0 || h != head)
					_exit(4);
				site_a(nr, 0, 0, 0);
				_exit(3);
			}
			if (p < 0 || waitpid(p, &st, 0) != p)
				break;
			three += WIFEXITED(st) && WEXITSTATUS(st) == 3;
			killed += WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
		}
		printf("forks: %ld exited 3, %ld killed\n", three, killed);
	} else if (!strcmp(mode, "narrow") && argc > 2) {
		int (*apply)(const char *) =
			(int (*)(const char *))dlsym(RTLD_DEFAULT, "secfilter_apply");
		printf("before: ret %ld\n", getppid_a() > 0 ? 1L : 0L);
		printf("apply %d\n", apply ? apply(argv[2]) : -2);
		fflush(stdout);
		printf("after: ret %ld\n", getppid_a() > 0 ? 1L : 0L);
	} else if (!strcmp(mode, "repeat") && argc > 3) {
		long i, n = atol(argv[3]), nr = atol(argv[2]);
		site_a(SYS_gettid, 0, 0, 0);
		for (i = 0; i < n; i++)
			printf("ret %ld\n", site_a(nr, 0, 0, 0) > 0 ? 1L : 0L);
	} else if (!strcmp(mode, "errno")) {
		int k;
		for (k = 0; k < 2; k++) {
			printf("uname %s: %ld\n", k ? "second" : "first", site_a(SYS_uname, 1, 0, 0));
			printf("signalfd %s: %ld\n", k ? "second" : "first",
			       site_a(SYS_signalfd, -1, 1, 8));
		}
	} else if (!strcmp(mode, "block")) {
		struct sigaction sa;
		char c;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_usr1;
		sa.sa_flags = SA_RESTART;
		sigaction(SIGUSR1, &sa, NULL);
		if (pipe(rd_pipe) < 0)
			return 1;
		/* the site is rewritten by a read that does not block */
		(void)!write(rd_pipe[1], "a", 1);
		site_a(SYS_read, rd_pipe[0], (long)&c, 1);
		pthread_create(&th, NULL, thread_read, NULL);
		usleep(200000);
		pthread_kill(th, SIGUSR1);
		usleep(200000);
		(void)!write(rd_pipe[1], "b", 1);
		pthread_join(th, NULL);
	} else {
		fprintf(stderr, "lib_rewrite: unknown mode %s\n", mode);
		return 2;
	}
	return 0;
}
