#!/usr/bin/env bash
# Trusted mode through LD_AUDIT alone, under a policy too narrow for a
# reporter inside the program: learned from /bin/true, it allows no write,
# getpid or kill.  The tree's listener (preload/trap/notify.c), forked before
# the filter, writes the report from outside and kills with SIGSYS.
. "$TOP/tests/e2e/lib.sh"

"$SECFILTER" learn -o p.conf -- /bin/true >learn.out 2>&1 || { cat learn.out >&2; fail "learn"; }
# its fs. rules are /bin/true's: the programs below (and the libraries
# built here) may be executed and read too
echo "fs.exec: $PROGS $SCRATCH" >> p.conf
narrow() { env LD_AUDIT="$LIB" SECFILTER_MODE=trusted SECFILTER_POLICY_FILE=p.conf "$@"; }
# the policy is too narrow for the library's own reporter
grep -Eq '^sys_(write|getpid|kill):' p.conf && fail "the learned policy allows the reporter's calls"

narrow /bin/true || fail "/bin/true under its own policy: status $?"

# A call the policy denies: the full report, then SIGSYS.
narrow "$PROGS/lib_openw" "$SCRATCH/made" >o.out 2>o.err
expect_sigsys $?
[ ! -e made ] || fail "the denied openat ran"
expect_grep '^lib_openw\[[0-9]+\]: system call 257 \(sys_openat\) blocked at ip:[0-9a-f]+$' o.err
expect_grep "^    filename = \"$SCRATCH/made\" \\(0x[0-9a-f]+\\)$" o.err
expect_grep '^    flags = O_WRONLY\|O_CREAT\|O_TRUNC \(0x241\)$' o.err
expect_grep '^    mode = 0644$' o.err
expect_grep '^    rule: sys_openat: .*\(p\.conf:[0-9]+\)$' o.err
expect_grep '^    add: sys_openat: ' o.err
# the pid is the program's (not the listener's)
pid=$(sed -n 's/^lib_openw\[\([0-9]*\)\].*/\1/p' o.err)
[ -n "$pid" ] && [ "$pid" -gt 1 ] || fail "no pid in the report"
echo "ok a narrow policy's violation is reported in full (status 159)"

# run cites a policy file as the library in its tree does: by its
# absolute path (SECFILTER_POLICY_FILE as run sets it), in either mode.
for mode in --trusted --interpose; do
	"$SECFILTER" run $mode -p p.conf -- "$PROGS/lib_openw" "$SCRATCH/made" >r.out 2>r.err
	expect_grep "^    rule: sys_openat: .* \\($SCRATCH/p\\.conf:[0-9]+\\)\$" r.err
done
echo "ok run cites the policy file by its absolute path, as the library does"

# The listener is nobody's child the program could wait for, and holds
# no pipe open past the tree: a command substitution of the program's
# output ends with the program.
cat >w.c <<'C'
#include <errno.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
int main(void)
{
	pid_t r = wait(NULL);
	printf("wait %d %s\n", (int)r, r < 0 && errno == ECHILD ? "ECHILD" : "?");
	fflush(stdout);
	getppid();
	return 0;
}
C
cc -o w w.c || fail "cc"
out=$(timeout 20 env LD_AUDIT="$LIB" SECFILTER_MODE=trusted SECFILTER_POLICY='*: 1; getppid: 0' ./w 2>&1)
st=$?
[ $st -ne 124 ] || fail "the command substitution waited for the listener"
expect_sigsys $st
grep -q '^wait -1 ECHILD$' <<<"$out" || fail "the program had a child: $out"
grep -q '^w\[[0-9]*\]: system call 110 (sys_getppid)' <<<"$out" || fail "no report: $out"
echo "ok the listener is no child of the program and keeps no pipe open"

# A report goes to the standard error of the process that made the call.
cat >prio.c <<'C'
#include <sys/resource.h>
int main(void) { getpriority(PRIO_PROCESS, 0); return 0; }
C
cc -o prio prio.c || fail "cc"
env LD_AUDIT="$LIB" SECFILTER_MODE=trusted SECFILTER_POLICY='*: 1; getpriority: 0' \
	sh -c './prio 2>child.err; echo "sh $?"' >c.out 2>c.err || fail "sh: status $?"
expect_grep '^sh 159$' c.out
expect_report child.err getpriority 'not in the allowed set'
expect_no_grep 'sys_getpriority' c.err
echo "ok the report goes to the calling process's standard error"

