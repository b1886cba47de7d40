#!/usr/bin/env bash
# libsecfilter.so, SECFILTER_MODE=trusted: the policy as a kernel filter,
# installed from la_version when rtld loads the library as an audit module;
# the library's SIGSYS handler reports and kills.
. "$TOP/tests/e2e/lib.sh"

trusted() { filtered_trusted "$@"; }

# killed_for_getppid NAME CMD...: CMD, under '*: 1; getppid: 0', is killed
# by the listener's SIGSYS; its stdout in NAME.out, its stderr in NAME.err.
killed_for_getppid() {
	local name=$1; shift
	trusted '*: 1; getppid: 0' "$@" >"$name.out" 2>"$name.err"
	expect_sigsys $?
}

trusted '*: 1; getppid: 0' "$PROBE" out hello >ok.out 2>ok.err || fail "allowed run failed"
expect_grep '^hello$' ok.out
grep -q '^Seccomp:[[:space:]]*2' <(trusted '*: 1' cat /proc/self/status) || fail "no kernel filter"
echo "ok the kernel filter is installed"

# A raw syscall instruction (no userspace check can see it): the kernel traps
# it and the handler reports.
cat >raw.c <<'C'
#include <unistd.h>
int main(void)
{
	long r;
	write(1, "before\n", 7);
	__asm__ volatile("syscall" : "=a"(r) : "0"(110L) : "rcx", "r11", "memory");
	write(1, "after\n", 6);
	return 0;
}
C
cc -o raw raw.c
killed_for_getppid raw ./raw
expect_grep '^before$' raw.out
expect_no_grep '^after$' raw.out
expect_report raw.err getppid 'not in the allowed set'
echo "ok raw syscall trapped by the kernel, reported, killed"

# Through libc's wrapper.
killed_for_getppid w "$PROBE" getppid
expect_report w.err getppid 'not in the allowed set'

# The program's sigaction(SIGSYS) does not replace the reporting handler.
killed_for_getppid s "$PROBE" sigsys getppid
expect_grep '^sigsys shadow ok$' s.out
expect_report s.err getppid 'not in the allowed set'
echo "ok SIGSYS handler kept"

# When the policy denies the report's own write, the process still dies
# (the kernel kills it): no report can be written.
trusted '*: 1; io_uring_setup: 0; write: fd == 1' "$PROBE" wrapper >d.out 2>d.err; st=$?
[ "$st" -eq 137 ] || [ "$st" -eq 159 ] || fail "expected death, got $st"
expect_no_grep '^wrapper$' d.err
echo "ok write denied: killed without a report (status $st)"

# A raw rt_sigaction(SIGSYS) cannot take the handler away: the guard filter
# answers "done" and changes nothing (through syscall() it is shadowed);
# the next violation is still reported and killed.
cat >rawsig.c <<'C'
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>
static void h(int s) { (void)s; write(1, "caught\n", 7); }
int main(void)
{
	struct { void *h; unsigned long f; void *r; unsigned long m; } k = { (void *)h, 0x04000000, 0, 0 };
	register long r10 __asm__("r10") = 8;
	long r;
	syscall(SYS_rt_sigaction, SIGSYS, &k, 0, 8);
	write(1, "shadowed\n", 9);
	__asm__ volatile("syscall" : "=a"(r) : "0"(13L), "D"(31L), "S"(&k), "d"(0L), "r"(r10)
			 : "rcx", "r11", "memory");
	if (r == 0)
		write(1, "answered\n", 9);
	getppid();
	write(1, "survived\n", 9);
	return 0;
}
C
cc -o rawsig rawsig.c
killed_for_getppid g ./rawsig
expect_grep '^shadowed$' g.out
expect_grep '^answered$' g.out
expect_no_grep '^(caught|survived)$' g.out
expect_report g.err getppid 'not in the allowed set'
echo "ok raw rt_sigaction(SIGSYS) answered by the guard, the handler kept"

# The library as an audit module alone, no preload: the same filter and
# handler; the program's sigaction(SIGSYS) through libc is a raw call too.
env LD_AUDIT="$LIB" SECFILTER_MODE=trusted SECFILTER_POLICY='*: 1; getppid: 0' \
	"$PROBE" out alone sigsys getppid >a.out 2>a.err
expect_sigsys $?
expect_grep '^alone$' a.out
expect_report a.err getppid 'not in the allowed set'
echo "ok LD_AUDIT alone"

