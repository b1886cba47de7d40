# secfilter run never lets a program run unfiltered because the library
# did not load: glibc only warns about a preload it cannot load, so run
# requires the library's handshake before the program's entry point.
# The marker file proves the program's code never ran.
. "$TOP/tests/e2e/lib.sh"
exec 3>&2
fail() { echo "FAIL: $*" >&3; exit 1; }

prog=$PROGS/cli_prog

# expect_refused LIBRARY: run exits 125 with the message, PROG never ran.
expect_refused() {
	rm -f marker
	SECFILTER_LIBRARY=$1 expect_status 125 $SECFILTER run -e '*: 1' -- $prog touch marker out ran > out 2> err
	[ -e marker ] && fail "PROG ran with library $1"
	[ -s out ] && fail "PROG wrote: $(cat out)"
	expect_grep "^secfilter: run: the library $1 was not loaded into $prog; not running it unfiltered$" err
}

# the real library: the handshake succeeds, the program runs
expect_status 0 $SECFILTER run -e '*: 1' -- $prog touch marker
[ -e marker ] || fail "PROG did not run with the real library"
SECFILTER_LIBRARY=$LIB expect_status 0 $SECFILTER run -e '*: 1' -- $prog out ok > out
expect_grep '^ok$' out

# a library that does not exist
expect_refused /nonexistent/libsecfilter.so
# a text file named .so
echo 'not a library' > $SCRATCH/text.so
expect_refused $SCRATCH/text.so
# a library of the wrong ELF class (ELFCLASS32)
cp $LIB $SCRATCH/wrongclass.so
printf '\001' | dd of=$SCRATCH/wrongclass.so bs=1 seek=4 conv=notrunc status=none
expect_refused $SCRATCH/wrongclass.so
# a shared library that loads fine but is not secfilter's: no handshake
expect_refused /lib/x86_64-linux-gnu/libm.so.6

# a relative SECFILTER_LIBRARY is made absolute (PROG may change directory)
mkdir sub && cp $LIB sub/libsecfilter.so
SECFILTER_LIBRARY=sub/libsecfilter.so expect_status 0 $SECFILTER run -e '*: 1' -- $prog out ok > out
expect_grep '^ok$' out
# LD_PRELOAD cannot express a path with a space
mkdir 'with space' && cp $LIB 'with space/libsecfilter.so'
SECFILTER_LIBRARY="$SCRATCH/with space/libsecfilter.so" expect_status 125 $SECFILTER run -e '*: 1' -- $prog touch marker2 2> err
[ -e marker2 ] && fail "PROG ran with a library path LD_PRELOAD cannot hold"

# the library found next to the secfilter binary, and an existing
# LD_PRELOAD kept behind it (which a sanitized secfilter itself receives too)
ASAN_OPTIONS=verify_asan_link_order=0 LD_PRELOAD=/lib/x86_64-linux-gnu/libm.so.6 expect_status 0 $SECFILTER run -e '*: 1' -- sh -c 'echo "$LD_PRELOAD"' > out
expect_grep "^$LIB:/lib/x86_64-linux-gnu/libm.so.6$" out
exit 0
