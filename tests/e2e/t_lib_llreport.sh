#!/usr/bin/env bash
# What Landlock denies, reported by the library under LD_AUDIT alone
# (trusted mode, no LD_PRELOAD): no wrapper sees the EACCES, the tree's
# listener (preload/trap/notify.c) reads it from the kernel's audit
# records and writes the add: line -- only where the policy lets the
# process write the report itself (stderr: write on fd 2; SECFILTER_LOG
# FILE: openat and write), as for a kill's backtrace (t_lib_notify).
# And the first image's standard error, which the listener holds for
# those reports, is let go once the tree is gone: a reader of that pipe
# sees its end.  The records need audit on, which this test turns on as
# t_cli_llreport does (tests/e2e/audit_ctl.py, root) and back to how it
# was at the end.
. "$TOP/tests/e2e/lib.sh"

landlock_setup 7 "audit records of denials"
S=$SCRATCH
AUDIT="$PY $TOP/tests/e2e/audit_ctl.py"
P="*: 1; io_uring_setup: 0; fs.read: /; fs.exec: /usr /lib /lib64 /bin $S; fs.write: /dev/null $S/a"

# wr PATH [wait]: creates PATH and says on stdout how that went (never
# writes to fd 2, so a policy may deny that); with `wait`, then reads
# stdin to its end
cat >wr.c <<'C'
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	char c;
	int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	printf("open errno %d\n", fd < 0 ? errno : 0);
	fflush(stdout);
	if (argc > 2 && !strcmp(argv[2], "wait"))
		while (read(0, &c, 1) > 0)
			;
	return 0;
}
C
cc -o wr wr.c || fail "cc"

# Audit is the machine's: other runs of the tests that turn it on and off
# wait for each other here (t_cli_llreport).
exec 9> "${TMPDIR:-/tmp}/secfilter-audit.lock"
flock 9
was=$($AUDIT get 2> /dev/null)
if [ -z "$was" ]; then
	echo "skip: the kernel's audit cannot be turned on here (root needed); the listener's reports are not tested" >&2
	exit 0
fi
# (and a listener that did not end, on a failure, is ended)
trap '[ "$was" = 1 ] || $AUDIT set 0; l=$(listeners); [ -z "$l" ] || kill -9 $l' EXIT
$AUDIT set 1 || fail "cannot turn audit on"

# audited POLICY [VAR=VALUE...]: wr $S/b/x under LD_AUDIT alone, stdout in
# out, stderr through a pipe into err: the pipe ends when the program
# and the listener, which holds the program's standard error until the
# tree is gone and its records are in, have both let it go (the timeout
# turns a listener that never does into a failure, not a bound)
audited() {
	local policy=$1; shift
	env "$@" LD_AUDIT="$LIB" SECFILTER_MODE=trusted SECFILTER_POLICY="$policy" \
		./wr "$S/b/x" 2>&1 >out | timeout 60 cat >err
	local st=("${PIPESTATUS[@]}")
	[ "${st[1]}" != 124 ] || fail "the program's standard error was held open 60 s after it ended: $(cat err)"
	[ "${st[0]}" = 0 ] || fail "wr: status ${st[0]}: $(cat err)"
	# still denied by Landlock, whatever is reported
	expect_grep '^open errno 13$' out
	[ ! -e "$S/b/x" ] || fail "wr wrote outside the granted directory"
}

# listeners: the pids of this test's live listeners (a listener is a fork
# of the program, renamed: its command line is the program's, which
# names $S)
listeners() {
	local p
	for p in $(pgrep -x secfilter-ntfy); do
		tr '\0' ' ' < "/proc/$p/cmdline" 2> /dev/null | grep -qF "$S/" && echo "$p"
	done
}

# listeners_gone: waits until this test has no listener left, so that
# whatever it was to write is written (the bound is against a hang)
listeners_gone() {
	local end=$((SECONDS + 60))
	while [ -n "$(listeners)" ]; do
		[ $SECONDS -lt $end ] || fail "a listener is still there 60 s after its tree ended: $(listeners)"
		sleep 0.1
	done
}

