# Trusted mode and programs that start others: system(), posix_spawn,
# vfork + exec, GNU make's recipes, Python's subprocess, run unchanged
# under '*: 1', with the library as an audit module alone and preloaded as
# well.  (glibc's posix_spawn child resets every handled signal, SIGSYS
# included, with an internal rt_sigaction: the guard must answer it, not
# kill.)  What they start is filtered and reports like them.
. "$TOP/tests/e2e/lib.sh"

cat >sys.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
int main(int argc, char **argv)
{
	int st = system(argc > 1 ? argv[1] : "exit 7");
	printf("system %d %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1,
	       WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	return 0;
}
C
cc -o sys sys.c
cat >prio.c <<'C'
#include <sys/resource.h>
int main(void) { getpriority(PRIO_PROCESS, 0); return 0; }
C
cc -o prio prio.c
printf 'all: a b\n\techo done\na:\n\ttouch a\nb:\n\tsh -c "touch b"\n' >Makefile

for how in audit both; do
	case $how in
	audit) start() { env LD_AUDIT="$LIB" SECFILTER_MODE=trusted SECFILTER_POLICY="$1" "${@:2}"; } ;;
	both) start() { env LD_AUDIT="$LIB" LD_PRELOAD="$LIB" SECFILTER_MODE=trusted SECFILTER_POLICY="$1" "${@:2}"; } ;;
	esac
	start '*: 1' ./sys >s.out 2>&1 || fail "$how: system: status $?"
	expect_grep '^system 7 0$' s.out
	start '*: 1' "$PROBE" spawn /bin/sh -c 'exit 6' >p.out 2>&1 || fail "$how: spawn: status $?"
	expect_grep '^spawn status 6$' p.out
	start '*: 1' "$PROBE" vfork /bin/sh -c 'exit 6' >v.out 2>&1 || fail "$how: vfork: status $?"
	expect_grep '^vfork status 6$' v.out
	rm -f a b
	start '*: 1' make -s -j2 >m.out 2>&1 || { cat m.out >&2; fail "$how: make: status $?"; }
	expect_grep '^done$' m.out
	[ -e a ] && [ -e b ] || fail "$how: make's recipes did not run"
	start '*: 1' python3 -c '
import os, subprocess, sys
r = subprocess.run(["sh", "-c", "echo sub; exit 3"], capture_output=True, text=True)
print(r.returncode, r.stdout.strip())
print(subprocess.run(["true"], env={}).returncode)
pid = os.posix_spawn("/bin/sh", ["sh", "-c", "exit 4"], os.environ)
print(os.waitpid(pid, 0)[1] >> 8)
print(os.system("exit 5") >> 8)
' >y.out 2>&1 || { cat y.out >&2; fail "$how: python: status $?"; }
	[ "$(tr '\n' ' ' <y.out)" = "3 sub 0 4 5 " ] || { cat y.out >&2; fail "$how: python's subprocess"; }
	# what they start is under the policy, and reports (the tree's listener
	# kills with SIGSYS, as the kernel would: preload/notify.c)
	start '*: 1; getpriority: 0' ./sys ./prio >k.out 2>k.err
	expect_grep '^system (159 0|-1 31)$' k.out
	expect_report k.err getpriority 'not in the allowed set'
	echo "ok $how: system, posix_spawn, vfork, make, python subprocess"
done
