# Every man page renders without a warning, in the tree as installed (no
# page is a .so link, which man -l cannot follow from the source tree);
# secfilter(1) documents every subcommand, option and environment variable
# the tool knows, and secfilter-preload(7) every variable the library reads.
. "$TOP/tests/e2e/lib.sh"
exec 3>&2
fail() { echo "FAIL: $*" >&3; exit 1; }

command -v groff > /dev/null || { echo "groff missing: skipped" >&3; exit 0; }
pages=0
for f in "$TOP"/man/*.[137]; do
	page=${f##*/}
	pages=$((pages + 1))
	grep -q '^\.so ' "$f" && fail "$page is a .so link: man -l cannot follow it in the tree"
	groff -ww -t -man -z "$f" 2> warn || fail "groff failed on $page"
	[ -s warn ] && fail "groff warns about $page: $(cat warn)"
	MANWIDTH=80 man -l "$f" > rendered 2> warn || fail "man -l $page failed"
	[ -s warn ] && fail "man -l warns about $page: $(cat warn)"
	[ -s rendered ] || fail "$page renders empty"
	expect_grep '^NAME$' rendered
done
for page in secfilter.1 secfilter.7 secfilter-preload.7 secfilter_apply.3 \
	    secfilter_error.3 secfilter_mode.3; do
	[ -f "$TOP/man/$page" ] || fail "man/$page is missing"
done
echo "ok $pages pages render"

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

# every SECFILTER_ variable the library's sources name (header guards
# aside) has its entry in secfilter-preload(7)
MANWIDTH=200 man -l "$TOP/man/secfilter-preload.7" 2> /dev/null > preload
vars=$(grep -rhoE '"SECFILTER_[A-Z_]+' "$TOP/preload" | tr -d '"' | sort -u)
[ -n "$vars" ] || fail "no SECFILTER_ variable found in preload/"
for v in $vars; do
	expect_grep "^ +$v\$" preload
done
# the two API pages lead to the page that describes the API
for p in secfilter_error secfilter_mode; do
	MANWIDTH=80 man -l "$TOP/man/$p.3" 2> /dev/null > api
	expect_grep "^ +$p +- " api
	expect_grep 'secfilter_apply\(3\)' api
done
exit 0
