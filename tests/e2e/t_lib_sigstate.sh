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

# The signal mask an exec is made with reaches the new image, as without
# the library: the exec path runs with every signal blocked (a handler run
# in it could set the thread's ids apart, a_exec_sigids), and the new
# image's library restores the program's mask, also when SIGSYS is
# ignored; a static image gets it before its exec (but with SIGSYS
# ignored every signal stays blocked for it: secfilter-preload(7)).  The
# variable that carries it is gone from the new image's environment.
cat >mask.c <<'C'
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
extern char **environ;
int main(int argc, char **argv)
{
	sigset_t s;
	char **e;
	if (argc > 1) { /* the new image: its mask, and whether it sees our variable */
		sigprocmask(SIG_SETMASK, NULL, &s);
		printf("usr1 %d term %d int %d\n", sigismember(&s, SIGUSR1), sigismember(&s, SIGTERM),
		       sigismember(&s, SIGINT));
		for (e = environ; *e; e++)
			if (!strncmp(*e, "SECFILTER_SIGMASK=", 18))
				puts("variable seen");
		return 0;
	}
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	sigaddset(&s, SIGTERM);
	sigprocmask(SIG_BLOCK, &s, NULL);
	if (getenv("IGNORE_SYS"))
		signal(SIGSYS, SIG_IGN);
	execl(getenv("NEXT"), "mask", "child", (char *)NULL);
	return 127;
}
C
cc -o mask mask.c && cc -static -o mask-static mask.c || fail "cc"
for case in ./mask: ./mask:1 ./mask-static:; do
	next=${case%:*} ign=${case#*:}
	for run in ref got; do
		if [ $run = ref ]; then set --; else set -- env LD_PRELOAD="$LIB" SECFILTER_POLICY='*: 1'; fi
		"$@" env NEXT=$next ${ign:+IGNORE_SYS=1} ./mask >mask.$run 2>&1
	done
	expect_grep '^usr1 1 term 1 int 0$' mask.ref
	cmp -s mask.ref mask.got ||
		{ diff mask.ref mask.got >&2; fail "the mask across exec of $next (SIGSYS ignored: ${ign:-no})"; }
done
echo "ok the signal mask survives the library's exec"