# LD_PRELOAD alone cannot filter from the start: refused before main.
env LD_PRELOAD="$LIB" SECFILTER_MODE=trusted SECFILTER_POLICY='*: 1' "$PROBE" out ran >r.out 2>r.err
[ $? -eq 125 ] || fail "trusted mode through LD_PRELOAD alone was not refused"
expect_no_grep '^ran$' r.out
expect_grep "LD_AUDIT=$LIB" r.err
expect_grep 'secfilter run --trusted' r.err
# ... not even a deferred policy's image: the exec'd one gets LD_AUDIT
env LD_PRELOAD="$LIB" SECFILTER_MODE=trusted SECFILTER_POLICY='on_next_syscall: 1; *: 1; getppid: 0' \
	"$PROBE" out first vfork "$PROBE" out second getppid >n.out 2>n.err
expect_grep '^vfork signal 31$' n.out  # SIGSYS: the listener's kill
expect_grep '^second$' n.out
expect_report n.err getppid 'not in the allowed set'
# LD_AUDIT alone in interposition mode (the default): nothing would filter.
env LD_AUDIT="$LIB" SECFILTER_POLICY='*: 1' "$PROBE" out ran >i.out 2>i.err
[ $? -eq 125 ] || fail "LD_AUDIT alone in interposition mode was not refused"
expect_no_grep '^ran$' i.out
expect_grep 'needs the library in LD_PRELOAD' i.err
# LD_AUDIT naming another build: the preloaded copy cannot delegate to it.
objcopy -O binary --only-section=.note.gnu.build-id "$LIB" id.bin &&
	python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[-1] ^= 0xff
open(sys.argv[1], "wb").write(b)' id.bin &&
	objcopy --update-section .note.gnu.build-id=id.bin "$LIB" other.so || fail "objcopy"
env LD_AUDIT="$SCRATCH/other.so" LD_PRELOAD="$LIB" SECFILTER_MODE=trusted SECFILTER_POLICY='*: 1' \
	"$PROBE" out ran >o.out 2>o.err
[ $? -eq 125 ] || fail "LD_AUDIT naming another build was not refused"
expect_grep 'LD_AUDIT is set, but names no loadable copy of this build' o.err
echo "ok LD_PRELOAD alone refused; a deferred policy starts through LD_AUDIT"

# A violation while the program blocks SIGSYS (raw calls, which no wrapper
# sees): the kernel kills at once (SIGSYS), without the library's report;
# its audit log has one (the filter has SECCOMP_FILTER_FLAG_LOG).
cat >blocked.c <<'C'
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(void)
{
	unsigned long set = 1ul << (SIGSYS - 1);
	register long r10 __asm__("r10") = 8;
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "0"(14L), "D"(SIG_BLOCK), "S"(&set), "d"(0L), "r"(r10)
			 : "rcx", "r11", "memory");
	write(1, "blocked\n", 8);
	__asm__ volatile("syscall" : "=a"(r) : "0"(110L) : "rcx", "r11", "memory");
	write(1, "survived\n", 9);
	return 0;
}
C
cc -o blocked blocked.c
trusted '*: 1; getppid: 0' ./blocked >b.out 2>b.err
[ $? -eq 159 ] || fail "a violation with SIGSYS blocked did not kill with SIGSYS"
expect_grep '^blocked$' b.out
expect_no_grep '^survived$' b.out
echo "ok SIGSYS blocked: killed by the kernel"

# An image exec'd in trusted mode inherits the filters, installs its own
# handler (through the guard's stub) and reports.
trusted '*: 1; getpriority: 0' sh -c "$PROGS/lib_static-static >/dev/null; exec $PROBE out child sigsys" >x.out 2>x.err ||
	fail "exec in trusted mode: status $?"
expect_grep '^child$' x.out
expect_grep '^sigsys shadow ok$' x.out
cat >prio.c <<'C'
#include <sys/resource.h>
int main(void) { getpriority(PRIO_PROCESS, 0); return 0; }
C
cc -o prio prio.c
trusted '*: 1; getpriority: 0' sh -c "exec ./prio" >p.out 2>p.err
expect_sigsys $?
expect_report p.err getpriority 'not in the allowed set'
echo "ok exec'd image in trusted mode reports"

