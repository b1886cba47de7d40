# CPython's own regression tests (Debian's libpython3.11-testsuite) under
# '*: 1' give the verdicts of an unfiltered run, test by test: under the
# library (interposition), the library's trusted mode (LD_AUDIT and
# LD_PRELOAD) and `secfilter run --trusted`.  A short set that starts
# processes and handles signals every way Python does (posix_spawn with
# every attribute, asyncio's subprocesses, ptys, mmap); the full set,
# with its figures, is in doc/testing.md.  A test whose verdict differs
# is run again alone, in both ways: a flaky test that then agrees passes.
. "$TOP/tests/e2e/lib.sh"

PY=/usr/bin/python3
MODS=${CPYTHON_TESTS:-test_posix test_asyncio.test_subprocess test_pty test_mmap}
VERDICTS=$TOP/tests/e2e/py_verdicts.py
$PY -c 'import test.support, test.libregrtest' 2>/dev/null ||
	fail "CPython's test package is missing (apt-get install libpython3.11-testsuite)"

# how MODE CMD...: CMD under the way of starting MODE.  SIGINT at its
# default first, as in a terminal: a shell leaves it ignored for a command
# it runs in the background, and Python then does not turn it into
# KeyboardInterrupt, which some tests expect.
how() {
	local mode=$1 pre; shift
	case $mode in
	plain) pre=(env) ;;
	interpose) pre=(env LD_PRELOAD="$LIB" SECFILTER_POLICY='*: 1') ;;
	trusted) pre=(env LD_AUDIT="$LIB" LD_PRELOAD="$LIB" SECFILTER_MODE=trusted SECFILTER_POLICY='*: 1') ;;
	run) pre=("$SECFILTER" run --trusted -e '*: 1' --) ;;
	esac
	$PY -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])' \
		"${pre[@]}" "$@"
}

for mode in plain interpose trusted run; do
	# shellcheck disable=SC2086 # MODS is a word list
	how $mode $PY -m test -j2 --junit-xml "$SCRATCH/$mode.xml" $MODS >$mode.log 2>&1
	[ -s "$SCRATCH/$mode.xml" ] || { tail -20 $mode.log >&2; fail "$mode: no results"; }
	$PY "$VERDICTS" "$SCRATCH/$mode.xml" >$mode.v
	echo "$mode: $($PY "$VERDICTS" --summary "$SCRATCH/$mode.xml" | tr '\n' ';')"
done

for mode in interpose trusted run; do
	diff plain.v $mode.v | sed -n 's/^[<>] [a-z]* //p' | sort -u >$mode.differ
	while read -r t; do
		mod=$(echo "$t" | cut -d. -f2)
		[ "$mod" = test_asyncio ] && mod=test_asyncio.$(echo "$t" | cut -d. -f3)
		a=$(how plain $PY -m test "$mod" -m "${t##*.}" 2>&1 | grep -c 'Tests result: SUCCESS')
		b=$(how $mode $PY -m test "$mod" -m "${t##*.}" 2>&1 | grep -c 'Tests result: SUCCESS')
		[ "$a" = "$b" ] || fail "$mode: $t: $(grep -F " $t" plain.v) unfiltered, $(grep -F " $t" $mode.v) here"
		echo "note: $mode: $t differed once, agrees when run again"
	done <$mode.differ
	echo "ok $mode: the verdicts of an unfiltered run"
done
