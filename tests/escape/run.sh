#!/usr/bin/env bash
# The escape battery (tests/escape/a_*.c): each program tries one way for
# a filtered program to do what the policy forbids, and the proof is a
# file: the program is given a path (the marker) and tries to create it.
# The marker existing afterwards means the attempt escaped.
#
# Each attempt runs in the three ways of starting trusted and untrusted
# enforcement (LD_PRELOAD; trusted mode as the README starts it, LD_AUDIT
# and LD_PRELOAD; secfilter run --trusted), under the policy
#     *: 1; io_uring_setup: 0; openat: !(flags & O_CREAT); open: !(flags & O_CREAT); creat: 0
# unless its header names another.  The header of a_NAME.c:
#     // escape: what it tries, in one line (the table's row)
#     // expect: interpose=E trusted=E run=E      E: stop | limit | known | skip
#     // policy: TEXT                              (optional)
#     // env: VAR=VALUE ...                        (optional, for the attempt)
#     // args: WORDS                               (optional, after the marker)
#     // control: allowed | plain | none           (optional; allowed if absent)
#     // lib: private                               (optional: a copy of the
#                                                    library of its own, for an
#                                                    attempt on the library's file)
# stop: the marker must not exist; limit: what interposition cannot stop
# (doc/security.md, "What the library cannot see or do"), shown, not required;
# known: an escape that work in progress elsewhere removes (the header
# says which), shown, not required; skip: not run in that mode.  An attempt finds its helpers (shared
# objects lib_*.so, other programs) in $ESCAPE_DIR, and waits for every
# process it starts, so that the marker is final when it exits.  An
# attempt that finds its way closed by this machine rather than by the
# filter (no IA32 emulation for int $0x80) says so and exits with 77: the
# cell reads "n/a here".
#
# The control run proves that the attempt does create the marker when
# nothing forbids it, so that "stopped" means stopped by the filter and
# not a broken attempt: under the library with the policy `*: 1`
# (allowed), or with no library at all (plain: attacks on what the
# library passes on, which it removes whatever the policy); none for
# attacks on a weakness of the library itself, which only a vulnerable
# build shows.  A control that does not create the marker fails the run.
#
# Usage: bash tests/escape/run.sh [NAME-PATTERN]; B, TOP as for the e2e
# tests.  Prints the attempt x mode table (also written to
# $B/escape/table.txt) and exits 1 if an attempt escaped where it must not.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=${TOP:-$(cd "$here/../.." && pwd)}
B=${B:-$top/build}
case $B in /*) ;; *) B=$top/$B ;; esac
LIB=$B/libsecfilter.so
SECFILTER=$B/secfilter
export ESCAPE_DIR=$B/escape
pattern=${1:-}
# io_uring_setup: 0, or the policy is refused (a ring's IORING_OP_OPENAT
# would create the file unchecked): see a_uring_*.
default_policy='*: 1; io_uring_setup: 0; openat: !(flags & O_CREAT); open: !(flags & O_CREAT); creat: 0'
modes=(interpose trusted run)
heads=("interpose" "LD_AUDIT trusted" "run --trusted")

header() { sed -n "s|^// $2: *||p" "$1" | head -1; }

# start MODE POLICY PROG ARGS...: one way of starting, with the policy.
# The attempt itself is started that way (not a filtered `timeout` or
# `env` that execs it: that would test the exec path instead).
start() {
	local mode=$1 policy=$2; shift 2
	# shellcheck disable=SC2086 # envs is a word list
	case $mode in
	interpose) timeout 30 env LD_PRELOAD="$LIB" SECFILTER_POLICY="$policy" $envs "$@" ;;
	trusted) timeout 30 env LD_AUDIT="$LIB" LD_PRELOAD="$LIB" SECFILTER_MODE=trusted \
		SECFILTER_POLICY="$policy" $envs "$@" ;;
	run) timeout 30 env $envs "$SECFILTER" run --trusted -e "$policy" -- "$@" ;;
	plain) timeout 30 env $envs "$@" ;;
	esac
}

# attempt MODE POLICY DIR: runs the attempt in DIR, its marker DIR/marker;
# sets status.
attempt() {
	local mode=$1 policy=$2 dir=$3 LIB=$LIB
	mkdir -p "$dir"
	if [ "$privlib" = private ]; then
		mkdir -p "$dir/lib" && cp -L "$LIB" "$dir/lib/libsecfilter.so" || { status=2; return; }
		LIB=$dir/lib/libsecfilter.so
	fi
	# shellcheck disable=SC2086 # args is a word list
	(cd "$dir" && start "$mode" "$policy" "$prog" "$dir/marker" $args \
		>"$dir/out" 2>&1 </dev/null)
	status=$?
}

work=$(mktemp -d "${TMPDIR:-/tmp}/secfilter-escape.XXXXXX")
trap 'rm -rf "$work"' EXIT
bad=0 rows=()
printf -v line '%-52s %-8s %-16s %-24s %-16s' attempt control "${heads[@]}"
rows+=("$line")
for src in "$here"/a_*.c; do
	name=$(basename "$src" .c)
	[[ -n $pattern && $name != *$pattern* ]] && continue
	prog=$ESCAPE_DIR/$name
	what=$(header "$src" escape)
	expect=$(header "$src" expect)
	policy=$(header "$src" policy)
	envs=$(header "$src" env)
	args=$(header "$src" args)
	control=$(header "$src" control)
	privlib=$(header "$src" lib)
	[ -n "$policy" ] || policy=$default_policy
	[ -n "$control" ] || control=allowed
	[ -x "$prog" ] || { echo "escape: $prog not built" >&2; bad=1; continue; }
	case $control in
	none) ccell="-" ;;
	allowed|plain)
		mode=interpose; [ "$control" = plain ] && mode=plain
		attempt "$mode" '*: 1' "$work/$name.control"
		if [ -e "$work/$name.control/marker" ]; then
			ccell="ok"
		elif [ "$status" -eq 77 ]; then
			ccell="n/a here"
		else
			ccell="BROKEN"; bad=1
			echo "escape: $name did not create its marker when allowed ($control, status $status):" >&2
			sed 's/^/    | /' "$work/$name.control/out" >&2
		fi ;;
	*) echo "escape: $name: bad control '$control'" >&2; bad=1; continue ;;
	esac
	cells=()
	for mode in "${modes[@]}"; do
		want=$(sed -n "s/.*\b$mode=\([a-z]*\).*/\1/p" <<<"$expect")
		if [ "$want" = skip ] || [ -z "$want" ]; then
			cells+=("-"); continue
		fi
		dir=$work/$name.$mode
		attempt "$mode" "$policy" "$dir"
		if [ -e "$dir/marker" ]; then
			cell="ESCAPED"
			if [ "$want" = stop ]; then
				bad=1
				echo "escape: $name escaped in mode $mode (status $status):" >&2
				sed 's/^/    | /' "$dir/out" >&2
			fi
		elif [ "$status" -eq 77 ]; then
			cell="n/a here"
		else
			cell="stopped"
		fi
		[ "$want" = limit ] && cell="$cell (limit)"
		[ "$want" = known ] && cell="$cell (known)"
		cells+=("$cell")
	done
	printf -v line '%-52s %-8s %-16s %-24s %-16s' "$what" "$ccell" "${cells[@]}"
	rows+=("$line")
done
mkdir -p "$ESCAPE_DIR"
printf '%s\n' "${rows[@]}" | tee "$ESCAPE_DIR/table.txt"
exit $bad
