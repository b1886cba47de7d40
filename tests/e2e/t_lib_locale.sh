#!/usr/bin/env bash
# setlocale (preload/interpose/locale.c): under a policy that simply allows every
# call loading a locale makes, libc loads it with the thread's dispatch
# off (one window, no traps); under any other policy, or when the program
# brings its own malloc, each of libc's calls traps and is decided.  The
# program sees what it sees unfiltered either way.
. "$TOP/tests/e2e/lib.sh"

command -v strace >/dev/null || fail "no strace (.ci/run installs it)"
[ -d /usr/lib/locale/C.utf8 ] || fail "no C.UTF-8 locale (Debian's libc-bin has it)"
allow='*: 1'

# traps NAME: how many calls strace saw trap in NAME.trace, and windows
# (PR_SYS_DISPATCH_OFF: reports switch dispatch off too, but none runs
# here).
traps() { grep -c 'si_code=SYS_USER_DISPATCH' "$1.trace"; }
windows() { grep -c 'PR_SYS_DISPATCH_OFF' "$1.trace"; }
strace_filtered() {
	local name=$1 policy=$2; shift 2
	strace -f -qq -o "$name.trace" -E LD_PRELOAD="$LIB" -E SECFILTER_POLICY="$policy" \
		-E LC_ALL=C.UTF-8 "$@" >"$name.out" 2>"$name.err" ||
		{ cat "$name.err" >&2; fail "$name: status $?"; }
}

# A multibyte character counts as one once the locale is loaded.
printf 'caf\303\251\n' >word
LC_ALL=C.UTF-8 wc -m <word >plain.out
[ "$(cat plain.out)" = 5 ] || fail "unfiltered wc -m: $(cat plain.out), expected 5"

# 1. Simply allowed: one window, and libc's calls do not trap.
strace_filtered win "$allow" sed -n p word
n=$(grep -c 'si_syscall=__NR_openat' win.trace)
[ "$(windows win)" = 1 ] || fail "sed under '$allow': $(windows win) windows, expected 1"
[ "$n" -le 2 ] || fail "sed under '$allow': $n openat traps (the locale's files trapped)"
LC_ALL=C.UTF-8 filtered "$allow" wc -m <word >win.wc || fail "wc: status $?"
cmp -s plain.out win.wc || fail "wc -m under '$allow': $(cat win.wc), unfiltered $(cat plain.out)"
echo "ok '$allow': one window, $n openat traps, $(traps win) in all; wc -m as unfiltered"

