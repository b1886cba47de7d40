/* A test program for libsecfilter.so's end-to-end tests: prints
 * "main ran" and then does what its arguments say, in order.
 *   wrapper        write(2, ...) through libc's exported write()
 *   syscall        syscall(SYS_write, 2, ...)
 *   stdio          fprintf(stderr, ...): a write inside libc
 *   raw            a `syscall` instruction in this program (write to fd 2)
 *   thread         a second thread writes to fd 2 (through libc)
 *   threads N      N threads each write "t" to stdout and are joined
 *   fork           a child writes to fd 2; the parent prints its status
 *   clearenv-exec PROG ARG...   clear the environment and exec PROG
 *   spawn PROG ARG...   posix_spawn PROG and wait (prints "spawn status N")
 *   vfork PROG ARG...   vfork + execv PROG and wait (prints "vfork status N")
 *   apply POLICY   secfilter_apply(POLICY) (prints "apply 0" or "apply -1 ERRNO")
 *   mode           prints "mode N" (secfilter_mode)
 *   signal         signal(SIGUSR1, h) then raise it; h writes "handled"
 *   sigaction-full a SIGUSR1 handler with a full sa_mask that calls getppid
 *   blockall       block every signal, then getppid and print "blocked ok"
 *   sigsys         install a SIGSYS handler; prints what sigaction gives back
 *   sigsys-disp    prints "sigsys SIG_DFL", "sigsys SIG_IGN" or "sigsys handler"
 *   getppid        getppid()
 *   out TEXT       TEXT and a newline to stdout (write through libc)
 *   comm           prints "comm NAME", the process's name in /proc
 *   environ        prints the environment, one variable a line
 *   sleep MS       nanosleep */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../escape/escape.h"

extern char **environ;

/* The API through dlsym: the library is preloaded, not linked. */
static int (*api_apply)(const char *);
static const char *(*api_error)(void);
static int (*api_mode)(void);

static void find_api(void)
{
	api_apply = (int (*)(const char *))dlsym(RTLD_DEFAULT, "secfilter_apply");
	api_error = (const char *(*)(void))dlsym(RTLD_DEFAULT, "secfilter_error");
	api_mode = (int (*)(void))dlsym(RTLD_DEFAULT, "secfilter_mode");
	if (!api_apply || !api_error || !api_mode) {
		fprintf(stderr, "lib_probe: the secfilter API is not there\n");
		exit(2);
	}
}

static void out(const char *s)
{
	if (write(1, s, strlen(s)) < 0)
		_exit(3);
}

static void *thread_write(void *arg)
{
	(void)arg;
	if (write(2, "thread\n", 7) < 0)
		return NULL;
	return NULL;
}

static void *thread_out(void *arg)
{
	(void)arg;
	out("t\n");
	return NULL;
}

static void on_usr1(int sig)
{
	(void)sig;
	out("handled\n");
}

static void on_usr1_getppid(int sig)
{
	(void)sig;
	getppid();
}

static void status_line(const char *what, int st)
{
	char buf[64];

	if (WIFSIGNALED(st))
		snprintf(buf, sizeof buf, "%s signal %d\n", what, WTERMSIG(st));
	else
		snprintf(buf, sizeof buf, "%s status %d\n", what, WEXITSTATUS(st));
	out(buf);
}

