// escape: a signal handler run while setlocale loads a locale
// expect: interpose=stop trusted=stop run=stop
// policy: *: 1; io_uring_setup: 0; creat: 0
// env: LC_ALL=C.UTF-8
/* The library runs libc's setlocale with dispatch off when the policy
 * allows everything loading a locale does (preload/locale.c); a handler
 * run meanwhile would be the program's code, unfiltered.  A timer fires
 * every 50 us while setlocale runs in a loop, and the handler, when it
 * interrupts setlocale, makes the forbidden call: every signal must wait
 * for dispatch to be back. */
#include <locale.h>
#include <signal.h>
#include <sys/time.h>
#include <time.h>

#include "escape.h"

static const char *marker;
static volatile sig_atomic_t inside, hits;

static void on_alarm(int sig)
{
	(void)sig;
	if (inside) {
		hits++;
		raw_syscall(SYS_creat, (long)marker, 0600, 0, 0, 0, 0);
	}
}

int main(int argc, char **argv)
{
	struct itimerval t = { { 0, 50 }, { 0, 50 } };
	struct timespec start, now;
	unsigned i;

	(void)argc;
	marker = argv[1];
	signal(SIGALRM, on_alarm);
	setitimer(ITIMER_REAL, &t, NULL);
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0; hits < 20; i++) {
		inside = 1;
		/* C.UTF-8's files once, then each name from what libc keeps */
		setlocale(LC_ALL, i & 1 ? "C" : "C.UTF-8");
		inside = 0;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec > 3)
			break;
	}
	return 0;
}
