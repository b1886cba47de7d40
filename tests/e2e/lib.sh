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
