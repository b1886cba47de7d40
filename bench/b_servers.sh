#!/usr/bin/env bash
# Servers under the policies learned from them: nginx (wrk, a 6 KiB page),
# redis (redis-benchmark, SET and GET) and postgres (pgbench -S, select
# only), each set up by bench/servers.sh in a directory of its own on a
# private port, in the foreground.  For each server:
#  1. one run without a filter (makes the files, warms the page cache);
#  2. one run under `secfilter learn` with the same load, stopped the
#     server's own way; its policy is whatever learn writes (system calls,
#     and files and ports where learn proposes them), kept in OUT;
#  3. ROUNDS rounds: the server under that policy in interposition (`run
#     --interpose -p`), in trusted mode through the library (LD_AUDIT,
#     SECFILTER_MODE=trusted, SECFILTER_POLICY_FILE) and under `run
#     --trusted -p`, each with an unfiltered run beside it (before it in
#     one round, after it in the next, so drift does not pass for a cost),
#     every run stopped by SIGTERM (learn saw the other way: the policy must
#     hold the signal's handlers too).
# The table has, per mode, the median over the rounds of the ratio of the
# run's throughput to its unfiltered neighbour's, and the median
# throughput; "log errors" counts the error lines of every run: the
# server's log, secfilter's reports, the client's errors, a non-zero exit.
# A program that glibc cannot start under an audit module (static TLS:
# secfilter(1)) is tried again with the tunable the report names.
# After the table, for nginx: what Landlock adds to an open of its page
# (bench/llopen.c); nginx opens it once a request, and that open is what
# its fs. rules cost it.
# Settings: ROUNDS (3), SRV_SECONDS (5: wrk's and pgbench's run),
# SRV_REQUESTS (100000: redis-benchmark's -n), SERVERS (which), SRV_OUT
# (where the policies and error lines go: $B/bench-servers), SRV_PIN (the
# server's and the client's CPUs: bench/servers.sh).
set -u
export LC_ALL=C.UTF-8
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
B=${B:-$TOP/build}
LIB=$B/libsecfilter.so
SF=$B/secfilter
ROUNDS=${ROUNDS:-3}
SERVERS=${SERVERS:-nginx redis postgres}
OUT=${SRV_OUT:-$B/bench-servers}
TUNABLE=glibc.rtld.optional_static_tls=4096
[ -f "$LIB" ] && [ -x "$SF" ] || { echo "b_servers: build $LIB and $SF first" >&2; exit 1; }
mkdir -p "$OUT" || exit 1
work=$(mktemp -d "${TMPDIR:-/tmp}/secfilter-servers.XXXXXX")
chmod 755 "$work"
cc -O2 -I"$TOP/bench" -o "$work/llopen" "$TOP/bench/llopen.c" || exit 1

. "$TOP/bench/lib.sh"
. "$TOP/bench/servers.sh"
trap 'srv_kill "$work"/*; wait; rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "$(date -u +%Y-%m-%d) on $(nproc) CPUs ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "load of each run: wrk -t2 -c32 -d${SRV_SECONDS}s; redis-benchmark -c 32 -n $SRV_REQUESTS -t set,get;" \
	"pgbench -S -c 4 -j 2 -T $SRV_SECONDS; $ROUNDS rounds"
if [ -n "$SRV_PIN" ]; then
	echo "the server on CPU $SRV_CPU, its client on CPU ${SRV_CLIENT_CPU:-any} (SRV_PIN)"
else
	echo "server and client on any CPU (SRV_PIN empty)"
fi
echo "policies and the error lines of every run: $OUT"

# run NAME MODE: one run in MODE (plain, learn, probe, interpose,
# libtrusted, kernel); TP is its throughput, or "fail"; its error lines
# are appended to $OUT/NAME.errors, their count to $work/NAME.MODE.err.
# (Not in a subshell: the EXIT trap must find and stop every server.)
run() {
	local name=$1 mode=$2 pol=$OUT/$1.conf n stop=term
	TP=
	case $mode in
	plain) srv_start ;;
	learn) srv_start "$SF" learn -o "$SRV_DIR/learned.conf" -- ; stop=graceful ;;
	probe) srv_start env LD_AUDIT="$LIB" SECFILTER_MODE=trusted SECFILTER_POLICY_FILE="$pol" ;;
	interpose) srv_start "$SF" run --interpose -p "$pol" -- ;;
	libtrusted) srv_start env $SRV_TUNABLES LD_AUDIT="$LIB" SECFILTER_MODE=trusted SECFILTER_POLICY_FILE="$pol" ;;
	kernel) srv_start "$SF" run --trusted -p "$pol" -- ;;
	esac
	if srv_ready; then
		TP=$(srv_load)
		srv_stop $stop
	fi
	srv_errors | sed "s/^/$mode: /" >"$work/errs"
	n=$(wc -l <"$work/errs")
	[ "$mode" = probe ] || { cat "$work/errs" >>"$OUT/$name.errors"; echo "$n" >>"$work/$name.$mode.err"; }
	[ -n "$TP" ] && [ "$n" = 0 ] || TP=fail
}

# cell NAME MODE: the median ratio and throughput, or why there are none
cell() {
	local f=$work/$1.$2
	if [ -s "$f" ]; then
		printf '%.2fx (%.0f/s)%s' "$(median <"$f")" "$(median <"$f.tp")" "$([ -n "$SRV_TUNABLES" ] &&
			[ "$2" = libtrusted ] && echo ' *')"
	elif [ "$2" = libtrusted ] && grep -q 'static TLS' "$OUT/$1.errors" 2>/dev/null; then
		echo 'refused: static TLS'
	else
		echo fails
	fi
}

