#!/usr/bin/env bash
# Policies people already have (issue 11): minijail policy files and OCI
# (Docker) seccomp profiles, read by `secfilter check` and enforced by
# `secfilter run` in every mode -- the library interposing (run
# --interpose), the kernel filter alone (run --trusted), and the library
# reading the file itself (SECFILTER_POLICY_FILE, LD_AUDIT) in trusted mode -- and
# the language additions they brought (kill, trap, log per syscall;
# casts).  The policies are in tests/e2e/policies/.
. "$TOP/tests/e2e/lib.sh"
CALLS=$PROGS/act_calls
POL=$TOP/tests/e2e/policies
PY=/usr/bin/python3

POLICY_FROM=-p

# all_grep PATTERN: every mode's output has a line matching PATTERN.
all_grep() {
	local mode
	for mode in $MODES; do
		expect_grep "$1" "out.$mode"
	done
}

# ---- the language: kill, trap, log per syscall; casts ----
cat >lang.conf <<'EOF'
default: return EPERM
@system-service: 1
getppid: u64(arg0) == 0 else trap
getuid: u16(arg1) == 7 else return EACCES
sched_yield: log
getpgrp: kill
EOF
runs_in_all lang.conf 0 "$CALLS" sys 110 0 0 0 0 0 0 handler sys 110 0x100000000 0 0 0 0 0 trapped \
	sys 102 0 0x70007 0 0 0 0 sys 102 0 7 0 0 0 0 sys 102 0 0x10008 0 0 0 0 sys 24 0 0 0 0 0 0
all_grep '^sys 110 [0-9]+ 0$'
all_grep '^sys 110 4242 0$'      # u64(arg0): the upper half counts; trapped
all_grep '^trapped 1 code 1 syscall 110 '
all_grep '^sys 102 [0-9]+ 0$'    # u16 of 0x70007 is 7
expect_grep '^sys 102 -1 13$' out.interpose
all_grep '^sys 24 0 0$'          # log: it ran
expect_grep 'let through \(denied by sys_sched_yield: log\)' err.interpose
runs_in_all lang.conf kill "$CALLS" sys 111 0 0 0 0 0 0
"$SECFILTER" check lang.conf >canon.txt || fail "check lang.conf"
expect_lines canon.txt '^sys_getppid: u64\(arg0\) == 0 else trap$' \
	'^sys_getuid: u16\(arg1\) == 7 else return EACCES$' '^sys_getpgrp: kill$'
# the canonical text means the same: exec'd images re-parse it
"$SECFILTER" check canon.txt >canon2.txt && cmp canon.txt canon2.txt || fail "canonical text round trip"
echo "ok kill, trap and log per syscall, and casts, in every mode"

# ---- minijail: a policy with every construct ----
M=$POL/all-constructs.policy
"$SECFILTER" check "$M" >mj.txt || fail "check $M"
expect_lines mj.txt '^sys_write: u64\(fd\) in \{1, 2\}$' \
	'^sys_close: u64\(fd\) in \{99, 98\} \|\| u64\(fd\) in 0xff else log$' \
	'^sys_getcwd: return ERANGE$' '^sys_kill: kill$' '!sys_sysinfo'
runs_in_all "$M" 0 "$CALLS" sys 3 99 0 0 0 0 0 handler sys 3 98 0 0 0 0 0 trapped sys 3 200 0 0 0 0 0 \
	sys 3 300 0 0 0 0 0 sys 102 0 0 0 0 0 0 sys 79 0 0 0 0 0 0 sys 2 0 1 0 0 0 0 \
	sys 2 0 0 0 0 0 0 sys 63 0 0 0 0 0 0 sys 110 0x10 -1 0777 0 0 0 sys 24 0 0 0 0 0 0 \
	sys 1 2 0 0 0 0 0
