/* A test program for secfilter learn's tests: calls that a run makes or
 * not as what happens to it has it, and socket options.
 *   timing    handle SIGUSR1 and SIGALRM, start a thread, sleep 1 ms, write
 *             "ready PID", then read standard input to its end, line by line:
 *               yield   sched_yield until the thread has ended (once at least)
 *               alarm   arm a 1 ms timer (setitimer) and spin until its
 *                       SIGALRM has come
 *               sleep   sleep for a minute, or until a signal
 *             and at the end join the thread and write "signals N", the
 *             signals handled.  With no input (learn's run) it makes none
 *             of sched_yield, setitimer, rt_sigreturn, restart_syscall.
 *   sockopt [OPTION...]   on a TCP socket set SO_REUSEADDR at SOL_SOCKET
 *             and TCP_NODELAY at IPPROTO_TCP, then each OPTION:
 *               keepalive   SO_KEEPALIVE at SOL_SOCKET
 *               cross       SO_DEBUG at SOL_SOCKET: TCP_NODELAY's number at
 *                           the other level
 *             and write "ok". */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t handled, alarmed, thread_done;

static void on_signal(int sig)
{
	handled++;
	if (sig == SIGALRM)
		alarmed = 1;
}

static void *thread_main(void *arg)
{
	thread_done = 1;
	return arg;
}

static int timing(void)
{
	struct sigaction sa;
	pthread_t t;
	char line[64];

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART; /* the read of stdin goes on after a signal */
	if (sigaction(SIGUSR1, &sa, NULL) < 0 || sigaction(SIGALRM, &sa, NULL) < 0 ||
	    pthread_create(&t, NULL, thread_main, NULL) != 0)
		return 1;
	nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (fgets(line, sizeof line, stdin)) {
		if (strcmp(line, "yield\n") == 0) {
			do
				sched_yield();
			while (!thread_done);
		} else if (strcmp(line, "alarm\n") == 0) {
			struct itimerval it = { { 0, 0 }, { 0, 1000 } };
			if (setitimer(ITIMER_REAL, &it, NULL) < 0)
				return 1;
			while (!alarmed)
				;
		} else if (strcmp(line, "sleep\n") == 0) {
			nanosleep(&(struct timespec){ 60, 0 }, NULL);
		}
	}
	pthread_join(t, NULL);
	printf("signals %d\n", (int)handled);
	return 0;
}

static int set(int fd, int level, int name)
{
	int one = 1;

	return setsockopt(fd, level, name, &one, sizeof one);
}

static int sockopt(char **opts)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 || set(fd, SOL_SOCKET, SO_REUSEADDR) < 0 || set(fd, IPPROTO_TCP, TCP_NODELAY) < 0)
		return 1;
	for (; *opts; opts++) {
		if (strcmp(*opts, "keepalive") == 0 && set(fd, SOL_SOCKET, SO_KEEPALIVE) < 0)
			return 1;
		if (strcmp(*opts, "cross") == 0 && set(fd, SOL_SOCKET, SO_DEBUG) < 0)
			return 1;
	}
	puts("ok");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "timing") == 0)
		return timing();
	if (argc >= 2 && strcmp(argv[1], "sockopt") == 0)
		return sockopt(argv + 2);
	fprintf(stderr, "usage: cli_learn timing | sockopt [keepalive|cross]...\n");
	return 2;
}
