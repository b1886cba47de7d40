#!/usr/bin/env bash
# libsecfilter.so and signals: handlers return through a restorer in the
# allowed region, SIGSYS stays unblocked whatever mask the program sets,
# and the program's SIGSYS disposition is kept in a shadow.
. "$TOP/tests/e2e/lib.sh"

POL='*: 1; io_uring_setup: 0; write: fd == 1'

ok_case() {
	local name=$1 want=$2; shift 2
	filtered "$POL" "$PROBE" "$@" >"$name.out" 2>"$name.err" || {
		cat "$name.err" >&2; fail "$name: status $?"; }
	expect_grep "^$want\$" "$name.out"
	expect_grep '^main done$' "$name.out"
	echo "ok $name"
}

ok_case signal handled signal               # signal() handler that returns
ok_case sigaction-full 'full ok' sigaction-full  # handler with a full sa_mask makes a call
ok_case blockall 'blocked ok' blockall      # every signal blocked, then a call
ok_case sigsys 'sigsys shadow ok' sigsys    # the program's own SIGSYS handler

# rt_sigreturn is checked like any call: a policy without it kills on the
# handler's return (as the kernel filter of trusted mode would).
filtered '*: 1; rt_sigreturn: 0' "$PROBE" signal >ret.out 2>ret.err
expect_sigkill $?
expect_grep '^handled$' ret.out
expect_report ret.err rt_sigreturn 'not in the allowed set'
# The handler ran during raise()'s kill, which the catch-all was issuing:
# the report names that call's site and unwinds from it, through the
# library's restorer, to the program (the restorer used to stop the walk:
# an empty backtrace).
expect_grep '^      #[0-9]+ .* run\+0x[0-9a-f]+ \(.*lib_probe\)( at [^ ]+:[0-9]+)?$' ret.err
echo "ok rt_sigreturn checked"

# A blocking call trapped by the catch-all stays interruptible: sleep in
# the shell (wait4 on a child) is interrupted by SIGTERM's trap.
filtered '*: 1' sh -c 'trap "echo trapped; exit 3" TERM; (sleep 0.3; kill -TERM $$) & sleep 5 & wait $!' >int.out 2>&1
[ $? -eq 3 ] || fail "the blocked wait was not interrupted"
expect_grep '^trapped$' int.out
echo "ok interruptible"

# A handler installed before the library's constructor ran (by a library
# initialized earlier) keeps glibc's restorer: its rt_sigreturn traps and
# is emulated.
cat >early.c <<'C'
#include <signal.h>
#include <unistd.h>
static void h(int s) { (void)s; write(1, "early handler\n", 14); }
__attribute__((constructor)) static void early(void) { signal(SIGUSR1, h); }
C
cat >usesearly.c <<'C'
#include <signal.h>
#include <unistd.h>
int main(void) { raise(SIGUSR1); write(1, "returned\n", 9); return 0; }
C
cc -shared -fPIC -o libearly.so early.c &&
	cc -o usesearly usesearly.c -Wl,--no-as-needed -L. -learly -Wl,-rpath,"$SCRATCH" || fail "cc"
filtered '*: 1' ./usesearly >early.out 2>early.err || { cat early.err >&2; fail "early handler: status $?"; }
expect_grep '^early handler$' early.out
expect_grep '^returned$' early.out
echo "ok foreign restorer: rt_sigreturn emulated"

# A SIGSYS that is not a trap (kill -SYS) goes to the program's own
# handler, kept in the shadow.
cat >fwd.c <<'C'
#include <signal.h>
#include <string.h>
#include <unistd.h>
static void h(int s) { (void)s; write(1, "program got SIGSYS\n", 19); }
int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = h;
	sigaction(SIGSYS, &sa, NULL);
	kill(getpid(), SIGSYS);
	write(1, "after\n", 6);
	return 0;
}
C
cc -o fwd fwd.c
filtered '*: 1' ./fwd >fwd.out 2>fwd.err || fail "forwarded SIGSYS: status $?"
expect_grep '^program got SIGSYS$' fwd.out
expect_grep '^after$' fwd.out
# Default disposition: the program dies of SIGSYS as it would unfiltered.
cat >dfl.c <<'C'
#include <signal.h>
#include <unistd.h>
int main(void) { kill(getpid(), SIGSYS); write(1, "after\n", 6); return 0; }
C
cc -o dfl dfl.c
filtered '*: 1' ./dfl >dfl.out 2>/dev/null
[ $? -eq 159 ] || fail "default SIGSYS: expected 159"
echo "ok non-trap SIGSYS forwarded"

# Stress: a 200 us interval timer whose handler makes a trapped call,
# while four threads and the main thread make trapped calls in a loop.
cat >stress.c <<'C'
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
static volatile long hits;
static long raw0(long nr)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "0"(nr) : "rcx", "r11", "memory");
	return r;
}
static void h(int s) { (void)s; raw0(110); hits++; }
static void *worker(void *a) { (void)a; for (int i = 0; i < 20000; i++) raw0(39); return 0; }
int main(void)
{
	struct sigaction sa;
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	struct timespec ts = { 0, 50000000 };
	pthread_t t[4];
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = h;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, 0);
	setitimer(ITIMER_REAL, &it, 0);
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], 0, worker, 0);
	for (int i = 0; i < 20000; i++)
		raw0(110);
	nanosleep(&ts, 0);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], 0);
	printf("ok %s\n", hits > 0 ? "with signals" : "no signal?");
	return 0;
}
C
cc -O2 -o stress stress.c -lpthread || fail "cc"
for i in 1 2 3; do
	filtered '*: 1; io_uring_setup: 0; write: fd == 1' ./stress >stress.out 2>stress.err || { cat stress.err >&2; fail "stress: status $?"; }
	expect_grep '^ok with signals$' stress.out
done
echo "ok signal stress"
