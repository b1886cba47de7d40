#!/usr/bin/env bash
# libsecfilter.so's settings do not live in the program's environment
# strings: a program may overwrite them (setproctitle does) or edit its
# environment, and reports still go where SECFILTER_LOG says, in this
# image and in the ones it execs, whatever the length of the path.
. "$TOP/tests/e2e/lib.sh"

C=$PROGS/lib_compat

# The title overwrites the strings, then execs a probe that makes a
# forbidden call: the child's report goes to the log file.
env LD_PRELOAD="$LIB" SECFILTER_POLICY='*: 1; getppid: 0' SECFILTER_LOG="$SCRATCH/t.log" \
	"$C" title "$PROGS/lib_probe" out child getppid >t.out 2>t.err
expect_sigkill $?
expect_grep '^child$' t.out
expect_report t.log getppid 'not in the allowed set'
[ ! -s t.err ] || { cat t.err >&2; fail "the report went to stderr"; }
echo "ok exec after the environment strings were overwritten"

env LD_PRELOAD="$LIB" SECFILTER_POLICY='*: 1; getppid: 0' SECFILTER_LOG="$SCRATCH/v.log" \
	"$C" title-violate >v.out 2>v.err
expect_sigkill $?
expect_report v.log getppid 'not in the allowed set'
echo "ok report to SECFILTER_LOG after the strings were overwritten"

# A log path longer than a few hundred bytes reaches the exec'd image whole.
long=$SCRATCH/$(printf 'd%.0s' $(seq 200))/$(printf 'e%.0s' $(seq 200))
mkdir -p "$long"
env LD_PRELOAD="$LIB" SECFILTER_POLICY='*: 1; getppid: 0' SECFILTER_LOG="$long/r.log" \
	"$PROGS/lib_probe" clearenv-exec "$PROGS/lib_probe" getppid >l.out 2>l.err
expect_sigkill $?
[ -f "$long/r.log" ] || { find "$SCRATCH" -name '*.log' >&2; fail "no report at the long SECFILTER_LOG path"; }
expect_report "$long/r.log" getppid 'not in the allowed set'
echo "ok long SECFILTER_LOG path"

# A path longer than PATH_MAX is refused before main.
huge=/$(printf 'x%.0s' $(seq 5000))
env LD_PRELOAD="$LIB" SECFILTER_POLICY='*: 1' SECFILTER_LOG="$huge" "$PROGS/lib_probe" >h.out 2>h.err
[ $? -eq 125 ] || fail "SECFILTER_LOG longer than PATH_MAX: expected 125"
expect_no_grep 'main ran' h.out
expect_grep '^secfilter: SECFILTER_LOG: ' h.err
echo "ok SECFILTER_LOG longer than PATH_MAX refused"
