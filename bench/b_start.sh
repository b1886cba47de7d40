#!/usr/bin/env bash
# Process start-up under secfilter: workloads that start many processes.
#  1. /bin/true: microseconds per start (posix_spawn + wait, bench/spawn.c)
#     with an empty preloaded library, the library inert, enforcing '*: 1'
#     and in trusted mode, wall time and the child's CPU time (wait4); the
#     figure is the median of ROUNDS rounds, each the median of 40 starts,
#     configurations interleaved start by start; the "+" column is the
#     median over the rounds of the round's difference to the first row.
#     Beside it, what does not depend on the machine's load: user
#     instructions, syscall instructions and minor faults of one start
#     (bench/icount.c, which single-steps the process).
#  2. Scripts and make: each workload unfiltered, under the library
#     (interposition), with SECFILTER_MODE=trusted (the library in LD_AUDIT,
#     as the README and secfilter(1) show it, and in LD_AUDIT and LD_PRELOAD,
#     which adds the wrappers and the API for dlsym) and under `secfilter
#     run --trusted` (the kernel filter alone), policy '*: 1'; beside them
#     the two floors of trusted mode through the library: the kernel filter
#     (run --trusted) and an audit module that does nothing (empty
#     LD_AUDIT: what rtld's audit namespace costs every image); and the
#     floors of a preloaded library: any (an empty one in LD_PRELOAD),
#     this one's own load in LD_PRELOAD without a policy (inert), and in
#     LD_AUDIT kept by rtld with its boot skipped.  All run in
#     turn, ROUNDS times; each round gives a ratio to its own unfiltered
#     run, of the wall time and of the CPU time of the whole process tree
#     (bench/timed.c), and the table has the median ratios.  Each filtered
#     run has its own unfiltered run beside it (before it in one round,
#     after it in the next): the unfiltered loop took 2.04 to 2.56 s in
#     five runs a minute, and a round of six runs against one unfiltered
#     run took that drift for a cost (interposition 1.06x to 1.32x from
#     round to round).  On a machine shared with other work the CPU time
#     moves less: waiting for a CPU is not in it.
set -u
# The locale decides how much of libc's own work the library sees: under
# C.UTF-8 each sed, tr and expr loads a dozen locale files through libc's
# internal calls, about 74 traps an image, where LANG=C loads none (under
# '*: 1' libc's setlocale now loads them with dispatch off, in one
# window: preload/interpose/locale.c; what is left of the share is the rest).  So
# everything runs under LC_ALL=C.UTF-8 (which overrides LANG and every
# LC_*) whatever the caller's locale, and the loop of part 2 once more
# under LC_ALL=C to show that share.
export LC_ALL=C.UTF-8
B=${B:-$TOP/build}
LIB=$B/libsecfilter.so
SF=$B/secfilter
ROUNDS=${ROUNDS:-7}
POLICY='*: 1'
work=$(mktemp -d "${TMPDIR:-/tmp}/secfilter-start.XXXXXX")
trap 'rm -rf "$work"' EXIT
[ -f "$LIB" ] && [ -x "$SF" ] || { echo "b_start: build $LIB and $SF first" >&2; exit 1; }
cc -O2 -I"$TOP/bench" -o "$work/spawn" "$TOP/bench/spawn.c" || exit 1
cc -O2 -o "$work/icount" "$TOP/bench/icount.c" || exit 1
cc -O2 -I"$TOP/bench" -o "$work/timed" "$TOP/bench/timed.c" || exit 1
echo 'void sf_bench_empty(void) {}' >"$work/empty.c"
cc -shared -fPIC -o "$work/libempty.so" "$work/empty.c" || exit 1
# The other floor of trusted mode through the library, beside the kernel
# filter's: an audit module that does nothing
echo 'unsigned la_version(unsigned v) { return v; }' >"$work/audit.c"
cc -shared -fPIC -nostdlib -o "$work/libaudit.so" "$work/audit.c" || exit 1
# The floor of an image in a trusted tree: an unfiltered start plus the
# library's load as rtld does it for trusted mode (mapped, relocated, its
# la_* interfaces looked up, its constructor run, kept), without its boot:
# a copy whose la_version returns 1 at once (mov $1,%eax; ret).
kept_copy() {
	local at ty o v f n rest
	at=$(nm -D --defined-only "$LIB" | awk '$3 == "la_version" { print $1 }')
	[ -n "$at" ] || return 1
	at=$((16#$at))
	while read -r ty o v f n rest; do
		[ "$ty" = LOAD ] && [ $((at >= v && at < v + n)) = 1 ] || continue
		cp "$LIB" "$work/libkept.so" &&
			printf '\270\001\000\000\000\303' |
			dd of="$work/libkept.so" bs=1 seek=$((at - v + o)) conv=notrunc 2>/dev/null
		return
	done < <(readelf -lW "$LIB")
	return 1
}
kept_copy || { echo "b_start: cannot make the kept copy of $LIB" >&2; exit 1; }

. "$TOP/bench/lib.sh"

echo "$(date -u +%Y-%m-%d) on $(nproc) CPUs ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)), load $(cut -d' ' -f1-3 /proc/loadavg)"

# PARTS: "starts" (the /bin/true and sed tables) and "workloads"; both
# by default.  MODES and WORKLOADS (below) choose the workload table's
# columns and rows: PARTS=workloads MODES="interpose empty" WORKLOADS=make.
PARTS=${PARTS:-starts workloads}

starts() {
	# ---- 1. /bin/true ----
	E="LD_PRELOAD=$work/libempty.so"
	I="LD_PRELOAD=$LIB"
	F="LD_PRELOAD=$LIB;SECFILTER_POLICY=$POLICY"
	T="LD_AUDIT=$LIB;LD_PRELOAD=$LIB;SECFILTER_POLICY=$POLICY;SECFILTER_MODE=trusted"
	A="LD_AUDIT=$LIB;SECFILTER_POLICY=$POLICY;SECFILTER_MODE=trusted"
	K="LD_AUDIT=$work/libkept.so;SECFILTER_POLICY=$POLICY;SECFILTER_MODE=trusted"
	"$work/spawn" "$ROUNDS" 40 "$E" "$I" "$F" "$A" "$T" "LD_AUDIT=$work/libaudit.so" "$K" -- /bin/true \
		>"$work/true.txt" || exit 1
	icount() { # one start's counts: instructions, syscalls, minor faults
		"$work/icount" -q "$@" /bin/true | awk '{ print $2, $4, $6 }'
	}
	echo
	printf '%-36s %7s %6s %7s %6s %12s %8s %6s\n' "start of /bin/true (median)" "wall us" "+" "cpu us" "+" \
		"instructions" "syscalls" "faults"
	awk -F'\t' '{ print $2, $4, $3, $5 }' "$work/true.txt" >"$work/us.txt"
	n=0
	for c in "empty library" "library, no policy (inert)" "library, '$POLICY' (interposition)" \
		 "library, '$POLICY', trusted mode" "  the same, LD_PRELOAD too" "empty audit module (LD_AUDIT)" \
		 "library kept by rtld, no boot"; do
		n=$((n + 1))
		case $n in
		1) counts=$(icount "LD_PRELOAD=$work/libempty.so") ;;
		2) counts=$(icount "LD_PRELOAD=$LIB") ;;
		3) counts=$(icount "LD_PRELOAD=$LIB" "SECFILTER_POLICY=$POLICY") ;;
		4) counts=$(icount "LD_AUDIT=$LIB" "SECFILTER_POLICY=$POLICY" SECFILTER_MODE=trusted) ;;
		5) counts=$(icount "LD_AUDIT=$LIB" "LD_PRELOAD=$LIB" "SECFILTER_POLICY=$POLICY" SECFILTER_MODE=trusted) ;;
		6) counts=$(icount "LD_AUDIT=$work/libaudit.so") ;;
		7) counts=$(icount "LD_AUDIT=$work/libkept.so" "SECFILTER_POLICY=$POLICY" SECFILTER_MODE=trusted) ;;
		esac
		read -r us plus cpu cplus < <(sed -n "${n}p" "$work/us.txt")
		read -r ins sys flt <<<"$counts"
		start_ins[$n]=$ins start_sys[$n]=$sys
		printf '%-36s %7.0f %+6.0f %7.0f %+6.0f %12s %8s %6s\n' "$c" "$us" "$plus" "$cpu" "$cplus" \
			"$ins" "$sys" "$flt"
	done

	# ---- 1b. /bin/true started by a filtered parent ----
	# What a script's commands pay: the parent (bench/spawn.c) runs unfiltered,
	# under interposition, or under trusted mode's filter, whose image the
	# child inherits (the mark spares it loading the same filter again).  The
	# parents take turns of 5 starts each, 8 x ROUNDS times; "+" is the median
	# of the turns' differences to the unfiltered parent's turn beside them.
	echo
	printf '%-36s %7s %6s %7s %6s %12s %8s %6s\n' "/bin/true from a parent (median)" "wall us" "+" "cpu us" \
		"+" "instructions" "syscalls" "faults"
	: >"$work/tree.txt"
	for r in $(seq $((8 * ROUNDS))); do
		p=$("$work/spawn" 1 5 X=1 -- /bin/true | cut -f2,3)
		i=$(env LD_PRELOAD="$LIB" SECFILTER_POLICY="$POLICY" "$work/spawn" 1 5 X=1 -- /bin/true | cut -f2,3)
		t=$(env LD_AUDIT="$LIB" LD_PRELOAD="$LIB" SECFILTER_POLICY="$POLICY" SECFILTER_MODE=trusted \
			"$work/spawn" 1 5 X=1 -- /bin/true | cut -f2,3)
		a=$(env LD_AUDIT="$LIB" SECFILTER_POLICY="$POLICY" SECFILTER_MODE=trusted \
			"$work/spawn" 1 5 X=1 -- /bin/true | cut -f2,3)
		printf '%s\t%s\t%s\t%s\n' "$p" "$i" "$a" "$t" >>"$work/tree.txt"
	done
	col_median() { cut -f"$1" "$work/tree.txt" | median; }
	# the median of column $1 minus column $2, row by row
	diff_median() { awk -F'\t' -v a="$1" -v b="$2" '{ print $a - $b }' "$work/tree.txt" | median; }
	n=0
	for c in "unfiltered parent" "interposed parent (inherits it)" "trusted parent (inherits it)" \
		 "  the same, LD_PRELOAD too"; do
		n=$((n + 1))
		w=$(col_median $((2 * n - 1))) cp=$(col_median $((2 * n)))
		case $n in
		1) counts=$("$work/icount" -q /bin/true | awk '{ print $2, $4, $6 }') ;;
		2) counts=$(env LD_PRELOAD="$LIB" SECFILTER_POLICY="$POLICY" "$work/icount" -q /bin/true |
			awk '{ print $2, $4, $6 }') ;;
		3) counts=$(env LD_AUDIT="$LIB" SECFILTER_POLICY="$POLICY" SECFILTER_MODE=trusted \
			"$work/icount" -q /bin/true | awk '{ print $2, $4, $6 }') ;;
		4) counts=$(env LD_AUDIT="$LIB" LD_PRELOAD="$LIB" SECFILTER_POLICY="$POLICY" SECFILTER_MODE=trusted \
			"$work/icount" -q /bin/true | awk '{ print $2, $4, $6 }') ;;
		esac
		read -r ins sys flt <<<"$counts"
		tree_ins[$n]=$ins tree_sys[$n]=$sys
		printf '%-36s %7.0f %+6.0f %7.0f %+6.0f %12s %8s %6s\n' "$c" "$w" "$(diff_median $((2 * n - 1)) 1)" \
			"$cp" "$(diff_median $((2 * n)) 2)" "$ins" "$sys" "$flt"
	done
	# An exec'd image against its floor.  Interposed: a fresh enforcing start.
	# Trusted: an unfiltered start plus the library's load, which is the kept
	# copy's count less what its own code ran (its constructor).
	kept_own=$(env ICOUNT_PROFILE=libkept.so LD_AUDIT="$work/libkept.so" SECFILTER_POLICY="$POLICY" \
		SECFILTER_MODE=trusted "$work/icount" -q /bin/true 2>&1 >/dev/null | awk '{ n += $2 } END { print n + 0 }')
	floor=$((start_ins[7] - kept_own))
	echo
	printf 'interposed parent: %+.1f%% instructions, %+d syscalls over a fresh enforcing start\n' \
		"$(awk -v a="${tree_ins[2]}" -v b="${start_ins[3]}" 'BEGIN { print 100 * (a - b) / b }')" \
		$((tree_sys[2] - start_sys[3]))
	printf 'trusted parent: %+.1f%% instructions over an unfiltered start plus the library'"'"'s load (%d: the kept copy less its own %d)\n' \
		"$(awk -v a="${tree_ins[3]}" -v b="$floor" 'BEGIN { print 100 * (a - b) / b }')" "$floor" "$kept_own"

	# ---- 1c. libc's own calls: sed loading its locale ----
	# What no wrapper sees: sed under LANG=C.UTF-8 loads a dozen locale files
	# through libc's internal openat/newfstatat/mmap/close, each a trap (74)
	# before setlocale's window took them (preload/interpose/locale.c); rewriting the
	# sites that still trap earlier than the default 32nd trap is weighed here
	# too.  Interleaved as in 1.
	echo
	S="LANG=C.UTF-8;LD_PRELOAD=$LIB;SECFILTER_POLICY=$POLICY;SECFILTER_REWRITE"
	"$work/spawn" "$ROUNDS" 40 "LANG=C.UTF-8" "$S=0" "$S=32" "$S=4" -- /bin/sed s/b/x/ /dev/null \
		>"$work/sed.txt" || exit 1
	printf '%-36s %7s %6s %7s %6s %12s %8s %6s\n' "sed s/b/x/, LANG=C.UTF-8 (median)" "wall us" "+" "cpu us" "+" \
		"instructions" "syscalls" "faults"
	awk -F'\t' '{ print $2, $4, $3, $5 }' "$work/sed.txt" >"$work/sedus.txt"
	n=0
	for c in "unfiltered" "interposed, never rewritten" "interposed, rewritten at 32 (default)" \
		 "interposed, rewritten at 4"; do
		n=$((n + 1))
		case $n in
		1) set -- LANG=C.UTF-8 ;;
		2) set -- LANG=C.UTF-8 "LD_PRELOAD=$LIB" "SECFILTER_POLICY=$POLICY" SECFILTER_REWRITE=0 ;;
		3) set -- LANG=C.UTF-8 "LD_PRELOAD=$LIB" "SECFILTER_POLICY=$POLICY" SECFILTER_REWRITE=32 ;;
		4) set -- LANG=C.UTF-8 "LD_PRELOAD=$LIB" "SECFILTER_POLICY=$POLICY" SECFILTER_REWRITE=4 ;;
		esac
		counts=$("$work/icount" -q "$@" /bin/sed s/b/x/ /dev/null | awk '{ print $2, $4, $6 }')
		read -r us plus cpu cplus < <(sed -n "${n}p" "$work/sedus.txt")
		read -r ins sys flt <<<"$counts"
		printf '%-36s %7.0f %+6.0f %7.0f %+6.0f %12s %8s %6s\n' "$c" "$us" "$plus" "$cpu" "$cplus" \
			"$ins" "$sys" "$flt"
	done
}
case " $PARTS " in *" starts "*) starts ;; esac

