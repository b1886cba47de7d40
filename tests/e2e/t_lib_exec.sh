#!/usr/bin/env bash
# libsecfilter.so across exec: a static binary exec'd by a filtered process
# (LD_PRELOAD cannot reach it) gets the policy as a kernel filter; a
# pending policy (on_next_syscall: 1) takes effect in the next image only.
. "$TOP/tests/e2e/lib.sh"

STATIC=$PROGS/lib_static-static

# Allowed work: runs normally.
filtered '*: 1; getpriority: 0' sh -c "$STATIC; echo status \$?" >ok.out 2>ok.err
expect_grep '^static ok$' ok.out
expect_grep '^status 0$' ok.out
echo "ok static binary under a policy allowing its work"

# A forbidden call: the kernel kills it with SIGSYS (status 159 in sh).
filtered '*: 1; getpriority: 0' sh -c "$STATIC getpriority; echo status \$?" >bad.out 2>bad.err
expect_grep '^static ok$' bad.out
expect_grep '^status 159$' bad.out
expect_no_grep 'static after' bad.out
echo "ok static binary killed by SIGSYS on a forbidden call"

# Pending: the first image runs unrestricted, the exec'd one is filtered.
filtered 'on_next_syscall: 1; *: 1; write: fd == 1' \
	"$PROBE" mode wrapper clearenv-exec "$PROBE" mode wrapper >p.out 2>p.err
expect_sigkill $?
expect_grep '^mode 0$' p.out
expect_grep '^mode 2$' p.out
[ "$(grep -c '^wrapper$' p.err)" -eq 1 ] || fail "the first image's write should have passed"
expect_report p.err write 'sys_write: fd == 1 (SECFILTER_POLICY:'
echo "ok pending policy takes effect after exec"

# The program cannot drop the library or the policy from the environment.
filtered '*: 1; write: fd == 1' env -u LD_PRELOAD SECFILTER_POLICY='*: 1' "$PROBE" wrapper >e.out 2>e.err
expect_sigkill $?
expect_report e.err write 'sys_write: fd == 1'
echo "ok env cannot drop the library or widen the policy"
