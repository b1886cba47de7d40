#!/usr/bin/env bash
# libsecfilter.so's wrappers behave as glibc 2.36's functions: the same
# return value, errno and effect, and the same syscall with the same
# arguments (a policy written from strace output must match).
. "$TOP/tests/e2e/lib.sh"

C=$PROGS/lib_compat

# same NAME ARG...: lib_compat's output is identical filtered and not.
same() {
	local name=$1; shift
	touch file
	"$C" "$@" >"$name.ref" 2>&1; echo "status $?" >>"$name.ref"
	touch file
	filtered '*: 1' "$C" "$@" >"$name.got" 2>&1; echo "status $?" >>"$name.got"
	cmp -s "$name.ref" "$name.got" || {
		diff "$name.ref" "$name.got" >&2; fail "$name: differs from glibc"; }
	echo "ok $name: $(head -1 "$name.ref")"
}

# fstat(fd < 0) is EBADF without a call: newfstatat(AT_FDCWD, "",
# AT_EMPTY_PATH) would stat the working directory.
same fstat fstat-cwd
# utimensat with a NULL path is EINVAL in glibc (futimens is the fd form).
same utimensat utimensat-null file
# clock_nanosleep: EINVAL for the thread CPU clock.
same cns cns
# fdopendir sets FD_CLOEXEC, as glibc does.
same fdopendir fdopendir .

# glibc passes CLOCK_PROCESS_CPUTIME_ID to the kernel as the CPU clock of
# pid 0 (-6): a policy written from strace output says so.
filtered '*: 1; clock_nanosleep: which_clock != 2' "$C" cns >cpu.out 2>cpu.err ||
	{ cat cpu.err >&2; fail "clock_nanosleep: not glibc's clock id"; }
echo "ok clock_nanosleep issues glibc's clock id"
