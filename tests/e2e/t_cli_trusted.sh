# secfilter run in trusted mode: a static program gets the kernel filter
# automatically, dies of SIGSYS with the diagnostic line on a violation,
# runs normally when the policy allows its work; --trusted does the same
# for a dynamic program, loader included.
. "$TOP/tests/e2e/lib.sh"
# Failures reach the real stderr even from a command whose stderr the test
# redirected (expect_status ... 2> err).
exec 3>&2
fail() { echo "FAIL: $*" >&3; exit 1; }

static=$PROGS/cli_prog-static

# expect_reported FILE COMM NR NAME: run, listening to its filter, wrote
# the report the library would: the diagnostic line of SPEC §3, the
# arguments, the rule, the line to add.
expect_reported() {
	expect_grep "^$2\[[0-9]+\]: system call $3 \($4\) blocked at ip:[0-9a-f]+$" "$1"
	expect_grep '^    rule: ' "$1"
	expect_grep "^    add: $4: " "$1"
}

# expect_blocked FILE COMM NR NAME: the diagnostic line of SPEC §3 from the
# kernel's audit record (a filter nobody listens to: the library's, for
# an exec'd static program), or, when the kernel rate-limited its audit
# message, run's account of that.
expect_blocked() {
	if grep -q 'rate-limited' "$1"; then
		echo "note: the kernel rate-limited the audit record" >&2
		expect_grep "^$2\[[0-9]+\]: killed by signal 31 \(SIGSYS\)" "$1"
		return
	fi
	expect_grep "^$2\[[0-9]+\]: system call $3 \($4\) blocked at ip:[0-9a-f]+$" "$1"
	[ "$(wc -l < "$1")" -eq 1 ] || fail "more than the one diagnostic line: $(cat "$1")"
}

# a policy for the static program's own work (learned, see t_cli_learn)
expect_status 0 $SECFILTER learn -o static.conf -- $static out hi > /dev/null
expect_status 0 $SECFILTER run -p static.conf -- $static out hi > out 2> err
expect_grep '^hi$' out
[ -s err ] && fail "stderr: $(cat err)"

# the policy need not allow execve: run's exec of PROG is not PROG's
expect_no_grep '^sys_execve' static.conf

# a forbidden call: killed (by SIGSYS, as by the kernel), the report, status 159
expect_status 159 $SECFILTER run -p static.conf -- $static out before getppid out after > out 2> err
expect_grep '^before$' out
expect_no_grep '^after$' out
expect_reported err 'cli_prog-static' 110 'sys_getppid'
expect_grep '^    add: sys_getppid: 1$' err

# the policy applies to children and threads too (fork's child calls getuid)
expect_status 0 $SECFILTER learn -o fork.conf -- $static fork > /dev/null
expect_status 0 $SECFILTER run -p fork.conf -- $static fork
expect_status 0 $SECFILTER run -e '*: 1; getuid: 0' -- $static out x > /dev/null
expect_status 123 $SECFILTER run -e '*: 1; getuid: 0' -- $static fork 2> err
# (the child died of SIGSYS; the parent, which only waits, did not: run
# says so, and PROG's 0 is not run's)
expect_reported err 'cli_prog-static' 102 'sys_getuid'
expect_grep '^secfilter: 1 process killed by the policy: cli_prog-static\[[0-9]+\] sys_getuid$' err
# a descendant's kill, through a shell: its report, and the tree's account
# (prctl: a call sh itself does not make)
expect_status 123 $SECFILTER run --trusted -e '*: 1; prctl: 0' -- sh -c "$static nodump; echo \$? > status" 2> err
[ "$(cat status)" = 159 ] || fail "the descendant did not die of SIGSYS: $(cat status)"
expect_reported err 'cli_prog-static' 157 'sys_prctl'
expect_grep '^    option = PR_SET_DUMPABLE \(4\)$' err
expect_grep '^    add: sys_prctl: option == PR_SET_DUMPABLE$' err
expect_grep '^secfilter: 1 process killed by the policy: cli_prog-static\[[0-9]+\] sys_prctl$' err
# a program that handles SIGSYS still dies (SIGKILL), the call never ran
expect_status 137 $SECFILTER run --trusted -e '*: 1; getppid: 0' -- $static sigsys getppid out after > out 2> err
expect_no_grep '^after$' out
expect_reported err 'cli_prog-static' 110 'sys_getppid'