# What libc does in a window is decided by loading_allowed alone, so it
# must make no call outside preload/interpose/locale.c's list, whatever the
# environment: a locale with files, one that is missing (locale.alias is
# read), LOCPATH, one category alone, and a second thread (malloc's
# arena: mmap, mprotect, munmap).
cat >thr.c <<'C'
#include <locale.h>
#include <pthread.h>
#include <stdio.h>
static void *run(void *a)
{
	(void)a;
	return setlocale(LC_ALL, "");
}
int main(void)
{
	pthread_t t;
	void *r;
	pthread_create(&t, NULL, run, NULL);
	pthread_join(t, &r);
	printf("%s\n", r ? (char *)r : "NULL");
	return 0;
}
C
cc -O1 -pthread -o thr thr.c || fail "cc"
in_window() { # the calls between each PR_SYS_DISPATCH_OFF and its task's ON
	awk '/PR_SYS_DISPATCH_OFF/ { on[$1] = 1; next }
	     /PR_SYS_DISPATCH_ON/ { on[$1] = 0; next }
	     on[$1] && $2 ~ /^[a-z_0-9]+\(/ { sub(/\(.*/, "", $2); print $2 }' "$1"
}
loading='^(openat|read|newfstatat|mmap|munmap|close|brk|mprotect|madvise|getrandom|futex)$'
k=0 calls=0
for env in "LC_ALL=C.UTF-8" "LANG=xx_YY.UTF-8" "LOCPATH=/nonexistent LANG=C.UTF-8" \
	   "LC_CTYPE=C.UTF-8" "LC_ALL=C.UTF-8 ./thr"; do
	k=$((k + 1))
	prog="sed -n p word"
	case $env in *./thr) prog=./thr; env=${env% ./thr} ;; esac
	# shellcheck disable=SC2086 # env and prog are word lists
	env -u LANG -u LC_ALL $env strace -f -qq -o "inwin$k.trace" -E LD_PRELOAD="$LIB" \
		-E SECFILTER_POLICY="$allow" $prog >"inwin$k.out" 2>&1 || fail "$env $prog: status $?"
	[ "$(windows "inwin$k")" -ge 1 ] || fail "$env $prog: no window"
	in_window "inwin$k.trace" >"inwin$k.calls"
	bad=$(grep -vE "$loading" "inwin$k.calls" | sort -u | tr '\n' ' ')
	[ -z "$bad" ] || fail "$env $prog: a window made calls the policy was not asked about: $bad"
	calls=$((calls + $(wc -l <"inwin$k.calls")))
done
grep -qw mprotect inwin5.calls || fail "the thread's window made no mprotect (its arena): the case proves less than it says"
echo "ok every call in $k setups' windows ($calls calls) is one locale.c lets through"

# Only the environment's locale, once per category, and only when the
# environment names one with files: a window is five calls, which a
# program setting "C" around each printf would pay every time.
strace -f -qq -o c.trace -E LD_PRELOAD="$LIB" -E SECFILTER_POLICY="$allow" -E LC_ALL=C \
	sed -n p word >c.out 2>&1 || fail "sed under LC_ALL=C: status $?"
[ "$(windows c)" = 0 ] || fail "a window under LC_ALL=C, which loads no file"
echo "ok no window under LC_ALL=C"

# 2. A filter on one of the calls: no window, every file's calls decided.
pol='*: 1; io_uring_setup: 0; openat: !(flags & O_CREAT)'
strace_filtered filt "$pol" sed -n p word
n=$(grep -c 'si_syscall=__NR_openat' filt.trace)
[ "$(windows filt)" = 0 ] || fail "sed under '$pol': a window opened"
[ "$n" -ge 20 ] || fail "sed under '$pol': only $n openat traps"
echo "ok '$pol': no window, $n openat traps"

# 3. The calls denied with an errno: libc cannot load the locale, and
# falls back to C, where the two bytes of the last letter are two
# characters; had a window opened, they would be one.
pol='*: 1; io_uring_setup: 0; openat: return EACCES'
LC_ALL=C.UTF-8 filtered "$pol" wc -m <word >deny.wc || fail "wc: status $?"
[ "$(cat deny.wc)" = 6 ] || fail "wc -m under '$pol': $(cat deny.wc), expected 6 (the C locale)"
pol='*: 1; mmap: return ENOMEM'
strace_filtered mm "$pol" sed -n p word
[ "$(windows mm)" = 0 ] || fail "sed under '$pol': a window opened"
echo "ok denied calls are decided: wc -m $(cat deny.wc) under openat: return EACCES"

# 4. Results and errno as unfiltered, names good and bad; a bad pointer
# faults where the program's handler catches it.
cat >sl.c <<'C'
#include <errno.h>
#include <locale.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static sigjmp_buf back;

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(back, 1);
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *r;
		errno = 0;
		r = setlocale(LC_ALL, argv[i]);
		printf("'%s' -> %s, errno %d\n", argv[i], r ? r : "NULL", errno);
		r = setlocale(LC_CTYPE, NULL);
		printf("  LC_CTYPE %s\n", r ? r : "NULL");
	}
	signal(SIGSEGV, on_segv);
	if (sigsetjmp(back, 1) == 0)
		printf("bad pointer -> %p\n", (void *)setlocale(LC_ALL, (const char *)16));
	else
		printf("bad pointer: SIGSEGV caught\n");
	return 0;
}
C
cc -O1 -o sl sl.c || fail "cc"
names=("" C.UTF-8 POSIX xx_YY.UTF-8 C.utf8 "LC_CTYPE=C.UTF-8;LC_NUMERIC=C" de)
LC_ALL= LANG=C.UTF-8 ./sl "${names[@]}" >sl.ref 2>&1
LC_ALL= LANG=C.UTF-8 filtered "$allow" ./sl "${names[@]}" >sl.got 2>&1 || fail "sl: status $?"
cmp -s sl.ref sl.got || { diff sl.ref sl.got >&2; fail "setlocale differs from an unfiltered run"; }
expect_grep "^'xx_YY.UTF-8' -> NULL, errno 2$" sl.got
expect_grep '^bad pointer: SIGSEGV caught$' sl.got
# "" twice and a name of the program's own: one window, the first ""
strace_filtered sl "$allow" ./sl "" "" C.utf8 POSIX
[ "$(windows sl)" = 1 ] || fail "setlocale \"\" \"\" C.utf8 POSIX: $(windows sl) windows, expected 1"
echo "ok setlocale's results and errno as unfiltered ($(grep -c -- '->' sl.got) names), a bad pointer caught"

# 5. A program with its own allocator: libc's setlocale would call it,
# so no window opens, and its calls trap (the escape battery's attempt,
# whose malloc calls creat once inside setlocale, allowed here).
own=$B/escape/a_locale_malloc
nm -D "$own" | grep -qw malloc || fail "$own: malloc not exported (the test would prove nothing)"
strace_filtered own "$allow" "$own" "$SCRATCH/own.marker"
[ -e own.marker ] || fail "a_locale_malloc's malloc did not run inside setlocale"
n=$(grep -c 'si_syscall=__NR_openat' own.trace)
[ "$(windows own)" = 0 ] || fail "a program with its own malloc: a window opened"
[ "$n" -ge 20 ] || fail "a program with its own malloc: only $n openat traps"
echo "ok a program's own malloc: no window, $n openat traps"

# 6. Trusted mode: the kernel filter sees libc's calls; no window.
strace -f -qq -o tr.trace -E LD_AUDIT="$LIB" -E LD_PRELOAD="$LIB" -E SECFILTER_MODE=trusted \
	-E SECFILTER_POLICY="$allow" -E LC_ALL=C.UTF-8 sed -n p word >tr.out 2>&1 || fail "trusted: status $?"
[ "$(windows tr)" = 0 ] || fail "trusted mode opened a window"
cmp -s word tr.out || fail "trusted sed: wrong output"
echo "ok trusted mode: no window"
