#!/usr/bin/env bash
# A 32-bit call (int $0x80) from a 64-bit program is a violation whatever
# the policy says, as the kernel filter's architecture check makes it:
# the policy names x86-64 calls, and i386's numbers are other calls (its
# openat, 295, is x86-64's preadv).  This kernel may have no IA32
# emulation (int $0x80 faults before any syscall): the program sends
# itself the SIGSYS Syscall User Dispatch would raise for one.
. "$TOP/tests/e2e/lib.sh"

C=$PROGS/lib_compat

filtered '*: 1' "$C" forge-i386 >k.out 2>k.err
expect_sigkill $?
expect_grep '^[^ ]+\[[0-9]+\]: system call 295 \(sys_ni_syscall\) blocked at ip:[0-9a-f]+$' k.err
expect_grep '^    rule: a 32-bit system call \(int \$0x80, i386 number 295\)' k.err
expect_no_grep '^forged' k.out
echo "ok a 32-bit call is reported and killed under '*: 1'"

# Log mode reports it and lets it proceed as it was made: through int
# $0x80 (which faults where the kernel has no IA32 emulation).
SECFILTER_ACTION=log filtered '*: 1' "$C" forge-i386 >l.out 2>l.err
expect_grep '^    rule: a 32-bit system call' l.err
echo "ok log mode reports it"
