#!/usr/bin/env bash
# Rewritten syscall sites (preload/rewrite/rewrite.c): after its 32nd trap a site
# takes no signal, keeps every register, the flags and the red zone as a
# syscall does, leaves no page writable and executable, and decides by the
# policy in force at each call, in any thread, in a forked child and after
# secfilter_apply narrowed it; a denial there is the trap's own report and
# kill (same ip, arguments, rule and add: line), log mode lets every call
# run and reports the first, a bad pointer is the same
# errno.  SECFILTER_REWRITE=0 turns it off and is passed on through exec.
. "$TOP/tests/e2e/lib.sh"

# This test sets the switch itself (make check-norewrite exports it):
# sites are rewritten at their first trap, what this test examines.
export SECFILTER_REWRITE=1
P=$PROGS/lib_rewrite

# By default a site waits for its 32nd trap: two calls leave it alone.
SECFILTER_REWRITE=32 filtered '*: 1' "$P" sites >out 2>err || { cat err >&2; fail "sites, 32: status $?"; }
expect_grep '^regs 2 ok$' out
expect_grep '^site_a rewritten no$' out
echo "ok by default no site is rewritten at its second trap"

# The sites are rewritten; every register survives, before and after
# (lseek runs a filter, so the decision is not only the table lookup).
filtered '*: 1; lseek: fd != 7' "$P" sites >out 2>err || { cat err >&2; fail "sites: status $?"; }
expect_grep '^regs 1 ok$' out
expect_grep '^regs 2 ok$' out
expect_grep '^site_a rewritten yes$' out
expect_grep '^regs_site rewritten yes$' out
expect_grep '^site_c rewritten yes$' out
expect_grep '^site_c read 2 2 000$' out
expect_grep '^site_d rewritten yes$' out
expect_grep '^site_e pid ok$' out
expect_grep '^site_e rewritten yes$' out
[ "$(grep -c '^lea$' out)" -eq 2 ] || fail "site_d did not write twice"
expect_grep '^wx mappings 0$' out
expect_grep '^site page r-xp$' out
SECFILTER_REWRITE=0 filtered '*: 1; lseek: fd != 7' "$P" sites >out 2>err || fail "sites, off: status $?"
expect_grep '^regs 2 ok$' out
expect_grep '^site_a rewritten no$' out
expect_grep '^regs_site rewritten no$' out
expect_grep '^site_c rewritten no$' out
expect_grep '^site_e rewritten no$' out
expect_grep '^site_c read 2 2 000$' out
"$P" sites >out 2>err || fail "sites, unfiltered: status $?"
expect_grep '^site_a rewritten no$' out
echo "ok sites rewritten, registers kept"

# Trusted mode (the audit module) arms no dispatch: the kernel filter sees
# every call, there is no trap, and nothing is rewritten.
env LD_AUDIT="$LIB" LD_PRELOAD="$LIB" SECFILTER_MODE=trusted SECFILTER_POLICY='*: 1; lseek: fd != 7' \
	"$P" sites >out 2>err || { cat err >&2; fail "sites, trusted: status $?"; }
expect_grep '^regs 2 ok$' out
expect_grep '^site_a rewritten no$' out
expect_grep '^site_d rewritten no$' out
expect_grep '^site_e rewritten no$' out
expect_grep '^wx mappings 0$' out
echo "ok trusted mode rewrites nothing"

# No privilege needed, whatever vm.mmap_min_addr says (nothing at 0).
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		env LD_PRELOAD="$LIB" SECFILTER_POLICY='*: 1' "$P" sites >out 2>err ||
		{ cat err >&2; fail "sites as nobody: status $?"; }
	expect_grep '^site_a rewritten yes$' out
	expect_grep '^regs 2 ok$' out
	echo "ok rewritten without privileges (vm.mmap_min_addr $(cat /proc/sys/vm/mmap_min_addr))"
fi

# What lands inside the replaced bytes runs the original code: a jump to
# a syscall the rewrite covered still makes that syscall (through the trap).
filtered '*: 1' "$P" inside >out 2>err || { cat err >&2; fail "inside: status $?"; }
expect_grep '^inside: 0 wrong; rewritten yes yes$' out
echo "ok a jump into the rewritten bytes runs the original instructions"

# No signal per call once rewritten: in main, in a thread, in a child.
if command -v strace >/dev/null; then
	for rw in 1 0 32; do
		SECFILTER_REWRITE=$rw strace -f -qq -o trace.$rw -e trace=none -e signal=SIGSYS \
			env LD_PRELOAD="$LIB" SECFILTER_POLICY='*: 1' "$P" loops 1000 >out 2>err ||
			{ cat err >&2; fail "loops ($rw): status $?"; }
		expect_grep '^loops done, child status 0$' out
	done
	on=$(grep -c SIGSYS trace.1); off=$(grep -c SIGSYS trace.0); at32=$(grep -c SIGSYS trace.32)
	[ "$off" -ge 3000 ] || fail "loops without rewriting: only $off SIGSYS"
	[ "$on" -lt 100 ] || fail "loops with rewriting: $on SIGSYS"
	[ "$at32" -lt 150 ] || fail "loops with rewriting at the 32nd trap: $at32 SIGSYS"
	echo "ok 3000 calls at a rewritten site: $on SIGSYS, $at32 rewriting at the 32nd trap (without rewriting: $off)"
