#!/usr/bin/env bash
# The policy's warnings (`in` on an argument that is no flag word), as
# `secfilter check` prints them, printed by the library at load: once,
# by the first image only (not by the images it execs, nor a second time
# under run, which printed them itself), where reports go, and not fatal.
. "$TOP/tests/e2e/lib.sh"

printf '*: 1\nio_uring_setup: 0\nsys_write: fd in 1|2\n' >w.conf
FILE=$SCRATCH/w.conf
"$SECFILTER" check w.conf >/dev/null 2>check.err
WANT=$(grep -c '^w.conf:3:12: warning: '"'in'"' tests bits' check.err)
[ "$WANT" = 1 ] || { cat check.err >&2; fail "check does not warn of 'fd in 1|2'"; }

# count_warnings FILE: the warnings about line 3 of w.conf in FILE
count_warnings() { grep -c "^$FILE:3:12: warning: 'in' tests bits: 'fd in 1|2'" "$1"; }

for how in preload audit run; do
	case $how in
	preload) LD_PRELOAD=$LIB SECFILTER_POLICY_FILE=$FILE sh -c 'echo one; sh -c "echo two"' ;;
	audit) LD_AUDIT=$LIB LD_PRELOAD=$LIB SECFILTER_MODE=trusted SECFILTER_POLICY_FILE=$FILE \
		sh -c 'echo one; sh -c "echo two"' ;;
	run) "$SECFILTER" run -p w.conf -- sh -c 'echo one; sh -c "echo two"' ;;
	esac >"$how.out" 2>"$how.err"
	st=$?
	[ $st -eq 0 ] || fail "$how: status $st: $(cat "$how.err")"
	[ "$(cat "$how.out" | tr '\n' ' ')" = "one two " ] || fail "$how: the program did not run: $(cat "$how.err")"
	[ "$(count_warnings "$how.err")" = 1 ] || { cat "$how.err" >&2; fail "$how: not one warning"; }
	expect_grep '^    3 \| sys_write: fd in 1\|2$' "$how.err"
	echo "ok $how: one warning, from the first image"
done

# where reports go: SECFILTER_LOG's file, not standard error
LD_PRELOAD=$LIB SECFILTER_LOG=$SCRATCH/log.txt SECFILTER_POLICY_FILE=$FILE sh -c 'sh -c true' 2>log.err
[ "$(count_warnings log.txt)" = 1 ] || { cat log.txt >&2; fail "the warning is not in SECFILTER_LOG's file"; }
[ -s log.err ] && fail "the warning went to standard error too: $(cat log.err)"
echo "ok the warning goes where SECFILTER_LOG says"

# a policy without warnings: nothing
printf '*: 1\nio_uring_setup: 0\nsys_write: fd == 1 || fd == 2\n' >ok.conf
LD_PRELOAD=$LIB SECFILTER_POLICY_FILE=$SCRATCH/ok.conf sh -c 'echo one' >ok.out 2>ok.err
[ -s ok.err ] && fail "a policy without warnings printed: $(cat ok.err)"
echo "ok no warning where check has none"