# The loader's own error before main, under the narrow policy: the report
# quotes what it was writing, and says what to do.
echo 'int sf_gone(void) { return 0; }' >gone.c
cat >miss.c <<'C'
int sf_gone(void);
int main(void) { return sf_gone(); }
C
cc -shared -fPIC -o libsfgone.so gone.c && cc -o miss miss.c -L. -lsfgone || fail "cc"
rm libsfgone.so
narrow ./miss >m.out 2>m.err
expect_sigsys $?
expect_grep '^miss\[[0-9]+\]: system call 20 \(sys_writev\) blocked' m.err
expect_grep '^    message: "\./miss: error while loading shared libraries: libsfgone\.so: cannot open shared object file' m.err
expect_grep '^    hint: the dynamic loader wrote this before the program started' m.err
expect_grep '^    hint: fix what it names' m.err
echo "ok a loader's error is quoted, with a hint"

# Its static TLS error (redis-server's with libjemalloc under any LD_AUDIT
# in glibc 2.36): a library whose initial-exec TLS does not fit in what
# glibc keeps for dlopen.  The hint names both ways out, which both work.
cat >tls.c <<'C'
__thread char sf_big_tls[4096] __attribute__((tls_model("initial-exec")));
int sf_tls_touch(void) { sf_big_tls[0] = 1; return sf_big_tls[0]; }
C
cat >tlsuser.c <<'C'
int sf_tls_touch(void);
int main(void) { return sf_tls_touch() - 1; }
C
cc -shared -fPIC -o libsftls.so tls.c && cc -o tlsuser tlsuser.c -L. -lsftls -Wl,-rpath,"$SCRATCH" ||
	fail "cc"
./tlsuser || fail "the TLS program fails alone"
narrow ./tlsuser >t.out 2>t.err; st=$?
if grep -q 'static TLS' t.err; then
	expect_sigsys $st
	expect_grep '^    message: ".*cannot allocate memory in static TLS block' t.err
	expect_grep 'hint: .*`secfilter run --trusted`.*GLIBC_TUNABLES=glibc\.rtld\.optional_static_tls=' t.err
	"$SECFILTER" run --trusted -p p.conf -- ./tlsuser >r.out 2>&1 ||
		{ cat r.out >&2; fail "run --trusted: status $?"; }
	GLIBC_TUNABLES=glibc.rtld.optional_static_tls=8192 narrow ./tlsuser >g.out 2>&1 ||
		{ cat g.out >&2; fail "with the tunable: status $?"; }
	echo "ok the static TLS error names run --trusted and the tunable, and both work"
else
	echo "note: this glibc loads the TLS library under LD_AUDIT (status $st); not tested" >&2
fi

# A report is one write, the backtrace in it (the listener writes what the
# dying thread left it), so that a server's own log lines never land
# inside a report.  Counted with strace: the listener's writes to fd 2
# that start a report, and that they carry its backtrace.  Where the
# policy denies the process the write, the listener writes the report
# without the backtrace: no more of the process's text than it could
# write itself.
if command -v strace >/dev/null; then
	pol='*: 1; io_uring_setup: 0; openat: dfd == AT_FDCWD && !(flags & O_CREAT)'
	strace -f -qq -e trace=write -e signal=none -o st.log env LD_AUDIT="$LIB" \
		SECFILTER_MODE=trusted SECFILTER_POLICY="$pol" sh -c "'$PROGS/lib_openw' '$SCRATCH/made'" \
		>s.out 2>s.err
	expect_sigsys $?
	expect_grep '^lib_openw\[[0-9]+\]: system call 257' s.err
	expect_grep '^    backtrace:$' s.err
	expect_grep '^      #1 0x[0-9a-f]+ .*main' s.err
	n=$(grep -c 'write(2, "lib_openw\[' st.log)
	[ "$n" = 1 ] || { cat st.log >&2; fail "the report took $n writes that start one"; }
	grep -q 'write(2, "lib_openw\[' st.log && ! grep -q 'write(2, "    backtrace' st.log ||
		{ cat st.log >&2; fail "the backtrace was written apart from the report"; }
	echo "ok a kill's report, backtrace included, is one write (in an exec'd image too)"
	LD_AUDIT="$LIB" SECFILTER_MODE=trusted SECFILTER_POLICY="$pol; write: fd == 1" \
		"$PROGS/lib_openw" "$SCRATCH/made" >d.out 2>d.err
	expect_sigsys $?
	expect_grep '^    add: sys_openat: ' d.err
	expect_no_grep 'backtrace|#0 ' d.err
	echo "ok where the policy denies the process the write, its backtrace is not written for it"
fi