# ---- 2. workloads ----
case " $PARTS " in *" workloads "*) ;; *) exit 0 ;; esac
cat >"$work/loop.sh" <<'EOF'
i=0
while [ $i -lt 150 ]; do
	x=$(echo a b c | sed 's/b/x/' | tr a-z A-Z)
	i=$(expr $i + 1)
done
EOF
{
	printf 'all:'
	for i in $(seq 120); do printf ' t%d' "$i"; done
	printf '\n'
	for i in $(seq 120); do printf 't%d:\n\t@echo $@ >/dev/null\n' "$i"; done
	printf '.PHONY: all'
	for i in $(seq 120); do printf ' t%d' "$i"; done
	printf '\n'
} >"$work/Makefile"
cat >"$work/configure.sh" <<'EOF'
# what a configure script does most: tests, sed, grep, the preprocessor
i=0
while [ $i -lt 100 ]; do
	i=$((i + 1))
	if test -d /usr && test -r /etc/passwd; then :; fi
	v=$(echo "ac_cv_func_$i=yes" | sed 's/=yes$/=no/')
	grep -q '^root:' /etc/passwd
	if [ $((i % 5)) = 0 ]; then
		printf '#include <limits.h>\nint x = INT_MAX;\n' | cc -E - >/dev/null
	fi
