#!/usr/bin/env bash
# Log mode's output and where reports go, in every way of starting:
# the library (LD_PRELOAD, SECFILTER_ACTION=log; trusted mode),
# `secfilter run --log` and `run --trusted --log`.
#  - a line per distinct violation, saying the call was let through,
#    and the summary: a short program's run fits on one screen (at most
#    40 lines), and its summary's lines, applied, let it run;
#  - full reports (let through, with a backtrace) on request
#    (SECFILTER_ACTION=log-full, run --log=full) or in a SECFILTER_LOG file;
#  - each report in one write: whole under strace, and never split by
#    the program's own lines written to the same file meanwhile;
#  - an unusable SECFILTER_LOG is an error at the start (125, the path
#    and why), and a report a destination refuses is said on stderr.
. "$TOP/tests/e2e/lib.sh"

noisy=$PROGS/log_noisy
static=$PROGS/cli_prog-static
dyn=$PROGS/cli_prog
LINE_RE='^LOG [^ ]+\[[0-9]+\]: sys_[a-z0-9_]+\(.*\) let through \((not in the allowed set|denied by .*)\)(; add: sys_.*)?$'
NOISY_DENY='*: 1; getppid: 0; getpgrp: 0; getuid: 0; getgid: 0; geteuid: 0; getegid: 0; uname: 0; sysinfo: 0'

# ---- the default: a line each, then the summary ----
# check_lines ERR N: N distinct LOG lines, no report's words, a summary
check_lines() {
	local err=$1 n=$2
	[ "$(grep -c '^LOG ' "$err")" -eq "$n" ] || { cat "$err" >&2; fail "expected $n LOG lines in $err"; }
	[ "$(grep -Ec "$LINE_RE" "$err")" -eq "$n" ] || { cat "$err" >&2; fail "malformed LOG lines in $err"; }
	expect_no_grep 'blocked|backtrace:' "$err"
}

env LD_PRELOAD="$LIB" SECFILTER_POLICY="$NOISY_DENY" SECFILTER_ACTION=log \
	"$dyn" getppid getppid out after >pre.out 2>pre.err
[ $? -eq 0 ] || fail "LD_PRELOAD log: status"
check_lines pre.err 1
expect_grep '^LOG cli_prog\[[0-9]+\]: sys_getppid\(\) let through \(not in the allowed set\); add: sys_getppid: 1$' pre.err
expect_grep '^secfilter: cli_prog\[[0-9]+\]: log mode: 2 calls the policy denies ran' pre.err
echo "ok LD_PRELOAD log: one line for two calls, and the summary"

SECFILTER_ACTION=log filtered_trusted '*: 1; getppid: 0' "$dyn" getppid getppid >tr.out 2>tr.err
[ $? -eq 0 ] || { cat tr.err >&2; fail "library trusted log: status"; }
check_lines tr.err 1
echo "ok library trusted mode, log: one line"

# A rule's own log action (kill mode otherwise): one line for two calls,
# under the library in both modes (in trusted mode the listener hears
# the call and says it; the library does not say it again).
for how in interpose libtrusted; do
	case $how in
	interpose) filtered '*: 1; getppid: log' "$dyn" getppid getppid out after >rl.out 2>rl.err ;;
	libtrusted) filtered_trusted '*: 1; getppid: log' "$dyn" getppid getppid out after >rl.out 2>rl.err ;;
	esac
	[ $? -eq 0 ] || { cat rl.err >&2; fail "$how, getppid: log: status"; }
	expect_grep '^after$' rl.out
	check_lines rl.err 1
	expect_grep '^LOG cli_prog\[[0-9]+\]: sys_getppid\(\) let through \(denied by sys_getppid: log\); add: sys_getppid: 1$' rl.err
done
echo "ok a rule's log action: one line for two calls (interposition, trusted)"

# run --log and run --trusted --log of a short program: on one screen,
# and the lines of its summary, written into the policy, let it run.
small='read: 1; exit_group: 1; execve: 1; brk: 1; arch_prctl: 1; access: 1'
for how in "--interpose /bin/ls /usr" "--trusted $static out before getppid out after" \
	   "--trusted /bin/ls /usr"; do
	set -- $how
	mode=$1; shift
	expect_status 0 "$SECFILTER" run $mode --log -e "$small" -- "$@" >run.out 2>run.err
	n=$(wc -l <run.err)
	[ "$n" -le 40 ] || { cat run.err >&2; fail "run $mode --log $1: $n lines on stderr"; }
	expect_no_grep 'blocked|backtrace:' run.err
	expect_grep "$LINE_RE" run.err
	expect_grep '^secfilter: log mode: [0-9]+ calls? the policy denies ran' run.err
	fix=$(sed -n 's/^    \(sys_[a-z0-9_]*: .*[^ ]\) *# [0-9]* calls\{0,1\}: .*/\1/p' run.err)
	[ -n "$fix" ] || fail "run $mode --log $1: no summary lines"
	printf '%s\n%s\n' "$small" "$fix" >fixed.conf
	expect_status 0 "$SECFILTER" run $mode -p fixed.conf -- "$@" >run2.out 2>run2.err
	[ -s run2.err ] && fail "run $mode with the summary's lines: $(cat run2.err)"
	cmp -s run.out run2.out || fail "run $mode $1: other output with the fixed policy"
	echo "ok run $mode --log $1: $n lines; the summary's lines let it run"