# errs NAME: how many error lines each kind of run had
errs() {
	local m n out=
	for m in plain learn interpose libtrusted kernel; do
		n=$(cat "$work/$1.$m.err" 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
		[ "$n" = 0 ] || out="$out${out:+, }$m $n"
	done
	echo "${out:-none}"
}

table=$work/table notes=$work/notes opens=$work/opens
: >"$table" >"$notes" >"$opens"
for name in $SERVERS; do
	missing=$(srv_missing "$name")
	if [ -n "$missing" ]; then
		echo "$name: skipped, not installed: $missing" >>"$notes"
		continue
	fi
	dir=$work/$name
	: >"$OUT/$name.errors"
	rm -f "$OUT/$name.conf"
	srv_setup "$name" "$dir" "$(srv_free_port)" >"$work/setup.log" 2>&1 ||
		{ echo "$name: skipped, its setup failed: $(head -c 200 "$work/setup.log")" >>"$notes"; continue; }
	if [ ${#SRV_AS[@]} -gt 0 ] && ! "${SRV_AS[@]}" test -x "$SF" -a -r "$LIB"; then
		echo "$name: skipped, $SF is out of its user's reach (${SRV_AS[*]})" >>"$notes"
		continue
	fi
	for m in plain interpose libtrusted kernel; do : >"$work/$name.$m"; : >"$work/$name.$m.tp"; done
	run "$name" plain
	run "$name" learn
	# learn's notes: its stderr (postgres's: what this run added to it)
	off=0
	[ "$SRV_LOG" = "$dir/run.err" ] && off=$SRV_LOGOFF
	tail -c +$((off + 1)) "$dir/run.err" | grep '^secfilter' >"$OUT/$name.learn.txt"
	if ! cp "$dir/learned.conf" "$OUT/$name.conf" 2>/dev/null; then
		echo "$name: learn wrote no policy: $(grep '^learn: ' "$OUT/$name.errors" | head -3)" >>"$notes"
		continue
	fi
	run "$name" probe
	if [ "$TP" = fail ] && grep -q 'static TLS' "$work/errs"; then
		SRV_TUNABLES=GLIBC_TUNABLES=$TUNABLE
		echo "* $name under LD_AUDIT: refused without GLIBC_TUNABLES=$TUNABLE, run with it;" \
			"the report: $(grep -o 'cannot allocate memory in static TLS block' "$work/errs" | head -1)" \
			"(secfilter(1): the program's initial-exec TLS does not fit what glibc keeps for dlopen)" >>"$notes"
	fi
	for r in $(seq "$ROUNDS"); do
		for m in interpose libtrusted kernel; do
			if [ $((r % 2)) = 1 ]; then
				run "$name" plain; p=$TP
				run "$name" "$m"; t=$TP
			else
				run "$name" "$m"; t=$TP
				run "$name" plain; p=$TP
			fi
			[ "$p" = fail ] || echo "$p" >>"$work/$name.plain.tp"
			[ "$p" = fail ] || [ "$t" = fail ] && continue
			echo "$t" >>"$work/$name.$m.tp"
			awk -v t="$t" -v p="$p" 'BEGIN { printf "%.4f\n", t / p }' >>"$work/$name.$m"
		done
	done
	# the page's open under the rule learn wrote for its directory
	[ "$name" = nginx ] && { "$work/llopen" "$dir/html/index.html" "$dir" >"$opens" 2>&1 ||
		echo "nginx: no open figures: $(tail -1 "$opens")" >>"$notes"; }
	case $name in
	nginx) label="nginx $(/usr/sbin/nginx -v 2>&1 | sed 's|.*/||'), wrk" ;;
	redis) label="redis $(redis-server --version | sed 's/.* v=\([^ ]*\).*/\1/'), redis-benchmark" ;;
	postgres) label="postgres $("$SRV_PGBIN/postgres" --version | sed "s/.*PostgreSQL) \([0-9.]*\).*/\1/"), pgbench -S" ;;
	esac
	plain=$(median <"$work/$name.plain.tp")
	[ "$plain" = - ] && plain=fails || plain=$(printf '%.0f/s' "$plain")
	printf '| %s | %s | %s | %s | %s | %s |\n' "$label" "$plain" \
		"$(cell "$name" interpose)" "$(cell "$name" libtrusted)" "$(cell "$name" kernel)" \
		"$(errs "$name")" >>"$table"
	if [ -s "$OUT/$name.errors" ]; then
		echo "$name, the first error lines ($OUT/$name.errors):" >>"$notes"
		sort "$OUT/$name.errors" | uniq -c | sort -rn | head -5 | sed 's/^/    /' >>"$notes"
	fi
done

echo
echo "throughput: the ratio to the unfiltered run beside it, median of $ROUNDS rounds (the median throughput)"
echo
echo '| server, load | no filter | interposition | trusted, LD_AUDIT | run --trusted | log errors |'
echo '|---|---:|---:|---:|---:|---|'
cat "$table"
[ -s "$notes" ] && { echo; cat "$notes"; }
grep -q '^domain' "$opens" && { echo; cat "$opens"; }
exit 0
