# secfilter learn: the policy it writes lets the same run succeed, in both
# modes, and no more than that; it follows threads and children, counts
# calls, and passes the program's status on.
. "$TOP/tests/e2e/lib.sh"
exec 3>&2
fail() { echo "FAIL: $*" >&3; exit 1; }

dyn=$PROGS/cli_prog
static=$PROGS/cli_prog-static

expect_status 0 $SECFILTER learn -o learned.conf -- $dyn out hi fork thread > out
expect_grep '^hi$' out
# header: the command and the date; one counted line per syscall, with
# the program that made the calls
expect_grep "^#   $dyn out hi fork thread\$" learned.conf
expect_grep ' on [0-9]{4}-[0-9]{2}-[0-9]{2} .* from 1 run:$' learned.conf
expect_grep '^sys_write: fd == 1 +# [0-9]+ calls?: cli_prog$' learned.conf
expect_grep '^sys_getuid: 1 +# 1 call: cli_prog$' learned.conf   # the forked child's
expect_grep '^sys_getgid: 1 +# 1 call: cli_prog$' learned.conf   # the thread's
expect_grep '^sys_mmap: ' learned.conf                           # the loader's
expect_no_grep '^sys_getppid' learned.conf
expect_no_grep '^sys_execve' learned.conf             # run's exec, not PROG's
# sections by purpose, each in number order, and a valid policy
expect_grep '^# @file-system: ' learned.conf
awk '/^# @/ { if (last != "") print last; last = "" } /^sys_/ { sub(/:.*/, ""); last = last " " $0 }
     END { print last }' learned.conf > sections
while read -r names; do
	nrs=$(echo $names | sed 's/sys_//g' | xargs $SECFILTER syscalls | cut -d' ' -f1)
	[ "$nrs" = "$(echo "$nrs" | sort -n)" ] || fail "a section not in number order: $names"
done < sections
expect_status 0 $SECFILTER check -q learned.conf

# the same run succeeds under it, with the library and in trusted mode
expect_status 0 $SECFILTER run -p learned.conf -- $dyn out hi fork thread > out
expect_grep '^hi$' out
expect_status 0 $SECFILTER run --trusted -p learned.conf -- $dyn out hi fork thread > out
expect_grep '^hi$' out
# and it is no allow-all
expect_status 137 $SECFILTER run -p learned.conf -- $dyn getppid 2> /dev/null
expect_status 159 $SECFILTER run --trusted -p learned.conf -- $dyn getppid 2> /dev/null

# --args: strict filters every described argument by its values, none
# filters nothing; either way the same run succeeds, in both modes
expect_status 0 $SECFILTER learn --args=strict -o strict.conf -- $dyn out hi fork thread > /dev/null
expect_grep '^sys_rt_sigprocmask: how == SIG_BLOCK' strict.conf
expect_grep '^sys_openat: dfd == AT_FDCWD && flags == O_RDONLY\|O_CLOEXEC ' strict.conf
expect_grep 'Arguments filtered: --args=strict' strict.conf
expect_status 0 $SECFILTER learn --args=none -o none.conf -- $dyn out hi fork thread > /dev/null
grep '^sys_' none.conf | grep -v '^sys_[a-z0-9_]*: 1 ' && fail "--args=none filtered an argument"
for conf in strict.conf none.conf; do
	expect_status 0 $SECFILTER run --interpose -p $conf -- $dyn out hi fork thread > out
	expect_grep '^hi$' out
	expect_status 0 $SECFILTER run --trusted -p $conf -- $dyn out hi fork thread > out
	expect_grep '^hi$' out
done
expect_status 2 $SECFILTER learn --args=some -o x.conf -- $dyn 2> err
expect_grep "takes none, auto or strict, not 'some'" err
# --merge of something that is neither a policy nor a log: status 1, no run
echo 'this is not a policy' > junk
expect_status 1 $SECFILTER learn --merge junk -o x.conf -- $dyn touch ran 2> err
expect_grep 'junk is neither a policy nor a log' err
[ -e ran ] && fail "PROG ran after a bad --merge"

# a static program (which the library could not have seen)
expect_status 0 $SECFILTER learn -o static.conf -- $static out hi thread > /dev/null
expect_status 0 $SECFILTER run -p static.conf -- $static out hi thread > out
expect_grep '^hi$' out