done
EOF
# w_NAME PREFIX...: the workload, started by PREFIX (env or secfilter run)
w_loop() { "$@" sh "$work/loop.sh"; }
w_loopc() { LC_ALL=C "$@" sh "$work/loop.sh"; }
w_make() { "$@" make -s -j1 -f "$work/Makefile" -C "$work" all; }
w_conf() { "$@" sh "$work/configure.sh"; }

# run MODE WORKLOAD: "WALL CPU" microseconds of one run, or fail(...)
run() {
	local wall cpu st
	case $1 in
	plain) "w_$2" "$work/timed" "$work/t" env ;;
	interpose) "w_$2" "$work/timed" "$work/t" env LD_PRELOAD="$LIB" SECFILTER_POLICY="$POLICY" ;;
	trusted) "w_$2" "$work/timed" "$work/t" env LD_AUDIT="$LIB" SECFILTER_POLICY="$POLICY" \
		SECFILTER_MODE=trusted ;;
	preload) "w_$2" "$work/timed" "$work/t" env LD_AUDIT="$LIB" LD_PRELOAD="$LIB" SECFILTER_POLICY="$POLICY" \
		SECFILTER_MODE=trusted ;;
	run) "w_$2" "$work/timed" "$work/t" "$SF" run --trusted -e "$POLICY" -- ;;
	audit) "w_$2" "$work/timed" "$work/t" env LD_AUDIT="$work/libaudit.so" ;;
	empty) "w_$2" "$work/timed" "$work/t" env LD_PRELOAD="$work/libempty.so" ;;
	inert) "w_$2" "$work/timed" "$work/t" env LD_PRELOAD="$LIB" ;;
	kept) "w_$2" "$work/timed" "$work/t" env LD_AUDIT="$work/libkept.so" SECFILTER_POLICY="$POLICY" \
		SECFILTER_MODE=trusted ;;
	esac >/dev/null 2>"$work/err"
	read -r wall cpu st <"$work/t"
	if [ "$st" -ne 0 ]; then
		echo "fail($st: $(head -c 60 "$work/err" | tr '\n' ' '))"
		return
	fi
	echo "$wall $cpu"
}


