/* A test program for the actions of secfilter(7) (tests/e2e/t_lib_actions.sh),
 * in any mode: it needs neither the library nor its API.  It does what its
 * arguments say, in order, printing one line each:
 *   getppid      syscall(SYS_getppid): "getppid RET ERRNO"
 *   raw-getppid  a `syscall` instruction here: "raw-getppid RAX"
 *   wrapped-getppid  libc's getppid(): "wrapped-getppid RET ERRNO"
 *   open PATH    open(PATH): "open OK|-1 ERRNO"
 *   chdir PATH   chdir(PATH): "chdir RET ERRNO"
 *   thread       pthread_create + join: "thread ok" or "thread ERRNO"
 *   statx PATH   statx(): "statx RET ERRNO SIZE MODE"
 *   handler      a SIGSYS handler (SA_SIGINFO) that sets rax to 4242
 *   trapped      "trapped N code C syscall S arch A errno E"
 *   pid          "pid N"
 *   sleep MS     nanosleep
 *   sys NR A0..A5  syscall(NR, A0, ..., A5) with six numbers (strtoull base
 *                0: whole 64-bit registers): "sys NR RET ERRNO"
 *   clone3       clone3(NULL, 0), as glibc probes it: "clone3 RET ERRNO" */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

static volatile int trapped, t_code, t_syscall, t_errno;
static volatile unsigned t_arch;

static void on_sigsys(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	(void)sig;
	trapped++;
	t_code = si->si_code;
	t_syscall = si->si_syscall;
	t_arch = si->si_arch;
	t_errno = si->si_errno;
	uc->uc_mcontext.gregs[REG_RAX] = 4242;
}

static void *thread_main(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		long r;

		errno = 0;
		if (!strcmp(a, "getppid")) {
			r = syscall(SYS_getppid);
			printf("getppid %ld %d\n", r, r < 0 ? errno : 0);
		} else if (!strcmp(a, "raw-getppid")) {
			r = SYS_getppid;
			__asm__ volatile("syscall" : "+a"(r) : : "rcx", "r11", "memory");
			printf("raw-getppid %ld\n", r);
		} else if (!strcmp(a, "wrapped-getppid")) {
			r = getppid();
			printf("wrapped-getppid %ld %d\n", r, errno);
		} else if (!strcmp(a, "open") && i + 1 < argc) {
			int fd = open(argv[++i], O_RDONLY);
			printf("open %s %d\n", fd >= 0 ? "OK" : "-1", fd >= 0 ? 0 : errno);
			if (fd >= 0)
				close(fd);
		} else if (!strcmp(a, "chdir") && i + 1 < argc) {
			r = chdir(argv[++i]);
			printf("chdir %ld %d\n", r, r < 0 ? errno : 0);
		} else if (!strcmp(a, "thread")) {
			pthread_t t;
			int e = pthread_create(&t, NULL, thread_main, NULL);
			if (!e)
				e = pthread_join(t, NULL);
			if (e)
				printf("thread %d\n", e);
			else
				printf("thread ok\n");
		} else if (!strcmp(a, "statx") && i + 1 < argc) {
			struct statx sx;
			memset(&sx, 0, sizeof sx);
			r = statx(AT_FDCWD, argv[++i], 0, STATX_BASIC_STATS, &sx);
			printf("statx %ld %d %llu %o\n", r, r < 0 ? errno : 0,
			       (unsigned long long)sx.stx_size, (unsigned)sx.stx_mode);
		} else if (!strcmp(a, "handler")) {
			struct sigaction sa;
			memset(&sa, 0, sizeof sa);
			sa.sa_sigaction = on_sigsys;
			sa.sa_flags = SA_SIGINFO;
			if (sigaction(SIGSYS, &sa, NULL))
				perror("sigaction");
		} else if (!strcmp(a, "trapped")) {
			printf("trapped %d code %d syscall %d arch %#x errno %d\n", trapped, t_code,
			       t_syscall, t_arch, t_errno);
		} else if (!strcmp(a, "pid")) {
			printf("pid %d\n", (int)getpid());
		} else if (!strcmp(a, "sleep") && i + 1 < argc) {
			long ms = atol(argv[++i]);
			struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
			nanosleep(&ts, NULL);
		} else if (!strcmp(a, "sys") && i + 7 < argc) {
			unsigned long long v[7];
			int k;
			for (k = 0; k < 7; k++)
				v[k] = strtoull(argv[++i], NULL, 0);
			r = syscall((long)v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
			printf("sys %llu %ld %d\n", v[0], r, r < 0 ? errno : 0);
		} else if (!strcmp(a, "clone3")) {
			r = syscall(SYS_clone3, NULL, 0);
			printf("clone3 %ld %d\n", r, r < 0 ? errno : 0);
		} else {
			fprintf(stderr, "act_calls: unknown command '%s'\n", a);
			return 2;
		}
		fflush(stdout);
	}
	return 0;
}