all_grep '^sys 3 -1 1$'          # close(99): return EPERM
all_grep '^sys 3 4242 0$'        # close(98): trap
all_grep '^trapped 1 code 1 syscall 3 '
all_grep '^sys 3 -1 9$'          # close(200), close(300): ran (log for 300)
expect_grep 'let through \(denied by sys_close: u64\(fd\) in \{99, 98\} .* \(.*all-constructs.policy:21\)\)' err.interpose
all_grep '^sys 102 -1 1$'        # {getuid, geteuid}: return EPERM
all_grep '^sys 79 -1 34$'        # getcwd: return 0x10022, 16 bits: ERANGE
all_grep '^sys 2 -1 13$'         # open for writing: EACCES
all_grep '^sys 2 -1 14$'         # open for reading: it ran (EFAULT: no path)
all_grep '^sys 63 -1 14$'        # uname[arch=x86_64]: allowed
all_grep '^sys 110 [0-9]+ 0$'    # hex, -1 and octal
all_grep '^sys 24 4242 0$'       # sched_yield: trap
all_grep '^sys 1 0 0$'           # write(2, NULL, 0)
# what the policy stops, and where the report says the rule is
runs_in_all "$M" kill "$CALLS" sys 110 0x100000000 0 0 0 0 0 # 64-bit: not 0
runs_in_all "$M" kill "$CALLS" sys 1 5 0 0 0 0 0
expect_grep 'rule: sys_write: u64\(fd\) in \{1, 2\} \(.*all-constructs.policy:1[0-9]\)' err.libtrusted
runs_in_all "$M" kill "$CALLS" sys 62 0 0 0 0 0 0    # kill: kill
runs_in_all "$M" kill "$CALLS" sys 99 0 0 0 0 0 0    # sysinfo[arch=arm,aarch64]: not here
echo "ok a minijail policy with every construct: check, and run in every mode"

# @denylist: what is not named runs
D=$POL/minijail-denylist.policy
runs_in_all "$D" 0 "$CALLS" sys 41 16 3 0 0 0 0 sys 41 1 1 0 0 0 0 sys 101 0 0 0 0 0 0 sys 104 0 0 0 0 0 0 getppid
all_grep '^sys 41 -1 13$'
all_grep '^sys 41 [0-9]+ 0$'
all_grep '^sys 101 -1 1$'
all_grep '^sys 104 -1 1$'
all_grep '^getppid [0-9]+ 0$'
echo "ok a @denylist policy"

# --syntax for a file whose name does not say, and the library's own
# reading of SECFILTER_POLICY_FILE=FILE.policy
cp "$M" mj.txt
cp "$POL/minijail-runtime.policy" "$POL/minijail.frequency" .
expect_status 1 "$SECFILTER" check mj.txt 2>err.txt
expect_grep '^In file included from mj.txt:4:$' err.txt # read as secfilter's language
"$SECFILTER" check --syntax=minijail mj.txt >mj2.txt || fail "check --syntax=minijail"
"$SECFILTER" check "$M" | cmp - mj2.txt || fail "--syntax=minijail reads it differently"
for mode in interpose trusted; do
	"$SECFILTER" run --$mode --syntax=minijail -p mj.txt -- "$CALLS" sys 3 99 0 0 0 0 0 >out.txt ||
		fail "run --syntax=minijail ($mode)"
	expect_grep '^sys 3 -1 1$' out.txt
done
LD_PRELOAD=$LIB SECFILTER_POLICY_FILE=$M "$CALLS" sys 3 99 0 0 0 0 0 >out.txt || fail "SECFILTER_POLICY_FILE=.policy"
expect_grep '^sys 3 -1 1$' out.txt
echo "ok --syntax=minijail, and the library reading a .policy file"

