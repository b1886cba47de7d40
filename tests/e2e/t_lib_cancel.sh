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
	expect_cancel_unwinds guard 'static int p[2];' \
		'char c; if (read(p[0], &c, 1)) {}' 'if (pipe(p)) return 1;' ''
	echo "ok C++ destructors run on cancellation"
fi
exit 0
