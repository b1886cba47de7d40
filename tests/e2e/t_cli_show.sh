# secfilter show PID: the policy of a running filtered process, as check
# prints it; a clear refusal for a process without one, and for a reader
# who is neither its owner nor root.
. "$TOP/tests/e2e/lib.sh"
exec 3>&2
fail() { echo "FAIL: $*" >&3; exit 1; }

policy='*: 1; io_uring_setup: 0; ptrace: 0; write: fd == 1 || fd == 2 || fd > 100; kill: sig != 9
ioctl: cmd == 21505 || cmd == 0x5413; openat: dfd == -100 && !(flags & 0x643)'
expect_status 0 $SECFILTER check - <<< "$policy" > want

# wait_child PARENT: the pid of PARENT's child, once its policy is published
wait_shown() {
	local i child
	for i in $(seq 100); do
		child=$(pgrep -P "$1" | head -1)
		if [ -n "$child" ] && $SECFILTER show "$child" > shown 2> /dev/null; then
			echo "$child"
			return 0
		fi
		sleep 0.05
	done
	return 1
}

$SECFILTER run -e "$policy" -- sleep 5 & runner=$!
child=$(wait_shown $runner) || fail "show never succeeded on the child of $runner"
cmp want shown || { diff want shown >&3; fail "show differs from check's canonical output"; }
# values by name where the argument has constants, == chains as sets:
# a text to review
expect_grep '^sys_write: fd in \{1, 2\} \|\| fd > 100$' shown
expect_grep '^sys_kill: sig != SIGKILL$' shown
expect_grep '^sys_ioctl: cmd in \{TCGETS, TIOCGWINSZ\}$' shown
expect_grep '^sys_openat: dfd == AT_FDCWD && !\(flags & \(O_WRONLY\|O_RDWR\|O_CREAT\|O_TRUNC\|O_APPEND\)\)$' shown
# show's output is itself a policy that parses to the same
expect_status 0 $SECFILTER check shown > again
cmp want again || fail "show's output does not re-parse to itself"

# only the owner or root: another user is told the process is not theirs;
# the owner without CAP_SYS_PTRACE, that a process holding capabilities it
# lacks is not readable; a reader in a Landlock sandbox, that a rule beyond
# ownership and capabilities refuses it
if command -v setpriv > /dev/null && [ "$(id -u)" = 0 ]; then
	nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
	expect_status 125 $nobody $SECFILTER show $child 2> err
	expect_grep "^secfilter: show: process $child is not yours: it runs as (root \(uid 0\)|uid 0), you as .*uid 65534\)?; only its owner or root may read its policy$" err
	expect_status 125 setpriv --bounding-set=-sys_ptrace --inh-caps=-sys_ptrace \
		$SECFILTER show $child 2> err
	expect_grep "^secfilter: show: process $child is yours but not readable: it holds capabilities you lack" err
	$PROGS/cli_landlock true; st=$?
	if [ $st -eq 0 ]; then
		expect_status 125 $PROGS/cli_landlock $SECFILTER show $child 2> err
		expect_grep "^secfilter: show: process $child is not readable: the kernel refuses it although you may read any process \(you have CAP_SYS_PTRACE\)" err
	else
		[ $st -eq 77 ] || fail "cli_landlock: status $st"
		echo "no Landlock: the security-module refusal is not tested" >&3
	fi
fi
kill $runner; wait $runner

# a process of our own that is not dumpable: readable by root only
if command -v setpriv > /dev/null && [ "$(id -u)" = 0 ]; then
	$nobody env LD_PRELOAD=$LIB SECFILTER_POLICY="$policy" $PROGS/cli_prog nodump sleep 5 & runner=$!
	for i in $(seq 100); do $SECFILTER show $runner > shown 2> /dev/null && break; sleep 0.05; done
	cmp want shown || fail "root cannot read the non-dumpable process's policy"
	expect_status 125 $nobody $SECFILTER show $runner 2> err
	expect_grep "^secfilter: show: process $runner is yours but not readable: it is not dumpable " err
	kill $runner; wait $runner
fi

# a pending policy shows as such
$SECFILTER run -e "on_next_syscall: 1; $policy" -- sleep 5 & runner=$!
child=$(wait_shown $runner) || fail "show never succeeded on a pending policy"
expect_grep '^on_next_syscall: 1$' shown
head -1 shown | grep -q '^on_next_syscall: 1$' || fail "on_next_syscall is not first"
kill $runner; wait $runner

# trusted mode through the library: the audit copy publishes; with
# LD_PRELOAD as well, the preloaded copy's record names no state and the
# audit copy's is read (two records, one state)
for pre in "" "$LIB"; do
	env LD_AUDIT="$LIB" LD_PRELOAD="$pre" SECFILTER_MODE=trusted SECFILTER_POLICY="$policy" \
		sleep 5 & tp=$!
	ok=
	for i in $(seq 100); do
		$SECFILTER show $tp > shown 2> /dev/null && { ok=1; break; }
		sleep 0.05
	done
	[ -n "$ok" ] || fail "show never succeeded on a trusted process (LD_PRELOAD='$pre')"
	# (the audit copy publishes from la_version, before the loader maps
	# the preloaded one: show can answer first)
	for i in $(seq 100); do
		copies=$(grep libsecfilter /proc/$tp/maps | awk '$3 == "00000000"' | wc -l)
		[ "$copies" -eq $((${#pre} ? 2 : 1)) ] && break
		sleep 0.05
	done
	[ "$copies" -eq $((${#pre} ? 2 : 1)) ] ||
		fail "the trusted process has $copies copies of the library (LD_PRELOAD='$pre')"
	cmp want shown || { diff want shown >&3; fail "show of a trusted process (LD_PRELOAD='$pre')"; }
	kill $tp; wait $tp
done

# a process that is not filtered
sleep 5 & plain=$!
expect_status 1 $SECFILTER show $plain 2> err
expect_grep "^secfilter: show: process $plain is not running under secfilter$" err
kill $plain; wait $plain
# the library loaded but inert (no policy): its record names no state
LD_PRELOAD=$LIB sleep 5 & plain=$!
for i in $(seq 100); do grep -q libsecfilter /proc/$plain/maps 2> /dev/null && break; sleep 0.05; done
expect_grep libsecfilter /proc/$plain/maps
expect_status 1 $SECFILTER show $plain 2> err
expect_grep "^secfilter: show: process $plain is not running under secfilter$" err
kill $plain; wait $plain
# a process under a kernel filter only (trusted mode)
$SECFILTER run --trusted -e '*: 1' -- sleep 5 & runner=$!
for i in $(seq 100); do child=$(pgrep -P $runner | head -1); [ -n "$child" ] &&
	grep -q '^Seccomp:[[:space:]]*2' /proc/$child/status 2> /dev/null && break; sleep 0.05; done
expect_status 1 $SECFILTER show $child 2> err
expect_grep 'kernel seccomp filter' err
kill $runner; wait $runner
# no such process, not a pid
expect_status 1 $SECFILTER show 2147483647 2> err
expect_grep '^secfilter: show: no process 2147483647$' err
expect_status 2 $SECFILTER show abc 2> /dev/null
expect_status 2 $SECFILTER show 2> /dev/null
exit 0