# a real program through PATH; without -o the policy goes to ./ls.conf,
# never into the program's own output
expect_status 0 $SECFILTER learn -- ls /etc > ls.out 2> ls.err
expect_grep 'the policy is in ls.conf' ls.err
expect_no_grep '^(#|sys_)' ls.out
grep -q '^sys_getdents64: 1' ls.conf || fail "ls did not need getdents64? $(cat ls.conf)"
expect_status 0 $SECFILTER run -p ls.conf -- ls /etc > /dev/null
expect_status 0 $SECFILTER run --trusted -p ls.conf -- ls /etc > /dev/null
# ./ls.conf is not overwritten: it says what to do instead
expect_status 2 $SECFILTER learn -- ls /etc > /dev/null 2> err
expect_grep 'ls.conf exists: give -o FILE .* or --merge ls.conf' err
# -o -: standard output is the policy's alone; PROG's own goes to
# standard error, and a file learn's standard output appends to keeps
# what it had
echo kept > stdout.conf
expect_status 0 $SECFILTER learn -o - -- $dyn out hi >> stdout.conf 2> stdout.err
expect_grep '^sys_exit_group: ' stdout.conf
expect_grep '^kept$' stdout.conf
expect_no_grep '^hi$' stdout.conf
expect_grep '^hi$' stdout.err
sed 1d stdout.conf > stdout.only
expect_status 0 $SECFILTER check -q stdout.only

# the program's status is learn's; the policy is written all the same
expect_status 3 $SECFILTER learn -o exit.conf -- $dyn exit 3
expect_grep '^sys_exit_group: 1 ' exit.conf
expect_status 143 $SECFILTER learn -o killed.conf -- $dyn kill 15
expect_grep '^sys_kill: sig == SIGTERM ' killed.conf

# not found, usage
expect_status 127 $SECFILTER learn -o x.conf -- no-such-program-here 2> /dev/null
[ -e x.conf ] && fail "learn wrote a policy for a program that never ran"
expect_status 2 $SECFILTER learn -o x.conf 2> /dev/null
expect_status 125 $SECFILTER learn -o /nonexistent/dir/x.conf -- $dyn out hi > /dev/null 2> err
expect_grep 'nonexistent/dir/x.conf' err

# threads wait for each other through futex only when timing makes them:
# a run in which none had to wait still learns it, or the next run of the
# same command, timed otherwise, dies (pthread_join of a running thread)
for p in $dyn $static; do
	expect_status 0 $SECFILTER learn -o late.conf -- $p latejoin > /dev/null
	expect_grep '^sys_futex: 1 ' late.conf
	expect_status 0 $SECFILTER run --trusted -p late.conf -- $p thread
done
# Calls timing decides are learned as a family whenever their trigger is
# seen: a run of cli_learn with no input makes none of them, and the
# policy lets a run that meets them go to its end, in both modes: a signal
# from outside (rt_sigreturn, from the handler installed), a thread that
# yields (sched_yield, from the thread), a timer (setitimer, from the
# SIGALRM handler) and a sleep stopped and continued (restart_syscall,
# from a sleep).  learn says which calls it so allowed, made or not.
T=$PROGS/cli_learn
# in_syscall PID NR: waits until PID is in syscall NR, or gone
in_syscall() {
	while [ -e /proc/$1 ] && [ "$(cut -d' ' -f1 /proc/$1/syscall 2> /dev/null)" != "$2" ]; do
		sleep 0.01
	done
}
expect_status 0 $SECFILTER learn -o timing.conf -- $T timing < /dev/null > /dev/null 2> timing.err
for c in rt_sigreturn sched_yield setitimer alarm restart_syscall; do
	expect_grep "^sys_$c: 1 +# 0 calls, but timing decides it where " timing.conf
	expect_grep "learn: +$c +not made, since " timing.err
done
expect_grep '^sys_futex: 1 ' timing.conf   # a join may have waited
expect_grep 'learn: +futex +(not made|[0-9]+ calls?), since there are threads' timing.err
expect_grep 'calls that depend on timing in other ways are not known' timing.err
# a merge reads the families back from the comments: the same rules
expect_status 0 $SECFILTER learn --merge timing.conf -o timing2.conf
diff <(grep '^sys_' timing.conf) <(grep '^sys_' timing2.conf) > /dev/null ||
	fail "a merge without a run changed the rules: $(diff timing.conf timing2.conf)"
