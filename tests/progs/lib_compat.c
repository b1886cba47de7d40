/* A test program for the corners of libsecfilter.so that a review found
 * wrong: it does what its first argument says and prints what it saw, so
 * that a filtered run can be compared with an unfiltered one.
 *   fstat-cwd          fstat(AT_FDCWD): glibc says EBADF without a call
 *   utimensat-null F   utimensat(fd, NULL, times, 0): glibc says EINVAL
 *   cns                clock_nanosleep on the CPU-time clocks
 *   fdopendir D        fdopendir on an fd without FD_CLOEXEC; fdopendir(AT_FDCWD)
 *   mask-syscall       syscall(SYS_rt_sigprocmask, SIG_BLOCK, {SIGUSR1})
 *   mask-sigblock      sigblock(SIGUSR2) (libc's internal rt_sigprocmask)
 *   altstack-raw       replace the alternate signal stack through a raw
 *                      syscall instruction
 *   sigsys-forward     signal(SIGSYS, h), kill(self, SIGSYS); h calls stdio
 *   apply-eintr        a thread blocked in read() while the first policy
 *                      is applied through the API
 *   errno-apply        errno survives a successful secfilter_apply
 *   title PROG ARG...  overwrite the argv/environment area the way
 *                      setproctitle() does, then exec PROG
 *   title-violate      the same, then getppid()
 *   fexecve-path PROG ARG...   fexecve of an O_PATH descriptor
 *   execveat-null PROG         execveat(fd, NULL, ..., AT_EMPTY_PATH)
 *   execve-nullenv PROG ARG... execve with envp == NULL
 *   setresuid-exec PROG ARG... real uid 65534, effective uid 0, exec PROG
 *   dropuid-exec PROG ARG...   become uid/gid 65534 entirely, exec PROG
 *   clone3             clone3 with a NULL, a short and a long struct
 *   clone-stack        fork-like clone and clone3 given a new stack (with
 *                      CLONE_CLEAR_SIGHAND): where the child runs, what
 *                      it inherits
 *   spawn-getppid PROG posix_spawn PROG and wait, then getppid()
 *   exec PROG ARG...   execv(PROG, [PROG, ARG...]); prints the error
 *   spawn-vmsize N PROG  posix_spawn PROG N times, waiting for each;
 *                      prints how much VmSize grew after the first
 *   forge-i386         sends itself the SIGSYS Syscall User Dispatch
 *                      raises for a 32-bit openat (int $0x80), which this
 *                      kernel may not be able to make
 *   nr N               syscall(N) */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/sched.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../escape/escape.h"

extern char **environ;

static const char *ename(int e)
{
	return e ? strerrorname_np(e) : "0";
}

/* The child of a clone given a new stack: the compiler's frame is not
 * there, so it starts in child_main through a register (clone_run). */
static char *child_stack;
static size_t child_stack_size;

static void child_main(void)
{
	char here;
	struct sigaction sa;
	int code = 0;

	if (&here < child_stack || &here >= child_stack + child_stack_size)
		code |= 1; /* not on the new stack */
	sigaction(SIGUSR1, NULL, &sa);
	if (sa.sa_handler != SIG_DFL)
		code |= 2; /* the handler was not cleared */
	sigaction(SIGUSR2, NULL, &sa);
	if (sa.sa_handler != SIG_IGN)
		code |= 4; /* an ignored signal must stay ignored */
	_exit(code);
}

static void on_usr1(int sig)
{
	(void)sig;
}

