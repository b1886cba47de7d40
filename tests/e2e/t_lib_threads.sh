#!/usr/bin/env bash
# Threads that exist before libsecfilter.so's constructor runs (started by
# the constructor of a library initialized earlier) are filtered like the
# others; one that cannot be (it blocks SIGSYS) stops the program before
# main, and a thread that is gone by the time it is asked costs nothing.
. "$TOP/tests/e2e/lib.sh"

# ctor_lib NAME BODY [BEFORE]: libNAME.so whose constructor runs BEFORE
# and starts a thread running BODY; a program linked with it (initialized
# before the preload).
ctor_lib() {
	local name=$1 body=$2 before=${3:-}
	cat >"$name.c" <<C
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
static long raw_write(const char *s, long n)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "0"(1L), "D"(2L), "S"(s), "d"(n) : "rcx", "r11", "memory");
	return r;
}
static void *t(void *a) { (void)a; (void)raw_write; $body return 0; }
__attribute__((constructor)) static void c(void) { pthread_t th; $before pthread_create(&th, 0, t, 0); pthread_detach(th); }
C
	cat >"use$name.c" <<'C'
#include <unistd.h>
int main(void) { usleep(300000); write(1, "main done\n", 10); return 0; }
C
	cc -shared -fPIC -o "lib$name.so" "$name.c" -lpthread &&
		cc -o "use$name" "use$name.c" -Wl,--no-as-needed -L. -l"$name" -Wl,-rpath,"$SCRATCH" ||
		fail "cc $name"
}

# Raw writes to fd 2, again and again, from a thread the constructor of
# libraw.so started: once the library is armed, the next one is killed.
ctor_lib raw 'for (;;) { raw_write("early thread\n", 13); usleep(20000); }'
filtered '*: 1; io_uring_setup: 0; write: fd == 1' ./useraw >raw.out 2>raw.err
expect_sigkill $?
expect_no_grep '^main done$' raw.out
expect_report raw.err write 'sys_write: fd == 1'
echo "ok a thread started before the library is filtered"

# Such a thread blocks every signal (from its birth: it inherits the mask
# its creator had): it cannot be armed; fail closed, fast.
ctor_lib blk 'sleep(5);' 'sigset_t s, o; sigfillset(&s); pthread_sigmask(SIG_BLOCK, &s, &o);'
sed -i 's/pthread_detach(th); }/pthread_detach(th); pthread_sigmask(SIG_SETMASK, \&o, 0); }/' blk.c
cc -shared -fPIC -o libblk.so blk.c -lpthread || fail "cc blk"
start=$(date +%s)
filtered '*: 1' ./useblk >blk.out 2>blk.err; st=$?
[ "$st" -eq 125 ] || { cat blk.err >&2; fail "blocked SIGSYS: expected 125, got $st"; }
expect_no_grep 'main done' blk.out
expect_grep '^secfilter: a thread started before the library .* blocks SIGSYS' blk.err
[ $(( $(date +%s) - start )) -lt 3 ] || fail "blocked SIGSYS: took too long"
echo "ok a thread that blocks SIGSYS stops the program before main"

# A thread that ends at once: nothing to wait for.
ctor_lib quick ''
start=$(date +%s)
for i in 1 2 3 4 5; do
	filtered '*: 1' ./usequick >q.out 2>q.err || { cat q.err >&2; fail "quick thread: status $?"; }
	expect_grep '^main done$' q.out
done
[ $(( $(date +%s) - start )) -lt 4 ] || fail "a thread that ended made the start slow"
echo "ok a thread already gone"

# secfilter_apply in an unfiltered process whose worker blocks SIGSYS:
# refused at once (ENOSYS) rather than after a time-out.
cat >apiblk.c <<'C'
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "secfilter.h"
static void *worker(void *a) { (void)a; sleep(5); return 0; }
int main(void)
{
	pthread_t t;
	sigset_t s, o;
	/* The worker is born with every signal blocked. */
	sigfillset(&s);
	pthread_sigmask(SIG_BLOCK, &s, &o);
	pthread_create(&t, 0, worker, 0);
	pthread_sigmask(SIG_SETMASK, &o, 0);
	int r = secfilter_apply("*: 1");
	printf("apply %d %s: %s\n", r, r ? strerrorname_np(errno) : "", secfilter_error());
	return 0;
}
C
cc -O1 -D_GNU_SOURCE -I"$TOP/preload" -o apiblk apiblk.c -L"$B" -lsecfilter -Wl,-rpath,"$B" -lpthread || fail "cc"
start=$(date +%s)
./apiblk >api.out 2>&1 || { cat api.out >&2; fail "apiblk: status $?"; }
expect_grep '^apply -1 ENOSYS: secfilter_apply: a thread blocks SIGSYS' api.out
[ $(( $(date +%s) - start )) -lt 3 ] || fail "apply took too long"
echo "ok secfilter_apply refuses a thread that blocks SIGSYS"
