# The man pages render without a warning, and secfilter(1) documents every
# subcommand, option and environment variable the tool knows.
. "$TOP/tests/e2e/lib.sh"
exec 3>&2
fail() { echo "FAIL: $*" >&3; exit 1; }

command -v groff > /dev/null || { echo "groff missing: skipped" >&3; exit 0; }
for page in secfilter.1 secfilter.7 secfilter_apply.3; do
	f=$TOP/man/$page
	[ -f "$f" ] || fail "man/$page is missing"
	groff -ww -t -man -z "$f" 2> warn || fail "groff failed on $page"
	[ -s warn ] && fail "groff warns about $page: $(cat warn)"
	MANWIDTH=80 man -l "$f" > rendered 2> warn || fail "man -l $page failed"
	[ -s warn ] && fail "man -l warns about $page: $(cat warn)"
	[ -s rendered ] || fail "$page renders empty"
done

MANWIDTH=200 man -l "$TOP/man/secfilter.1" 2> /dev/null > one
for c in check run show compile learn syscalls; do
	expect_grep "secfilter $c" one
	# every long option of the subcommand's --help is in the page
	for o in $($SECFILTER $c --help | grep -oE -- '--[a-z]+' | sort -u); do
		grep -qe "$o" one || fail "secfilter(1) does not mention $c $o"
	done
done
for v in SECFILTER_POLICY SECFILTER_POLICY_FILE SECFILTER_ACTION SECFILTER_LOG \
	 SECFILTER_MODE SECFILTER_LIBRARY SECFILTER_SUPERVISOR; do
	expect_grep "^ +$v\$" one
done
for s in 0 1 2 123 125 126 127; do
	expect_grep "^ +$s +" one
done
exit 0