# minijail's documented examples (minijail0(5)), each as it is, with the
# calls of glibc and act_calls around it
doc() { # NAME EXTRA: a policy including the example and the runtime
	{ echo "@include $POL/minijail-doc/$1.policy"; echo "@include $POL/minijail-runtime.policy"; echo "$2"; } >"doc-$1.policy"
	"$SECFILTER" check "$POL/minijail-doc/$1.policy" >/dev/null || fail "check minijail-doc/$1.policy"
}
doc open '{read, write, mmap, mprotect}: allow'
runs_in_all doc-open.policy 0 "$CALLS" sys 2 0 34816 0 0 0 0 sys 2 0 0 0 0 0 0
all_grep '^sys 2 -1 14$'
runs_in_all doc-open.policy kill "$CALLS" sys 2 0 1 0 0 0 0
runs_in_all doc-open.policy kill "$CALLS" sys 2 0 0x100000000 0 0 0 0
doc syntax '{read, write, close, munmap}: allow'
runs_in_all doc-syntax.policy 0 "$CALLS" sys 9 0 4096 7 0x22 -1 0 sys 10 0 4096 5 0 0 0
all_grep '^sys 9 [0-9]+ 0$'      # rwx, but private and anonymous
all_grep '^sys 10 -1 12$'        # r-x: allowed (ENOMEM: nothing mapped at 0)
runs_in_all doc-syntax.policy kill "$CALLS" sys 10 0 4096 7 0 0 0   # rwx
runs_in_all doc-syntax.policy kill "$CALLS" sys 2 0 0 0 0 0 0       # & O_RDONLY: never
doc return-clause '{write, close, mmap, mprotect, munmap}: allow'
"$SECFILTER" run --interpose -p doc-return-clause.policy -- "$CALLS" sys 0 0 0 0 0 0 0 >out.txt ||
	fail "return-clause"
expect_grep '^sys 0 -1 9$' out.txt  # read(0): EBADF, as the compiler reads it
expect_status 137 "$SECFILTER" run --interpose -p doc-return-clause.policy -- "$CALLS" sys 0 5 0 0 0 0 0 2>/dev/null
# under a kernel filter the dynamic loader's own read(3) meets it too
expect_status 159 "$SECFILTER" run --trusted -p doc-return-clause.policy -- "$CALLS" 2>/dev/null
doc return '{write, writev, close, mmap, mprotect, munmap}: allow'
"$SECFILTER" run --interpose -p doc-return.policy -- "$CALLS" sys 0 0 0 0 0 0 0 >out.txt || fail "return"
expect_grep '^sys 0 -1 9$' out.txt
"$SECFILTER" run --trusted -p doc-return.policy -- "$CALLS" >out.txt 2>err.txt
[ $? -eq 127 ] || fail "read: return EBADF should stop the loader"
expect_grep 'cannot read file data: Error 9' err.txt # EBADF
# seccomp mode 1: nothing else, not even exit_group
"$SECFILTER" check "$POL/minijail-doc/mode1.policy" >/dev/null || fail "check mode1"
expect_status 137 "$SECFILTER" run --interpose -p "$POL/minijail-doc/mode1.policy" -- "$CALLS" 2>err.txt
expect_grep 'sys_exit_group\) blocked' err.txt
echo "ok minijail0(5)'s examples: check, and run in every mode"

# errors in minijail files, compiler style
printf 'read: 1\nwrite: arg0 == 1 && arg9 == 2\n' >bad.policy
expect_status 1 "$SECFILTER" check bad.policy 2>err.txt
expect_grep '^bad.policy:2:21: error: invalid argument$' err.txt
expect_grep '^    2 \| write: arg0 == 1 && arg9 == 2$' err.txt
echo "ok minijail errors name file:line:col"

# ---- OCI: a profile with everything Docker's default profile uses ----
J=$POL/docker-like.json
"$SECFILTER" check "$J" >oci.txt || fail "check $J"
# ptrace: minKernel 4.8; pidfd_getfd: minKernel 99.0; chroot: includes
# caps, none here; file_setattr: runc's stub
expect_lines oci.txt '^default: return EPERM$' \
	'^sys_clone: clone_flags in ~\(CLONE_NEWNS\|CLONE_NEWCGROUP\|CLONE_NEWUTS\|CLONE_NEWIPC\|CLONE_NEWUSER\|CLONE_NEWPID\|CLONE_NEWNET\)$' \
	'^sys_clone3: return ENOSYS$' '^sys_ptrace: 1$' '!^sys_pidfd_getfd' '!^sys_chroot' \
	'^sys_file_setattr: return ENOSYS$'
