#!/usr/bin/env bash
# libsecfilter.so, SECFILTER_ACTION=log: every violation runs, each
# (syscall, rule) is said once, in a line, and at exit a summary counts
# them all and gives the lines that let them run.
. "$TOP/tests/e2e/lib.sh"

env LD_PRELOAD="$LIB" SECFILTER_POLICY='*: 1; io_uring_setup: 0; write: fd == 1' SECFILTER_ACTION=log \
	"$PROBE" wrapper syscall stdio raw thread >log.out 2>log.err
[ $? -eq 0 ] || fail "log mode: status $?"
expect_grep '^main done$' log.out
[ "$(grep -Ec '^LOG lib_probe\[[0-9]+\]: sys_write\(2, 0x[0-9a-f]+, [0-9]+\) let through \(denied by sys_write: fd == 1 \(SECFILTER_POLICY:1\)\); add: sys_write: 0; sys_write: \(fd == 1\) \|\| fd == 2$' log.err)" -eq 1 ] || {
	cat log.err >&2; fail "expected 1 line"; }
expect_no_grep 'blocked|backtrace' log.err
for w in wrapper syscall stdio raw thread; do
	expect_grep "^$w\$" log.err   # the call went through
done
expect_grep '^secfilter: lib_probe\[[0-9]+\]: log mode: 5 calls the policy denies ran, of 1 system call ' log.err
expect_grep '^    sys_write: 0; sys_write: \(fd == 1\) \|\| fd == 2 +# 5 calls: lib_probe$' log.err
# the summary's line, appended, lets the same run through unreported
fix=$(sed -n 's/^    \(sys_write: .*[^ ]\) *# 5 calls: lib_probe$/\1/p' log.err)
env LD_PRELOAD="$LIB" SECFILTER_POLICY="*: 1; io_uring_setup: 0; write: fd == 1; $fix" \
	"$PROBE" wrapper syscall stdio raw thread >fix.out 2>fix.err
st=$?
[ $st -eq 0 ] || { cat fix.err >&2; fail "with the summary's line: status $st"; }
expect_no_grep 'blocked at ip:|let through' fix.err
echo "ok log mode: 5 violations, 1 line, a summary of 5 whose line lets them run"

# syslog: a datagram per line to /dev/log (here a socket of our own).
if [ -x /usr/bin/python3 ] && [ -w /dev ] && [ ! -e /dev/log ]; then
	/usr/bin/python3 - "$LIB" "$PROBE" <<'PY'
import os, socket, subprocess, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/dev/log")
try:
    env = dict(os.environ, LD_PRELOAD=sys.argv[1], SECFILTER_POLICY="*: 1; getppid: 0",
               SECFILTER_LOG="syslog", SECFILTER_ACTION="log")
    subprocess.run([sys.argv[2], "getppid"], env=env, check=True, stdout=subprocess.DEVNULL)
    s.settimeout(2)
    first = s.recv(4096).decode()
    assert first.startswith("<12>secfilter: LOG lib_probe[") and "sys_getppid() let through" in first, first
    print("ok syslog:", first)
finally:
    os.unlink("/dev/log")
PY
	[ $? -eq 0 ] || fail "syslog"
fi

# Under a kernel filter the library cannot report-and-continue itself; the
# filter's action for a denied call is then SECCOMP_RET_LOG (the kernel's
# audit log has it, the call proceeds), as for `secfilter run --trusted
# --log`: an exec'd static binary, and trusted mode.
env LD_PRELOAD="$LIB" SECFILTER_POLICY='*: 1; getpriority: 0' SECFILTER_ACTION=log \
	"$PROBE" clearenv-exec "$PROGS/lib_static-static" getpriority >st.out 2>st.err
[ $? -eq 0 ] || { cat st.err >&2; fail "log mode, exec'd static binary: status $?"; }
expect_grep '^static after$' st.out
echo "ok log mode: an exec'd static binary runs on"

SECFILTER_ACTION=log filtered_trusted '*: 1; getppid: 0' \
	"$PROBE" getppid raw >tr.out 2>tr.err
[ $? -eq 0 ] || { cat tr.err >&2; fail "log mode, trusted: status $?"; }
expect_grep '^main done$' tr.out
expect_grep '^LOG lib_probe\[[0-9]+\]: sys_getppid\(\) let through \(not in the allowed set\); add: sys_getppid: 1$' tr.err
echo "ok log mode in trusted mode: the program runs on"

# A subshell of dash ends with _exit (wrapped, no trap): its summary still
# goes out before it does, and the parent, which saw no violation, sends
# none.  (dash's umask reads the mask and puts it back: 2 calls.)
env LD_PRELOAD="$LIB" SECFILTER_POLICY='*: 1; umask: 0' SECFILTER_ACTION=log \
	sh -c '(umask >/dev/null); echo parent-done' >sub.out 2>sub.err
[ $? -eq 0 ] || { cat sub.err >&2; fail "log mode, subshell: status $?"; }
expect_grep '^parent-done$' sub.out
[ "$(grep -c 'log mode: 2 calls the policy denies ran' sub.err)" -eq 1 ] || {
	cat sub.err >&2; fail "expected one summary of 2 calls, from the subshell"; }
expect_grep '^    sys_umask: 1 +# 2 calls: sh$' sub.err
echo "ok log mode: a subshell's summary, sent before its _exit"
