// escape: a signal handler run while setlocale loads a locale
// expect: interpose=stop trusted=stop run=stop
// policy: *: 1; io_uring_setup: 0; creat: 0; getppid: return EPERM
// env: LC_ALL=C.UTF-8
/* The library runs libc's setlocale with dispatch off when it loads the
 * environment's locale under a policy that allows everything that loading
 * does (preload/interpose/locale.c); a handler run meanwhile would be the
 * program's code, unfiltered.  Children load the locale one after the
 * other (a window of some 40 us each, once a process) while a timer
 * fires every 20 us.  The handler asks getppid, which the policy answers
 * EPERM: a real answer means no filter saw the call, and it then makes
 * the forbidden one.  Every signal must wait for dispatch to be back. */
#include <locale.h>
#include <signal.h>
#include <sys/time.h>

#include "escape.h"

static const char *marker;
static volatile sig_atomic_t inside;

static void on_alarm(int sig)
{
	(void)sig;
	if (inside && raw_syscall(SYS_getppid, 0, 0, 0, 0, 0, 0) > 0)
		raw_syscall(SYS_creat, (long)marker, 0600, 0, 0, 0, 0);
}

int main(int argc, char **argv)
{
	struct itimerval t = { { 0, 20 }, { 0, 20 } };
	int i, st;

	(void)argc;
	marker = argv[1];
	signal(SIGALRM, on_alarm);
	for (i = 0; i < 20 && access(marker, F_OK) != 0; i++) {
		pid_t p = fork();
		if (p == 0) {
			setitimer(ITIMER_REAL, &t, NULL);
			inside = 1;
			setlocale(LC_ALL, "");
			inside = 0;
			_exit(0);
		}
		if (p < 0)
			return 1;
		waitpid(p, &st, 0);
	}
	return 0;
}