for mode in interpose trusted; do
	"$SECFILTER" run --$mode -p "$J" -- ls -la / >ls.txt || fail "ls ($mode)"
	expect_grep ' etc$' ls.txt
	"$SECFILTER" run --$mode -p "$J" -- sh -c 'echo hello; ls / | wc -l' >sh.txt || fail "sh ($mode)"
	expect_grep '^hello$' sh.txt
	"$SECFILTER" run --$mode -p "$J" -- "$PY" -c '
import threading, subprocess, sqlite3, json
t = threading.Thread(target=lambda: None); t.start(); t.join()
print(subprocess.run(["true"]).returncode)
print(sqlite3.connect(":memory:").execute("select 6*7").fetchone()[0])
print(json.dumps({"ok": True}))' >py.txt || fail "python3 ($mode)"
	expect_grep '^0$' py.txt
	expect_grep '^42$' py.txt
	"$SECFILTER" run --$mode -p "$J" -- sqlite3 :memory: 'create table t(a); insert into t values (6*7); select a from t;' >sq.txt ||
		fail "sqlite3 ($mode)"
	expect_grep '^42$' sq.txt
done
runs_in_all "$J" 0 "$CALLS" clone3 thread sys 41 40 1 0 0 0 0 sys 135 0xffffffff 0 0 0 0 0 sys 135 1 0 0 0 0 0 \
	sys 469 0 0 0 0 0 0 sys 161 0 0 0 0 0 0
all_grep '^clone3 -1 38$'        # ENOSYS where the profile says so
all_grep '^thread ok$'           # and glibc falls back to clone
all_grep '^sys 41 -1 1$'         # AF_VSOCK: EPERM
all_grep '^sys 135 [0-9]+ 0$'    # personality(0xffffffff) queries
all_grep '^sys 135 -1 1$'
all_grep '^sys 469 -1 38$'       # above the highest number named: ENOSYS
all_grep '^sys 161 -1 1$'        # chroot needs CAP_SYS_CHROOT
echo "ok a Docker-like profile: ls, sh, python3, sqlite3 in both modes; clone3 ENOSYS"

# other actions of a profile
O=$POL/oci-actions.json
runs_in_all "$O" 0 "$CALLS" handler sys 39 0 0 0 0 0 0 sys 63 0 0 0 0 0 0 sys 102 0 0 0 0 0 0 \
	sys 16 5 0x5402 0 0 0 0 sys 41 10 1 0 0 0 0 sys 62 1 0 0 0 0 0
all_grep '^sys 39 4242 0$'       # getpid: SCMP_ACT_TRAP
all_grep '^sys 63 -1 13$'        # uname: errnoRet 13
all_grep '^sys 102 -1 1$'        # getuid: errnoRet absent, EPERM
all_grep '^sys 16 -1 25$'        # ioctl(5, 0x54xx): ENOTTY
all_grep '^sys 41 -1 97$'        # socket(AF_INET6): EAFNOSUPPORT
all_grep '^sys 62 0 0$'          # kill(1, 0): allowed
runs_in_all "$O" kill "$CALLS" sys 28 0 0 0 0 0 0 # madvise: SCMP_ACT_KILL
echo "ok a profile's trap, errno and kill actions in every mode"

# OCI errors, at their place
printf '{\n  "defaultAction": "SCMP_ACT_ERRNO",\n  "syscals": []\n}\n' >bad.json
expect_status 1 "$SECFILTER" check bad.json 2>err.txt
expect_grep '^bad.json:3:3: error: unknown key "syscals" in the profile \(did you mean "syscalls"\?\)$' err.txt
printf '{"defaultAction": "SCMP_ACT_ERRNO",}\n' >bad2.json
expect_status 1 "$SECFILTER" check bad2.json 2>err.txt
expect_grep "^bad2.json:1:36: error: trailing comma before '}'$" err.txt
echo "ok OCI errors name file:line:col"

