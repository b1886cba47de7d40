# run's diagnostic line for a kernel-filter kill, from the audit record:
# a program name with spaces or quotes (which the audit log hex-encodes),
# and secfilter running in its own PID namespace (where the record's pid
# is not the one run knows).
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

cp $static 'my "prog"'
blocked 'my "prog"' 110 sys_getppid $SECFILTER run -e '*: 1; getppid: 0' -- './my "prog"' getppid

if [ "$(id -u)" = 0 ] && unshare --pid --fork --mount-proc true 2> /dev/null; then
	# the record's pid is the initial namespace's: run must still find it
	blocked cli_prog-static 110 sys_getppid unshare --pid --fork --mount-proc \
		$SECFILTER run -e '*: 1; getppid: 0' -- $static getppid
	# and with the host's /proc, where run's pids name other processes
	blocked cli_prog-static 110 sys_getppid unshare --pid --fork \
		$SECFILTER run -e '*: 1; getppid: 0' -- $static getppid
fi
exit 0
