#!/usr/bin/env bash
# libsecfilter.so: a forbidden call is killed with SIGKILL after a report,
# whichever way the program makes it.
. "$TOP/tests/e2e/lib.sh"

POL='*: 1; io_uring_setup: 0; write: fd == 1'

# kill_case NAME STEP...: the probe does STEP; its write to fd 2 is denied.
kill_case() {
	local name=$1; shift
	local st
	filtered "$POL" "$PROBE" "$@" >"$name.out" 2>"$name.err"; st=$?
	expect_sigkill "$st"
	expect_grep '^main ran$' "$name.out"
	expect_no_grep '^main done$' "$name.out"
	expect_report "$name.err" write 'sys_write: fd == 1 (SECFILTER_POLICY:1)'
	expect_grep '^    fd = 2$' "$name.err"
	echo "ok $name"
}

kill_case wrapper wrapper          # libc's exported write(): our wrapper
kill_case syscall syscall          # syscall(SYS_write, ...)
kill_case stdio stdio              # fprintf(stderr): a write inside libc
kill_case raw raw                  # a syscall instruction in the program
kill_case thread thread            # a second thread

# The wrapper reports the caller's address: the probe's code, not libc's.
expect_grep '#0 .*lib_probe' wrapper.err
expect_grep '#0 .*libc\.so' stdio.err
expect_grep '#0 .*lib_probe' raw.err

# A fork child: the child dies, the parent goes on.
filtered "$POL" "$PROBE" fork >fork.out 2>fork.err; st=$?
[ "$st" -eq 0 ] || fail "fork: parent status $st"
expect_grep '^fork signal 9$' fork.out
expect_report fork.err write 'sys_write: fd == 1'

# A program that clears its environment and execs another dynamic program:
# the new image still has the library and the policy.
filtered "$POL" "$PROBE" clearenv-exec "$PROBE" wrapper >exec.out 2>exec.err; st=$?
expect_sigkill "$st"
[ "$(grep -c '^main ran$' exec.out)" -eq 2 ] || fail "exec: the new image did not run"
expect_report exec.err write 'sys_write: fd == 1'

# posix_spawn (CLONE_VM|CLONE_VFORK on a new stack) and vfork children.
filtered "$POL" "$PROBE" spawn "$PROBE" wrapper >spawn.out 2>spawn.err
expect_grep '^spawn signal 9$' spawn.out
expect_report spawn.err write 'sys_write: fd == 1'
filtered "$POL" "$PROBE" vfork "$PROBE" wrapper >vfork.out 2>vfork.err
expect_grep '^vfork signal 9$' vfork.out
expect_report vfork.err write 'sys_write: fd == 1'

# A syscall outside the allowed set.
filtered '*: 1; getppid: 0' "$PROBE" getppid >set.out 2>set.err; st=$?
expect_sigkill "$st"
expect_report set.err getppid 'not in the allowed set'

# The program may not switch the catch-all off, whatever the policy says.
cat >sud.c <<'C'
#include <sys/prctl.h>
#include <unistd.h>
int main(void) { prctl(59, 0, 0, 0, 0); write(1, "still here\n", 11); return 0; }
C
cc -o sud sud.c
filtered '*: 1' ./sud >sud.out 2>sud.err; st=$?
expect_sigkill "$st"
expect_report sud.err prctl 'prctl(PR_SET_SYSCALL_USER_DISPATCH)'
echo "ok prctl(PR_SET_SYSCALL_USER_DISPATCH)"

# clone(CLONE_VM) with neither a stack nor CLONE_VFORK cannot be followed
# (the child would run on the stack of the handler): killed, even in log mode.
cat >vmclone.c <<'C'
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(void) { syscall(SYS_clone, CLONE_VM | SIGCHLD, 0, 0, 0, 0); write(1, "after\n", 6); return 0; }
C
cc -o vmclone vmclone.c
env LD_PRELOAD="$LIB" SECFILTER_POLICY='*: 1' SECFILTER_ACTION=log ./vmclone >vm.out 2>vm.err
expect_sigkill $?
expect_no_grep '^after$' vm.out
expect_report vm.err clone 'a CLONE_VM child without its own stack cannot be followed'
echo "ok unfollowable clone"

# A posix_spawn child shares its parent's memory (and thread-local
# storage): when it is killed for a violation, the parent must still be
# filtered afterwards.
filtered '*: 1; execve: 0; getppid: 0' "$PROGS/lib_compat" spawn-getppid /bin/true >sp.out 2>sp.err
expect_sigkill $?
expect_grep '^spawn 0, child signal 9$' sp.out
expect_no_grep 'getppid allowed' sp.out
expect_report sp.err getppid 'not in the allowed set'
echo "ok the parent of a posix_spawn child killed while reporting is still filtered"
