# Helpers for end-to-end tests; source it first.  $B is the build
# directory (absolute), $TOP the source tree, $SCRATCH the test's own
# scratch directory (the current directory).
set -u
LIB=$B/libsecfilter.so
SECFILTER=$B/secfilter
PROGS=$B/progs

fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_status WANT CMD...: runs CMD, fails unless its exit status is WANT.
expect_status() {
	local want=$1; shift
	"$@"; local got=$?
	[ "$got" -eq "$want" ] || fail "expected status $want, got $got: $*"
}

# expect_grep PATTERN FILE: fails unless FILE has a line matching PATTERN.
expect_grep() {
	grep -Eq -- "$1" "$2" || { echo "--- $2:" >&2; cat "$2" >&2; fail "no line matching /$1/ in $2"; }
}

expect_no_grep() {
	! grep -Eq -- "$1" "$2" || { echo "--- $2:" >&2; cat "$2" >&2; fail "unexpected line matching /$1/ in $2"; }
}

# expect_lines FILE PATTERN...: expect_grep of each PATTERN in FILE; a
# PATTERN written !RE is expect_no_grep of RE.
expect_lines() {
	local file=$1 re; shift
	for re in "$@"; do
		case $re in
		!*) expect_no_grep "${re#!}" "$file" ;;
		*) expect_grep "$re" "$file" ;;
		esac
	done
}

# filtered POLICY CMD...: runs CMD under the preload library.
filtered() {
	local policy=$1; shift
	LD_PRELOAD=$LIB SECFILTER_POLICY=$policy "$@"
}

# filtered_trusted POLICY CMD...: the same in trusted mode, started the
# documented way: the library as an audit module (and preloaded).
filtered_trusted() {
	local policy=$1; shift
	LD_AUDIT=$LIB LD_PRELOAD=$LIB SECFILTER_MODE=trusted SECFILTER_POLICY=$policy "$@"
}

# ---- one policy enforced the three ways (secfilter(7)) ----
# interpose: the library interposing (run --interpose); kernel: the kernel
# filter alone (run --trusted: glibc as it is); libtrusted: the library in
# trusted mode (SECFILTER_MODE=trusted, LD_AUDIT).
MODES="interpose kernel libtrusted"
# How in_mode's POLICY is given: -e (the policy's text) or -p (a file).
POLICY_FROM=-e

# in_mode MODE POLICY CMD...: CMD under POLICY, in MODE.
in_mode() {
	local mode=$1 policy=$2; shift 2
	case $mode$POLICY_FROM in
	interpose-?) "$SECFILTER" run --interpose "$POLICY_FROM" "$policy" -- "$@" ;;
	kernel-?) "$SECFILTER" run --trusted "$POLICY_FROM" "$policy" -- "$@" ;;
	libtrusted-e) filtered_trusted "$policy" "$@" ;;
	libtrusted-p) LD_AUDIT=$LIB LD_PRELOAD=$LIB SECFILTER_MODE=trusted SECFILTER_POLICY_FILE=$policy "$@" ;;
	*) fail "in_mode: unknown mode $mode or POLICY_FROM $POLICY_FROM" ;;
	esac
}

# runs_in_all POLICY WANT CMD...: CMD exits WANT in every mode (WANT kill:
# killed, by SIGKILL from the library or SIGSYS from a kernel filter); its
# stdout in out.MODE, its stderr in err.MODE.
runs_in_all() {
	local policy=$1 want=$2 mode st; shift 2
	for mode in $MODES; do
		in_mode "$mode" "$policy" "$@" >"out.$mode" 2>"err.$mode"
		st=$?
		case $want in
		kill) [ "$st" -eq 137 ] || [ "$st" -eq 159 ] ;;
		*) [ "$st" -eq "$want" ] ;;
		esac || { cat "err.$mode" >&2; fail "$mode: status $st, expected $want: $policy: $*"; }
	done
}

# ---- libsecfilter.so (t_lib_*) ----
PROBE=$PROGS/lib_probe

