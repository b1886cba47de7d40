# What Landlock denies, reported: `cp IN $S/b/x` under a policy whose
# fs.write covers only $S/a fails with EACCES, and the report names the
# path and the line that, appended to the policy, lets the copy succeed --
# under interposition from the call's result, under `run --trusted` from
# the kernel's audit records (tools/llaudit.c), with the process and the
# path as given where audit keeps a syscall context for the task.  For those this test turns
# the kernel's audit on where it is off (root: tests/e2e/audit_ctl.py adds
# `-a task,never` first, so no other process pays for it) and back off at
# the end; without root it checks that run says why nothing is reported.
. "$TOP/tests/e2e/lib.sh"
exec 3>&2
fail() { echo "FAIL: $*" >&3; exit 1; }

landlock_setup 7 "audit records of denials"

S=$SCRATCH
P="*: 1; io_uring_setup: 0; fs.read: /; fs.exec: /usr /lib /lib64 /bin; fs.write: /dev/null $S/a"
AUDIT="$PY $TOP/tests/e2e/audit_ctl.py"

# copied MODE POLICY: the copy goes through, and leaves the file
copied() {
	expect_status 0 $SECFILTER run $1 -e "$2" -- cp "$S/in" "$S/b/x"
	[ "$(cat "$S/b/x")" = data ] || fail "$1: the copy under the added line did not copy"
	rm -f "$S/b/x"
}

# cp_denied FILE: cp's message in FILE.  cp writes it in pieces, and a
# report written meanwhile by another process (run's supervisor, trusted
# mode's listener) may land between them: the pieces are looked for in
# order, across lines.
cp_denied() {
	tr '\n' ' ' <"$1" | grep -q "cannot create regular file '$S/b/x'.*: Permission denied" ||
		fail "no message of cp's denied copy in $1: $(cat "$1")"
}

# denied MODE: cp fails with EACCES, nothing is written, err has the report
denied() {
	expect_status 1 $SECFILTER run $1 -e "$P" -- cp "$S/in" "$S/b/x" 2> err
	cp_denied err
	[ ! -e "$S/b/x" ] || fail "$1: cp wrote outside the granted directory"
	[ "$(grep -c '^    add: ' err)" = 1 ] || fail "$1: not one add: line: $(cat err)"
	expect_grep "^    add: fs.write: $S/b$" err
	add=$(sed -n 's/^    add: //p' err)
}

# ---- interposition: the path as the program gave it ----
denied --interpose
expect_grep "^cp\[[0-9]+\]: openat denied by Landlock: \"$S/b/x\" needs fs.make_reg$" err
expect_grep "^    rule: fs.write \((<command-line>|SECFILTER_POLICY):1\) does not grant it here$" err
copied --interpose "$P; $add"

# a program that retries: each add: line once, in the process and in a
# child it forks (the tree's, as the listener and log mode say it); the
# program gets every EACCES
$SECFILTER run --interpose -e "$P" -- $PY -c "
import os
def w(n):
    try: open('$S/' + n, 'w'); print('opened', n)
    except PermissionError: print('denied', n)
for n in 'b/x', 'b/x', 'b/y', 'c':
    w(n)
if os.fork() == 0:
    w('b/z'); os._exit(0)
os.wait()" > out 2> err || fail "retries: $(cat err)"
[ "$(grep -c '^denied ' out)" = 5 ] || fail "retries: not every open denied: $(cat out)"
[ "$(grep -c '^    add: ' err)" = 2 ] || fail "retries: not one report per add: line: $(cat err)"
expect_grep "^    add: fs.write: $S/b$" err
expect_grep "^    add: fs.write: $S$" err

# log mode (Landlock still denies: it has no log mode): each kind reported
# once, all listed in the summary with the syscalls' lines -- run's for
# the tree, and the library's own for its process
expect_status 0 $SECFILTER run --interpose --log -e "$P; getppid: 0" -- \
	sh -c "cp $S/in $S/b/x; cp $S/in $S/b/y; cat /proc/self/stat > /dev/null; true" 2> err
[ ! -e "$S/b/x" ] || fail "log mode: cp wrote outside the granted directory"
[ "$(grep -c '^    add: fs.write: ' err)" = 2 ] || fail "log mode: not one report per process: $(cat err)"
expect_grep "^secfilter: log mode: 1 call the policy denies ran, .*; Landlock denied 1 kind of access" err
expect_grep "^    fs.write: $S/b +# denied by Landlock 2 times: cp$" err
expect_grep '^    sys_getppid: 1 ' err
env LD_PRELOAD="$LIB" SECFILTER_POLICY="$P" SECFILTER_ACTION=log SECFILTER_LOG="$S/log" \
	$PY -c "
