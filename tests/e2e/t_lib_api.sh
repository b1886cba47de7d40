#!/usr/bin/env bash
# libsecfilter.so's runtime API: secfilter_apply narrows at run time,
# refuses to widen (EPERM), and arms every thread of a process that
# started without a policy.
. "$TOP/tests/e2e/lib.sh"

# Preloaded with a policy: narrow, then the now-forbidden call is killed.
filtered '*: 1; io_uring_setup: 0' "$PROBE" mode apply 'write: fd == 1' mode wrapper >n.out 2>n.err
expect_sigkill $?
expect_grep '^mode 2$' n.out
expect_grep '^apply 0$' n.out
expect_report n.err write 'sys_write: fd == 1 (<api>:1)'
echo "ok narrowing"

# Widening fails with EPERM and changes nothing; a bad policy with EINVAL.
filtered '*: 1; sethostname: 0' \
	"$PROBE" apply 'sethostname: 1' apply 'getppid: 0' getppid >w.out 2>w.err
expect_sigkill $?
expect_grep '^apply -1 EPERM$' w.out
expect_grep "sethostname" w.out
expect_grep '^apply 0$' w.out
expect_report w.err getppid 'not in the allowed set'
filtered '*: 1' "$PROBE" apply 'rread: 1' >e.out 2>e.err || fail "bad policy killed the program"
expect_grep '^apply -1 EINVAL$' e.out
expect_grep "^<api>:1:1: error: unknown syscall 'rread'" e.out
echo "ok EPERM, EINVAL"

# A program linked with -lsecfilter, started without a policy, with threads
# already running: after secfilter_apply every thread is filtered.
cat >api.c <<'C'
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "secfilter.h"
static volatile int go;
static void *worker(void *arg)
{
	(void)arg;
	while (!go)
		usleep(1000);           /* a trapped call once armed */
	write(2, "worker\n", 7);        /* forbidden after the apply */
	return NULL;
}
int main(void)
{
	pthread_t t[3];
	int i;
	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	printf("mode %d\n", secfilter_mode());
	if (secfilter_apply("*: 1; io_uring_setup: 0; write: fd == 1") != 0) {
		printf("apply failed: %s\n", secfilter_error());
		return 1;
	}
	printf("mode %d\n", secfilter_mode());
	fflush(stdout);
	go = 1;
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("not reached\n");
	return 0;
}
C
cc -O1 -D_GNU_SOURCE -I"$TOP/preload" -o api api.c -L"$B" -lsecfilter -Wl,-rpath,"$B" -lpthread || fail "cc"
./api >a.out 2>a.err
expect_sigkill $?
expect_grep '^mode 0$' a.out
expect_grep '^mode 2$' a.out
expect_no_grep 'not reached' a.out
expect_report a.err write 'sys_write: fd == 1 (<api>:1)'
echo "ok apply from an unfiltered multithreaded process"
