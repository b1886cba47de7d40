# What run (and learn) accept as PROG, the way the kernel and execvp(3)
# accept it: #! lines without a newline or with a relative interpreter, a
# script whose interpreter is static (trusted mode), an executable text
# file without #! (execvp runs it with /bin/sh), policies from a pipe, and
# programs secfilter cannot filter (another architecture) refused clearly.
. "$TOP/tests/e2e/lib.sh"
exec 3>&2
fail() { echo "FAIL: $*" >&3; exit 1; }

prog=$PROGS/cli_prog
static=$PROGS/cli_prog-static

# #! with a static interpreter: trusted mode, the interpreter's status
printf '#!%s out\nignored\n' "$static" > st-nl; chmod +x st-nl
expect_status 0 $SECFILTER run -e '*: 1' -- ./st-nl > out 2> err
expect_grep '^\./st-nl$' out
# the same without a newline (the kernel accepts it)
printf '#!%s out' "$static" > st-nonl; chmod +x st-nonl
expect_status 0 $SECFILTER run -e '*: 1' -- ./st-nonl > out 2> err
expect_grep '^\./st-nonl$' out
printf '#!%s' "$static" > st-bare; chmod +x st-bare
expect_status 2 $SECFILTER run -e '*: 1' -- ./st-bare > out 2> err   # cli_prog: unknown action
expect_grep 'unknown action' out
# a relative interpreter is the kernel's too (relative to the cwd)
cp "$static" ./interp
printf '#!interp out\n' > st-rel; chmod +x st-rel
expect_status 0 $SECFILTER run -e '*: 1' -- ./st-rel > out 2> err
expect_grep '^\./st-rel$' out
# a script whose interpreter is a script whose interpreter is static
# (the kernel runs: cli_prog-static out .../st-nl ./st-2)
printf '#!%s/st-nl\n' "$SCRATCH" > st-2; chmod +x st-2
expect_status 2 $SECFILTER run -e '*: 1' -- ./st-2 > out 2> err
expect_grep "^$SCRATCH/st-nl\$" out
expect_grep 'unknown action' out
# the static interpreter is filtered in the kernel: denied getppid kills it
# (the kernel passes "getppid" as one argument, then the script's path)
printf '#!%s getppid\n' "$static" > st-deny; chmod +x st-deny
expect_status 159 $SECFILTER run -e '*: 1; getppid: 0' -- ./st-deny > out 2> err
expect_no_grep 'unknown action' out

# an executable file with neither #! nor ELF: /bin/sh runs it, as execvp does
printf 'echo "plain $# $1"\nexit 5\n' > plain; chmod +x plain
expect_status 5 $SECFILTER run -e '*: 1' -- ./plain a > out 2> err
expect_grep '^plain 1 a$' out
mkdir bin && cp plain bin/plaincmd
PATH=$SCRATCH/bin:$PATH expect_status 5 $SECFILTER run -e '*: 1' -- plaincmd b > out
expect_grep '^plain 1 b$' out
# and under it the policy holds (sh's getppid-free work is allowed, kill not)
printf 'kill -TERM $$\necho after\n' > killer; chmod +x killer
expect_status 137 $SECFILTER run -e '*: 1; kill: 0' -- ./killer > out 2> /dev/null
expect_no_grep after out
expect_status 5 $SECFILTER learn -o plain.conf -- ./plain a > out 2> err
expect_grep '^plain 1 a$' out
expect_status 5 $SECFILTER run --trusted -p plain.conf -- ./plain a > out
expect_grep '^plain 1 a$' out

# a script whose interpreter does not exist: named as such
printf '#!/nonexistent/interp\n' > badinterp; chmod +x badinterp
expect_status 127 $SECFILTER run -e '*: 1' -- ./badinterp 2> err
expect_grep 'interpreter .* was not found' err

# a path through a file that is not a directory: found, not executable
expect_status 126 $SECFILTER run -e '*: 1' -- ./plain/x 2> err
expect_grep 'Not a directory' err
expect_status 127 $SECFILTER run -e '*: 1' -- ./nodir/x 2> /dev/null

