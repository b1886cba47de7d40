#!/usr/bin/env bash
# Reports keep their backtrace (the library's own unwinder, preload/unw.c):
# a program killed inside a trapped malloc, inside a signal handler, in a
# forked child, in a thread, in the vDSO; a corrupt stack still gives the
# report, never a crash in the library.  Then the same walks compared
# with gdb's, frame for frame, on this test's program, on an -O2 build of
# it and on python3 and sqlite3.  Last, the source lines of every frame
# of every report here compared with addr2line's.
. "$TOP/tests/e2e/lib.sh"

U=$PROGS/lib_unwind
DENY='*: 1; getppid: 0'

# expect_frames FILE NAME...: FILE's backtrace has frames named NAME, in
# this order (others may come between).
expect_frames() {
	local file=$1; shift
	awk -v want="$*" '
		BEGIN { n = split(want, w, " "); k = 1 }
		/^      #[0-9]+ 0x[0-9a-f]+ / {
			name = $3; sub(/\+0x[0-9a-f]+$/, "", name)
			if (k <= n && name == w[k]) k++
		}
		END { exit k <= n }' "$file" ||
		{ cat "$file" >&2; fail "$file: frames not found in order: $*"; }
}

run_case() { # NAME POLICY MODE...
	local name=$1 pol=$2; shift 2
	filtered "$pol" "$U" "$@" >"$name.out" 2>"$name.err"
	echo $? >"$name.status"
}

run_case malloc '*: 1; brk: 0' malloc
expect_sigkill "$(cat malloc.status)"
expect_report malloc.err brk 'not in the allowed set'
expect_frames malloc.err brk sbrk malloc in_malloc_caller main __libc_start_main _start
echo "ok killed inside a trapped malloc: $(grep -c '^      #' malloc.err) frames"

for how in handler handler-libc altstack; do
	run_case $how "$DENY" $how
	expect_sigkill "$(cat $how.status)"
	expect_report $how.err getppid 'not in the allowed set'
	# through the handler's frame and the restorer to the code the
	# signal interrupted
	expect_frames $how.err in_handler on_usr1 sf_restorer_checked raiser main _start
	echo "ok killed inside a signal handler ($how)"
done

run_case fork "$DENY" fork
[ "$(cat fork.status)" -eq 0 ] || fail "fork: the parent's status $(cat fork.status)"
expect_grep '^child signal 9$' fork.out
expect_report fork.err getppid 'not in the allowed set'
expect_frames fork.err child_work main _start
echo "ok killed in a forked child"

run_case thread "$DENY" thread
expect_sigkill "$(cat thread.status)"
expect_frames thread.err thread_work
echo "ok killed in a thread"

run_case vdso '*: 1; clock_gettime: 0' vdso
expect_sigkill "$(cat vdso.status)"
expect_grep '#0 0x[0-9a-f]+ [a-z_]*clock_gettime\+0x[0-9a-f]+ \(linux-vdso\.so\.1\)$' vdso.err
expect_frames vdso.err clock_gettime clock_gettime vdso_caller main
echo "ok a frame in the vDSO, named from its dynamic symbols in memory"

run_case deep "$DENY" deep 100
expect_sigkill "$(cat deep.status)"
[ "$(grep -c '^      #' deep.err)" -eq 32 ] || fail "deep: not 32 frames"
echo "ok 100 frames deep: the first 32"

# A corrupt stack: the report comes out, the backtrace stops where the
# memory does, the process dies of SIGKILL (not of SIGSEGV in the
# library).
for how in corrupt garbage; do
	run_case $how "$DENY" $how
	expect_sigkill "$(cat $how.status)"
	expect_report $how.err getppid 'not in the allowed set'
	expect_grep '#0 0x[0-9a-f]+ syscall_on\+' $how.err
	echo "ok $how stack: $(grep -c '^      #' $how.err) frames, then the walk stops"
done

# The same cases in trusted mode: the listener reports and sends the
# thread SIGSYS, whose handler writes the backtrace from the thread's
# context at the call (preload/notify.c).
for how in malloc handler; do
	pol=$DENY
	[ $how = malloc ] && pol='*: 1; brk: 0'
	filtered_trusted "$pol" "$U" $how >t$how.out 2>t$how.err
	expect_sigsys $?
