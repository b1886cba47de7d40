#!/usr/bin/env bash
# pthread_cancel of a thread blocked in a cancellation point works under
# libsecfilter.so as without it: in the wrapped functions (which must make
# the thread asynchronously cancellable around their syscall, as glibc
# does) and in the calls only the catch-all sees.  Before that fix,
# pthread_join waited forever for a thread blocked in read().  A C++
# thread's destructors run too: unwinding goes through the library's
# restorer of the SIGCANCEL handler, which describes its signal frame.
. "$TOP/tests/e2e/lib.sh"

P=$PROGS/lib_cancel
for m in read nanosleep fifo lock sem pause select; do
	rm -f fifo lockfile; timeout 10 "$P" $m >ref 2>&1; echo "status $?" >>ref
	expect_grep "^$m: joined, cancelled yes" ref
	for how in enforcing inert trusted; do
		rm -f fifo lockfile
		case $how in
		enforcing) filtered '*: 1' timeout 10 "$P" $m ;;
		inert) LD_PRELOAD=$LIB timeout 10 "$P" $m ;;
		trusted) filtered_trusted '*: 1' timeout 10 "$P" $m ;;
		esac >got 2>&1
		echo "status $?" >>got
		cmp -s ref got || { diff ref got >&2; fail "$m ($how): differs from an unfiltered run"; }
	done
	echo "ok $m"
done

if command -v g++ >/dev/null; then
	cat >guard.cc <<'CC'
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static int p[2];
struct Guard { ~Guard() { printf("destructor ran\n"); fflush(stdout); } };
static void *t(void *) { Guard g; char c; if (read(p[0], &c, 1)) {} return NULL; }
int main() {
	pthread_t th; void *res;
	if (pipe(p)) return 1;
	pthread_create(&th, NULL, t, NULL);
	usleep(200000);
	pthread_cancel(th);
	pthread_join(th, &res);
	printf("joined, cancelled %s\n", res == PTHREAD_CANCELED ? "yes" : "no");
	return 0;
}
CC
	g++ -O1 -pthread -o guard guard.cc || fail "g++"
	filtered '*: 1' timeout 10 ./guard >got 2>&1 || { cat got >&2; fail "C++: status $?"; }
	expect_grep '^destructor ran$' got
	expect_grep '^joined, cancelled yes$' got
	echo "ok C++ destructors run on cancellation"
fi
exit 0
