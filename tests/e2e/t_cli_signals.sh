# secfilter run passes on every signal a user can send it, in both modes,
# a queued signal with its value; a stop signal stops the job and SIGCONT
# continues it; and PROG never runs on without run: a signal that kills
# run by default ends PROG first, and PROG dies with a run killed by
# SIGKILL.
. "$TOP/tests/e2e/lib.sh"
exec 3>&2
fail() { echo "FAIL: $*" >&3; exit 1; }

prog=$PROGS/cli_prog
# Without what is tested here, a failure leaves PROG running (waiting for
# a signal forever): kill it then, whatever happened.
child=
trap '[ -n "$child" ] && kill -KILL $child 2> /dev/null' EXIT

# child_of PID: the child of run PID, once it has one
child_of() {
	local i c
	for i in $(seq 100); do c=$(pgrep -P $1) && { echo $c; return 0; }; sleep 0.02; done
	fail "run $1 has no child"
}

# wait_for FILE: until FILE exists (PROG is ready)
wait_for() {
	local i
	for i in $(seq 200); do [ -e "$1" ] && return 0; sleep 0.02; done
	fail "$1 never appeared"
}

# gone PID: the process has ended (a zombie whose new parent has not
# reaped it yet has ended too)
gone() {
	local i st
	for i in $(seq 100); do
		st=$(awk '{print $3}' /proc/$1/stat 2> /dev/null) || return 0
		[ "$st" = Z ] && return 0
		sleep 0.02
	done
	return 1
}

# start MODE FILE: runs "cli_prog catch FILE" under run in MODE
# (interpose, trusted) in the background; sets $runner
start() {
	rm -f "$2"
	$SECFILTER run --$1 -e '*: 1' -- $prog catch "$2" > out 2> err 3>&- &
	runner=$!
	wait_for "$2"
	child=$(child_of $runner)
}

for mode in interpose trusted; do
	for s in HUP INT QUIT ILL TRAP ABRT BUS FPE USR1 SEGV USR2 PIPE ALRM TERM STKFLT \
		 CHLD CONT URG XCPU XFSZ VTALRM PROF WINCH IO PWR SYS RTMIN RTMIN+5 RTMAX; do
		start $mode ready
		kill -s $s $runner || fail "kill -s $s"
		wait $runner; st=$?
		n=$(kill -l $s)
		[ $st -eq 0 ] || fail "$mode: SIG$s to run: status $st ($(cat err))"
		[ "$(cat out)" = "got $n" ] || fail "$mode: SIG$s to run: PROG says '$(cat out)'"
	done
	# a queued signal keeps its value
	start $mode ready
	$prog sigqueue $runner $(kill -l RTMIN+2) 4242 || fail "sigqueue"
	wait $runner || fail "$mode: sigqueue to run: status $?"
	[ "$(cat out)" = "got $(kill -l RTMIN+2) value 4242" ] || fail "$mode: queued: '$(cat out)'"

	# a stop signal: PROG and run stop (the job is stopped); SIGCONT to
	# run continues both
	for s in TSTP TTIN TTOU; do
		$SECFILTER run --$mode -e '*: 1' -- $prog sleep 1 out done > out 3>&- &
		runner=$!
		child=$(child_of $runner)
		sleep 0.3
		kill -s $s $runner
		for i in $(seq 100); do
			[ "$(awk '{print $3}' /proc/$runner/stat)$(awk '{print $3}' /proc/$child/stat)" = TT ] && break
			sleep 0.02
		done
		[ "$(awk '{print $3}' /proc/$runner/stat)" = T ] || fail "$mode: SIG$s: run not stopped"
		[ "$(awk '{print $3}' /proc/$child/stat)" = T ] || fail "$mode: SIG$s: PROG not stopped"
		kill -CONT $runner
		wait $runner; st=$?
		[ $st -eq 0 ] || fail "$mode: SIG$s then SIGCONT: status $st"
		[ "$(cat out)" = done ] || fail "$mode: SIG$s then SIGCONT: PROG did not finish"
	done

	# a signal PROG does not catch ends PROG, and run with its status:
	# nothing is left running
	$SECFILTER run --$mode -e '*: 1' -- $prog sleep 20 3>&- &
	runner=$!
	child=$(child_of $runner)
	sleep 0.3
	kill -USR1 $runner
	wait $runner; st=$?
	[ $st -eq 138 ] || fail "$mode: SIGUSR1 to run: status $st, not 138"
	gone $child || fail "$mode: PROG $child runs on after run died of SIGUSR1"

	# SIGKILL cannot be passed on: PROG dies with run
	$SECFILTER run --$mode -e '*: 1' -- $prog sleep 20 3>&- &
	runner=$!
	child=$(child_of $runner)
	sleep 0.3
	kill -KILL $runner
	wait $runner 2> /dev/null
	gone $child || fail "$mode: PROG $child runs on after run was killed by SIGKILL"
done
exit 0