done

# ---- full reports: asked for, or in a file ----
check_full() {
	local err=$1
	expect_grep '^[^ ]+\[[0-9]+\]: system call 110 \(sys_getppid\) let through at ip:[0-9a-f]+$' "$err"
	expect_grep '^    backtrace:' "$err"
	expect_no_grep 'blocked|^LOG ' "$err"
}
env LD_PRELOAD="$LIB" SECFILTER_POLICY='*: 1; getppid: 0' SECFILTER_ACTION=log-full \
	"$dyn" getppid >/dev/null 2>full.err
check_full full.err
rm -f full.log
env LD_PRELOAD="$LIB" SECFILTER_POLICY='*: 1; getppid: 0' SECFILTER_ACTION=log \
	SECFILTER_LOG="$PWD/full.log" "$dyn" getppid >/dev/null 2>full.err
[ -s full.err ] && fail "SECFILTER_LOG file: stderr: $(cat full.err)"
check_full full.log
# learn reads such a report back (the summary left out: the report alone)
grep -v '^secfilter: \|^    sys_' full.log >report.log
expect_status 0 "$SECFILTER" learn --merge report.log -o merged.conf 2>/dev/null
expect_grep '^sys_getppid: 1' merged.conf
expect_status 0 "$SECFILTER" run --log=full -e '*: 1; getppid: 0' -- "$dyn" getppid >/dev/null 2>full.err
check_full full.err
expect_status 0 "$SECFILTER" run --trusted --log=full -e '*: 1; getppid: 0' -- "$static" getppid >/dev/null 2>full.err
expect_grep '^cli_prog-static\[[0-9]+\]: system call 110 \(sys_getppid\) let through at ip:' full.err
expect_no_grep 'blocked|^LOG ' full.err
expect_status 2 "$SECFILTER" run --log=short -e '*: 1' -- "$dyn" 2>/dev/null
echo "ok full reports: log-full, a SECFILTER_LOG file, run --log=full (both modes)"

# ---- one write per report ----
# strace: each report (log-full: with its backtrace; kill: the one that
# ends the process) is one write of the whole text.
one_write() {
	local tr=$1 head=$2 want=$3 got
	got=$(grep -c "$head" "$tr")
	[ "$got" -eq "$want" ] || { cat "$tr" >&2; fail "$tr: $got writes with '$head', not $want"; }
	[ "$(grep "$head" "$tr" | grep -c 'backtrace:\\n      #0 ')" -eq "$want" ] ||
		fail "$tr: a report's backtrace in another write"
}
strace -f -s 1000000 -e trace=write,writev -o st.log env LD_PRELOAD="$LIB" \
	SECFILTER_POLICY="$NOISY_DENY" SECFILTER_ACTION=log-full "$noisy" 2 >/dev/null 2>&1
one_write st.log 'let through at ip:' 8
strace -f -s 1000000 -e trace=write,writev -o st.log env LD_PRELOAD="$LIB" \
	SECFILTER_POLICY="$NOISY_DENY" SECFILTER_ACTION=log SECFILTER_LOG="$PWD/st.file" "$noisy" 2 >/dev/null 2>&1
one_write st.log 'let through at ip:' 8
( strace -f -s 1000000 -e trace=write,writev -o st.log env LD_PRELOAD="$LIB" \
	SECFILTER_POLICY="$NOISY_DENY" "$noisy" 2 >/dev/null 2>&1 ) 2>/dev/null # killed
one_write st.log 'blocked at ip:' 1
SECFILTER_ACTION=log-full strace -f -s 1000000 -e trace=write,writev -o st.log \
	env LD_AUDIT="$LIB" LD_PRELOAD="$LIB" SECFILTER_MODE=trusted SECFILTER_POLICY='*: 1; getppid: 0' \
	"$dyn" getppid >/dev/null 2>&1
one_write st.log 'let through at ip:' 1
echo "ok strace: each report one write (interposition: log-full, file, kill; trusted: log-full)"

