#!/usr/bin/env bash
# libsecfilter.so handles clone3 itself (its child must arm before it runs
# program code): what the kernel refuses before creating a task it refuses
# too, and a longer struct with a zero tail works, as without the library.
. "$TOP/tests/e2e/lib.sh"

C=$PROGS/lib_compat

"$C" clone3 >c.ref 2>&1; echo "status $?" >>c.ref
filtered '*: 1' "$C" clone3 >c.got 2>&1; echo "status $?" >>c.got
cmp -s c.ref c.got || { diff c.ref c.got >&2; fail "clone3 differs from an unfiltered run"; }
expect_grep '^clone3\(NULL\) EFAULT$' c.got
echo "ok clone3 as the kernel checks it"

# A clone given a new stack, sharing no memory: the child runs on that
# stack from the instruction after the syscall, as without the library,
# and CLONE_CLEAR_SIGHAND resets the handlers but not what is ignored.
"$C" clone-stack >s.ref 2>&1; echo "status $?" >>s.ref
filtered '*: 1' "$C" clone-stack >s.got 2>&1; echo "status $?" >>s.got
cmp -s s.ref s.got || { diff s.ref s.got >&2; fail "clone with a new stack differs from an unfiltered run"; }
expect_grep '^clone3\(stack, CLEAR_SIGHAND\) child 0$' s.got
expect_grep '^clone3\(stack, size 0\) EINVAL$' s.got
echo "ok fork-like clones on a new stack"