# The last three columns are the floors of a start under the library,
# what no work of its own can go below: any library at all in LD_PRELOAD
# (an empty one: what the loader's open, mappings and lookups cost every
# image), this library there with no policy (interposition's floor), and
# its kept copy in LD_AUDIT (trusted mode's).
MODES=${MODES:-interpose trusted preload run audit empty inert kept}
WORKLOADS=${WORKLOADS:-loop loopc make conf}
mode_label() {
	case $1 in
	interpose) echo interpose ;;
	trusted) echo trusted ;;
	preload) echo "+ LD_PRELOAD" ;;
	run) echo "run --trusted" ;;
	audit) echo "empty LD_AUDIT" ;;
	empty) echo "empty PRELOAD" ;;
	inert) echo "inert PRELOAD" ;;
	kept) echo "kept AUDIT" ;;
	*) echo "$1" ;;
	esac
}
echo
echo "workloads: ratio to the unfiltered run beside each run, median of $ROUNDS rounds;"
echo "wall time, and in parentheses CPU time (user + system of every process)"
printf '%-44s %9s' "" "plain ms"
for m in $MODES; do printf ' %15s' "$(mode_label "$m")"; done
printf '\n'
for w in $WORKLOADS; do
	for m in plain $MODES; do : >"$work/$w.$m"; : >"$work/$w.$m.cpu"; done
	: >"$work/$w.fail"
	run plain "$w" >/dev/null # warm the page cache
	for r in $(seq "$ROUNDS"); do
		for m in $MODES; do
			if [ $((r % 2)) = 1 ]; then
				read -r p pc < <(run plain "$w")
				t=$(run "$m" "$w")
			else
				t=$(run "$m" "$w")
				read -r p pc < <(run plain "$w")
			fi
			echo "$p" >>"$work/$w.plain"
			case $t in
			fail*) echo "$m: $t" >>"$work/$w.fail" ;;
			*)
				set -- $t
				awk -v t="$1" -v p="$p" 'BEGIN { printf "%.4f\n", t / p }' >>"$work/$w.$m"
				awk -v t="$2" -v p="$pc" 'BEGIN { printf "%.4f\n", t / p }' >>"$work/$w.$m.cpu"
				;;
			esac
		done
	done
	label=$(workload_label "$w")
	cell() { # the median ratios, or what failed
		if [ -s "$work/$w.$1" ]; then
			printf '%.2fx (%.2fx)' "$(median <"$work/$w.$1")" "$(median <"$work/$w.$1.cpu")"
		else
			echo fails
		fi
	}
	printf '%-44s %9.1f' "$label" "$(median <"$work/$w.plain" | awk '{ print $1 / 1000 }')"
	for m in $MODES; do printf ' %15s' "$(cell "$m")"; done
	printf '\n'
	if [ -s "$work/$w.fail" ]; then
		sort "$work/$w.fail" | uniq -c | sed 's/^/      /' | head -3
	fi
done
