# Helpers for end-to-end tests; source it first.  $B is the build
# directory (absolute), $TOP the source tree, $SCRATCH the test's own
# scratch directory (the current directory).
set -u
LIB=$B/libsecfilter.so
SECFILTER=$B/secfilter
PROGS=$B/progs

fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_status WANT CMD...: runs CMD, fails unless its exit status is WANT.
expect_status() {
	local want=$1; shift
	"$@"; local got=$?
	[ "$got" -eq "$want" ] || fail "expected status $want, got $got: $*"
}

# expect_grep PATTERN FILE: fails unless FILE has a line matching PATTERN.
expect_grep() {
	grep -Eq -- "$1" "$2" || { echo "--- $2:" >&2; cat "$2" >&2; fail "no line matching /$1/ in $2"; }
}

expect_no_grep() {
	! grep -Eq -- "$1" "$2" || { echo "--- $2:" >&2; cat "$2" >&2; fail "unexpected line matching /$1/ in $2"; }
}

# filtered POLICY CMD...: runs CMD under the preload library.
filtered() {
	local policy=$1; shift
	LD_PRELOAD=$LIB SECFILTER_POLICY=$policy "$@"
}

# filtered_trusted POLICY CMD...: the same in trusted mode, started the
# documented way: the library as an audit module (and preloaded).
filtered_trusted() {
	local policy=$1; shift
	LD_AUDIT=$LIB LD_PRELOAD=$LIB SECFILTER_MODE=trusted SECFILTER_POLICY=$policy "$@"
}

# ---- libsecfilter.so (t_lib_*) ----
PROBE=$PROGS/lib_probe

# expect_report FILE SYSCALL RULE: FILE holds a violation report whose first
# line has the 2011 patch's format for sys_SYSCALL, whose rule line contains
# RULE, and whose call site is not inside the library.
expect_report() {
	local file=$1 sys=$2 rule=$3
	expect_grep "^[^ ]+\[[0-9]+\]: system call -?[0-9]+ \(sys_$sys\) blocked at ip:[0-9a-f]+$" "$file"
	grep -F -q -- "    rule: $rule" "$file" || { cat "$file" >&2; fail "no rule line '$rule' in $file"; }
	expect_grep '^    backtrace:' "$file"
	expect_no_grep '#0 .*libsecfilter' "$file"
}

# killed_by_sigkill STATUS: a shell's view of SIGKILL.
expect_sigkill() {
	[ "$1" -eq 137 ] || fail "expected SIGKILL (137), got status $1"
}

# expect_lines REPORT...: each backtrace frame of the reports that says
# `at FILE:LINE` says what `addr2line -e OBJECT OFFSET` says there, and
# no frame lacks a line that addr2line finds in a line table the
# library's reader can read (tests/e2e/report_lines.py).  The comparison
# is left in lines.out, its totals last.
expect_lines() {
	command -v addr2line >/dev/null || fail "addr2line is not installed (binutils)"
	/usr/bin/python3 "$TOP/tests/e2e/report_lines.py" "$@" >lines.out ||
		{ cat lines.out >&2; fail "a report's source lines differ from addr2line's"; }
}