# ---- standard error: write on fd 2 allowed ----
audited "$P"
expect_grep "denied by Landlock: $S/b needs fs.make_reg$" err
expect_grep "^    add: fs.write: $S/b$" err
echo "ok a policy that lets the program write to fd 2: the denial is reported there"

# the same write (a file of the granted directory) is no denial: nothing
env LD_AUDIT="$LIB" SECFILTER_MODE=trusted SECFILTER_POLICY="$P" \
	./wr "$S/a/x" 2>&1 >out | timeout 60 cat >err
expect_grep '^open errno 0$' out
[ ! -s err ] || fail "a run without a denial was reported: $(cat err)"

# ---- standard error: write on fd 2 denied ----
for deny in 'write: fd != 2' 'write: fd == 1'; do
	audited "$P; $deny"
	[ ! -s err ] || fail "$deny: reported where the policy denies the program the write: $(cat err)"
done
echo "ok a policy that denies the program a write to fd 2: no report there (the denial still happens)"

# ---- SECFILTER_LOG=FILE: openat and write on it allowed, then not ----
# (fd 2 denied: the file's permission is its own)
audited "$P; write: fd != 2" SECFILTER_LOG="$S/log"
listeners_gone
[ ! -s err ] || fail "log file: a report went to stderr: $(cat err)"
expect_grep "denied by Landlock: $S/b needs fs.make_reg$" "$S/log"
expect_grep "^    add: fs.write: $S/b$" "$S/log"
echo "ok SECFILTER_LOG: where the policy lets the program write the file, the report is there"
rm -f "$S/log"
for deny in 'write: fd == 1' 'openat: !(flags & O_APPEND)'; do
	audited "$P; $deny" SECFILTER_LOG="$S/log"
	listeners_gone
	[ ! -s err ] || fail "log file, $deny: a report went to stderr: $(cat err)"
	[ ! -s "$S/log" ] || fail "log file, $deny: reported where the policy denies it: $(cat "$S/log")"
done
echo "ok SECFILTER_LOG: where the policy denies the program the file's openat or write, no report"

# listeners_gone sees a listener that is there: wr waits on a fifo
# (its listener with it) until the test closes its end
mkfifo gate
LD_AUDIT="$LIB" SECFILTER_MODE=trusted SECFILTER_POLICY="$P" SECFILTER_LOG="$S/log" \
	./wr "$S/b/x" wait <gate >out 2>&1 &
exec 8>gate
until grep -q '^open errno 13$' out; do
	kill -0 $! 2> /dev/null || fail "wr (wait) ended: $(cat out)"
	sleep 0.05
done
[ -n "$(listeners)" ] || fail "listeners finds no listener of a running program"
exec 8>&-
wait $! || fail "wr (wait): status $?"
listeners_gone
expect_grep "^    add: fs.write: $S/b$" "$S/log"
echo "ok (listeners finds the listener of a running program)"

# ---- the standard error the listener held is let go ----
# Each `audited` run above checks it for one program: a reader of the
# program's standard error (cat, as in `prog 2>&1 | less` or a command
# substitution) sees the pipe's end once the tree is gone, the timeout
# turning a listener that keeps it into a failure.  Here for a tree, sh
# first and the denial in its child; the report in the pipe shows that
# the listener held it.
LD_AUDIT="$LIB" SECFILTER_MODE=trusted SECFILTER_POLICY="$P" \
	sh -c "./wr '$S/b/x'; echo sh \$?" 2>&1 >out | timeout 60 cat >err
[ "${PIPESTATUS[1]}" != 124 ] || fail "tree: the pipe had no end 60 s after the tree's: $(cat err)"
expect_lines out '^open errno 13$' '^sh 0$'
expect_grep "^    add: fs.write: $S/b$" err
echo "ok the listener lets the program's standard error go once the tree is gone"
exit 0
