/* Reports' backtraces (t_lib_unwind.sh): each mode ends in a call the
 * test's policy denies, from a place a backtrace must see through.
 *   malloc        malloc's first brk, from in_malloc_caller (deny brk)
 *   handler       a SIGUSR1 handler makes a `syscall` instruction
 *                 (getppid, denied), raised from raiser
 *   handler-libc  the same through libc's getppid (the wrapper)
 *   altstack      the handler runs on a sigaltstack
 *   fork          a forked child calls getppid from child_work
 *   thread        a thread calls getppid from thread_work
 *   deep N        N frames of recurse, then getppid
 *   corrupt       rsp and rbp point just below unmapped memory, then a
 *                 `syscall` instruction (getppid): the report must still
 *                 come out
 *   vdso          clock_gettime of the process CPU clock, which the vDSO
 *                 passes on to the kernel: a frame with no file
 *   garbage       rsp points at a page of garbage (return addresses into
 *                 nowhere, or back into itself), then getppid
 * Each function that must appear in the backtrace is noinline, and calls
 * on after an asm barrier so it is not a tail call. */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KEEP __attribute__((noinline, used))
#define NOT_A_TAIL_CALL() __asm__ volatile("" ::: "memory")

static long raw_getppid(void)
{
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "0"(SYS_getppid) : "rcx", "r11", "memory");
	return ret;
}

KEEP void *in_malloc_caller(size_t n)
{
	void *p = malloc(n);

	NOT_A_TAIL_CALL();
	return p;
}

static int via_libc;

KEEP void in_handler(void)
{
	if (via_libc)
		getppid();
	else
		raw_getppid();
	NOT_A_TAIL_CALL();
}

KEEP void on_usr1(int sig)
{
	(void)sig;
	in_handler();
	NOT_A_TAIL_CALL();
}

KEEP void raiser(void)
{
	raise(SIGUSR1);
	NOT_A_TAIL_CALL();
}

KEEP void child_work(void)
{
	getppid();
	NOT_A_TAIL_CALL();
}

KEEP void *thread_work(void *arg)
{
	(void)arg;
	getppid();
	NOT_A_TAIL_CALL();
	return NULL;
}

KEEP int recurse(int n)
{
	int r;

	if (n == 0) {
		getppid();
		return 0;
	}
	r = recurse(n - 1);
	NOT_A_TAIL_CALL();
	return r + 1;
}

KEEP void vdso_caller(struct timespec *ts)
{
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, ts);
	NOT_A_TAIL_CALL();
}

/* A `syscall` instruction with the stack and frame pointers given. */
KEEP void syscall_on(void *sp, void *bp)
{
	__asm__ volatile("mov %%rsp, %%r12\n\t"
			 "mov %%rbp, %%r13\n\t"
			 "mov %0, %%rsp\n\t"
			 "mov %1, %%rbp\n\t"
			 "mov %2, %%eax\n\t"
			 "syscall\n\t"
			 "mov %%r12, %%rsp\n\t"
			 "mov %%r13, %%rbp"
			 :
			 : "r"(sp), "r"(bp), "i"(SYS_getppid)
			 : "rax", "rcx", "r11", "r12", "r13", "memory");
}

static void install(int onstack)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sa.sa_flags = onstack ? SA_ONSTACK : 0;
	sigaction(SIGUSR1, &sa, NULL);
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(m, "malloc")) {
		printf("%p\n", in_malloc_caller(100));
	} else if (!strcmp(m, "handler") || !strcmp(m, "handler-libc")) {
		via_libc = !strcmp(m, "handler-libc");
		install(0);
		raiser();
	} else if (!strcmp(m, "altstack")) {
		static char stack[1 << 16];
		stack_t ss = { .ss_sp = stack, .ss_size = sizeof stack };
		sigaltstack(&ss, NULL);
		install(1);
		raiser();
	} else if (!strcmp(m, "fork")) {
		int st;
		pid_t pid = fork();
		if (pid == 0) {
			child_work();
			_exit(0);
		}
		waitpid(pid, &st, 0);
		printf("child %s %d\n", WIFSIGNALED(st) ? "signal" : "exit",
		       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	} else if (!strcmp(m, "thread")) {
		pthread_t t;
		pthread_create(&t, NULL, thread_work, NULL);
		pthread_join(t, NULL);
	} else if (!strcmp(m, "deep")) {
		recurse(argc > 2 ? atoi(argv[2]) : 10);
	} else if (!strcmp(m, "vdso")) {
		struct timespec ts;
		vdso_caller(&ts);
	} else if (!strcmp(m, "corrupt")) {
		/* Just below a page that is then unmapped; the signal frame
		 * and the reporter need room below. */
		char *p = mmap(NULL, 17 * 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		munmap(p + 16 * 4096, 4096);
		syscall_on(p + 16 * 4096, p + 16 * 4096);
	} else if (!strcmp(m, "garbage")) {
		/* The signal frame needs room below: the garbage is the last
		 * of 16 pages. */
		uint64_t *p = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		unsigned i;
		p += 15 * 512;
		for (i = 0; i < 512; i++)
			p[i] = i % 3 == 0 ? (uint64_t)(uintptr_t)&p[i] :
			       i % 3 == 1 ? (uint64_t)(uintptr_t)syscall_on + 1 : 0xdeadbeef000ull + i;
		syscall_on(p + 8, p + 16);
	} else {
		fprintf(stderr, "lib_unwind: unknown mode '%s'\n", m);
		return 2;
	}
	return 0;
}
