# The command's option handling, as a script calling it sees it: one clear
# message per usage error (not getopt's and ours), status 2, and --help and
# --version on every subcommand.
. "$TOP/tests/e2e/lib.sh"
exec 3>&2
fail() { echo "FAIL: $*" >&3; exit 1; }

# expect_usage WANT_LINE CMD...: status 2, WANT_LINE first, then the pointer
# to --help, and nothing else.
expect_usage() {
	local want=$1; shift
	expect_status 2 "$@" > out 2> err
	[ -s out ] && fail "$*: wrote to stdout: $(cat out)"
	[ "$(wc -l < err)" -eq 2 ] || fail "$*: expected two lines on stderr, got: $(cat err)"
	[ "$(head -1 err)" = "$want" ] || fail "$*: first line: $(head -1 err), not: $want"
	expect_grep "^Try 'secfilter .*--help' for more information\.$" err
}

expect_usage "secfilter: unknown option '-x'" $SECFILTER -x
expect_usage "secfilter: unknown option '--bogus'" $SECFILTER --bogus
expect_usage "secfilter: run: unknown option '-x'" $SECFILTER run -x -- true
expect_usage "secfilter: run: unknown option '--bogus'" $SECFILTER run --bogus -- true
expect_usage "secfilter: run: option '--policy' needs an argument" $SECFILTER run --policy
expect_usage "secfilter: run: option '-e' needs an argument" $SECFILTER run -e
expect_usage "secfilter: compile: option '--format' needs an argument" $SECFILTER compile --format
expect_usage "secfilter: compile: option '-o' needs an argument" $SECFILTER compile -e '*: 1' -o
expect_usage "secfilter: learn: option '-o' needs an argument" $SECFILTER learn -o
expect_usage "secfilter: check: unknown option '-z'" $SECFILTER check -z x.conf
expect_usage "secfilter: show: unknown option '--bogus'" $SECFILTER show --bogus
expect_usage "secfilter: syscalls: unknown option '--bogus'" $SECFILTER syscalls --bogus

# --version and --help everywhere, status 0, on stdout
for c in check run show compile learn syscalls; do
	expect_status 0 $SECFILTER $c --version > out 2> err
	expect_grep '^secfilter [0-9]+\.[0-9]+' out
	[ -s err ] && fail "$c --version wrote to stderr: $(cat err)"
	expect_status 0 $SECFILTER $c -h > out
	expect_grep "^Usage: secfilter $c" out
	expect_status 0 $SECFILTER help $c > out
	expect_grep "^Usage: secfilter $c" out
done
expect_status 0 $SECFILTER -V > out
expect_grep '^secfilter [0-9]' out

# options after PROG are PROG's, not run's or learn's
expect_status 0 $SECFILTER run -e '*: 1' -- $PROGS/cli_prog out --version > out
expect_grep '^--version$' out
expect_status 0 $SECFILTER run -e '*: 1' $PROGS/cli_prog out -e > out
expect_grep '^-e$' out
exit 0
