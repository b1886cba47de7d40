#!/usr/bin/env bash
# The actions of secfilter(7) on real programs, in the three ways a policy
# can be enforced: the library interposing (run --interpose), the kernel
# filter alone (run --trusted: glibc as it is), and the library in trusted
# mode (SECFILTER_MODE=trusted, LD_AUDIT).  Each must give the program the same
# results: errno returns without the call running and without a report,
# glibc's fallbacks working (clone3 -> clone, statx -> fstatat), traps
# delivered as seccomp's, log reporting and letting the call run.
. "$TOP/tests/e2e/lib.sh"
CALLS=$PROGS/act_calls

# same_in_all POLICY WANT-STATUS CMD...: CMD's output and status are the
# same in every mode; stdout in out.MODE, stderr in err.MODE.
same_in_all() {
	local policy=$1 mode
	runs_in_all "$@"
	for mode in kernel libtrusted; do
		diff out.interpose "out.$mode" >&2 || fail "$mode differs from interpose: $policy: $*"
	done
}

# ---- every wrapper answers as glibc does under a kernel filter ----
for e in 38 13; do
	"$PROGS/act_wrapped" kernel "$TOP/preload/interpose/wrappers.tbl" $e >k.txt || fail "act_wrapped kernel"
	# (io_uring_setup named: the narrowings restrict calls a ring could make)
	filtered '*: 1; io_uring_setup: 0' "$PROGS/act_wrapped" library "$TOP/preload/interpose/wrappers.tbl" $e >l.txt ||
		fail "act_wrapped library"
	LD_AUDIT=$LIB LD_PRELOAD=$LIB SECFILTER_MODE=trusted SECFILTER_POLICY='*: 1; io_uring_setup: 0' \
		"$PROGS/act_wrapped" library "$TOP/preload/interpose/wrappers.tbl" $e >t.txt ||
		fail "act_wrapped library, trusted"
	[ "$(wc -l <k.txt)" -gt 130 ] || fail "act_wrapped: too few functions"
	# _exit and _Exit never return: exit_group refused, glibc's exit ends
	# the process with its status (5), and so must the wrappers.
	expect_grep '^_exit exit_group status 5$' k.txt
	expect_grep '^_Exit exit_group status 5$' k.txt
	grep -v '^_[eE]xit exit_group status 5$' k.txt | grep -q "missing\|status\|signal" &&
		{ cat k.txt; fail "act_wrapped: the oracle failed"; }
	diff k.txt l.txt || fail "wrappers answer errno $e unlike glibc (interposition)"
	diff k.txt t.txt || fail "wrappers answer errno $e unlike glibc (trusted)"
	expect_grep "^getpid getpid -$e 4321\$" k.txt # glibc sets no errno for getpid
	# ENOSYS: statx's fallback ran (fstatat of "": ENOENT); mmap's own check
	[ $e = 13 ] || expect_grep '^statx statx -1 2$' k.txt
	[ $e = 38 ] || expect_grep '^statx statx -1 13$' k.txt
	expect_grep "^mmap mmap -1 $e\$" k.txt
	expect_grep '^mmap64 mmap -1 22$' k.txt
done
echo "ok every wrapper answers an errno as glibc does"

# ---- errno returns: not run, not reported ----
P='default: return EPERM; @system-service: 1; getppid: 0; chdir: return EACCES'
same_in_all "$P" 0 "$CALLS" getppid raw-getppid wrapped-getppid chdir / open /etc/hostname
expect_grep '^getppid -1 1$' out.interpose
expect_grep '^raw-getppid -1$' out.interpose
expect_grep '^wrapped-getppid -1 0$' out.interpose
expect_grep '^chdir -1 13$' out.interpose
expect_grep '^open OK 0$' out.interpose
for mode in $MODES; do
	[ -s "err.$mode" ] && { cat "err.$mode"; fail "$mode: an errno return was reported"; }
done
echo "ok errno returns, default: return EPERM"

# a real program under a default errno: python3 runs, what it may not do
# fails with EPERM
for mode in $MODES; do
	in_mode "$mode" 'default: return EPERM; @system-service: 1; @privileged: 0' \
		/usr/bin/python3 -c 'import os
try:
    os.chroot("/")
except PermissionError as e:
    print("chroot", e.errno)
print("pid", os.getpid() > 0)' >py.out 2>py.err || { cat py.err; fail "$mode: python3"; }
	expect_grep '^chroot 1$' py.out
	expect_grep '^pid True$' py.out
done
echo "ok python3 under default: return EPERM"

