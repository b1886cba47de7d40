#!/usr/bin/env bash
# libsecfilter.so's report: the first line has the 2011 format
#   COMM[PID]: system call NR (sys_NAME) blocked at ip:HEX
# for every number, including one the syscall table does not name (the
# kernel's entry for those is sys_ni_syscall), and the ip is the program's.
. "$TOP/tests/e2e/lib.sh"

C=$PROGS/lib_compat

for nr in 1000 400 -1; do
	filtered '*: 1' "$C" nr "$nr" >nr.out 2>nr.err
	expect_sigkill $?
	head -1 nr.err >first
	expect_grep "^lib_compat\[[0-9]+\]: system call $nr \(sys_ni_syscall\) blocked at ip:[0-9a-f]+$" first
	expect_report nr.err ni_syscall 'not in the allowed set'
	expect_grep '#0 .*lib_compat' nr.err
	echo "ok unnamed syscall $nr: $(cat first)"
done

# A frame of a program built with -g ends with its file and line (the
# DWARF line table, read by the library), one without says nothing more.
filtered '*: 1' "$C" nr 1000 >nr.out 2>nr.err
expect_grep '^      #[0-9]+ 0x[0-9a-f]+ main\+0x[0-9a-f]+ \(.*lib_compat\) at tests/progs/lib_compat\.c:[0-9]+$' nr.err
expect_no_grep 'libc\.so\.6\) at ' nr.err
echo "ok file:line in a -g program's frames"
