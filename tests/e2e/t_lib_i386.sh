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
expect_grep '^[^ ]+\[[0-9]+\]: system call 295 \(i386, int \$0x80\) blocked at ip:[0-9a-f]+$' k.err
expect_grep '^    rule: a 32-bit system call \(int \$0x80, i386 number 295\)' k.err
expect_no_grep '^forged' k.out
echo "ok a 32-bit call is reported and killed under '*: 1'"

# Log mode reports it and lets it proceed as it was made: through int
# $0x80 (which faults where the kernel has no IA32 emulation).
SECFILTER_ACTION=log filtered '*: 1' "$C" forge-i386 >l.out 2>l.err
expect_grep '^LOG lib_compat\[[0-9]+\]: i386 system call 295\(.*\) let through \(a 32-bit system call \(int \$0x80, i386 number 295\)' l.err
expect_no_grep 'add:' l.err
SECFILTER_ACTION=log-full filtered '*: 1' "$C" forge-i386 >l.out 2>l.err
expect_grep '^    rule: a 32-bit system call' l.err
echo "ok log mode reports it"

# The kernel filter's architecture check, in every way of starting: a real
# int $0x80 (i386's getpid, 20, which is x86-64's writev) is reported as the
# 32-bit call it is, with no add: line (no rule can allow one).  Without
# IA32 emulation the instruction faults before any filter sees it.
cat >i80.c <<'C'
#include <stdio.h>
int main(void)
{
	long r;

	printf("before\n");
	fflush(stdout);
	__asm__ volatile("int $0x80" : "=a"(r) : "0"(20L) : "memory");
	printf("after %ld\n", r);
	return 0;
}
C
cc -o i80 i80.c || fail "cc i80.c"
./i80 >plain.out 2>&1
if ! grep -q '^after [0-9]' plain.out; then
	echo "no IA32 emulation here: the kernel filter's check of a real int \$0x80 is not tested" >&3
	exit 0
fi
for mode in $MODES; do
	in_mode "$mode" '*: 1' ./i80 >"i80.$mode.out" 2>"i80.$mode.err"
	st=$?
	[ "$st" -eq 137 ] || [ "$st" -eq 159 ] || fail "$mode: int \$0x80 not killed (status $st)"
	expect_grep '^i80\[[0-9]+\]: system call 20 \(i386, int \$0x80\) blocked at ip:' "i80.$mode.err"
	expect_grep '^    rule: a 32-bit system call \(int \$0x80, i386 number 20\)' "i80.$mode.err"
	expect_no_grep 'sys_writev|^    add:' "i80.$mode.err"
	expect_no_grep '^after' "i80.$mode.out"
done
echo "ok a real int \$0x80 is reported as a 32-bit call in every mode, with no add: line"