# a policy from a pipe (process substitution, /dev/stdin), in both modes
expect_status 0 $SECFILTER run -p <(echo '*: 1') -- $prog out procsub > out 2> err
expect_grep '^procsub$' out
expect_status 0 $SECFILTER run -p /dev/stdin -- $prog out devstdin < <(echo '*: 1') > out 2> err
expect_grep '^devstdin$' out
expect_status 137 $SECFILTER run -p <(printf '*: 1\ngetppid: 0\n') -- $prog getppid out after > out 2> err
expect_no_grep after out
expect_status 0 $SECFILTER run -p <(echo '*: 1') -- $static out st > out
expect_grep '^st$' out
# too long to pass through the environment: said so, nothing runs
{ echo '*: 1'; for i in $(seq 6000); do echo "# padding line $i: a policy may hold comments"; done; } > long.conf
expect_status 0 $SECFILTER run -p long.conf -- $prog out file > out
expect_grep '^file$' out
expect_status 125 $SECFILTER run -p - -- $prog touch marker < long.conf 2> err
expect_grep 'too long' err
[ -e marker ] && fail "PROG ran"

# a program that forks in a library constructor that runs before the
# library's (an LD_PRELOAD behind it), before its entry point, where run
# stops it.  The child runs the library's constructor too and goes on to
# main: it must neither meet run's stop (a debug register, which a fork
# does not copy; an int3 in the text, which run takes out of the child's
# copy) nor be mistaken for PROG in the handshake.  Both run, both
# filtered.  FORKLIB says what else the constructor does before the
# entry point: a thread that forks (a grandchild too), posix_spawn and
# vfork (children sharing PROG's memory, int3 included, until they
# exec), a thread still running at the entry point (run stops it to let
# it go).  Every forked process checks that its copy of the entry point's
# first byte is not an int3.  Only cli_prog does any of
# this: secfilter itself loads the LD_PRELOAD too.
cat > forklib.c <<'C'
#include <pthread.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/wait.h>
#include <unistd.h>
extern char **environ;
static int clean(void)
{
	return *(volatile unsigned char *)getauxval(AT_ENTRY) != 0xcc;
}
static int reap(pid_t p)
{
	int st;
	return p > 0 && waitpid(p, &st, 0) == p && st == 0;
}
static void *forker(void *arg)
{
	pid_t p = fork();
	(void)arg;
	if (p == 0) {
		pid_t q = fork();
		if (q == 0)
			_exit(clean() ? 0 : 4);
		_exit(clean() && reap(q) ? 0 : 4);
	}
	return reap(p) ? arg : NULL;
}
static void *later(void *arg)
{
	/* never ends: run must not wait for it, but let it go */
	usleep(300000);
	if (write(1, "live\n", 5) != 5)
		_exit(3);
	for (;;)
		pause();
	return arg;
}
__attribute__((constructor)) static void start(void)
{
	const char *mode = getenv("FORKLIB");
	char exe[4096], *sh[] = { "sh", "-c", "exit 0", NULL };
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	pthread_t t;
	void *ok = NULL;
	pid_t p;

	if (n < 9 || memcmp(exe + n - 9, "/cli_prog", 9) != 0)
		return;
	if (mode && strcmp(mode, "thread") == 0) {
		if (pthread_create(&t, NULL, forker, exe) || pthread_join(t, &ok) || !ok)
			_exit(3);
	} else if (mode && strcmp(mode, "live") == 0) {
		if (pthread_create(&t, NULL, later, NULL))
			_exit(3);
	} else if (mode && strcmp(mode, "spawn") == 0) {
		if (posix_spawn(&p, "/bin/sh", NULL, NULL, sh, environ) || !reap(p))
			_exit(3);
	} else if (mode && strcmp(mode, "vfork") == 0) {
		p = vfork();
		if (p == 0) {
			execve("/bin/sh", sh, environ);
			_exit(127);
		}
		if (!reap(p))
			_exit(3);
	} else {
		p = fork();
		if (p > 0 && !reap(p))
			_exit(3);
		if (p == 0 && !clean())
			_exit(4);
	}
}
C
if cc -shared -fPIC -o forklib.so forklib.c -lpthread; then
	# Both ways of stopping PROG: SECFILTER_TEST_INT3 makes run use the
	# int3 on a machine with debug registers (without them, both are).
	for int3 in '' 1; do
		SECFILTER_TEST_INT3=$int3 ASAN_OPTIONS=verify_asan_link_order=0 \
			LD_PRELOAD=$SCRATCH/forklib.so \
			expect_status 0 $SECFILTER run -e '*: 1' -- $prog out x > out 2> err
		[ "$(cat out)" = "$(printf 'x\nx')" ] ||
			fail "parent and child did not both run (int3=$int3): $(cat out err)"
		for mode in thread spawn vfork; do
			SECFILTER_TEST_INT3=$int3 ASAN_OPTIONS=verify_asan_link_order=0 \
				LD_PRELOAD=$SCRATCH/forklib.so FORKLIB=$mode \
				expect_status 0 $SECFILTER run -e '*: 1' -- $prog out $mode > out 2> err
			expect_grep "^$mode\$" out
		done
		SECFILTER_TEST_INT3=$int3 ASAN_OPTIONS=verify_asan_link_order=0 \
			LD_PRELOAD=$SCRATCH/forklib.so FORKLIB=live \
			expect_status 0 timeout 20 $SECFILTER run -e '*: 1' -- $prog sleep 1 out main > out 2> err
		[ "$(cat out)" = "$(printf 'live\nmain')" ] ||
			fail "the constructor's thread did not go on (int3=$int3): $(cat out err)"
		# the child is filtered too: it dies of the violation, the
		# parent sees it and exits 3
		SECFILTER_TEST_INT3=$int3 ASAN_OPTIONS=verify_asan_link_order=0 \
			LD_PRELOAD=$SCRATCH/forklib.so SECFILTER_LOG=$SCRATCH/log \
			expect_status 3 $SECFILTER run -e '*: 1; getppid: 0' -- $prog getppid > out 2> err
		expect_grep 'system call 110 \(sys_getppid\) blocked' $SCRATCH/log
		rm -f $SCRATCH/log
	done
	# the int3 is really in the text while PROG runs to its entry point:
	# a constructor that does not fork sees it (and says so by its
	# status), and without SECFILTER_TEST_INT3 a machine with working
	# debug registers does not
	cat > peeklib.c <<'C'
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>
__attribute__((constructor)) static void peek(void)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n >= 9 && memcmp(exe + n - 9, "/cli_prog", 9) == 0 &&
	    *(volatile unsigned char *)getauxval(AT_ENTRY) == 0xcc)
		_exit(5);
}
C
	cc -shared -fPIC -o peeklib.so peeklib.c || fail "cannot build peeklib.so"
	SECFILTER_TEST_INT3=1 ASAN_OPTIONS=verify_asan_link_order=0 LD_PRELOAD=$SCRATCH/peeklib.so \
		expect_status 5 $SECFILTER run -e '*: 1' -- $prog out y > out 2> err
fi

# a 32-bit program: no policy can hold it (x86-64 only); said so, never
# run.  A kernel without IA32 emulation refuses it itself (ENOEXEC).
if printf 'void _start(void){__asm__ volatile("int $0x80"::"a"(1),"b"(7));for(;;);}\n' > i386.c &&
   cc -m32 -nostdlib -static -fno-pic -o i386 i386.c 2> /dev/null; then
	./i386 2> /dev/null
	if [ $? -eq 7 ]; then why='not an x86-64 program'; else why='Exec format error'; fi
	expect_status 126 $SECFILTER run --trusted -e '*: 1' -- ./i386 2> err
	expect_grep "$why" err
	expect_status 126 $SECFILTER run -e '*: 1' -- ./i386 2> err
	expect_grep "$why" err
else
	echo "note: no 32-bit toolchain; skipping the i386 checks" >&2
fi
exit 0
