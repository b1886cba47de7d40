#!/usr/bin/env bash
# libsecfilter.so keeps the signal state a trapped call changes: the SIGSYS
# handler's return (rt_sigreturn) restores the mask and the alternate stack
# saved in its frame, which must then be the program's new ones.  A SIGSYS
# the program handles itself may make calls; arming the threads of a
# process that starts filtering does not make their blocked calls fail.
. "$TOP/tests/e2e/lib.sh"

C=$PROGS/lib_compat

same() {
	local name=$1; shift
	"$C" "$@" >"$name.ref" 2>&1; echo "status $?" >>"$name.ref"
	filtered '*: 1' "$C" "$@" >"$name.got" 2>&1; echo "status $?" >>"$name.got"
	cmp -s "$name.ref" "$name.got" || {
		diff "$name.ref" "$name.got" >&2; fail "$name: differs from an unfiltered run"; }
	echo "ok $name"
}

same mask-syscall mask-syscall       # syscall(SYS_rt_sigprocmask): trapped
same mask-sigblock mask-sigblock     # libc's own rt_sigprocmask: trapped
same altstack altstack-raw           # a raw sigaltstack: trapped
same sigsys sigsys-forward           # the program's SIGSYS handler uses stdio

# A process that starts unfiltered and applies its first policy: a thread
# blocked in read() is asked to arm itself by a signal, and its read goes
# on (SA_RESTART) rather than failing with EINTR.
LD_PRELOAD="$LIB" "$C" apply-eintr >eintr.out 2>&1 || { cat eintr.out >&2; fail "apply-eintr: status $?"; }
expect_grep '^apply 0$' eintr.out
expect_grep '^read 1 $' eintr.out
echo "ok arming a thread does not interrupt its read"

# errno is the program's: a successful apply leaves it alone.
LD_PRELOAD="$LIB" "$C" errno-apply >errno.out 2>&1
expect_grep '^apply 0 errno 1234$' errno.out
echo "ok errno kept by secfilter_apply"

# The classic time-out: an alarm handler siglongjmp()s out, and
# siglongjmp's rt_sigprocmask (made inside libc: trapped) unblocks SIGALRM
# again.  Were that undone, the second alarm would never come.
cat >jmp.c <<'C'
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>
#include <unistd.h>
static sigjmp_buf env;
static void on_alarm(int s) { (void)s; siglongjmp(env, 1); }
int main(void)
{
	struct itimerval it = { { 0, 0 }, { 0, 50000 } };
	signal(SIGALRM, on_alarm);
	for (int i = 0; i < 3; i++) {
		if (sigsetjmp(env, 1) == 0) {
			setitimer(ITIMER_REAL, &it, 0);
			pause();
		}
		printf("timeout %d\n", i);
	}
	return 0;
}
C
cc -o jmp jmp.c || fail "cc"
filtered '*: 1' timeout 10 ./jmp >jmp.out 2>&1 || { cat jmp.out >&2; fail "siglongjmp time-out: status $?"; }
expect_grep '^timeout 2$' jmp.out
echo "ok alarm and siglongjmp, three times"

# SIGSYS ignored (in the shadow: the kernel's handler is the library's)
# survives exec, as SIG_IGN does: into an image that loads the library
# and into a static one.
cat >sd.c <<'C'
#include <signal.h>
#include <stdio.h>
int main(void)
{
	struct sigaction o;
	sigaction(SIGSYS, NULL, &o);
	puts(o.sa_handler == SIG_IGN ? "SIG_IGN" : o.sa_handler == SIG_DFL ? "SIG_DFL" : "handler");
	return 0;
}
C
cc -o sd sd.c && cc -static -o sd-static sd.c || fail "cc"
for p in ./sd ./sd-static; do
	sh -c "trap '' SYS; exec $p" >ign.ref 2>&1
	filtered '*: 1' sh -c "trap '' SYS; exec $p" >ign.got 2>&1
	expect_grep '^SIG_IGN$' ign.ref
	cmp -s ign.ref ign.got || { diff ign.ref ign.got >&2; fail "SIG_IGN on SIGSYS across exec of $p"; }
done
echo "ok SIG_IGN on SIGSYS survives exec"
