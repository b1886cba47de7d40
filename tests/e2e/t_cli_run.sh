# secfilter run under the library (interposition): same output and status
# as an unfiltered run when the policy allows the work, 137 for a
# violation, the program's status passed through, 126/127, --log, signal
# forwarding.
. "$TOP/tests/e2e/lib.sh"
exec 3>&2
fail() { echo "FAIL: $*" >&3; exit 1; }

prog=$PROGS/cli_prog

# an allowing policy: the same output and status as without secfilter
ls -l /etc > plain.out; plain=$?
expect_status $plain $SECFILTER run -e '*: 1; ptrace: 0' -- ls -l /etc > run.out 2> err
cmp plain.out run.out || fail "ls -l /etc differs under secfilter"
[ -s err ] && fail "stderr: $(cat err)"
expect_status 0 $SECFILTER run -e '*: 1' -- $prog out hello fork thread > out
[ "$(cat out)" = hello ] || fail "output: $(cat out)"
# PATH lookup, and a #! script (judged by its interpreter, a dynamic sh)
expect_status 4 $SECFILTER run -e '*: 1' -- sh -c 'echo via sh; exit 4' > out
expect_grep '^via sh$' out
printf '#!/bin/sh\necho script "$@"\n' > script.sh; chmod +x script.sh
expect_status 0 $SECFILTER run -e '*: 1' -- ./script.sh a b > out
expect_grep '^script a b$' out

# a violation: the library's report, SIGKILL (137), nothing after it runs
expect_status 137 $SECFILTER run -e '*: 1; getppid: 0' -- $prog out before getppid out after > out 2> err
expect_grep '^before$' out
expect_no_grep '^after$' out
expect_grep '^cli_prog\[[0-9]+\]: system call 110 \(sys_getppid\) blocked at ip:[0-9a-f]+$' err
# in a forked child and in a thread too; a killed child that PROG reaps
# and survives makes run's status 123 (t_cli_tree)
expect_status 123 $SECFILTER run -e '*: 1; getuid: 0' -- $prog fork 2> err
expect_grep 'system call 102 \(sys_getuid\) blocked' err
expect_status 137 $SECFILTER run -e '*: 1; getgid: 0' -- $prog thread 2> err
expect_grep 'system call 104 \(sys_getgid\) blocked' err
# a policy file and SECFILTER_POLICY work as -e does
printf '*: 1\nkill: sig != SIGTERM\n' > deny.conf
expect_status 137 $SECFILTER run -p deny.conf -- $prog kill 15 2> err
expect_grep 'system call 62 \(sys_kill\) blocked' err
expect_grep 'deny.conf:2' err
SECFILTER_POLICY='*: 1; getppid: 0' expect_status 137 $SECFILTER run -- $prog getppid 2> /dev/null

# --log: reported, and it proceeds
expect_status 0 $SECFILTER run --log -e '*: 1; getppid: 0' -- $prog out before getppid out after > out 2> err
expect_grep '^after$' out
expect_grep '^LOG cli_prog\[[0-9]+\]: sys_getppid\(\) let through \(not in the allowed set\); add: sys_getppid: 1$' err

# the program's status, and death by a signal
expect_status 3 $SECFILTER run -e '*: 1' -- $prog exit 3
expect_status 143 $SECFILTER run -e '*: 1' -- $prog kill 15
# a signal sent to secfilter is passed on
$SECFILTER run -e '*: 1' -- $prog sleep 20 & pid=$!
for i in $(seq 50); do pgrep -P $pid > /dev/null && break; sleep 0.1; done
sleep 0.3
kill -TERM $pid
wait $pid; st=$?
[ $st -eq 143 ] || fail "SIGTERM to secfilter: status $st, not 143"

# not found, not executable: decided before anything runs
expect_status 127 $SECFILTER run -e '*: 1' -- no-such-program-here 2> err
expect_grep '^secfilter: run: no-such-program-here: No such file or directory$' err
expect_status 127 $SECFILTER run -e '*: 1' -- ./missing 2> /dev/null
printf 'data\n' > noexec; chmod -x noexec
expect_status 126 $SECFILTER run -e '*: 1' -- ./noexec 2> err
expect_grep 'Permission denied' err
expect_status 126 $SECFILTER run -e '*: 1' -- /tmp 2> /dev/null

# an invalid policy: reported, nothing runs
expect_status 1 $SECFILTER run -e 'read: fdd == 0' -- $prog touch marker 2> err
expect_grep "^<command-line>:1:7: error: unknown argument 'fdd'" err
[ -e marker ] && fail "the program ran under an invalid policy"

# usage
expect_status 2 $SECFILTER run -e '*: 1' 2> /dev/null
expect_status 2 $SECFILTER run -e '*: 1' --trusted --interpose -- $prog 2> /dev/null
expect_status 2 $SECFILTER run -e '*: 1' -p deny.conf -- $prog 2> /dev/null
SECFILTER_MODE=bogus expect_status 2 $SECFILTER run -e '*: 1' -- $prog 2> /dev/null
exit 0