static void clone_stack(void)
{
	struct clone_args ca;
	int status;
	long pid;

	child_stack_size = 64 << 10;
	child_stack = malloc(child_stack_size);
	signal(SIGUSR1, on_usr1);
	signal(SIGUSR2, SIG_IGN);
	pid = clone_run(SYS_clone, SIGCHLD, (long)(child_stack + child_stack_size), 0, 0, 0,
			child_main);
	status = 0;
	if (pid > 0)
		waitpid((pid_t)pid, &status, 0);
	printf("clone(stack) %s %d\n", pid < 0 ? ename((int)-pid) : "child", WEXITSTATUS(status));
	memset(&ca, 0, sizeof ca);
	ca.flags = CLONE_CLEAR_SIGHAND;
	ca.exit_signal = SIGCHLD;
	ca.stack = (uintptr_t)child_stack;
	ca.stack_size = child_stack_size;
	pid = clone_run(SYS_clone3, (long)&ca, sizeof ca, 0, 0, 0, child_main);
	status = 0;
	if (pid > 0)
		waitpid((pid_t)pid, &status, 0);
	printf("clone3(stack, CLEAR_SIGHAND) %s %d\n", pid < 0 ? ename((int)-pid) : "child",
	       WEXITSTATUS(status));
	ca.stack_size = 0;
	pid = clone_run(SYS_clone3, (long)&ca, sizeof ca, 0, 0, 0, child_main);
	printf("clone3(stack, size 0) %s\n", pid < 0 ? ename((int)-pid) : "child");
}

static long vmsize_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "VmSize: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

static void spawn_vmsize(int n, char *prog)
{
	char *args[] = { prog, NULL };
	long first = 0;
	int i;

	for (i = 0; i < n; i++) {
		pid_t pid;
		int st;
		if (posix_spawn(&pid, prog, NULL, NULL, args, environ) != 0 ||
		    waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			printf("spawn %d failed\n", i);
			return;
		}
		if (i == 0)
			first = vmsize_kb();
	}
	printf("%d spawns: VmSize grew %ld kB after the first\n", n, vmsize_kb() - first);
}

static int (*find_apply(void))(const char *)
{
	int (*apply)(const char *) = (int (*)(const char *))dlsym(RTLD_DEFAULT, "secfilter_apply");

	if (!apply) {
		fprintf(stderr, "lib_compat: the secfilter API is not there\n");
		exit(2);
	}
	return apply;
}

static int sig_blocked(int sig)
{
	sigset_t cur;

	sigprocmask(SIG_BLOCK, NULL, &cur);
	return sigismember(&cur, sig);
}

static void on_sigsys(int sig)
{
	(void)sig;
	/* stdio's write is made inside libc: a trapped call. */
	printf("program's SIGSYS handler\n");
	fflush(stdout);
}

static int pipefd[2];

static void *reader(void *arg)
{
	char c;
	ssize_t r;

	(void)arg;
	r = read(pipefd[0], &c, 1);
	printf("read %zd %s\n", r, r < 0 ? ename(errno) : "");
	return NULL;
}

/* What setproctitle() implementations do: move the arguments and the
 * environment away, then reuse the contiguous area the kernel laid their
 * strings out in for the title.  Returns the copy of argv. */
static char **clobber_title(int argc, char **argv)
{
	char *start = argv[0], *end = argv[argc - 1] + strlen(argv[argc - 1]) + 1;
	char **args = calloc((size_t)argc + 1, sizeof *args), **env;
	int n = 0, i;

	while (environ[n])
		n++;
	env = calloc((size_t)n + 1, sizeof *env);
	for (i = 0; i < n; i++) {
		char *e = environ[i] + strlen(environ[i]) + 1;
		env[i] = strdup(environ[i]);
		if (environ[i] >= start && e > end)
			end = e;
	}
	for (i = 0; i < argc; i++)
		args[i] = strdup(argv[i]);
	environ = env;
	memset(start, 'X', (size_t)(end - start) - 1);
	end[-1] = '\0';
	return args;
}

