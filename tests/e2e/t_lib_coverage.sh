#!/usr/bin/env bash
# libsecfilter.so coverage: in log mode under an empty policy (every call a
# violation), the number of calls of each syscall the summaries count
# equals what strace -f sees the program make in the same run, once the
# library is armed.
#
# From strace's output we drop, per process image, what comes before the
# library arms dispatch (the loader, other libraries' constructors) and
# what the library does itself: its reports (between its PR_SYS_DISPATCH_OFF
# and the next PR_SYS_DISPATCH_ON) and the few calls its special handling
# adds (listed in OWN below).  Every other row must match exactly.
. "$TOP/tests/e2e/lib.sh"

command -v strace >/dev/null || { echo "skip: no strace"; exit 0; }

mkdir -p tree/a/b && echo x >tree/a/f && echo y >tree/a/b/g
cat >script.sh <<'SH'
for d in tree tree/a; do ls "$d" | wc -l; done
x=$(cat tree/a/f); echo "got $x"
SH

policy=
run_case() {
	local name=$1; shift
	rm -f "$name.log"
	strace -f -qq -o "$name.trace" -E LD_PRELOAD="$LIB" -E SECFILTER_POLICY="$policy" \
		-E SECFILTER_ACTION=log -E SECFILTER_LOG="$SCRATCH/$name.log" \
		"$@" >"$name.out" 2>"$name.err" ||
		{ cat "$name.err" >&2; fail "$name failed"; }
}

run_case ls ls -l tree/a /usr/include/linux/netfilter
run_case tar tar cf t.tar -C /usr/include linux/netfilter
run_case sh sh script.sh
run_case python3 /usr/bin/python3 -c 'import subprocess, os; os.listdir("."); subprocess.run(["true"])'
cases="ls tar sh python3"

# The same with most calls allowed, so that syscall sites are rewritten
# (preload/rewrite/rewrite.c): every call of a denied syscall is still reported,
# also where it goes through a site that allowed calls have rewritten (Go
# makes all its calls through one; lib_rewrite's site_a is one too).  Only
# the denied syscalls are compared: the library makes none of them itself.
# Not getpid: Go's runtime makes it from other threads (preemption), and
# one of them may be reported but never made when the program exits.
deny="write getdents64 lseek ioctl fcntl getppid uname sysinfo getuid"
policy="*: 1; io_uring_setup: 0"  # a restricted write needs it (secfilter(7), io_uring)
for d in $deny; do policy="$policy; $d: 0"; done
run_case rw-ls ls -l tree/a /usr/include/linux/netfilter
run_case rw-python3 /usr/bin/python3 -c 'import os; os.listdir("."); print(os.getppid() > 0)'
run_case rw-site "$PROGS/lib_rewrite" repeat 110 50
run_case rw-go "$PROGS/go_probe" getppid 200
cases="$cases rw-ls rw-python3 rw-site rw-go"

COMPARE=$deny /usr/bin/python3 - "$TOP/syscalls/x86_64/syscalls.tbl" $cases <<'PY'
import os, re, sys
from collections import Counter

nr = {}
for line in open(sys.argv[1]):
    f = line.split()
    if f and not f[0].startswith("#"):
        nr[f[1]] = int(f[0])
name = {v: k for k, v in nr.items()}
# Calls the library's special handling makes on the program's behalf
# (blocking signals around clone, probing an exec's target and the room
# its loader will have, arming, the return of its own SIGSYS handler,
# reading back the mask and alternate stack a trapped call changed).
OWN = {"rt_sigprocmask", "prctl", "faccessat", "faccessat2", "pread64", "openat", "close",
       "newfstatat", "fstat", "getpid", "gettid", "mmap", "munmap", "rt_sigreturn",
       "sigaltstack", "fgetxattr", "prlimit64", "getresuid", "getresgid"}
# Calls the library answers itself when they cannot succeed (an exec of a
# file that is not there, as execvp tries each PATH directory): reported,
# never made; so is rt_sigaction(SIGSYS), which never reaches the kernel
# (the library answers from its shadow) and which a count cannot tell
# from the others.  At least as many reports as calls strace sees.
ANSWERED = {"execve", "rt_sigaction"}

def strace_counts(path):
    armed, report, counts = {}, {}, Counter()
    for line in open(path):
        m = re.match(r"(\d+) +(?:<\.\.\. )?(\w+)[( ]", line)
        if not m or "resumed>" in line:
            continue
        pid, call = m.group(1), m.group(2)
        if call == "vfork":  # see report_counts
            call = "clone"
        if not armed:  # the first process: strace's own exec of the program
            armed[pid] = False
        # The library makes the program's execve as an execveat of the
        # file it probed (by descriptor): either starts a new image,
        # counted as the program's execve.
        if call in ("execve", "execveat"):
            if armed.get(pid, True) and not report.get(pid):
                counts["execve"] += 1
            armed[pid] = False
            continue
        if call == "prctl" and "PR_SET_SYSCALL_USER_DISPATCH" in line:
            on = "PR_SYS_DISPATCH_ON" in line
            if on:
                report[pid] = False
                armed[pid] = True
            else:
                report[pid] = True
            continue
        # The lease the library holds on an exec's target (exec.c, hold)
        if call == "fcntl" and re.search(r"F_(GET_SEALS|SETSIG|SETLEASE|SETOWN|GETLEASE)", line):
            continue
        # The rewriter's questions about one mapping (PROCMAP_QUERY on
        # /proc/self/maps, rewrite.c)
        if call == "ioctl" and re.search(r"PROCMAP_QUERY|_IOC\(_IOC_READ\|_IOC_WRITE, 0x66, 0x11,", line):
            continue
        if armed.get(pid) is None:  # a child: armed by its parent's handler
            armed[pid] = True
        if armed[pid] and not report.get(pid):
            counts[call] += 1
    return counts

def report_counts(path):
    """Per syscall, from each process's log mode summary (each (syscall,
    rule) is reported in full once; the summary at exit_group or exec
    counts them all).  vfork and clone count together: libc's vfork() is
    issued as vfork, a trapped vfork syscall as clone(CLONE_VFORK); execve
    and execveat are counted together (see above)."""
    c = Counter()
    for line in open(path):
        m = re.match(r"    sys_(\w+): .*  # (\d+) calls?: ", line)
        if m:
            call = m.group(1)
            c[{"vfork": "clone", "execveat": "execve"}.get(call, call)] += int(m.group(2))
    return c

bad = 0
for case in sys.argv[2:]:
    s, r = strace_counts(case + ".trace"), report_counts(case + ".log")
    only = set(os.environ["COMPARE"].split()) if case.startswith("rw-") else None
    print(f"== {case}: {sum(r.values())} reports")
    print(f"   {'syscall':<18}{'strace':>8}{'reported':>10}")
    for call in sorted(set(s) | set(r), key=lambda k: -max(s[k], r[k])):
        mark = ""
        if only is not None and call not in only:
            continue
        if only is None and call in OWN:
            mark = "  (library adds its own)"
        elif call in ANSWERED and r[call] >= s[call]:
            mark = "  (failed ones answered by the library)"
        elif s[call] != r[call]:
            mark = "  MISMATCH"
            bad += 1
        print(f"   {call:<18}{s[call]:>8}{r[call]:>10}{mark}")
sys.exit(1 if bad else 0)
PY
[ $? -eq 0 ] || fail "coverage mismatch"
