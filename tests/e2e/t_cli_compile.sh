# secfilter compile: the three output formats, -o, the 4096-instruction
# limit, and that the raw program is one the kernel accepts and enforces.
. "$TOP/tests/e2e/lib.sh"
# Failures reach the real stderr even from a command whose stderr the test
# redirected (expect_status ... 2> err).
exec 3>&2
fail() { echo "FAIL: $*" >&3; exit 1; }

policy='read: fd == 0; write: fd == 1 || fd == 2; exit_group: 1'

expect_status 0 $SECFILTER compile -e "$policy" > disasm.out
[ -s disasm.out ] || fail "no disassembly"
expect_status 0 $SECFILTER compile -e "$policy" --format=disasm > disasm2.out
cmp disasm.out disasm2.out || fail "disasm is not the default"

# C: compiles as it is
expect_status 0 $SECFILTER compile -e "$policy" --format=c -o filter.c
[ -s filter.c ] || fail "no C output"
cc -c -o filter.o filter.c || fail "the C output does not compile"

# raw: 8 bytes per instruction, to a file or to standard output
expect_status 0 $SECFILTER compile -e "$policy" --format=raw -o filter.raw
size=$(stat -c %s filter.raw)
[ "$size" -gt 0 ] && [ $((size % 8)) -eq 0 ] || fail "raw output of $size bytes"
expect_status 0 $SECFILTER compile -e "$policy" -f raw > raw.out
cmp filter.raw raw.out || fail "raw to -o and to stdout differ"

# -p FILE and SECFILTER_POLICY give the same program
echo "$policy" > p.conf
expect_status 0 $SECFILTER compile -p p.conf -f raw -o p.raw
cmp filter.raw p.raw || fail "-p and -e differ"
SECFILTER_POLICY=$policy expect_status 0 $SECFILTER compile -f raw -o env.raw
cmp filter.raw env.raw || fail "SECFILTER_POLICY and -e differ"

# as many instructions in each format
n=$(grep -cE '^[0-9]{4} ' disasm.out)
[ $((n * 8)) -eq "$size" ] || fail "disasm has $n instructions, raw $((size / 8))"

# the C program works in the kernel: installed by a program built with it
expect_status 0 $SECFILTER compile -e '*: 1; getppid: 0' -f c -o deny.c
cat > install.c <<'C'
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "deny.c"
int main(int argc, char **argv)
{
	(void)argc;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &secfilter_fprog))
		return 2;
	execv(argv[1], argv + 1);
	return 127;
}
C
cc -o install install.c || fail "a program with the C output does not build"
expect_status 0 ./install $PROGS/cli_prog-static out hello > out
expect_grep '^hello$' out
expect_status 159 ./install $PROGS/cli_prog-static getppid

# the raw program works in the kernel: a deny list of getppid
expect_status 0 $SECFILTER compile -e '*: 1; getppid: 0' -f raw -o deny.raw
expect_status 0 $PROGS/cli_rawload deny.raw $PROGS/cli_prog-static out hello > out
expect_grep '^hello$' out
expect_status 159 $PROGS/cli_rawload deny.raw $PROGS/cli_prog-static out hello getppid out after > out
expect_no_grep '^after$' out

# errors
expect_status 1 $SECFILTER compile -e 'read: fdd == 0' 2> err
expect_grep "^<command-line>:1:7: error: unknown argument 'fdd'" err
expect_status 2 $SECFILTER compile -e "$policy" --format=elf 2> err
expect_grep "unknown format 'elf'" err
expect_status 2 $SECFILTER compile -e "$policy" -p p.conf 2> /dev/null
expect_status 2 $SECFILTER compile 2> err
expect_grep 'no policy' err
expect_status 125 $SECFILTER compile -e "$policy" -o /nonexistent/dir/out 2> err
expect_grep '^secfilter: compile: /nonexistent/dir/out: No such file or directory' err

# over 4096 instructions: an error that says so, and no output file
for i in $(seq 1 3000); do echo "write: fd != $i || count != $i"; done > big.conf
expect_status 0 $SECFILTER check -q big.conf
expect_status 1 $SECFILTER compile -p big.conf -o big.out 2> err
expect_grep '4096' err
[ -e big.out ] && fail "compile left an output file for a policy it refused"
exit 0
