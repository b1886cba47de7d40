#!/usr/bin/env bash
# libsecfilter.so: the cost of interposition.
#  1. Per call (median ns): an allowed getppid and an allowed 1-byte write
#     to /dev/null under an argument filter; native, through the library's
#     wrapper (libc's exported function), and through the catch-all (a
#     `syscall` instruction in the program: trapped by Syscall User
#     Dispatch, decided and re-issued by the SIGSYS handler).
#  2. Wall time of real workloads, filtered / unfiltered (median of RUNS),
#     under the policy the workload needs (learned in log mode): target 1.10.
#  3. How many of each workload's calls only the catch-all sees (perf).
set -u
B=${B:-$TOP/build}
LIB=$B/libsecfilter.so
RUNS=${RUNS:-7}
work=$(mktemp -d "${TMPDIR:-/tmp}/secfilter-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
[ -f "$LIB" ] || { echo "b_preload: build $LIB first" >&2; exit 1; }
cc -O2 -o "$work/calls" "$TOP/bench/preload_calls.c" || exit 1

. "$TOP/bench/lib.sh"

POL_CALLS='*: 1; io_uring_setup: 0; write: fd == 1 || fd == 2 || fd == 3 || fd == 4'  # 4: the FILE's dup
calls() {
	"$work/calls" "$@"
}
fcalls() {
	LD_PRELOAD=$LIB SECFILTER_POLICY=$POL_CALLS "$work/calls" "$@"
}

# Configurations are interleaved, REPS times each, and the median of the
# runs' medians is printed: the machine's drift hits them all alike.
# "inert" is the library loaded without a policy (the wrapper's own code),
# "armed" a pending policy (dispatch armed, nothing decided): the wrapper's
# cost is what Syscall User Dispatch adds to every syscall of an armed
# thread, plus the decision.
REPS=${REPS:-5}
pcalls() {
	LD_PRELOAD=$LIB SECFILTER_POLICY="on_next_syscall: 1; $POL_CALLS" "$work/calls" "$@"
}
icalls() {
	LD_PRELOAD=$LIB "$work/calls" "$@"
}
printf '%-22s %8s %8s %8s %8s %10s %11s\n' "per call (ns, median)" native inert armed wrapper catch-all "raw native"
for c in getppid write; do
	for f in n i a w t r; do : >"$work/$f"; done
	calls libc-$c 200000 >/dev/null # warm up
	for i in $(seq "$REPS"); do
		calls libc-$c 1000000 >>"$work/n"
		icalls libc-$c 1000000 >>"$work/i"
		pcalls libc-$c 1000000 >>"$work/a"
		fcalls libc-$c 1000000 >>"$work/w"
		fcalls raw-$c 100000 >>"$work/t"
		calls raw-$c 1000000 >>"$work/r"
	done
	printf '%-22s %8s %8s %8s %8s %10s %11s\n' "$c$([ $c = write ] && echo ' (fd filter)')" \
		"$(median <"$work/n")" "$(median <"$work/i")" "$(median <"$work/a")" \
		"$(median <"$work/w")" "$(median <"$work/t")" "$(median <"$work/r")"
done

# (The start of a process: b_start.sh.)

# ---- workloads ----
seq 1 2000 | awk '{print "insert into t values(" $1 ");"}' >"$work/ins.sql"
w_ls() { ls -lR /usr/include >/dev/null; }
w_tar() { tar cf "$work/inc.tar" -C /usr include; }
w_py() { /usr/bin/python3 -c pass; }
w_sqlite() { rm -f "$work/db"; sqlite3 "$work/db" 'create table t(a);' && sqlite3 "$work/db" <"$work/ins.sql"; }

# learn NAME: the allowed set of workload NAME.
learn() {
	rm -f "$work/$1.log"
	( export LD_PRELOAD=$LIB SECFILTER_POLICY= SECFILTER_ACTION=log SECFILTER_LOG="$work/$1.log"; "w_$1" )
	{ sed -n 's/.*system call [0-9]* (sys_\([a-z0-9_]*\)).*/\1: 1/p' "$work/$1.log" | sort -u; } >"$work/$1.policy"
}

ms() {  # wall milliseconds of one run of workload $1, filtered if $2
	local t0 t1
	t0=$(date +%s%N)
	if [ "$2" = 1 ]; then
		( export LD_PRELOAD=$LIB SECFILTER_POLICY_FILE="$work/$1.policy"; "w_$1" )
	else
		"w_$1"
	fi
	t1=$(date +%s%N)
	echo $(( (t1 - t0) / 1000 ))
}


echo
printf '%-34s %10s %10s %8s\n' "workload (ms, median)" unfiltered filtered ratio
for w in ls tar py sqlite; do
	learn "$w"
	n=$RUNS
	[ "$w" = py ] && n=$((RUNS * 5)) # short and noisy: more runs
	for i in $(seq "$n"); do
		ms "$w" 0 >>"$work/$w.plain"
		ms "$w" 1 >>"$work/$w.filt"
	done
	p=$(median <"$work/$w.plain"); f=$(median <"$work/$w.filt")
	awk -v l="$(workload_label "$w")" -v p="$p" -v f="$f" -v n="$(wc -l <"$work/$w.policy")" -v r="$n" \
		'BEGIN { printf "%-34s %10.1f %10.1f %8.3f   (%d-syscall policy, %d runs)\n", l, p / 1000, f / 1000, f / p, n, r }'
done

# ---- how much of each workload the catch-all sees ----
# SIGSYS deliveries (each a trapped call) against all syscalls entered, from
# kernel tracepoints; needs perf and tracepoint access, skipped otherwise.
# The policy is `*: 1`: what traps does not depend on what is allowed.
seen() {  # seen LABEL CMD...: one run of CMD (stdin from $in)
	local label=$1; shift
	perf stat -x, -o "$work/seen.perf" -e signal:signal_deliver,raw_syscalls:sys_enter -- \
		env LD_PRELOAD="$LIB" SECFILTER_POLICY='*: 1' "$@" <"$in" >/dev/null 2>&1
	awk -F, -v l="$label" '/signal_deliver/ {t = $1} /sys_enter/ {a = $1}
		END { printf "%-34s %10d %10d %7.2f%%\n", l, t, a, a ? 100 * t / a : 0 }' "$work/seen.perf"
}
if command -v perf >/dev/null 2>&1 &&
   perf stat -x, -e signal:signal_deliver true >/dev/null 2>&1; then
	echo
	printf '%-34s %10s %10s %8s\n' "calls seen by the catch-all" trapped "all calls" share
	in=/dev/null
	seen 'ls -lR /usr/include' ls -lR /usr/include
	seen 'tar cf (file) /usr/include' tar cf "$work/inc.tar" -C /usr include
	seen 'python3 -c pass' /usr/bin/python3 -c pass
	rm -f "$work/db"; sqlite3 "$work/db" 'create table t(a);'
	in=$work/ins.sql
	seen 'sqlite3, 2000 insert transactions' sqlite3 "$work/db"
fi
