#!/usr/bin/env bash
# libsecfilter.so handles clone3 itself (its child must arm before it runs
# program code): what the kernel refuses before creating a task it refuses
# too, and a longer struct with a zero tail works, as without the library.
. "$TOP/tests/e2e/lib.sh"

C=$PROGS/lib_compat

"$C" clone3 >c.ref 2>&1; echo "status $?" >>c.ref
filtered '*: 1' "$C" clone3 >c.got 2>&1; echo "status $?" >>c.got
cmp -s c.ref c.got || { diff c.ref c.got >&2; fail "clone3 differs from an unfiltered run"; }
expect_grep '^clone3\(NULL\) EFAULT$' c.got
echo "ok clone3 as the kernel checks it"

# A clone given a new stack, sharing no memory: the child runs on that
# stack from the instruction after the syscall, as without the library,
# and CLONE_CLEAR_SIGHAND resets the handlers but not what is ignored.
"$C" clone-stack >s.ref 2>&1; echo "status $?" >>s.ref
filtered '*: 1' "$C" clone-stack >s.got 2>&1; echo "status $?" >>s.got
cmp -s s.ref s.got || { diff s.ref s.got >&2; fail "clone with a new stack differs from an unfiltered run"; }
expect_grep '^clone3\(stack, CLEAR_SIGHAND\) child 0$' s.got
expect_grep '^clone3\(stack, size 0\) EINVAL$' s.got
echo "ok fork-like clones on a new stack"

# libc's vfork() is wrapped: the child shares memory as it should (the
# catch-all has to drop CLONE_VM, its handler's frame being on the stack
# the child would use) and is armed before it runs the program's code.
cat >vf.c <<'C'
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	volatile int shared = 0;
	int st;
	pid_t p = argc > 1 && argv[1][0] == 'r' ? (pid_t)syscall(SYS_vfork) : vfork();

	if (p == 0) {
		shared = 42;
		if (argc > 1 && argv[1][0] == 'g')
			syscall(SYS_getppid);
		_exit(7);
	}
	waitpid(p, &st, 0);
	printf("shared %d, child %s %d\n", shared, WIFEXITED(st) ? "exit" : "signal",
	       WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	return 0;
}
C
cc -O1 -o vf vf.c || fail "cc"
filtered '*: 1' ./vf >vf.out 2>&1 || fail "vfork: status $?"
expect_grep '^shared 42, child exit 7$' vf.out
filtered '*: 1; getppid: 0' ./vf g >vfg.out 2>vfg.err || fail "vfork getppid: status $?"
expect_grep '^shared 42, child signal 9$' vfg.out
expect_report vfg.err getppid 'not in the allowed set'
filtered '*: 1; vfork: 0' ./vf >vfd.out 2>vfd.err
expect_sigkill $?
expect_report vfd.err vfork 'not in the allowed set'
expect_grep '#0 0x[0-9a-f]+ main\+' vfd.err
# the raw syscall goes through the catch-all: still a vfork for the
# parent, on a copy of memory
filtered '*: 1' ./vf r >vfr.out 2>&1 || fail "raw vfork: status $?"
expect_grep '^shared 0, child exit 7$' vfr.out
echo "ok vfork"

# A vfork child's exec builds its environment in memory it shares with
# its parent, and a successful exec never comes back to free it: the
# parent must (it leaked a page a command of a shell script).  dash runs
# each simple command by vfork; its size after 20 commands and after 320.
vmsize="awk '/^VmSize:/ { print \$2 }' /proc/\$\$/status"
script="i=0; while [ \$i -lt 320 ]; do /bin/true; i=\$((i+1)); [ \$i = 20 ] && $vmsize; done; $vmsize"
filtered '*: 1' dash -c "$script" >vm.out 2>&1 || fail "dash loop: status $?"
[ "$(wc -l <vm.out)" = 2 ] || { cat vm.out >&2; fail "dash loop: no sizes"; }
grow=$(awk 'NR == 1 { a = $1 } NR == 2 { print $1 - a }' vm.out)
[ "$grow" -lt 64 ] || fail "a filtered dash grew by $grow KiB over 300 commands"
# The same from libc's vfork() itself, whatever a shell uses.
cat >vx.c <<'C'
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
static long vmsize(void)
{
	char l[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(l, sizeof l, f))
		if (!strncmp(l, "VmSize:", 7))
			sscanf(l + 7, "%ld", &kb);
	if (f)
		fclose(f);
	return kb;
}
int main(void)
{
	char *av[] = { "/bin/true", NULL };
	long before = 0;
	int i, st;

	for (i = 0; i < 320; i++) {
		pid_t p;
		if (i == 20)
			before = vmsize();
		p = vfork();
		if (p == 0) {
			execv(av[0], av);
			_exit(127);
		}
		if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st))
			return 1;
	}
	printf("grew %ld\n", vmsize() - before);
	return 0;
}
C
cc -O1 -o vx vx.c || fail "cc"
filtered '*: 1' ./vx >vx.out 2>&1 || fail "vfork loop: status $?"
grow=$(sed -n 's/^grew //p' vx.out)
[ -n "$grow" ] && [ "$grow" -lt 64 ] || fail "a filtered vfork loop grew by ${grow:-?} KiB over 300 execs"
echo "ok a vfork child's exec leaves nothing mapped in its parent"