fi

# Rewriting while 8 threads run the site and children are forked.
filtered '*: 1' timeout 120 "$P" race 20000 >out 2>err || { cat err >&2; fail "race: status $?"; }
expect_grep '^race wrong 0, children wrong 0$' out
expect_grep '^site_a rewritten yes$' out
expect_grep '^wx mappings 0$' out
echo "ok rewritten while threads run the site and children are forked"

ip=
site_ip() { ip=$(sed -n 's/^site_a ip //p' out); [ -n "$ip" ] || fail "no site ip"; }
expect_denied() { # LOG SYSCALL: the trap's report, at the site
	expect_report "$1" "$2" 'not in the allowed set'
	expect_grep "blocked at ip:$ip\$" "$1"
	expect_grep "^      #0 0x$ip " "$1"
}

# Another thread reaches the rewritten site: allowed, then denied.
filtered '*: 1' "$P" thread 39 >out 2>err || fail "thread allowed: status $?"
expect_grep '^thread: ret [1-9]' out
expect_grep '^thread joined$' out
filtered '*: 1; getpid: 0' "$P" thread 39 >out 2>err
expect_sigkill $?
site_ip
expect_no_grep 'thread joined' out
expect_denied err getpid
echo "ok a thread at a rewritten site decides by the policy"

# A forked child: allowed, then denied (the child dies, the parent sees it).
filtered '*: 1' "$P" fork 39 >out 2>err || fail "fork allowed: status $?"
expect_grep '^child: ret [1-9]' out
expect_grep '^fork: child exited 0$' out
filtered '*: 1; getpid: 0' "$P" fork 39 >out 2>err || fail "fork denied: status $?"
site_ip
expect_grep '^fork: child killed by signal 9$' out
expect_denied err getpid
echo "ok a forked child at a rewritten site decides by the policy"

# libc's fork: its clone site is rewritten (at the first trap here), and a
# fork through it arms the child as the trap did: 20 children, every one
# filtered (a denied call kills it), and the parent's clone traps once.
filtered '*: 1' "$P" forks 20 39 >out 2>err || fail "forks allowed: status $?"
expect_grep '^forks: 20 exited 3, 0 killed$' out
filtered '*: 1; getpid: 0' "$P" forks 20 39 >out 2>err || fail "forks denied: status $?"
expect_grep '^forks: 0 exited 3, 20 killed$' out
[ "$(grep -cE 'system call 39 \(sys_getpid\) blocked' err)" -eq 20 ] || { cat err >&2; fail "forks denied: not 20 reports"; }
if command -v strace >/dev/null; then
	for rw in 1 0; do
		env SECFILTER_REWRITE=$rw LD_PRELOAD="$LIB" SECFILTER_POLICY='*: 1' \
			strace -qq -e trace=none -e signal=SIGSYS -o trace.$rw "$P" forks 20 39 >out 2>err ||
			fail "forks under strace, rewrite $rw: status $?"
		expect_grep '^forks: 20 exited 3, 0 killed$' out
	done
	n1=$(grep -c 'si_syscall=__NR_clone,' trace.1) n0=$(grep -c 'si_syscall=__NR_clone,' trace.0)
	[ "$n1" -eq 1 ] && [ "$n0" -eq 20 ] ||
		fail "clone traps: $n1 rewritten at the first (expected 1), $n0 never (expected 20)"
	# The children's own site in fork (glibc's set_robust_list) is
	# rewritten in the parent with the clone's, at its first trap here
	# (before the call is issued: even the first child has it).
	for rw in 1 0; do
		env SECFILTER_REWRITE=$rw LD_PRELOAD="$LIB" SECFILTER_POLICY='*: 1' \
			strace -f -qq -e trace=none -e signal=SIGSYS -o trace.f$rw "$P" forks 20 39 >out 2>err ||
			fail "forks under strace -f, rewrite $rw: status $?"
		expect_grep '^forks: 20 exited 3, 0 killed$' out
	done
	n1=$(grep -c 'si_syscall=__NR_set_robust_list,' trace.f1)
	n0=$(grep -c 'si_syscall=__NR_set_robust_list,' trace.f0)
	[ "$n1" -eq 0 ] && [ "$n0" -eq 20 ] ||
		fail "children's set_robust_list traps: $n1 rewritten (expected 0), $n0 never (expected 20)"
fi
echo "ok fork's clone site and its children's site rewritten, every child armed"

# The policy narrowed through the API after the rewrite.
filtered '*: 1' "$P" narrow 'getppid: 0' >out 2>err
expect_sigkill $?
site_ip
expect_grep '^before: ret 1$' out
expect_grep '^apply 0$' out
expect_no_grep '^after' out
expect_denied err getppid
echo "ok after secfilter_apply a rewritten site decides by the narrowed policy"

