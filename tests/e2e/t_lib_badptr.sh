#!/usr/bin/env bash
# Bad pointers in the arguments libsecfilter.so reads or rewrites (signal
# masks, sigaction structs, clone3's struct, execve's envp) get the
# kernel's answer, EFAULT, exactly as in an unfiltered run: never a SIGSEGV
# inside the library.
. "$TOP/tests/e2e/lib.sh"

P=$PROGS/lib_badptr

"$P" >ref 2>&1; echo "status $?" >>ref
expect_grep '^execve\(envp string bad\) +EFAULT$' ref  # the program does what it says
expect_grep '^execve\(envp above the stack\) +EFAULT$' ref

filtered '*: 1' "$P" >got 2>&1; echo "status $?" >>got
cmp -s ref got || { diff ref got >&2; fail "interposition: differs from an unfiltered run"; }
echo "ok interposition: $(grep -c EFAULT got) calls answered EFAULT"

# The start's own argv and environment lie on its initial stack, which
# the library reads without a readability probe (rt_sigprocmask with an
# invalid how); a copy on the heap gets one per page.
if command -v strace >/dev/null; then
	strace -f -qq -e trace=rt_sigprocmask,execveat -o st.out \
		env LD_PRELOAD="$LIB" SECFILTER_POLICY='*: 1' "$PROGS/lib_probe" vfork /bin/true >/dev/null 2>&1
	expect_grep 'execveat\(' st.out # the library's exec path ran
	[ "$(grep -c 'rt_sigprocmask(0xffffffff' st.out)" -eq 0 ] ||
		{ cat st.out >&2; fail "an exec of the start's own environment probed its pages"; }
	echo "ok no probe of the initial stack's pages"
else
	echo "skip: strace missing: the initial stack's probes not counted"
fi

# trusted mode: the kernel answers all but the SIGSYS sigaction, which the
# library reads plainly there (see preload/trap/user.c), so it is left out
"$P" nosigsys >ref 2>&1; echo "status $?" >>ref
filtered_trusted '*: 1' "$P" nosigsys >got 2>&1; echo "status $?" >>got
cmp -s ref got || { diff ref got >&2; fail "trusted: differs from an unfiltered run"; }
echo "ok trusted"

# The calls are still decided: a policy without rt_sigsuspend kills the
# program there, bad pointer or not.
filtered '*: 1; rt_sigsuspend: 0' "$P" >got 2>err; st=$?
[ "$st" -eq 137 ] || fail "rt_sigsuspend denied: status $st"
expect_grep 'system call 130 \(sys_rt_sigsuspend\) blocked' err
exit 0