# expect_report FILE SYSCALL RULE: FILE holds a violation report whose first
# line has the 2011 patch's format for sys_SYSCALL, whose rule line contains
# RULE, and whose call site is not inside the library.
expect_report() {
	local file=$1 sys=$2 rule=$3
	expect_grep "^[^ ]+\[[0-9]+\]: system call -?[0-9]+ \(sys_$sys\) blocked at ip:[0-9a-f]+$" "$file"
	grep -F -q -- "    rule: $rule" "$file" || { cat "$file" >&2; fail "no rule line '$rule' in $file"; }
	expect_grep '^    backtrace:' "$file"
	expect_no_grep '#0 .*libsecfilter' "$file"
}

# expect_cancel_unwinds NAME DECLS WAIT BEFORE AFTER: builds NAME.cc, a
# C++ program whose thread holds an object with a destructor and blocks in
# WAIT (DECLS at file scope); main runs BEFORE, starts the thread, runs
# AFTER, waits 0.2 s, cancels the thread and joins it.  Under the library
# ('*: 1') the destructor must run and the join see PTHREAD_CANCELED.
expect_cancel_unwinds() {
	local name=$1
	cat >"$name.cc" <<CC
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <unistd.h>
$2
struct Guard { ~Guard() { printf("destructor ran\n"); fflush(stdout); } };
static void *t(void *) { Guard g; $3 return NULL; }
int main() {
	pthread_t th; void *res;
	$4
	pthread_create(&th, NULL, t, NULL);
	$5
	usleep(200000);
	pthread_cancel(th);
	pthread_join(th, &res);
	printf("joined, cancelled %s\n", res == PTHREAD_CANCELED ? "yes" : "no");
	return 0;
}
CC
	g++ -O1 -pthread -o "$name" "$name.cc" || fail "g++ $name.cc"
	filtered '*: 1' timeout 10 "./$name" >got 2>&1 || { cat got >&2; fail "C++ $name: status $?"; }
	expect_grep '^destructor ran$' got
	expect_grep '^joined, cancelled yes$' got
}

# expect_sigsys STATUS: a shell's view of SIGSYS, the kill of a kernel
# filter (trusted mode's listener, preload/trap/notify.c, as the kernel's own).
expect_sigsys() {
	[ "$1" -eq 159 ] || fail "expected SIGSYS (159), got status $1"
}

# killed_by_sigkill STATUS: a shell's view of SIGKILL.
expect_sigkill() {
	[ "$1" -eq 137 ] || fail "expected SIGKILL (137), got status $1"
}

# expect_report_lines REPORT...: each backtrace frame of the reports that says
# `at FILE:LINE` says what `addr2line -e OBJECT OFFSET` says there, and
# no frame lacks a line that addr2line finds in a line table the
# library's reader can read (tests/e2e/report_lines.py).  The comparison
# is left in lines.out, its totals last.
expect_report_lines() {
	command -v addr2line >/dev/null || fail "addr2line is not installed (binutils)"
	/usr/bin/python3 "$TOP/tests/e2e/report_lines.py" "$@" >lines.out ||
		{ cat lines.out >&2; fail "a report's source lines differ from addr2line's"; }
}

# ---- files and ports (t_*_landlock) ----
# landlock_setup ABI WHY: skips the test unless the kernel's Landlock ABI
# is ABI or newer; sets PY to the system's python (one on PATH may live
# where a policy grants no exec); makes $SCRATCH/a, /b (holding "secret")
# and /in, and the attempts script, attack.py.
landlock_setup() {
	local abi
	abi=$(python3 -c 'import ctypes; print(ctypes.CDLL(None, use_errno=True).syscall(444, None, 0, 1))')
	if [ "$abi" -lt "$1" ]; then
		echo "skip: this kernel's Landlock ABI is $abi ($1 needed for $2)" >&2
		exit 0
	fi
	PY=/usr/bin/python3
	[ -x $PY ] || { echo "skip: no $PY" >&2; exit 0; }
	mkdir -p "$SCRATCH/a" "$SCRATCH/b"
	echo data > "$SCRATCH/in"
	echo secret > "$SCRATCH/b/secret"
	cp "$TOP/tests/e2e/landlock_attack.py" "$SCRATCH/attack.py"
}