# An image whose policy's filter is in force already (the mark, preload/
# trusted.c) loads no second copy of it: the exec'd grep runs under as
# many filters as the shell (the guard, the policy's, its mark).  An image
# given another policy (a script narrowing it for one command) loads its
# own and its mark, and the kernel enforces it.  Asking the mark leaves
# nothing in the kernel's log (it did, one audit record per image, while
# the mark was part of the policy's filter, which is loaded with
# SECCOMP_FILTER_FLAG_LOG).
P='*: 1; getpriority: 0'
trusted "$P" sh -c 'grep "^Seccomp_filters" /proc/$$/status; grep "^Seccomp_filters" /proc/self/status;
	SECFILTER_POLICY="*: 1; getpriority: 0; uname: 0" grep "^Seccomp_filters" /proc/self/status;
	SECFILTER_POLICY="*: 1; getpriority: 0; uname: 0" uname; echo "uname $?"' >n.out 2>n.err
sh_n=$(sed -n 1p n.out | awk '{print $2}'); same_n=$(sed -n 2p n.out | awk '{print $2}')
other_n=$(sed -n 3p n.out | awk '{print $2}')
[ -n "$sh_n" ] && [ "$sh_n" -ge 3 ] || fail "the shell's filters: '$sh_n'"
[ "$same_n" = "$sh_n" ] || fail "an image under the same policy loaded a filter: $sh_n -> $same_n"
[ "$other_n" = $((sh_n + 2)) ] || fail "an image under another policy loaded no filter and mark: $sh_n -> $other_n"
expect_grep '^uname 137$' n.out
expect_report n.err newuname 'not in the allowed set'
echo "ok the same policy is loaded once ($sh_n filters), another one on top ($other_n)"

# The kernel's log: a `log` rule's record before and after (the kernel
# writes those, and rate-limits its messages: both must be there for the
# absence between them to count) and three images asking the mark.
logged() { dmesg 2>/dev/null | grep -c "comm=\"$1\".* syscall=$2 "; }
if dmesg >/dev/null 2>&1; then
	cp "$PROBE" "./sfmc$$"; cp "$PROBE" "./sfmd$$"; cp /bin/true "./sfmq$$"
	for try in 1 2; do
		trusted '*: 1; getppid: log' "./sfmc$$" out c getppid >/dev/null 2>&1
		trusted '*: 1' sh -c "./sfmq$$; ./sfmq$$; ./sfmq$$" || fail "the mark's images failed"
		trusted '*: 1; getppid: log' "./sfmd$$" out d getppid >/dev/null 2>&1
		[ "$(logged "sfmc$$" 110)" -gt 0 ] && [ "$(logged "sfmd$$" 110)" -gt 0 ] && break
		[ $try = 1 ] && sleep 5.5
	done
	if [ "$(logged "sfmc$$" 110)" -gt 0 ] && [ "$(logged "sfmd$$" 110)" -gt 0 ]; then
		[ "$(logged "sfmq$$" 24)" = 0 ] || fail "asking the mark wrote to the kernel's log: $(dmesg |
			grep "comm=\"sfmq$$\"" | head -1)"
		echo "ok asking the mark writes nothing to the kernel's log"
	else
		echo "note: no audit record of a log rule in dmesg; the mark's silence is not tested" >&2
	fi
fi

# An attack on the mark: a program the policy lets install filters makes
# one that answers the mark for every program, then execs an image told a
# wider policy.  That image believes it and loads nothing; the kernel
# still enforces the filters the tree started under: the getppid that
# would create the marker is killed.
cat >forge.c <<'C'
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_sched_yield, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x6d61726bu, 0, 1), /* the tag's low half */
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 4093),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog fp = { sizeof f / sizeof f[0], f };
	(void)argc;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp))
		return 3;
	execv(argv[1], argv + 1);
	return 4;
}
C
cc -o forge forge.c
# The forgery takes: the image under it loads no filter of its own (the
# shell's filters, plus the forger's one; the image's would be one more).
trusted "$P" sh -c 'grep "^Seccomp_filters" /proc/$$/status;
	./forge /usr/bin/env SECFILTER_POLICY="*: 1" grep "^Seccomp_filters" /proc/self/status' >g.out 2>g.err