done
expect_frames tmalloc.err brk sbrk malloc in_malloc_caller main _start
expect_frames thandler.err in_handler on_usr1 sf_restorer_checked raiser main _start
# ... and when the policy denies the readability probe: no backtrace,
# and still the report.
filtered_trusted "$DENY; rt_sigprocmask: how != -1" \
	"$U" handler >tnoprobe.out 2>tnoprobe.err
expect_sigsys $?
expect_grep 'backtrace: unavailable \(the policy denies rt_sigprocmask' tnoprobe.err
echo "ok trusted mode"

# A handler installed before the library's constructor keeps glibc's
# restorer (__restore_rt): its CFI takes the walk across it.
cat >early.c <<'C'
#include <signal.h>
#include <unistd.h>
#include <sys/syscall.h>
__attribute__((noinline)) void early_handler(int s)
{
	long r;
	(void)s;
	__asm__ volatile("syscall" : "=a"(r) : "0"(SYS_getppid) : "rcx", "r11", "memory");
}
__attribute__((constructor)) static void early(void) { signal(SIGUSR1, early_handler); }
C
cat >usesearly.c <<'C'
#include <signal.h>
__attribute__((noinline)) void early_raiser(void) { raise(SIGUSR1); __asm__ volatile(""); }
int main(void) { early_raiser(); return 0; }
C
cc -g -shared -fPIC -o libearly.so early.c &&
	cc -o usesearly usesearly.c -Wl,--no-as-needed -L. -learly -Wl,-rpath,"$SCRATCH" || fail "cc"
filtered "$DENY" ./usesearly >early.out 2>early.err
expect_sigkill $?
expect_frames early.err early_handler early_raiser main
echo "ok across glibc's __restore_rt"

# ---- against gdb ----
# gdb stops the same process in sf_violation and walks its stack with its
# own unwinder; then the report is written.  The report's frames must be
# gdb's from the call site on, without the library's own (but its
# restorer).  gdb reads only the CFI here (no separate debug files: with
# them it adds frames for tail calls that no return address shows), and
# its inline frames are dropped (they share their pc).
command -v gdb >/dev/null || fail "gdb is not installed (.ci/run installs it)"
cat >frames.gdb <<'G'
set confirm off
set pagination off
set startup-with-shell off
set debug-file-directory /nonexistent
set backtrace past-main on
set backtrace past-entry on
set breakpoint pending on
handle SIGSYS nostop noprint pass
handle SIGUSR1 nostop noprint pass
break sf_violation
run
python
f = gdb.selected_frame()
while f is not None:
    lib = gdb.solib_name(f.pc()) or ""
    if f.type() not in (gdb.INLINE_FRAME, gdb.TAILCALL_FRAME) and \
       (not lib.endswith("/libsecfilter.so") or f.name() == "sf_restorer_checked"):
        print("GDBFRAME %x" % f.pc())
    f = f.older()
end
delete
continue
G
# compare NAME POLICY CMD...: CMD under gdb and the library (log mode:
# the report, then the call goes on; the first report is compared).
compare() {
	local name=$1 pol=$2; shift 2
	timeout 300 gdb -q -batch -ex "set environment LD_PRELOAD=$LIB" \
		-ex "set environment SECFILTER_POLICY=$pol" -ex "set environment SECFILTER_ACTION=log" \
		-ex "set environment SECFILTER_LOG=$SCRATCH/$name.report" \
		-x frames.gdb --args "$@" >"$name.gdb" 2>&1 </dev/null
	awk '/^GDBFRAME / { print $2 }' "$name.gdb" >"$name.theirs"
	awk '/^    backtrace:/ { n++ } n == 1 && /^      #/ { sub(/^0x/, "", $2); print $2 }
	     /blocked at ip/ && n == 1 { exit }' "$name.report" >"$name.ours"
	[ -s "$name.ours" ] || { cat "$name.gdb" "$name.report" >&2; fail "$name: no frames in the report"; }
	# gdb's walk from the report's first frame, as long as the report's
	awk -v first="$(head -1 "$name.ours")" '$1 == first { on = 1 } on' "$name.theirs" |
		head -n "$(wc -l <"$name.ours")" >"$name.theirs.cut"
	if ! cmp -s "$name.ours" "$name.theirs.cut"; then
		echo "--- ours / gdb's:" >&2
		paste "$name.ours" "$name.theirs.cut" >&2
		cat "$name.report" >&2
		fail "$name: the backtrace differs from gdb's"
	fi
	echo "ok $name: $(wc -l <"$name.ours") frames, as gdb walks them"
}