# ---- clone3: return ENOSYS: glibc falls back to clone ----
same_in_all '*: 1; clone3: return ENOSYS' 0 "$CALLS" thread
expect_grep '^thread ok$' out.interpose
for mode in $MODES; do
	in_mode "$mode" '*: 1; clone3: return ENOSYS' /usr/bin/python3 -c 'import threading
t = threading.Thread(target=print, args=("in a thread",)); t.start(); t.join()' >py.out 2>&1 ||
		{ cat py.out; fail "$mode: python3 thread"; }
	expect_grep '^in a thread$' py.out
done
# and clone3 is what glibc tries first: denied, it kills
in_mode interpose '*: 1; clone3: 0' "$CALLS" thread >/dev/null 2>&1
expect_sigkill $?
in_mode kernel '*: 1; clone3: 0' "$CALLS" thread >/dev/null 2>&1
[ $? -eq 159 ] || fail "clone3: 0 did not kill in trusted mode"
echo "ok clone3: return ENOSYS"

# ---- statx: return ENOSYS: glibc falls back to fstatat ----
"$CALLS" statx /etc/hostname >plain.txt
same_in_all '*: 1; io_uring_setup: 0; statx: return ENOSYS' 0 "$CALLS" statx /etc/hostname
diff plain.txt out.interpose || fail "statx's fallback differs from statx"
ls -l /etc/hostname /etc >plain.txt
same_in_all '*: 1; io_uring_setup: 0; statx: return ENOSYS' 0 ls -l /etc/hostname /etc
diff plain.txt out.interpose || fail "ls -l under statx: return ENOSYS"
stat -c '%s %a %F' /etc/hostname >plain.txt
same_in_all '*: 1; io_uring_setup: 0; statx: return ENOSYS' 0 stat -c '%s %a %F' /etc/hostname
diff plain.txt out.interpose || fail "stat(1) under statx: return ENOSYS"
echo "ok statx: return ENOSYS"

# ---- default: trap: SIGSYS as seccomp's RET_TRAP ----
same_in_all 'default: trap; *: 1; getppid: 0' 0 "$CALLS" handler getppid raw-getppid trapped
expect_grep '^getppid 4242 0$' out.interpose
expect_grep '^raw-getppid 4242$' out.interpose
expect_grep '^trapped 2 code 1 syscall 110 arch 0xc000003e errno 0$' out.interpose
expect_report err.interpose getppid 'not in the allowed set'
# no handler: the process dies of SIGSYS
same_in_all 'default: trap; *: 1; getppid: 0' 159 "$CALLS" getppid
echo "ok default: trap"

# ---- default: log: reported (by the library; the kernel audits), runs ----
for mode in interpose kernel; do
	in_mode $mode 'default: log; *: 1; getppid: 0; getpid: return EACCES' \
		"$CALLS" getppid pid >log.out 2>log.err || fail "$mode: default: log"
	expect_grep '^getppid [1-9][0-9]* 0$' log.out
	expect_grep '^pid -13$' log.out # glibc's getpid sets no errno
	[ $mode = kernel ] || expect_grep '^LOG act_calls\[[0-9]+\]: sys_getppid\(\) let through \(not in the allowed set\); add: sys_getppid: 1$' log.err
done
# SECFILTER_ACTION=log: the default action becomes log, the errnos stay
"$SECFILTER" run --log -e 'default: return EPERM; *: 1; getppid: 0; getpid: return EACCES' -- \
	"$CALLS" getppid pid >log.out 2>log.err || fail "run --log"
expect_grep '^getppid [1-9][0-9]* 0$' log.out
expect_grep '^pid -13$' log.out
expect_grep '^LOG act_calls\[[0-9]+\]: sys_getppid\(\) let through \(not in the allowed set\); add: sys_getppid: 1$' log.err
echo "ok default: log, SECFILTER_ACTION=log"

# ---- the counts, in secfilter show ----
"$SECFILTER" run -e 'default: return EPERM; *: 1; getppid: return ENOSYS' -- \
	"$CALLS" getppid getppid raw-getppid wrapped-getppid pid sleep 3000 >show.out 2>&1 &
for _ in $(seq 50); do grep -q '^pid' show.out && break; sleep 0.1; done
pid=$(sed -n 's/^pid //p' show.out)
[ -n "$pid" ] || fail "no pid"
"$SECFILTER" show "$pid" >show.txt || fail "show"
wait
expect_grep '^default: return EPERM$' show.txt
expect_grep '^sys_getppid: return ENOSYS$' show.txt
expect_grep '^# calls answered with an error number' show.txt
expect_grep '^#   sys_getppid: 4$' show.txt
# and the shown policy is the policy
"$SECFILTER" check - <show.txt >/dev/null || fail "show's output does not parse"
echo "ok counts in show"
