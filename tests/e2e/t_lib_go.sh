#!/usr/bin/env bash
# A real Go program (cgo-linked, so dynamically linked and reachable by
# LD_PRELOAD) under libsecfilter.so.  Go makes its own syscall
# instructions: every call it makes goes through the catch-all, trapped
# or at a rewritten site.  It must run as without the library, with
# rewriting on and off, and a denied call must kill it with the usual
# report, at the call's site in the Go binary.
. "$TOP/tests/e2e/lib.sh"

# tests/go/probe.go, built by make check (Debian's golang-go)
[ -x "$PROGS/go_probe" ] || fail "no $PROGS/go_probe: make check builds it (needs golang-go)"
cp "$PROGS/go_probe" probe
file probe | grep -q 'dynamically linked' || fail "probe is not dynamically linked"

./probe work >ref 2>&1 || { cat ref >&2; fail "probe without the library"; }
expect_grep '^go ok$' ref
for rw in 1 0; do
	SECFILTER_REWRITE=$rw filtered '*: 1' ./probe work >got 2>&1 ||
		{ cat got >&2; fail "probe (rewrite $rw): status $?"; }
	cmp -s ref got || { diff ref got >&2; fail "probe (rewrite $rw) differs"; }
	# through secfilter run too, with an argument filter on write
	SECFILTER_REWRITE=$rw $SECFILTER run -e '*: 1; io_uring_setup: 0; write: fd == 1 || fd == 2 || fd > 2' \
		-- ./probe work >got 2>&1 || { cat got >&2; fail "run probe (rewrite $rw): status $?"; }
	cmp -s ref got || { diff ref got >&2; fail "run probe (rewrite $rw) differs"; }
	echo "ok a cgo Go program runs under the library (rewrite $rw)"
done

# Rewriting takes Go's calls off the trap: 20000 getppid, few SIGSYS.
if command -v strace >/dev/null; then
	strace -f -qq -o trace -e trace=none -e signal=SIGSYS \
		env LD_PRELOAD="$LIB" SECFILTER_POLICY='*: 1' SECFILTER_REWRITE=1 \
		./probe getppid 20000 >got 2>&1 ||
		{ cat got >&2; fail "getppid loop: status $?"; }
	expect_grep '^getppid ok$' got
	n=$(grep -c SIGSYS trace)
	[ "$n" -lt 1000 ] || fail "20000 Go getppid took $n SIGSYS"
	echo "ok 20000 Go getppid calls took $n SIGSYS"
fi

# A denied call kills it with the report, at its site in the Go binary.
# With rewriting, Getuid has rewritten the site Getppid then goes through.
for rw in 1 0; do
	SECFILTER_REWRITE=$rw filtered '*: 1; getppid: 0' ./probe getppid 3 >out 2>err
	expect_sigkill $?
	expect_no_grep 'getppid ok' out
	expect_report err getppid 'not in the allowed set'
	addr=$(sed -n 's/.*blocked at ip:\([0-9a-f]*\)$/\1/p' err)
	expect_grep "^      #0 0x$addr syscall\.[A-Za-z0-9_.]*\+0x[0-9a-f]+ \(\./probe\)$" err
	echo "ok a denied Go call is killed and reported at its site (rewrite $rw)"
done
exit 0