compare u-malloc '*: 1; brk: 0' "$U" malloc
compare u-handler "$DENY" "$U" handler
compare u-handler-libc "$DENY" "$U" handler-libc
compare u-altstack "$DENY" "$U" altstack
compare u-thread "$DENY" "$U" thread
compare u-vdso '*: 1; clock_gettime: 0' "$U" vdso
compare u-deep "$DENY" "$U" deep 20
# The same program at -O2 without frame pointers (-g for its lines).
cc -O2 -g -fomit-frame-pointer -D_GNU_SOURCE -o lib_unwind_O2 "$TOP/tests/progs/lib_unwind.c" -lpthread ||
	fail "cc -O2"
compare o2-malloc '*: 1; brk: 0' ./lib_unwind_O2 malloc
compare o2-handler "$DENY" ./lib_unwind_O2 handler
compare o2-deep "$DENY" ./lib_unwind_O2 deep 20
# Real programs: python3's interpreter loop listing a directory (the
# wrapped readdir), and its first brk (a trap in malloc); sqlite3's pager
# syncing a journal (the wrapped fdatasync).  (gdb passes arguments
# without a shell, escaping what a shell would see: scripts go in files.)
echo 'import os; print(len(os.listdir("/")) > 0)' >ls.py
compare py-getdents '*: 1; getdents64: 0' /usr/bin/python3 "$SCRATCH/ls.py"
expect_grep '^True$' py-getdents.gdb
compare py-brk '*: 1; brk: 0' /usr/bin/python3 -c pass
echo 'create table t(a); insert into t values(1);' >db.sql
compare sqlite-fdatasync '*: 1; io_uring_setup: 0; fdatasync: 0' sqlite3 -init "$SCRATCH/db.sql" "$SCRATCH/db"
[ "$(sqlite3 "$SCRATCH/db" 'select count(*) from t')" = 1 ] || fail "sqlite3 did not run the statements"

# ---- source lines against addr2line ----
# Each frame's `at FILE:LINE` comes from the library's own DWARF line
# reader (filter/dwline.c); addr2line reads the same table with binutils'.
# The reports above have lines in the test's program (-O1 and -O2), in a
# shared object (libearly.so, a load bias that is not 0) and in the
# library's own restorer.  Add a real program with a line table: the
# secfilter command itself (-O2 -g), killed reading its policy file.
# (Built with ASan, the command wants its runtime first, before the
# library: it is told not to check.)
echo 'read: 1' >p.pol
ASAN_OPTIONS=verify_asan_link_order=0 filtered '*: 1; io_uring_setup: 0; read: 0' \
	"$SECFILTER" check p.pol >cmd.out 2>cmd.err
expect_sigkill $?
expect_report cmd.err read 'not in the allowed set'
expect_grep '^      #[0-9]+ 0x[0-9a-f]+ [^ ]+ \(.*/secfilter\) at tools/' cmd.err
# A CPython built from source with -g (pyenv's: -O3, DWARF 5, a line
# table of megabytes in libpython) where there is one: its interpreter
# listing a directory.
pys=( $(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.*/bin/python3 2>/dev/null | sort -V | tail -2) )
for py in "${pys[@]}"; do
	v=$(basename "$(dirname "$(dirname "$py")")")
	filtered '*: 1; getdents64: 0' "$py" ls.py >"pyenv-$v.out" 2>"pyenv-$v.err"
	expect_sigkill $?
	expect_frames "pyenv-$v.err" os_listdir
done
[ ${#pys[@]} -gt 0 ] || echo "(no CPython built by pyenv here: none compared)"
expect_report_lines *.err *.report
echo "ok source lines as addr2line names them: $(tail -1 lines.out)"