# ---- io_uring: the front ends decide as minijail and Docker do ----
# Our syntax refuses a policy that restricts what a ring operation does and
# allows io_uring_setup; a minijail or OCI policy is taken as its own tools
# take it, and check, compile and run say once what a ring can do.
printf '@denylist\nptrace: return EPERM\nsocket: arg0 == AF_NETLINK; return EACCES\n' >deny.policy
W="^secfilter: deny.policy: warning: io_uring_setup is allowed, so a ring can do what the policy denies: IORING_OP_SOCKET does what socket does, unchecked .*; to deny rings, add 'io_uring_setup: return ENOSYS'\$"
uring_warned() { # CMD...: exits 0, one line on stderr, the warning
	"$@" >/dev/null 2>err.txt || { cat err.txt >&2; fail "$*"; }
	[ "$(wc -l <err.txt)" -eq 1 ] || { cat err.txt >&2; fail "not one warning line: $*"; }
	expect_grep "$W" err.txt
}
uring_warned "$SECFILTER" check deny.policy
uring_warned "$SECFILTER" check -q deny.policy
uring_warned "$SECFILTER" compile -p deny.policy -o /dev/null
uring_warned "$SECFILTER" run --interpose -p deny.policy -- true
uring_warned "$SECFILTER" run --trusted -p deny.policy -- true
# and it decides as minijail's program does, in every mode (the library
# reading the file itself says nothing: it lives in the program)
runs_in_all deny.policy 0 "$CALLS" sys 101 0 0 0 0 0 0 sys 41 16 0 0 0 0 0 sys 39 0 0 0 0 0 0
all_grep '^sys 101 -1 1$'  # ptrace: EPERM
all_grep '^sys 41 -1 13$'  # socket(AF_NETLINK): EACCES
expect_no_grep warning err.libtrusted
# the same decisions in our syntax: refused, with the way out
printf '*: 1\nptrace: return EPERM\nsocket: family != AF_NETLINK else return EACCES\n' >deny.conf
expect_status 1 "$SECFILTER" check deny.conf 2>err.txt
expect_grep "^deny.conf:3:1: error: sys_socket is restricted, but io_uring_setup is allowed without a rule of its own" err.txt
expect_status 1 "$SECFILTER" run -p deny.conf -- true 2>/dev/null
# denying rings (or naming io_uring_setup) leaves nothing to warn of
{ cat deny.policy; echo 'io_uring_setup: return ENOSYS'; } >deny2.policy
"$SECFILTER" check -q deny2.policy 2>err.txt || fail "check deny2.policy"
[ ! -s err.txt ] || { cat err.txt >&2; fail "a warning for a policy that denies rings"; }
printf '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["unlinkat"], "action": "SCMP_ACT_ERRNO"}]}\n' >ring.json
"$SECFILTER" check -q ring.json 2>err.txt || fail "check ring.json"
expect_grep '^secfilter: ring.json: warning: .*IORING_OP_UNLINKAT.*"SCMP_ACT_ERRNO"' err.txt
echo "ok io_uring: front ends taken as their tools take them, with a warning; our syntax refuses"

# ---- compile --format=oci: a profile that means the policy ----
"$SECFILTER" compile --format=oci -p "$J" -o written.json || fail "compile --format=oci"
"$SECFILTER" check written.json >/dev/null || fail "the written profile does not read"
for mode in interpose trusted; do
	"$SECFILTER" run --$mode -p written.json -- ls / >ls.txt || fail "ls under the written profile ($mode)"
	expect_grep '^etc$' ls.txt
done
runs_in_all written.json 0 "$CALLS" clone3 thread sys 41 40 1 0 0 0 0
all_grep '^clone3 -1 38$'
all_grep '^sys 41 -1 1$'
"$SECFILTER" compile --format=oci -e 'default: return EPERM; read: fd == 0; write: fd != 1 else trap' >w.json ||
	fail "compile --format=oci -e"
expect_grep '"defaultErrnoRet": 1' w.json
expect_grep '"SCMP_CMP_MASKED_EQ"' w.json
expect_no_grep '"architectures"' w.json # no runc stub
expect_status 1 "$SECFILTER" compile --format=oci -e 'read: 1; on_next_syscall: 1' 2>err.txt
expect_grep 'cannot be written as an OCI profile: on_next_syscall' err.txt
expect_status 1 "$SECFILTER" compile --format=oci -e 'read: return 4095' 2>err.txt
expect_grep 'return 4095 cannot be written' err.txt
echo "ok compile --format=oci"