base_n=$(sed -n 1p g.out | awk '{print $2}'); forged_n=$(sed -n 2p g.out | awk '{print $2}')
[ -n "$base_n" ] && [ "$forged_n" = $((base_n + 1)) ] ||
	fail "the forged answer did not take (filters $base_n -> $forged_n): the attack below proves nothing"
killed_for_getppid f env SECFILTER_POLICY='*: 1' ./forge "$PROBE" out forged getppid out escaped
expect_grep '^forged$' f.out
expect_no_grep '^escaped$' f.out
expect_grep '^lib_probe\[[0-9]+\]: system call 110 \(sys_getppid\) blocked' f.err
echo "ok a forged answer to the mark takes ($base_n -> $forged_n filters) and widens nothing"

# The environment an image is exec'd with cannot widen the policy: a wider
# SECFILTER_POLICY is what the library there reads, but the inherited
# filter still denies, and the report gives the tree's rule; without
# LD_AUDIT the image runs without the library, killed by the kernel.
killed_for_getppid w env SECFILTER_POLICY='*: 1' "$PROBE" out wider getppid
expect_grep '^wider$' w.out
# (the wrapper allowed the call; the kernel sent it to the tree's listener,
# which reports it with the rule of the policy the tree started under)
expect_grep '^lib_probe\[[0-9]+\]: system call 110 \(sys_getppid\) blocked at ip:[0-9a-f]+$' w.err
expect_grep '^    rule: not in the allowed set$' w.err
trusted '*: 1; getppid: 0' env -u LD_AUDIT -u LD_PRELOAD "$PROBE" out bare getppid >u.out 2>u.err
[ $? -eq 159 ] || fail "an image without the library was not killed by the kernel"
expect_grep '^bare$' u.out
echo "ok an exec'd image keeps the inherited filter whatever its environment"

# A policy that denies the library's own calls (the state mapping's
# memfd_create, prctl and seccomp for another filter): an exec'd image,
# which starts under the inherited filter, skips them instead of dying;
# a narrowing that cannot be installed is refused (ENOSYS), not killed.
trusted '*: 1; memfd_create: 0; prctl: 0; seccomp: 0; getppid: 0' \
	env "$PROBE" out started apply 'getpid: 0' getppid >m.out 2>m.err
# (no mark either, which tells an image that the tree has a listener: the
# image's own handler reports and kills, with SIGKILL)
expect_sigkill $?
expect_grep '^started$' m.out
expect_grep '^apply -1 ENOSYS$' m.out
expect_grep 'denies prctl or seccomp' m.out
expect_grep '^(lib_probe|\?)\[[0-9]+\]: system call 110 \(sys_getppid\) blocked' m.err  # comm needs prctl
echo "ok an exec'd image under a policy denying the library's own calls"

# rtld looks up every audit interface of a module it keeps, and builds a
# formatted exception for each it does not find: the library defines the
# ones that cost nothing (their calls do what their absence does), never
# those that would route the program's bindings and PLT calls through it.
nm -D --defined-only "$LIB" | awk '{ print $3 }' | grep '^la_' | sort >la.txt
for f in la_activity la_objclose la_objopen la_objsearch la_preinit la_version; do
	grep -qx "$f" la.txt || fail "the audit module does not define $f"
done
for f in la_symbind64 la_pltenter la_pltexit la_x86_64_gnu_pltenter la_x86_64_gnu_pltexit; do
	grep -qx "$f" la.txt && fail "the audit module defines $f"
done
# la_objsearch hands the loader's own search back: a library found on
# LD_LIBRARY_PATH (the program's namespace) and one dlopen'ed still load.
mkdir -p lp
echo 'int lp_answer(void) { return 42; }' >lp.c
cc -shared -fPIC -o lp/liblp.so lp.c
cat >uselp.c <<'C'
#include <dlfcn.h>
#include <stdio.h>
int lp_answer(void);
int main(void)
{
	void *h = dlopen("liblp.so", RTLD_NOW);
	printf("%d %s\n", lp_answer(), h ? "dlopen" : dlerror());
	return 0;
}
C
cc -o uselp uselp.c -Llp -llp -ldl
LD_LIBRARY_PATH=$PWD/lp trusted '*: 1' ./uselp >lp.out 2>lp.err || fail "LD_LIBRARY_PATH under trusted mode: $(cat lp.err)"
expect_grep '^42 dlopen$' lp.out
echo "ok the audit interfaces: the free ones defined, the binding ones not; searches unchanged"