for mode in --interpose --trusted; do
	rm -f in out; mkfifo in out
	$SECFILTER run $mode -p timing.conf -- $T timing < in > out 2> run.err &
	job=$!
	exec 4> in 5< out
	read -r ready pid <&5
	[ "$ready" = ready ] || fail "cli_learn timing, $mode: '$ready $pid' $(cat run.err)"
	kill -USR1 "$pid"
	printf 'yield\nalarm\nsleep\n' >&4
	# stopped while it sleeps, and continued: it sleeps on in
	# restart_syscall; a signal ends the sleep
	in_syscall "$pid" 230    # clock_nanosleep
	kill -STOP "$pid"
	while [ -e /proc/$pid ] && ! grep -q '^State:[[:space:]]*T' /proc/$pid/status; do sleep 0.01; done
	kill -CONT "$pid"
	in_syscall "$pid" 219    # restart_syscall
	kill -USR1 "$pid"
	exec 4>&-
	read -r signals <&5
	exec 5<&-
	wait $job || fail "cli_learn timing under its policy, $mode: status $?: $(cat run.err)"
	[ "$signals" = "signals 3" ] || fail "cli_learn timing, $mode: '$signals'"
done
# a program without threads or handlers gets none of them
expect_status 0 $SECFILTER learn -o plain.conf -- $dyn out hi > /dev/null 2> plain.err
expect_no_grep '^sys_(rt_sigreturn|sched_yield|setitimer|alarm|futex|restart_syscall):' plain.conf
expect_no_grep 'not made' plain.err

# setsockopt: the (level, optname) pairs the run made, kept together and
# named by their level; SO_DEBUG, TCP_NODELAY's number at SOL_SOCKET, is
# no pair it made.  Merged with another run, the pairs are read back and
# joined, and a merge without a run writes the same rules.
expect_status 0 $SECFILTER learn -o sockopt.conf -- $T sockopt > /dev/null 2>&1
expect_grep '^sys_setsockopt: level == SOL_SOCKET && optname == SO_REUSEADDR \|\| level == IPPROTO_TCP && optname == TCP_NODELAY  ' sockopt.conf
for mode in --interpose --trusted; do
	expect_status 0 $SECFILTER run $mode -p sockopt.conf -- $T sockopt > /dev/null
done
expect_status 137 $SECFILTER run --interpose -p sockopt.conf -- $T sockopt cross 2> cross.err
expect_grep '^    optname = SO_DEBUG \(1\)$' cross.err
expect_status 159 $SECFILTER run --trusted -p sockopt.conf -- $T sockopt cross 2> /dev/null
expect_status 0 $SECFILTER learn --merge sockopt.conf -- $T sockopt keepalive > /dev/null 2>&1
expect_grep '^sys_setsockopt: level == SOL_SOCKET && optname == SO_REUSEADDR \|\| level == SOL_SOCKET && optname == SO_KEEPALIVE \|\| level == IPPROTO_TCP && optname == TCP_NODELAY  ' sockopt.conf
expect_status 0 $SECFILTER run -p sockopt.conf -- $T sockopt keepalive > /dev/null
expect_status 137 $SECFILTER run -p sockopt.conf -- $T sockopt cross 2> /dev/null
expect_status 0 $SECFILTER learn --merge sockopt.conf -o again.conf
diff <(grep '^sys_' sockopt.conf) <(grep '^sys_' again.conf) > /dev/null ||
	fail "a merge without a run changed the rules: $(diff sockopt.conf again.conf)"

# --merge reads an OCI profile and a minijail policy as check does (by
# their names), and never rewrites one: without -o the policy goes to
# ./PROG.conf
P=$TOP/tests/e2e/policies
expect_status 0 $SECFILTER learn --merge $P/docker-like.json -o oci.conf > /dev/null 2>&1
expect_grep '^default: return EPERM$' oci.conf            # the profile's defaultAction
expect_grep '^sys_personality: personality == 0 ' oci.conf # an argument filter of it
expect_status 0 $SECFILTER check -q oci.conf
cp $P/minijail-runtime.policy mj.policy
expect_status 0 $SECFILTER learn --merge mj.policy -o mj.conf > /dev/null 2>&1
expect_grep '^sys_set_robust_list: 1$' mj.conf
expect_no_grep '^(default|sys_personality):' mj.conf
expect_status 0 $SECFILTER check -q mj.conf
expect_status 0 $SECFILTER learn --merge mj.policy -- $dyn out hi > /dev/null 2>&1
expect_grep '^sys_set_robust_list: 1 ' cli_prog.conf
cmp -s mj.policy $P/minijail-runtime.policy || fail "learn rewrote a minijail --merge file"
echo 'not json' > bad.json
expect_status 1 $SECFILTER learn --merge bad.json -o x.conf -- $dyn touch ran 2> err
expect_grep '^bad.json:1:' err
[ -e ran ] && fail "PROG ran after a bad --merge"
exit 0
