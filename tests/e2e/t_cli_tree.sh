# secfilter run supervises the whole tree: a process the policy killed is
# named at the end even when its parent reaped it and PROG exited 0, and
# then run's status is 123; the news travels even through a cleared
# environment; a missing listener never holds the kill up.
. "$TOP/tests/e2e/lib.sh"
exec 3>&2
fail() { echo "FAIL: $*" >&3; exit 1; }

prog=$PROGS/cli_prog
printf '*: 1\ngetdents64: 0\n' > sh.conf

# the example: ls is killed, wc prints 0, sh exits 0
expect_status 123 $SECFILTER run -p sh.conf -- sh -c 'ls /usr | wc -c' > out 2> err
[ "$(tr -d ' ' < out)" = 0 ] || fail "wc printed: $(cat out)"
expect_grep '^ls\[[0-9]+\]: system call 217 \(sys_getdents64\) blocked at ip:' err
pid=$(sed -n 's/^ls\[\([0-9]*\)\]: system call.*/\1/p' err)
[ "$(tail -1 err)" = "secfilter: 1 process killed by the policy: ls[$pid] sys_getdents64" ] ||
	fail "last line: $(tail -1 err)"

# PROG's own non-zero status is kept; the kill is still named
expect_status 3 $SECFILTER run -p sh.conf -- sh -c 'ls /usr; exit 3' > /dev/null 2> err
expect_grep '^secfilter: 1 process killed by the policy: ls\[[0-9]+\] sys_getdents64$' err

# several, deeper in the tree, through a cleared environment (the library
# passes the supervisor on across exec, as it does the policy)
expect_status 123 $SECFILTER run -p sh.conf -- sh -c \
	'ls /usr; env -i /bin/sh -c "/bin/ls /; (/bin/ls /tmp)"; true' > /dev/null 2> err
expect_grep '^secfilter: 3 processes killed by the policy: ls\[[0-9]+\] sys_getdents64, ls\[[0-9]+\] sys_getdents64, ls\[[0-9]+\] sys_getdents64$' err
# a long list is cut
expect_status 123 $SECFILTER run -p sh.conf -- sh -c \
	'for i in 1 2 3 4 5 6 7 8 9 10 11 12; do ls /usr; done; true' > /dev/null 2> err
expect_grep '^secfilter: 12 processes killed by the policy: (ls\[[0-9]+\] sys_getdents64, ){10}and 2 more$' err

# PROG itself killed: its status and its report say it, no summary; with
# a child killed too, both are named
expect_status 137 $SECFILTER run -e '*: 1; getppid: 0' -- $prog getppid 2> err
expect_no_grep 'killed by the policy' err
expect_status 137 $SECFILTER run -e '*: 1; getuid: 0; getppid: 0' -- $prog fork getppid 2> err
expect_grep '^secfilter: 2 processes killed by the policy: cli_prog\[[0-9]+\] sys_getuid, cli_prog\[[0-9]+\] sys_getppid$' err

# nothing killed: no line, PROG's status
expect_status 0 $SECFILTER run -p sh.conf -- sh -c 'echo hi' > out 2> err
expect_no_grep 'killed by the policy' err
# log mode kills nothing
expect_status 0 $SECFILTER run --log -p sh.conf -- sh -c 'ls /usr > /dev/null' 2> err
expect_no_grep 'killed by the policy' err
# a supervisor inherited from outside is not run's: replaced, not used
SECFILTER_SUPERVISOR=someone-else expect_status 123 $SECFILTER run -p sh.conf -- \
	sh -c 'ls /usr; true' 2> err
expect_grep '^secfilter: 1 process killed by the policy: ' err

# the library alone: no one listening never holds the kill up; a bad name
# is refused like any bad setting
SECFILTER_SUPERVISOR=nobody-listens-here expect_status 137 \
	filtered '*: 1; getppid: 0' $prog getppid 2> err
expect_grep 'sys_getppid' err
SECFILTER_SUPERVISOR='not/a name' expect_status 125 filtered '*: 1' $prog out x 2> err
expect_grep "^secfilter: SECFILTER_SUPERVISOR: expected a socket name" err
exit 0