for n in 'x', 'y':
    try: open('$S/b/' + n, 'w')
    except PermissionError: pass"
[ "$(grep -c ': openat denied by Landlock' "$S/log")" = 1 ] || fail "library log mode: not one report: $(cat "$S/log")"
expect_grep "^secfilter: python3\[[0-9]+\]: log mode: Landlock denied 1 kind of access" "$S/log"
expect_grep "^    fs.write: $S/b +# denied by Landlock 2 times: python3$" "$S/log"

# ---- the library as an audit module (trusted): with LD_PRELOAD as well
# it reports what its wrappers see; LD_AUDIT alone enforces, and its
# listener reports from the kernel's audit records where they can be read
# (below, with audit on)
for pre in "$LIB" ""; do
	env LD_AUDIT="$LIB" LD_PRELOAD="$pre" SECFILTER_MODE=trusted SECFILTER_POLICY="$P" \
		cp "$S/in" "$S/b/x" 2> err && fail "LD_AUDIT: cp succeeded"
	cp_denied err
	[ ! -e "$S/b/x" ] || fail "LD_AUDIT: cp wrote outside the granted directory"
	if [ -n "$pre" ]; then
		expect_grep "^cp\[[0-9]+\]: openat denied by Landlock: \"$S/b/x\" needs fs.make_reg$" err
		expect_grep "^    add: fs.write: $S/b$" err
	fi
done

# The library's own calls for a report pass the kernel filter too: with
# LD_PRELOAD beside LD_AUDIT, a denial of a relative path is not resolved
# against a cwd the policy denies asking for (no report, no kill); an
# absolute one is reported
env LD_AUDIT="$LIB" LD_PRELOAD="$LIB" SECFILTER_MODE=trusted SECFILTER_POLICY="$P; getcwd: 0" \
	$PY -c "
import os
os.chdir('$S')
for n in 'b/r', '$S/b/r':
    try: open(n, 'w'); print('opened', n)
    except PermissionError: print('denied', n)
print('alive')" > out 2> err || fail "a report's getcwd under the filter: status $?: $(cat err)"
expect_grep '^alive$' out
[ "$(grep -c '^denied ' out)" = 2 ] || fail "a report's getcwd under the filter: $(cat out)"
[ "$(grep -c '^    add: ' err)" = 1 ] || fail "a report's getcwd under the filter: not one report: $(cat err)"

# audit_cp [WRAP...]: cp under LD_AUDIT alone into err, its status checked;
# through a pipe, whose end comes when the listener, which holds the
# program's standard error until the tree's records are in, is done
audit_cp() {
	"$@" env LD_AUDIT="$LIB" SECFILTER_MODE=trusted SECFILTER_POLICY="$P" \
		cp "$S/in" "$S/b/x" 2>&1 | cat > err
	[ "${PIPESTATUS[0]}" = 1 ] || fail "LD_AUDIT: cp's status: $(cat err)"
	[ ! -e "$S/b/x" ] || fail "LD_AUDIT: cp wrote outside the granted directory"
}

# ---- trusted: what the kernel's audit records ----
# Audit is the machine's: other runs of this test (other checkouts) turn
# it on and off; they wait for each other here.
exec 9> "${TMPDIR:-/tmp}/secfilter-audit.lock"
flock 9
was=$($AUDIT get 2> /dev/null)
if [ -z "$was" ]; then
	# audit's state cannot be read or changed here: run says why, once
	expect_status 1 $SECFILTER run --trusted -e "$P" -- cp "$S/in" "$S/b/x" 2> err
	[ "$(grep -c 'not reported' err)" -le 1 ] || fail "said more than once: $(cat err)"
	echo "note: the kernel's audit cannot be turned on here; the trusted reports are not tested" >&2
	exit 0
fi
[ "$was" = 1 ] || trap '$AUDIT set 0' EXIT
$AUDIT set 0 || fail "cannot turn audit off"
# off: enforced, and said once, with why, where PROG failed (a run that
# succeeds is not told)
expect_status 1 $SECFILTER run --trusted -e "$P" -- cp "$S/in" "$S/b/x" 2> err
[ ! -e "$S/b/x" ] || fail "trusted, audit off: cp wrote outside the granted directory"
expect_grep "^secfilter: run: note: what Landlock denied \(if anything\) was enforced but not reported: the kernel's audit is off" err
[ "$(grep -c 'not reported' err)" = 1 ] || fail "said more than once: $(cat err)"
expect_status 0 $SECFILTER run --trusted -e "$P" -- cp "$S/in" "$S/a/x" 2> err
[ ! -s err ] || fail "a run that succeeded was told: $(cat err)"
audit_cp
expect_no_grep 'denied by Landlock' err
$AUDIT set 1 || fail "cannot turn audit on"

