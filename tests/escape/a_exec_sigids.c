// escape: a signal handler sets the ids apart during the library's exec
// expect: interpose=stop trusted=stop run=stop
// policy: *: 1; io_uring_setup: 0; openat: !(flags & O_CREAT) || (flags & O_TRUNC); open: !(flags & O_CREAT); creat: 0
/* The kernel starts an image in secure mode, whose loader ignores
 * LD_PRELOAD, when the exec'ing thread's effective gid differs from its
 * real one.  The library reads the ids early in its exec path and execs
 * at its end; a signal handler that runs in between, on the exec'ing
 * thread, can set them apart (glibc's setresgid does so on every thread,
 * through a signal).  So each child arms a handler that calls
 * setresgid(0, 65534, 0), has a thread signal it after a random spin,
 * and execs h_nolibc (a dynamic program): an image started in secure
 * mode runs without the library and makes the marker.  Needs root. */
#include "escape.h"

#include <pthread.h>
#include <sys/wait.h>

static pid_t tid_main;
static volatile unsigned spin;

static void apart(int sig)
{
	(void)sig;
	raw_syscall(SYS_setresgid, 0, 65534, 0, 0, 0, 0);
}

static void *poke(void *arg)
{
	unsigned i;

	(void)arg;
	for (i = 0; i < spin; i++)
		__asm__ volatile("" ::: "memory");
	raw_syscall(SYS_tgkill, getpid(), tid_main, SIGUSR1, 0, 0, 0);
	return NULL;
}

/* Child i: the handler armed, a thread to poke it after a spin of its
 * own length (0 to about 100 us), and the exec. */
static void exec_poked(int i, void *args)
{
	extern char **environ;
	struct sigaction sa;
	pthread_t th;

	spin = (unsigned)(i * 7919u) % 200000u;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = apart;
	sigaction(SIGUSR1, &sa, NULL);
	tid_main = (pid_t)raw_syscall(SYS_gettid, 0, 0, 0, 0, 0, 0);
	pthread_create(&th, NULL, poke, NULL);
	execve(((char **)args)[0], args, environ);
}

int main(int argc, char **argv)
{
	char prog[4096];
	char *args[] = { escape_path(prog, sizeof prog, "h_nolibc"), argv[1], NULL };

	(void)argc;
	if (getuid() != 0) {
		printf("not root: cannot set the effective gid apart\n");
		return 77;
	}
	race_children(argv[1], 2000, 5, exec_poked, args);
	return 0;
}
