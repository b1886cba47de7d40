/* A test program for the secfilter command's tests: does what its
 * arguments say, in order, with raw syscalls where the exact call matters.
 *   out TEXT     write TEXT and a newline to stdout
 *   touch FILE   create FILE (a marker that the program's code ran)
 *   getppid      call getppid (a syscall a policy can leave out)
 *   fork         fork a child that calls getuid, and wait for it
 *   thread       run a thread that calls getgid, and join it
 *   latejoin     the same, but join it only 200 ms later, when it has
 *                ended (the join then makes no futex call)
 *   sleep SECS   sleep
 *   kill SIG     send itself signal SIG
 *   exit N       exit with status N
 *   nodump       make itself not dumpable (prctl PR_SET_DUMPABLE 0)
 *   catch FILE   catch every signal it can, create FILE, then wait for one
 *                and write "got N" ("got N value V" for a queued one)
 *   sigqueue PID SIG VALUE   queue SIG with VALUE to PID
 *   sigsys       handle SIGSYS (write "sigsys" and go on): a program that
 *                would outlive a SIGSYS sent to end it
 * cli_prog-static.c is the same program, linked -static. */
#include <fcntl.h>
#include <stdio.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void *thread_main(void *arg)
{
	(void)arg;
	syscall(SYS_getgid);
	return NULL;
}

static volatile sig_atomic_t got_sig;
static volatile int got_value, got_queued;

static void on_signal(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	if (!got_sig) {
		got_queued = si->si_code == SI_QUEUE;
		got_value = si->si_value.sival_int;
		got_sig = sig;
	}
}

static void catch_all(const char *ready)
{
	struct sigaction sa;
	char line[64];
	int sig, fd;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	for (sig = 1; sig < NSIG; sig++)
		sigaction(sig, &sa, NULL); /* KILL, STOP, glibc's own: refused */
	fd = open(ready, O_WRONLY | O_CREAT, 0644);
	if (fd >= 0)
		close(fd);
	while (!got_sig)
		pause();
	if (got_queued)
		snprintf(line, sizeof(line), "got %d value %d", (int)got_sig, got_value);
	else
		snprintf(line, sizeof(line), "got %d", (int)got_sig);
	if (write(1, line, strlen(line)) < 0 || write(1, "\n", 1) < 0)
		_exit(99);
}

static void say(const char *s)
{
	if (write(1, s, strlen(s)) < 0 || write(1, "\n", 1) < 0)
		_exit(99);
}

static void on_sigsys(int sig)
{
	(void)sig;
	say("sigsys");
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";

		if (strcmp(a, "out") == 0) {
			say(v);
			i++;
		} else if (strcmp(a, "touch") == 0) {
			int fd = open(v, O_WRONLY | O_CREAT, 0644);
			if (fd >= 0)
				close(fd);
			i++;
		} else if (strcmp(a, "getppid") == 0) {
			syscall(SYS_getppid);
		} else if (strcmp(a, "fork") == 0) {
			pid_t p = fork();
			if (p == 0) {
				syscall(SYS_getuid);
				_exit(0);
			}
			waitpid(p, NULL, 0);
		} else if (strcmp(a, "thread") == 0 || strcmp(a, "latejoin") == 0) {
			pthread_t t;
			pthread_create(&t, NULL, thread_main, NULL);
			if (a[0] == 'l') {
				struct timespec ts = { 0, 200000000 };
				nanosleep(&ts, NULL);
			}
			pthread_join(t, NULL);
		} else if (strcmp(a, "sleep") == 0) {
			struct timespec ts = { atoi(v), 0 };
			nanosleep(&ts, NULL);
			i++;
		} else if (strcmp(a, "kill") == 0) {
			kill(getpid(), atoi(v));
			i++;
		} else if (strcmp(a, "exit") == 0) {
			_exit(atoi(v));
		} else if (strcmp(a, "sigsys") == 0) {
			signal(SIGSYS, on_sigsys);
		} else if (strcmp(a, "nodump") == 0) {
			prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
		} else if (strcmp(a, "catch") == 0) {
			catch_all(v);
			i++;
		} else if (strcmp(a, "sigqueue") == 0 && i + 3 < argc) {
			union sigval val = { .sival_int = atoi(argv[i + 3]) };
			if (sigqueue(atoi(v), atoi(argv[i + 2]), val) < 0)
				return 3;
			i += 3;
		} else {
			say("cli_prog: unknown action");
			return 2;
		}
	}
	return 0;
}
