// escape: flood and forge the kill's report channel (listener's SIGSYS, many denied at once)
// expect: interpose=stop trusted=stop run=stop
/* Trusted mode's report of a kill comes from a listener outside the
 * program (preload/notify.c, tools/listen.c), which answers the kernel's
 * notification of a denied call by killing the caller.  This attempt
 * tries to make it answer anything else: 48 processes at once (more than
 * the listener tracks as dying), each with 3 threads that keep making the
 * denied call, some blocking SIGSYS, some ignoring it, some with their
 * own SIGSYS handler that makes the call again; it forges the listener's
 * SIGSYS (SI_QUEUE with its mark) to itself and the others before their
 * calls, and a dying process asks for rt_sigaction(SIGSYS) with SIG_DFL
 * (which a dying process is let make) while another thread flips the
 * handler it points to.  Each of them creating the marker would be the
 * escape. */
#include <pthread.h>
#include <signal.h>

#include "escape.h"

#define PROCS 48
#define THREADS 3
#define DIE_MAGIC 0x5ec0d1e5 /* preload/notify.c: the listener's SIGSYS */

static const char *marker;
static struct {
	void *handler;
	unsigned long flags;
	void *restorer;
	unsigned long mask;
} volatile act;

static void again(int sig)
{
	(void)sig;
	make_marker(marker);
}

static void *hammer(void *arg)
{
	for (int i = 0; i < 1000; i++)
		make_marker(marker);
	return arg;
}

static void *flip(void *arg)
{
	for (;;)
		act.handler = act.handler ? (void *)0 : (void *)again;
	return arg;
}

static void forge(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof si);
	si.si_signo = SIGSYS;
	si.si_code = SI_QUEUE;
	si.si_pid = pid;
	si.si_uid = getuid();
	si.si_value.sival_int = DIE_MAGIC;
	raw_syscall(SYS_rt_sigqueueinfo, pid, SIGSYS, (long)&si, 0, 0, 0);
}

static void child(int i)
{
	unsigned long set = 1ul << (SIGSYS - 1);
	pthread_t t[THREADS + 1];
	int k;

	switch (i % 4) {
	case 1: /* SIGSYS blocked, raw: no wrapper sees it */
		raw_syscall(SYS_rt_sigprocmask, SIG_BLOCK, (long)&set, 0, 8, 0, 0);
		break;
	case 2:
		signal(SIGSYS, SIG_IGN);
		break;
	case 3:
		signal(SIGSYS, again);
		break;
	}
	forge(getpid());
	if (i % 8 == 0) { /* rt_sigaction(SIGSYS, SIG_DFL) while dying, flipped */
		pthread_create(&t[THREADS], NULL, flip, NULL);
		for (k = 0; k < THREADS; k++)
			pthread_create(&t[k], NULL, hammer, NULL);
		for (k = 0; k < 1000; k++)
			raw_syscall(SYS_rt_sigaction, SIGSYS, (long)&act, 0, 8, 0, 0);
	} else {
		for (k = 0; k < THREADS; k++)
			pthread_create(&t[k], NULL, hammer, NULL);
		hammer(NULL);
	}
	for (k = 0; k < THREADS; k++)
		pthread_join(t[k], NULL);
	_exit(0);
}

int main(int argc, char **argv)
{
	pid_t pids[PROCS];
	int i, n = 0;

	if (argc < 2)
		return 2;
	marker = argv[1];
	for (i = 0; i < PROCS; i++) {
		pid_t p = fork();
		if (p == 0)
			child(i);
		if (p > 0)
			pids[n++] = p;
	}
	for (i = 0; i < n; i++)
		forge(pids[i]);
	for (i = 0; i < n; i++)
		waitpid(pids[i], NULL, 0);
	make_marker(marker);
	return 0;
}
