#!/usr/bin/env bash
# The way back from a trapped call (preload/trap/dispatch.c, sf_trap_return):
# an allowed call that is not special returns to the program without
# rt_sigreturn, and every register a syscall keeps comes back -- general
# registers, flags, red zone, xmm, ymm, zmm and the opmask registers --
# also while signals keep arriving from another thread.  With an
# alternate signal stack the frame is built there and rt_sigreturn takes
# the program back, with the same registers.  Sites are never rewritten
# here: every call traps.
. "$TOP/tests/e2e/lib.sh"

export SECFILTER_REWRITE=0
P=$PROGS/lib_rewrite

filtered '*: 1; lseek: fd != 7' "$P" regs >out 2>err || { cat err >&2; fail "regs: status $?"; }
for n in 1 2 3; do expect_grep "^regs $n ok\$" out; done
filtered '*: 1' "$P" vregs >out 2>err || { cat err >&2; fail "vregs: status $?"; }
# Each is checked when the CPU has it; this file says which it has.
if grep -qw avx /proc/cpuinfo; then expect_grep '^vregs ymm ok$' out; fi
if grep -qw avx512bw /proc/cpuinfo; then expect_grep '^vregs zmm ok$' out; fi
expect_no_grep 'wrong' out
echo "ok a trapped call keeps every register ($(tr '\n' ' ' <out | sed 's/site_a ip [0-9a-f]* //'))"

filtered '*: 1' timeout 120 "$P" regs-signals 100000 >out 2>err || { cat err >&2; fail "regs-signals: status $?"; }
expect_grep '^regs-signals 100000 wrong 0, signals handled$' out
echo "ok registers kept over 100000 trapped calls while SIGUSR1 keeps arriving"

filtered '*: 1' "$P" alt-regs >out 2>err || { cat err >&2; fail "alt-regs: status $?"; }
expect_grep '^regs 1 ok$' out
expect_grep '^regs 2 ok$' out
if grep -qw avx /proc/cpuinfo; then expect_grep '^vregs ymm ok$' out; fi
if grep -qw avx512bw /proc/cpuinfo; then expect_grep '^vregs zmm ok$' out; fi
echo "ok with an alternate signal stack too"

# Which way back each took: no rt_sigreturn for 3000 plain calls; one per
# trap on the alternate stack.
if command -v strace >/dev/null; then
	filtered '*: 1' strace -f -qq -o trace -e trace=rt_sigreturn -e signal=SIGSYS \
		"$P" loops 1000 >out 2>err || { cat err >&2; fail "loops: status $?"; }
	ltraps=$(grep -c 'SIGSYS' trace); lback=$(grep -c 'rt_sigreturn(' trace)
	[ "$ltraps" -ge 3000 ] || fail "loops: only $ltraps SIGSYS"
	[ "$lback" -lt 100 ] || fail "loops: $lback rt_sigreturn for $ltraps traps"
	filtered '*: 1' strace -qq -o trace -e trace=rt_sigreturn,sigaltstack -e signal=SIGSYS \
		"$P" alt-regs >out 2>err || { cat err >&2; fail "alt-regs under strace: status $?"; }
	read -r traps back < <(awk '/sigaltstack/ { on = 1 } on && /SIGSYS/ { t++ }
		on && /rt_sigreturn\(/ { r++ } END { print t + 0, r + 0 }' trace)
	# every trap but the last, exit_group
	[ "$traps" -ge 6 ] && [ "$back" -eq $((traps - 1)) ] ||
		fail "alt-regs: $back rt_sigreturn for $traps traps"
	echo "ok rt_sigreturn after $lback of $ltraps traps on the program's stack, $back of $traps on an alternate one"
fi