# Log mode: every denied call at the rewritten site runs; the report (once,
# the rest counted) is the trap path's, at the same ip, in full (log-full).
SECFILTER_ACTION=log-full filtered '*: 1; getppid: 0' "$P" repeat 110 5 >out 2>err ||
	fail "log: status $?"
site_ip
[ "$(grep -c '^ret 1$' out)" -eq 5 ] || fail "log: the calls did not run"
[ "$(grep -c "system call 110 (sys_getppid) let through at ip:$ip\$" err)" -eq 1 ] ||
	{ cat err >&2; fail "log: not 1 report at the site"; }
expect_grep '^    rule: not in the allowed set$' err
expect_grep '^    add: sys_getppid: 1$' err
expect_grep '^    sys_getppid: 1 +# 5 calls: lib_rewrite$' err

# A denial at a rewritten site is reported as the trap reports it: the same
# site, the same arguments decoded, rule and add: line (fcntl(0, F_DUPFD, 0)).
for rw in 1 0; do
	SECFILTER_REWRITE=$rw filtered '*: 1; fcntl: fd != 0' "$P" repeat 72 1 >out 2>err
	expect_sigkill $?
	site_ip
	expect_grep "^lib_rewrite\[[0-9]+\]: system call 72 \(sys_fcntl\) blocked at ip:$ip\$" err
	sed -n '/blocked at ip:/,/^    add: /p' err | sed 1d > body$rw
done
expect_grep '^    cmd = F_DUPFD \(0\)$' body1
expect_grep '^    add: sys_fcntl: 0; sys_fcntl: \(fd != 0\) \|\| cmd == F_DUPFD$' body1
cmp -s body1 body0 || { diff body1 body0 >&2; fail "the rewritten site's report differs from the trap's"; }
echo "ok a rewritten site's report is the trap's: arguments decoded, rule, add:"
echo "ok log mode reports every call at a rewritten site"

# An errno action at the rewritten site: the call fails with it, as on the
# trap path, and nothing is reported.
filtered '*: 1; getppid: return EPERM' "$P" repeat 110 3 >out 2>err || fail "errno action: status $?"
[ "$(grep -c '^ret 0$' out)" -eq 3 ] || { cat out >&2; fail "errno action: the calls did not fail"; }
expect_no_grep 'blocked at' err
echo "ok an errno action at a rewritten site"

# Bad pointers: the errno of the trap path and of the kernel.
"$P" errno >ref 2>&1
for rw in 1 0; do
	SECFILTER_REWRITE=$rw filtered '*: 1' "$P" errno >got 2>&1
	sed -i 's/^site_a ip .*//' ref got
	cmp -s ref got || { diff ref got >&2; fail "errno (rewrite $rw) differs from the kernel's"; }
done
expect_grep '^signalfd second: -14$' got
echo "ok bad pointers at a rewritten site: the kernel's errno"

# A blocking call at a rewritten site: a handler runs, the call restarts.
filtered '*: 1' timeout 20 "$P" block >out 2>err || fail "block: status $?"
expect_grep "^block: read 1 'b', handler ran 1$" out
echo "ok a blocking call at a rewritten site restarts after a handler"

# pthread_cancel of a thread blocked at a rewritten site (glibc's futex in
# sem_wait): unwinding goes through the fast path's frames, the C++
# destructor runs.
if command -v g++ >/dev/null; then
	# the futex site of sem_wait traps 40 times and is rewritten
	expect_cancel_unwinds sem 'static sem_t s;' 'for (int i = 0; i < 41; i++) sem_wait(&s);' \
		'sem_init(&s, 0, 0);' 'for (int i = 0; i < 40; i++) { usleep(2000); sem_post(&s); }'
	echo "ok cancelling a thread blocked at a rewritten site runs its destructors"
fi

# The switch: a bad value stops the program before main; 0 survives exec
# even through an emptied environment.
SECFILTER_REWRITE=yes filtered '*: 1' "$PROBE" out x >out 2>err
st=$?
[ "$st" -eq 125 ] || fail "SECFILTER_REWRITE=yes: status $st"
expect_grep "^secfilter: SECFILTER_REWRITE: expected 0 \(never\) or N \(a site is rewritten at its Nth trap\), got 'yes'$" err
expect_no_grep 'main ran' out
SECFILTER_REWRITE=0 filtered '*: 1' "$PROBE" clearenv-exec /usr/bin/env >out 2>err ||
	fail "clearenv-exec: status $?"
expect_grep '^SECFILTER_REWRITE=0$' out
SECFILTER_REWRITE=32 filtered '*: 1' "$PROBE" clearenv-exec /usr/bin/env >out 2>err ||
	fail "clearenv-exec: status $?"
expect_no_grep '^SECFILTER_REWRITE' out
filtered '*: 1' "$PROBE" clearenv-exec /usr/bin/env >out 2>err || fail "clearenv-exec: status $?"
expect_grep '^SECFILTER_REWRITE=1$' out
echo "ok SECFILTER_REWRITE is checked and passed on"
exit 0