# status passthrough
expect_status 3 $SECFILTER run -e '*: 1' -- $static exit 3
expect_status 143 $SECFILTER run -e '*: 1' -- $static kill 15

# --log: violations are reported and proceed; at the end, a summary whose
# lines, added to the policy, let the same run through
expect_status 0 $SECFILTER run --log -p static.conf -- $static out before getppid getppid out after > out 2> err
expect_grep '^after$' out
expect_grep '^LOG cli_prog-static\[[0-9]+\]: sys_getppid\(\) let through \(not in the allowed set\); add: sys_getppid: 1$' err
[ "$(grep -c '^LOG cli_prog-static\[' err)" = 1 ] || fail "the same violation reported twice: $(cat err)"
expect_grep '^secfilter: log mode: 2 calls the policy denies ran, of 1 system call' err
expect_grep '^    sys_getppid: 1 +# 2 calls: cli_prog-static$' err
{ cat static.conf; sed -n 's/^    \(sys_.*\)/\1/p' err; } > fixed.conf
expect_status 0 $SECFILTER run -p fixed.conf -- $static out before getppid getppid out after > out 2> err
[ -s err ] && fail "stderr: $(cat err)"

# --trusted on a dynamic program: the loader's calls are checked too
dyn=$PROGS/cli_prog
expect_status 0 $SECFILTER learn -o dyn.conf -- $dyn out hi thread > /dev/null
expect_status 0 $SECFILTER run --trusted -p dyn.conf -- $dyn out hi thread > out
expect_grep '^hi$' out
expect_status 159 $SECFILTER run --trusted -p dyn.conf -- $dyn out hi getppid > out 2> err
expect_reported err 'cli_prog' 110 'sys_getppid'
# a policy that leaves out what the dynamic loader needs (mmap) stops it
grep -v '^sys_mmap:' dyn.conf > nommap.conf
expect_status 159 $SECFILTER run --trusted -p nommap.conf -- $dyn out hi > out 2> /dev/null
[ -s out ] && fail "the program ran without mmap: $(cat out)"
SECFILTER_MODE=trusted expect_status 159 $SECFILTER run -p dyn.conf -- $dyn getppid 2> /dev/null

# a static program exec'd by a program under the library gets the policy as
# a kernel filter from the library; run reports its death the same way
expect_status 159 $SECFILTER run -e '*: 1; kill: sig != 15' -- sh -c "exec $static out x kill 15 out after" > out 2> err
expect_grep '^x$' out
expect_no_grep '^after$' out
expect_blocked err 'cli_prog-static' 62 'sys_kill'

# a kernel filter cannot wait for the next exec
expect_status 1 $SECFILTER run -e 'on_next_syscall: 1; *: 1' -- $static out x 2> err
expect_grep 'on_next_syscall: 1 cannot be deferred' err
# the library cannot reach a static program
expect_status 2 $SECFILTER run --interpose -e '*: 1' -- $static out x 2> err
expect_grep 'statically linked' err
# a policy over the kernel's 4096 instructions
for i in $(seq 1 3000); do echo "write: fd != $i || count != $i"; done > big.conf
echo '*: 1; io_uring_setup: 0' >> big.conf
expect_status 1 $SECFILTER run -p big.conf -- $static out x > out 2> err
expect_grep '4096' err
[ -s out ] && fail "ran under a policy it could not install"
exit 0