static long raw2(long nr, long a, long b)
{
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "0"(nr), "D"(a), "S"(b) : "rcx", "r11", "memory");
	return r;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	struct stat st;
	int r;

	if (!strcmp(what, "fstat-cwd")) {
		errno = 0;
		r = fstat(AT_FDCWD, &st);
		printf("fstat(AT_FDCWD) %d %s\n", r, ename(errno));
	} else if (!strcmp(what, "utimensat-null")) {
		struct timespec ts[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
		int fd = open(argv[2], O_RDWR);
		const char *volatile nopath = NULL; /* glibc declares it nonnull */
		errno = 0;
		r = utimensat(fd, nopath, ts, 0);
		printf("utimensat(fd, NULL) %d %s\n", r, ename(errno));
		fstat(fd, &st);
		printf("mtime %s\n", st.st_mtime == 1000000000 ? "changed" : "kept");
	} else if (!strcmp(what, "cns")) {
		struct timespec ts = { 0, 1 };
		r = clock_nanosleep(CLOCK_THREAD_CPUTIME_ID, 0, &ts, NULL);
		printf("clock_nanosleep(CLOCK_THREAD_CPUTIME_ID) %s\n", ename(r));
		/* An absolute time in the past returns at once. */
		r = clock_nanosleep(CLOCK_PROCESS_CPUTIME_ID, TIMER_ABSTIME, &ts, NULL);
		printf("clock_nanosleep(CLOCK_PROCESS_CPUTIME_ID) %s\n", ename(r));
	} else if (!strcmp(what, "fdopendir")) {
		int fd = open(argv[2], O_RDONLY | O_DIRECTORY);
		DIR *d = fdopendir(fd);
		printf("fdopendir %s, FD_CLOEXEC %d\n", d ? "ok" : ename(errno),
		       (fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
		errno = 0;
		d = fdopendir(AT_FDCWD);
		printf("fdopendir(AT_FDCWD) %s %s\n", d ? "a stream" : "NULL", ename(errno));
	} else if (!strcmp(what, "mask-syscall")) {
		sigset_t s;
		sigemptyset(&s);
		sigaddset(&s, SIGUSR1);
		syscall(SYS_rt_sigprocmask, SIG_BLOCK, &s, NULL, 8);
		printf("SIGUSR1 blocked %d\n", sig_blocked(SIGUSR1));
		syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &s, NULL, 8);
		printf("SIGUSR1 blocked %d\n", sig_blocked(SIGUSR1));
	} else if (!strcmp(what, "mask-sigblock")) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
		sigblock(1 << (SIGUSR2 - 1)); /* a BSD relic, still in glibc */
#pragma GCC diagnostic pop
		printf("SIGUSR2 blocked %d\n", sig_blocked(SIGUSR2));
		/* raise() blocks and restores every signal itself. */
		raise(SIGWINCH);
		printf("SIGUSR2 blocked %d\n", sig_blocked(SIGUSR2));
	} else if (!strcmp(what, "altstack-raw")) {
		stack_t first = { .ss_sp = malloc(1 << 16), .ss_size = 1 << 16 };
		stack_t ss = { .ss_sp = malloc(1 << 16), .ss_size = 1 << 16 }, o;
		sigaltstack(&first, NULL);
		raw2(SYS_sigaltstack, (long)&ss, 0);
		sigaltstack(NULL, &o);
		printf("altstack set %d\n", o.ss_sp == ss.ss_sp && o.ss_size == ss.ss_size);
		memset(&o, 0, sizeof o);
		raw2(SYS_sigaltstack, 0, (long)&o);
		printf("altstack seen %d\n", o.ss_sp == ss.ss_sp && !(o.ss_flags & SS_DISABLE));
	} else if (!strcmp(what, "sigsys-forward")) {
		signal(SIGSYS, on_sigsys);
		kill(getpid(), SIGSYS);
		printf("after\n");
	} else if (!strcmp(what, "apply-eintr")) {
		int (*apply)(const char *) = find_apply();
		struct timespec ts = { 0, 100000000 };
		pthread_t t;
		if (pipe(pipefd) < 0)
			return 1;
		pthread_create(&t, NULL, reader, NULL);
		nanosleep(&ts, NULL);
		r = apply("*: 1");
		printf("apply %d\n", r);
		fflush(stdout);
		if (write(pipefd[1], "x", 1) < 0)
			return 1;
		pthread_join(t, NULL);
	} else if (!strcmp(what, "errno-apply")) {
		int (*apply)(const char *) = find_apply();
		errno = 1234;
		r = apply("*: 1");
		printf("apply %d errno %d\n", r, errno);
	} else if (!strcmp(what, "title") || !strcmp(what, "title-violate")) {
		char **args = clobber_title(argc, argv);
		if (!strcmp(args[1], "title-violate")) {
			getppid();
			printf("not reached\n");
			return 0;
		}
		execv(args[2], args + 2);
		perror("execv");
		return 1;
	} else if (!strcmp(what, "fexecve-path")) {
		int fd = open(argv[2], O_PATH | O_CLOEXEC);
		fexecve(fd, argv + 2, environ);
		printf("fexecve %s\n", ename(errno));
	} else if (!strcmp(what, "execveat-null")) {
		int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
		r = (int)syscall(SYS_execveat, fd, NULL, argv + 2, environ, AT_EMPTY_PATH);
		printf("execveat(fd, NULL) %d %s\n", r, ename(errno));
	} else if (!strcmp(what, "execve-nullenv")) {
		r = (int)syscall(SYS_execve, argv[2], argv + 2, NULL);
		printf("execve %d %s\n", r, ename(errno));
	} else if (!strcmp(what, "setresuid-exec")) {
		if (setresuid(65534, 0, 0) < 0) {
			perror("setresuid");
			return 1;
		}
		execv(argv[2], argv + 2);
		printf("execv %s\n", ename(errno));
	} else if (!strcmp(what, "clone3")) {
		/* The kernel checks the struct before it creates anything. */
		struct {
			struct clone_args a;
			unsigned char more[112]; /* a newer, longer struct */
		} ca;
		long pid;
		int status = 0;
		memset(&ca, 0, sizeof ca);
		ca.a.exit_signal = SIGCHLD;
		pid = syscall(SYS_clone3, NULL, sizeof ca.a);
		if (pid == 0)
			_exit(0);
		printf("clone3(NULL) %s\n", pid < 0 ? ename(errno) : "made a child");
		pid = syscall(SYS_clone3, &ca, 32);
		if (pid == 0)
			_exit(0);
		printf("clone3(size 32) %s\n", pid < 0 ? ename(errno) : "made a child");
		pid = syscall(SYS_clone3, &ca, sizeof ca);
		if (pid == 0)
			_exit(7);
		if (pid > 0)
			waitpid((pid_t)pid, &status, 0);
		printf("clone3(longer, zero tail) %s %d\n", pid < 0 ? ename(errno) : "child",
		       WEXITSTATUS(status));
		ca.more[100] = 1;
		pid = syscall(SYS_clone3, &ca, sizeof ca);
		if (pid == 0)
			_exit(0);
		printf("clone3(longer, tail) %s\n", pid < 0 ? ename(errno) : "made a child");
	} else if (!strcmp(what, "clone-stack")) {
		clone_stack();
	} else if (!strcmp(what, "spawn-getppid")) {
		pid_t pid;
		int status = 0;
		r = posix_spawn(&pid, argv[2], NULL, NULL, argv + 2, environ);
		if (r == 0)
			waitpid(pid, &status, 0);
		printf("spawn %d, child %s %d\n", r, WIFSIGNALED(status) ? "signal" : "status",
		       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		fflush(stdout);
		getppid();
		printf("getppid allowed\n");
	} else if (!strcmp(what, "dropuid-exec")) {
		if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
		    setresuid(65534, 65534, 65534) < 0) {
			perror("drop");
			return 1;
		}
		execv(argv[2], argv + 2);
		printf("execv %s\n", ename(errno));
	} else if (!strcmp(what, "spawn-vmsize")) {
		spawn_vmsize(atoi(argv[2]), argv[3]);
	} else if (!strcmp(what, "forge-i386")) {
		/* What the kernel sends when an armed thread makes an i386
		 * openat: SYS_USER_DISPATCH, si_arch AUDIT_ARCH_I386, the
		 * i386 number 295 (x86-64's preadv). */
		siginfo_t si;
		memset(&si, 0, sizeof si);
		si.si_signo = SIGSYS;
		si.si_code = 2; /* SYS_USER_DISPATCH */
		si.si_syscall = 295;
		si.si_arch = 0x40000003; /* AUDIT_ARCH_I386 */
		r = (int)syscall(SYS_rt_tgsigqueueinfo, getpid(), gettid(), SIGSYS, &si);
		printf("forged: %d\n", r);
	} else if (!strcmp(what, "exec")) {
		execv(argv[2], argv + 2);
		printf("exec %s: %s\n", argv[2], ename(errno));
	} else if (!strcmp(what, "nr")) {
		syscall(atol(argv[2]), 0, 0, 0, 0, 0, 0);
		printf("returned\n");
	} else {
		fprintf(stderr, "lib_compat: unknown step '%s'\n", what);
		return 2;
	}
	return 0;
}