# LD_AUDIT alone, audit on: the listener reports from the records, as run
# does; with LD_PRELOAD too only the wrappers do (one report)
audit_cp
expect_grep "^\?\[\?\]: a call denied by Landlock: $S/b needs fs.make_reg$" err
expect_grep "^    add: fs.write: $S/b$" err
env LD_AUDIT="$LIB" LD_PRELOAD="$LIB" SECFILTER_MODE=trusted SECFILTER_POLICY="$P" \
	cp "$S/in" "$S/b/x" 2>&1 | cat > err
[ "$(grep -c '^    add: ' err)" = 1 ] || fail "LD_AUDIT and LD_PRELOAD: not one report: $(cat err)"

denied --trusted
# the object the kernel checked: the directory the file was to be made in
expect_grep "^(cp|\?)\[([0-9]+|\?)\]: (openat|a call) denied by Landlock: $S/b needs fs.make_reg$" err
expect_grep "^    rule: fs.write \((<command-line>|SECFILTER_POLICY):1\) does not grant it here$" err
expect_no_grep 'not reported' err
copied --trusted "$P; $add"

# with a syscall audit context for the tree's tasks (audit_ctl.py gives
# one to this run's tree only), the event's SYSCALL, PATH and PROCTITLE
# records name the process, the call and the path as the program gave
# it: the kernel's PATH names the directory only ("$S/b/"), the leaf comes
# from cp's command line...
$AUDIT contexts $SECFILTER run --trusted -e "$P" -- cp "$S/in" "$S/b/x" 2> err
case $? in
3)	echo "note: no audit session of its own here; the reports with a syscall context are not tested" >&2 ;;
1)	cp_denied err
	# (written from outside while cp writes its own message, which may
	# come in two writes around it: not at a line's start)
	expect_grep "cp\[[0-9]+\]: openat denied by Landlock: \"$S/b/x\" needs fs.make_reg$" err
	expect_grep "^    add: fs.write: $S/b$" err
	# ... or from the string the call passed, read while the process
	# runs (it waits for its report, and keeps the string): relative, in
	# full after it
	$AUDIT contexts $SECFILTER run --trusted -e "$P" -- $PY -c "
import os, sys, time
os.chdir('$S')
NAME = b'b/p'  # bytes: the call gets this object's memory, not a copy freed after it
try: os.open(NAME, os.O_WRONLY | os.O_CREAT); sys.exit('opened')
except PermissionError: pass
end = time.monotonic() + 60  # a bound against a hang, not a condition of the test
while 'denied by Landlock' not in open('$PWD/err').read() and time.monotonic() < end:
    time.sleep(0.02)" 2> err ||
		fail "contexts, python: $(cat err)"
	expect_grep "^python3\[[0-9]+\]: openat denied by Landlock: \"b/p\" \($S/b/p\) needs fs.make_reg$" err
	[ ! -e "$S/b/p" ] || fail "contexts: python wrote outside the granted directory"
	# LD_AUDIT alone: the same report, from the library's listener
	audit_cp $AUDIT contexts
	expect_grep "cp\[[0-9]+\]: openat denied by Landlock: \"$S/b/x\" needs fs.make_reg$" err
	expect_grep "^    add: fs.write: $S/b$" err ;;
*)	fail "contexts: cp under run --trusted: $(cat err)" ;;
esac

# a static program: nothing of ours in it, the same report
static=$PROGS/cli_prog-static
expect_status 0 $SECFILTER run -e "$P; fs.exec: $static" -- $static touch "$S/b/x" out done > out 2> err
expect_grep '^done$' out
[ ! -e "$S/b/x" ] || fail "the static program wrote outside the granted directory"
expect_grep "^    add: fs.write: $S/b$" err

# net.connect: a port the policy does not list (nothing listens there:
# Landlock refuses before any packet)
expect_status 1 $SECFILTER run --trusted -e "$P; net.connect: 1" -- \
	$PY -c 'import socket; socket.create_connection(("127.0.0.1", 9))' 2> err
expect_grep '^PermissionError' err
expect_grep "denied by Landlock: TCP port 9$" err
expect_grep '^    add: net.connect: 9$' err

# log mode: Landlock still denies (it has no log mode); the summary lists
# the denial with its add: line, once however often it happened
expect_status 0 $SECFILTER run --trusted --log -e "$P; getppid: 0" -- \
	sh -c "cp $S/in $S/b/x; cp $S/in $S/b/y; cat /proc/self/stat > /dev/null; true" 2> err
[ ! -e "$S/b/x" ] || fail "log mode: cp wrote outside the granted directory"
expect_grep "^secfilter: log mode: .*Landlock denied 1 kind of access" err
expect_grep "^    fs.write: $S/b +# denied by Landlock 2 times" err
exit 0
