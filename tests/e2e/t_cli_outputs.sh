# Where compile and learn write: a failed write never removes what was
# there before (a device, a symlink's target, a FIFO), the C form is
# byte for byte the raw form, and learn refuses an output it cannot write
# before it runs PROG, not after.
. "$TOP/tests/e2e/lib.sh"
exec 3>&2
fail() { echo "FAIL: $*" >&3; exit 1; }

policy='*: 1; io_uring_setup: 0; getppid: 0; write: fd == 1 || fd == 2 || count > 4096'

# A full device (a private one: never the system's /dev/full).
# (a nodev mount makes the node unusable: then it proves nothing)
if [ "$(id -u)" = 0 ] && mknod full c 1 7 2> /dev/null &&
   ! (echo x > full) 2> devtest && grep -q 'No space left' devtest; then
	expect_status 125 $SECFILTER compile -e "$policy" -f raw -o full 2> err
	expect_grep '^secfilter: compile: full: No space left on device$' err
	[ -c full ] || fail "compile removed the device it could not write to"
	# through a symlink: the link stays too
	ln -s full link
	expect_status 125 $SECFILTER compile -e "$policy" -o link 2> /dev/null
	[ -L link ] || fail "compile removed the symlink it wrote through"
	[ -c full ] || fail "compile removed the device behind a symlink"
else
	echo "note: cannot make a device node; skipping the full-device checks" >&2
fi
# A file it created and could not finish is removed.
if [ "$(id -u)" = 0 ] && command -v prlimit > /dev/null; then
	# (SIGXFSZ ignored, the write fails with EFBIG instead of killing)
	(trap '' XFSZ; expect_status 125 prlimit --fsize=100 $SECFILTER compile -e "$policy" -f c -o small.out 2> err)
	expect_grep '^secfilter: compile: small.out: File too large$' err
	[ -e small.out ] && fail "compile left a half-written file"
fi
# standard output closed or full: status 125, a message
expect_status 125 $SECFILTER compile -e "$policy" -f raw >&- 2> err
expect_grep '^secfilter: compile: standard output' err

# the C form holds exactly the raw program
expect_status 0 $SECFILTER compile -e "$policy" -f raw -o prog.raw
expect_status 0 $SECFILTER compile -e "$policy" -f c -o prog.c
cat > dump.c <<'C'
#include <stdio.h>
#include "prog.c"
int main(void)
{
	return fwrite(secfilter_filter, sizeof(secfilter_filter), 1, stdout) != 1;
}
C
cc -Wall -Werror -o dump dump.c || fail "the C form does not build warning-free"
./dump > c.raw || fail "dump failed"
cmp prog.raw c.raw || fail "the C form and the raw form differ"
# and the disassembly has as many instructions
n=$($SECFILTER compile -e "$policy" | grep -cE '^[0-9]{4} ')
[ $((n * 8)) -eq "$(stat -c %s prog.raw)" ] || fail "disasm: $n instructions"

# learn: an output it cannot write is refused before PROG runs
expect_status 125 $SECFILTER learn -o /nonexistent/dir/x.conf -- $PROGS/cli_prog touch marker 2> err
expect_grep '/nonexistent/dir/x.conf: No such file or directory' err
[ -e marker ] && fail "learn ran PROG although it could not write the policy"
mkdir ro && chmod 555 ro
if ! touch ro/probe 2> /dev/null; then
	expect_status 125 $SECFILTER learn -o ro/x.conf -- $PROGS/cli_prog touch marker 2> err
	[ -e marker ] && fail "learn ran PROG although it could not write the policy"
fi
# a program that cannot be started leaves no policy file behind
expect_status 126 $SECFILTER learn -o never.conf -- /tmp 2> /dev/null
[ -e never.conf ] && fail "learn left a policy for a program that never ran"
# an existing file is replaced by the policy only once the run is over
echo 'old' > old.conf
expect_status 0 $SECFILTER learn -o old.conf -- $PROGS/cli_prog out hi > /dev/null
expect_no_grep '^old$' old.conf
expect_status 0 $SECFILTER check -q old.conf
exit 0