# A thread of the program writes its own lines to the same file while
# the main thread violates: no report has one of them inside.
no_split() {
	local f=$1 n
	n=$(grep -c 'let through at ip:' "$f")
	[ "$n" -eq 8 ] || { cat "$f" >&2; fail "$f: $n reports, not 8"; }
	grep -q '^noise ' "$f" || fail "$f: the program wrote nothing (the check could not fail)"
	awk '/^noise /{n=1;next} /^    / && n {print FILENAME ":" NR ": a report split"; bad=1} {n=0} END{exit bad}' "$f" ||
		fail "a report split by the program's line"
}
rm -f noisy.log
env LD_PRELOAD="$LIB" SECFILTER_POLICY="$NOISY_DENY" SECFILTER_ACTION=log \
	SECFILTER_LOG="$PWD/noisy.log" "$noisy" 50 >/dev/null 2>>noisy.log
no_split noisy.log
rm -f noisy.log
env LD_PRELOAD="$LIB" SECFILTER_POLICY="$NOISY_DENY" SECFILTER_ACTION=log-full \
	"$noisy" 50 >/dev/null 2>>noisy.log
no_split noisy.log
rm -f noisy.log
env SECFILTER_ACTION=log-full LD_AUDIT="$LIB" LD_PRELOAD="$LIB" SECFILTER_MODE=trusted \
	SECFILTER_POLICY="$NOISY_DENY" "$noisy" 50 >/dev/null 2>>noisy.log
no_split noisy.log
echo "ok a concurrent writer to the same file splits no report (file, stderr; trusted)"

# ---- the destination ----
# A SECFILTER_LOG in a missing directory: 125, the path and why, before
# the program runs, in the library (both modes) and in run (both modes).
bad=$PWD/missing/dir/log
for how in lib libtrusted run-interpose run-trusted; do
	case $how in
	lib) env SECFILTER_LOG="$bad" LD_PRELOAD="$LIB" SECFILTER_POLICY='*: 1' "$dyn" touch ran 2>dest.err ;;
	libtrusted) env SECFILTER_LOG="$bad" LD_AUDIT="$LIB" LD_PRELOAD="$LIB" SECFILTER_MODE=trusted \
			SECFILTER_POLICY='*: 1' "$dyn" touch ran 2>dest.err ;;
	run-interpose) SECFILTER_LOG="$bad" "$SECFILTER" run --interpose -e '*: 1' -- "$dyn" touch ran 2>dest.err ;;
	run-trusted) SECFILTER_LOG="$bad" "$SECFILTER" run --trusted -e '*: 1' -- "$dyn" touch ran 2>dest.err ;;
	esac
	st=$?
	[ $st -eq 125 ] || fail "$how: an unusable SECFILTER_LOG: status $st, not 125"
	[ -e ran ] && fail "$how: the program ran"
	expect_grep "^secfilter: (run: )?SECFILTER_LOG: cannot open '$bad' to append reports: No such file or directory\$" dest.err
done
echo "ok an unusable SECFILTER_LOG: 125 with the path and errno, library and run, both modes"

# A destination that refuses the report (/dev/full: ENOSPC): said on
# stderr, in log and kill mode, by the library and by run.
lost='a report could not be written to SECFILTER_LOG=/dev/full: No space left on device'
env SECFILTER_LOG=/dev/full LD_PRELOAD="$LIB" SECFILTER_POLICY='*: 1; getppid: 0' SECFILTER_ACTION=log \
	"$dyn" getppid out after >full.out 2>full.err
expect_grep '^after$' full.out
expect_grep "^secfilter: $lost$" full.err
expect_grep '^cli_prog\[[0-9]+\]: system call 110 \(sys_getppid\) let through at ip:' full.err
env SECFILTER_LOG=/dev/full LD_PRELOAD="$LIB" SECFILTER_POLICY='*: 1; getppid: 0' \
	"$dyn" getppid >/dev/null 2>full.err
expect_grep "^secfilter: $lost$" full.err
env SECFILTER_LOG=/dev/full SECFILTER_ACTION=log LD_AUDIT="$LIB" LD_PRELOAD="$LIB" SECFILTER_MODE=trusted \
	SECFILTER_POLICY='*: 1; getppid: 0' "$dyn" getppid >/dev/null 2>full.err
expect_grep "^secfilter: $lost$" full.err
for mode in --interpose --trusted; do
	SECFILTER_LOG=/dev/full "$SECFILTER" run $mode -e '*: 1; getppid: 0' -- "$dyn" getppid >/dev/null 2>full.err
	expect_grep "$lost" full.err
	SECFILTER_LOG=/dev/full "$SECFILTER" run $mode --log -e '*: 1; getppid: 0' -- "$dyn" getppid >/dev/null 2>full.err
	expect_grep "$lost" full.err
	expect_grep '^cli_prog\[[0-9]+\]: system call 110 \(sys_getppid\) let through at ip:' full.err
done
echo "ok a refused report is said on stderr, and written there (library: log, kill, trusted; run: both modes)"
