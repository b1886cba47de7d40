# run's diagnostic line for a kill by a kernel filter nobody listens to
# (run --trusted listens to its own, see t_cli_trusted), from the audit
# record: the library's filter for a static program a shell under it
# execs; a program name with spaces or quotes (which the audit log
# hex-encodes), and secfilter running in its own PID namespace (where the
# record's pid is not the one run knows).
. "$TOP/tests/e2e/lib.sh"
exec 3>&2
fail() { echo "FAIL: $*" >&3; exit 1; }

static=$PROGS/cli_prog-static

# blocked COMM NR NAME CMD...: CMD ends with status 159 and the diagnostic
# line of SPEC §3.  The kernel rate-limits audit messages (10 in 5 s,
# shared with every test): when run says it found none, once more after
# the limit's interval, so that a wrong match is not taken for a limit.
blocked() {
	local comm=$1 nr=$2 name=$3 try; shift 3
	for try in 1 2; do
		expect_status 159 "$@" > out 2> err
		grep -q 'rate-limited' err || break
		[ $try = 1 ] && sleep 5.5
	done
	expect_grep "^$comm\[[0-9]+\]: system call $nr \($name\) blocked at ip:[0-9a-f]+$" err
	[ "$(wc -l < err)" -eq 1 ] || fail "more than the one diagnostic line: $(cat err)"
}

if ! head -c0 /dev/kmsg 2> /dev/null; then
	echo "note: /dev/kmsg unreadable; nothing to test" >&2
	exit 0
fi

# (prctl: a call the shell does not make itself)
cp $static 'my "prog"'
blocked 'my "prog"' 157 sys_prctl $SECFILTER run -e '*: 1; prctl: 0' -- \
	sh -c "exec './my \"prog\"' nodump"

if [ "$(id -u)" = 0 ] && unshare --pid --fork --mount-proc true 2> /dev/null; then
	# the record's pid is the initial namespace's: run must still find it
	blocked cli_prog-static 157 sys_prctl unshare --pid --fork --mount-proc \
		$SECFILTER run -e '*: 1; prctl: 0' -- sh -c "exec $static nodump"
	# run --trusted listening, with the host's /proc, where run's pids
	# name other processes: it ends its own child, not the host's
	# process of that pid (nor does it name it), and says which call
	expect_status 137 unshare --pid --fork \
		$SECFILTER run --trusted -e '*: 1; prctl: 0' -- $static nodump > out 2> err
	expect_grep '^\?\[[0-9]+\]: system call 157 \(sys_prctl\) blocked at ip:' err
	expect_grep '^    option = PR_SET_DUMPABLE \(4\)$' err
fi
exit 0
