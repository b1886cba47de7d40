#!/usr/bin/env bash
# libsecfilter.so, SECFILTER_MODE=trusted: the policy as a kernel filter;
# the library's SIGSYS handler reports and kills.
. "$TOP/tests/e2e/lib.sh"

trusted() {
	local policy=$1; shift
	env LD_PRELOAD="$LIB" SECFILTER_MODE=trusted SECFILTER_POLICY="$policy" "$@"
}

trusted '*: 1; getppid: 0' "$PROBE" out hello >ok.out 2>ok.err || fail "allowed run failed"
expect_grep '^hello$' ok.out
grep -q '^Seccomp:[[:space:]]*2' <(trusted '*: 1' cat /proc/self/status) || fail "no kernel filter"
echo "ok the kernel filter is installed"

# A raw syscall instruction (no userspace check can see it): the kernel traps
# it and the handler reports.
cat >raw.c <<'C'
#include <unistd.h>
int main(void)
{
	long r;
	write(1, "before\n", 7);
	__asm__ volatile("syscall" : "=a"(r) : "0"(110L) : "rcx", "r11", "memory");
	write(1, "after\n", 6);
	return 0;
}
C
cc -o raw raw.c
trusted '*: 1; getppid: 0' ./raw >raw.out 2>raw.err
expect_sigkill $?
expect_grep '^before$' raw.out
expect_no_grep '^after$' raw.out
expect_report raw.err getppid 'not in the allowed set'
echo "ok raw syscall trapped by the kernel, reported, killed"

# Through libc's wrapper.
trusted '*: 1; getppid: 0' "$PROBE" getppid >w.out 2>w.err
expect_sigkill $?
expect_report w.err getppid 'not in the allowed set'

# The program's sigaction(SIGSYS) does not replace the reporting handler.
trusted '*: 1; getppid: 0' "$PROBE" sigsys getppid >s.out 2>s.err
expect_sigkill $?
expect_grep '^sigsys shadow ok$' s.out
expect_report s.err getppid 'not in the allowed set'
echo "ok SIGSYS handler kept"

# When the policy denies the report's own write, the process still dies
# (the kernel kills it): no report can be written.
trusted '*: 1; write: fd == 1' "$PROBE" wrapper >d.out 2>d.err; st=$?
[ "$st" -eq 137 ] || [ "$st" -eq 159 ] || fail "expected death, got $st"
expect_no_grep '^wrapper$' d.err
echo "ok write denied: killed without a report (status $st)"

# A raw rt_sigaction(SIGSYS) cannot take the handler away: the guard filter
# kills the process (SIGSYS); through syscall() it is shadowed.
cat >rawsig.c <<'C'
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>
static void h(int s) { (void)s; }
int main(void)
{
	struct { void *h; unsigned long f; void *r; unsigned long m; } k = { (void *)h, 0x04000000, 0, 0 };
	register long r10 __asm__("r10") = 8;
	long r;
	syscall(SYS_rt_sigaction, SIGSYS, &k, 0, 8);
	write(1, "shadowed\n", 9);
	__asm__ volatile("syscall" : "=a"(r) : "0"(13L), "D"(31L), "S"(&k), "d"(0L), "r"(r10)
			 : "rcx", "r11", "memory");
	write(1, "replaced\n", 9);
	return 0;
}
C
cc -o rawsig rawsig.c
trusted '*: 1' ./rawsig >g.out 2>g.err
[ $? -eq 159 ] || fail "raw rt_sigaction(SIGSYS) was not killed"
expect_grep '^shadowed$' g.out
expect_no_grep '^replaced$' g.out
echo "ok raw rt_sigaction(SIGSYS) killed by the guard"

# An image exec'd in trusted mode inherits the filters, installs its own
# handler (through the guard's stub) and reports.
trusted '*: 1; getpriority: 0' sh -c "$PROGS/lib_static-static >/dev/null; exec $PROBE out child sigsys" >x.out 2>x.err ||
	fail "exec in trusted mode: status $?"
expect_grep '^child$' x.out
expect_grep '^sigsys shadow ok$' x.out
cat >prio.c <<'C'
#include <sys/resource.h>
int main(void) { getpriority(PRIO_PROCESS, 0); return 0; }
C
cc -o prio prio.c
trusted '*: 1; getpriority: 0' sh -c "exec ./prio" >p.out 2>p.err
expect_sigkill $?
expect_report p.err getpriority 'not in the allowed set'
echo "ok exec'd image in trusted mode reports"