static int run(char **argv)
{
	char buf[128];
	int st;

	if (!strcmp(argv[0], "wrapper")) {
		if (write(2, "wrapper\n", 8) < 0)
			return 1;
	} else if (!strcmp(argv[0], "syscall")) {
		syscall(SYS_write, 2, "syscall\n", 8);
	} else if (!strcmp(argv[0], "stdio")) {
		fprintf(stderr, "stdio\n");
	} else if (!strcmp(argv[0], "raw")) {
		raw_syscall(SYS_write, 2, (long)"raw\n", 4, 0, 0, 0);
	} else if (!strcmp(argv[0], "thread")) {
		pthread_t t;
		pthread_create(&t, NULL, thread_write, NULL);
		pthread_join(t, NULL);
	} else if (!strcmp(argv[0], "threads")) {
		int i, n = atoi(argv[1]);
		pthread_t t[64];
		for (i = 0; i < n && i < 64; i++)
			pthread_create(&t[i], NULL, thread_out, NULL);
		for (i = 0; i < n && i < 64; i++)
			pthread_join(t[i], NULL);
		return 2;
	} else if (!strcmp(argv[0], "fork")) {
		pid_t p = fork();
		if (p == 0) {
			if (write(2, "child\n", 6) < 0)
				_exit(1);
			_exit(0);
		}
		waitpid(p, &st, 0);
		status_line("fork", st);
	} else if (!strcmp(argv[0], "clearenv-exec")) {
		clearenv();
		execv(argv[1], argv + 1);
		perror("execv");
		return -1;
	} else if (!strcmp(argv[0], "spawn")) {
		pid_t p;
		if (posix_spawn(&p, argv[1], NULL, NULL, argv + 1, environ) != 0)
			return -1;
		waitpid(p, &st, 0);
		status_line("spawn", st);
		return -1;
	} else if (!strcmp(argv[0], "vfork")) {
		pid_t p = vfork();
		if (p == 0) {
			execv(argv[1], argv + 1);
			_exit(127);
		}
		waitpid(p, &st, 0);
		status_line("vfork", st);
		return -1;
	} else if (!strcmp(argv[0], "apply")) {
		int r;
		find_api();
		r = api_apply(argv[1]);
		snprintf(buf, sizeof buf, r == 0 ? "apply 0\n" : "apply -1 %s\n",
			 r == 0 ? "" : strerrorname_np(errno));
		out(buf);
		if (r)
			fprintf(stdout, "%s\n", api_error());
		fflush(stdout);
		return 2;
	} else if (!strcmp(argv[0], "mode")) {
		find_api();
		snprintf(buf, sizeof buf, "mode %d\n", api_mode());
		out(buf);
	} else if (!strcmp(argv[0], "signal")) {
		signal(SIGUSR1, on_usr1);
		raise(SIGUSR1);
	} else if (!strcmp(argv[0], "sigaction-full")) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_usr1_getppid;
		sigfillset(&sa.sa_mask);
		sigaction(SIGUSR1, &sa, NULL);
		raise(SIGUSR1);
		out("full ok\n");
	} else if (!strcmp(argv[0], "blockall")) {
		sigset_t all;
		sigfillset(&all);
		sigprocmask(SIG_BLOCK, &all, NULL);
		getppid();
		out("blocked ok\n");
	} else if (!strcmp(argv[0], "sigsys")) {
		struct sigaction sa, old;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_usr1;
		sigaction(SIGSYS, &sa, NULL);
		sigaction(SIGSYS, NULL, &old);
		out(old.sa_handler == on_usr1 ? "sigsys shadow ok\n" : "sigsys shadow wrong\n");
	} else if (!strcmp(argv[0], "sigsys-disp")) {
		struct sigaction old;
		sigaction(SIGSYS, NULL, &old);
		out(old.sa_handler == SIG_DFL ? "sigsys SIG_DFL\n"
		    : old.sa_handler == SIG_IGN ? "sigsys SIG_IGN\n" : "sigsys handler\n");
	} else if (!strcmp(argv[0], "getppid")) {
		getppid();
	} else if (!strcmp(argv[0], "comm")) {
		FILE *f = fopen("/proc/self/comm", "r");
		char name[32] = "?\n";
		if (f && !fgets(name, sizeof name, f))
			strcpy(name, "?\n");
		if (f)
			fclose(f);
		snprintf(buf, sizeof buf, "comm %s", name);
		out(buf);
	} else if (!strcmp(argv[0], "environ")) {
		char **e;
		for (e = environ; *e; e++) {
			snprintf(buf, sizeof buf, "%s\n", *e);
			out(buf);
		}
	} else if (!strcmp(argv[0], "out")) {
		snprintf(buf, sizeof buf, "%s\n", argv[1]);
		out(buf);
		return 2;
	} else if (!strcmp(argv[0], "sleep")) {
		long ms = atol(argv[1]);
		struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };
		nanosleep(&ts, NULL);
		return 2;
	} else {
		fprintf(stderr, "lib_probe: unknown step %s\n", argv[0]);
		exit(2);
	}
	return 1;
}

int main(int argc, char **argv)
{
	int i = 1;

	(void)argc;
	out("main ran\n");
	while (argv[i]) {
		int used = run(argv + i);
		if (used < 0)
			break;
		i += used;
	}
	out("main done\n");
	return 0;
}
