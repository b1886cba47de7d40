# secfilter check, syscalls, and the command's own options: exit statuses,
# the compiler-style error format, and canonical output that re-parses to
# itself.
. "$TOP/tests/e2e/lib.sh"
# Failures reach the real stderr even from a command whose stderr the test
# redirected (expect_status ... 2> err).
exec 3>&2
fail() { echo "FAIL: $*" >&3; exit 1; }

# --- check: a valid policy prints its canonical form, which is a fixed point
cat > good.conf <<'P'
# comments and blank rules are fine

write: fd == 1 || fd == 2; read: fd == 0
openat: !(flags & O_WRONLY|O_RDWR)
sys_newuname: 1
exit_group: 1
P
expect_status 0 $SECFILTER check good.conf > canon.out 2> err.out
[ -s err.out ] && fail "check wrote to stderr for a valid policy"
expect_grep '^sys_read: fd == 0$' canon.out
expect_grep '^sys_uname: 1$' canon.out
# number order: read (0) before write (1) before uname (63) before openat (257)
[ "$(cut -d: -f1 canon.out | tr '\n' ' ')" = "sys_read sys_write sys_uname sys_exit_group sys_openat " ] ||
	fail "not in number order: $(cat canon.out)"
expect_status 0 $SECFILTER check canon.out > canon2.out
cmp canon.out canon2.out || fail "canonical output does not re-parse to itself"
# standard input
expect_status 0 $SECFILTER check - < good.conf > stdin.out
cmp canon.out stdin.out || fail "check - differs from check FILE"
expect_status 0 $SECFILTER check -q good.conf > q.out
[ -s q.out ] && fail "check -q printed something"

# --- check: errors name file:line:col, show the line and a caret
printf 'read: 1\n\nsys_read: fdd == 0\n' > bad.conf
expect_status 1 $SECFILTER check bad.conf > out 2> err
[ -s out ] && fail "check printed a policy for an invalid file"
expect_grep "^bad.conf:3:11: error: unknown argument 'fdd' for sys_read" err
expect_grep '^    3 \| sys_read: fdd == 0$' err
expect_grep '^      \|           \^~~$' err

# every invalid file is reported, not only the first; -q still reports errors
printf 'opn: 1\n' > bad2.conf
expect_status 1 $SECFILTER check -q bad.conf good.conf bad2.conf > out 2> err
expect_grep '^bad.conf:3:11: error:' err
expect_grep "^bad2.conf:1:1: error: unknown syscall 'opn' \(did you mean 'open'\?\)" err
[ -s out ] && fail "check -q printed something"

# several files: '# FILE' headers
expect_status 1 $SECFILTER check good.conf bad.conf > out 2> err
expect_grep '^# good.conf$' out
expect_status 1 $SECFILTER check nonexistent.conf 2> err
expect_grep '^secfilter: check: nonexistent.conf: No such file or directory$' err

# -e TEXT: a policy on the command line, checked like a file
expect_status 0 $SECFILTER check -e 'write: fd == 1 || fd == 2; read: fd == 0; exit_group: 1' > out 2> err
[ -s err ] && fail "check -e wrote to stderr: $(cat err)"
[ "$(cat out)" = "sys_read: fd == 0
sys_write: fd in {1, 2}
sys_exit_group: 1" ] || fail "check -e: $(cat out)"
expect_status 1 $SECFILTER check --expr='read: 1; opn: 1' > out 2> err
expect_grep "^<command-line>:1:10: error: unknown syscall 'opn'" err
# with files: every one checked, -e first, each under its header
expect_status 1 $SECFILTER check -e 'read: fdd == 0' good.conf -e 'close: 1' > out 2> err
expect_grep "^<command-line>:1:7: error: unknown argument 'fdd'" err
[ "$(grep '^#' out | tr '\n' ' ')" = "# <command-line> # good.conf " ] || fail "headers: $(cat out)"
expect_grep '^sys_close: 1$' out
expect_status 2 $SECFILTER check -e 2> err
expect_grep "option '-e' needs an argument" err

# limits: 1 MiB of text
head -c 1048577 /dev/zero | tr '\0' '\n' > huge.conf
expect_status 1 $SECFILTER check huge.conf 2> err
expect_grep 'error: .*1 MiB' err

# --- usage, help, version
expect_status 2 $SECFILTER check 2> err
expect_grep '^secfilter: check: no FILE or -e TEXT given' err
expect_status 2 $SECFILTER nosuchcommand 2> err
expect_grep "unknown command 'nosuchcommand'" err
expect_status 2 $SECFILTER 2> /dev/null
expect_status 2 $SECFILTER check --bogus good.conf 2> /dev/null
expect_status 0 $SECFILTER --version > out
expect_grep '^secfilter [0-9]' out
expect_status 0 $SECFILTER --help > out
for c in check run show compile learn syscalls; do
	expect_grep "secfilter $c" out
	expect_status 0 $SECFILTER $c --help > out.$c
	expect_grep "^Usage: secfilter $c" out.$c
done

# --- every error of a file in one run, each at its place
cat > four.conf <<'P'
read: fdd == 0
pwrite64: fd == 1
opn: 1; close: 1
mprotect: prot & PROT_EXC
lseek: whence == SEEK_SET ||
exit_group: 1
P
expect_status 1 $SECFILTER check four.conf > out 2> err
[ -s out ] && fail "check printed a policy for an invalid file"
[ "$(grep -c ': error: ' err)" = 4 ] || fail "4 errors expected: $(cat err)"
expect_grep "^four.conf:1:7: error: unknown argument 'fdd'" err
expect_grep "^four.conf:3:1: error: unknown syscall 'opn' \(did you mean 'open'\?\)$" err
expect_grep "^four.conf:4:18: error: unknown constant 'PROT_EXC' \(did you mean 'PROT_EXEC'\?\)$" err
expect_grep "^four.conf:5:29: error: expected an argument name, '!' or '\(', got 'end of line'$" err
# many: the first 20, then how many more
for i in $(seq 25); do echo "nosuch$i: 1"; done > many.conf
expect_status 1 $SECFILTER check many.conf 2> err
[ "$(grep -c ': error: ' err)" = 20 ] || fail "20 errors expected: $(grep -c ': error: ' err)"
expect_grep '^many.conf:20:1: error: ' err
expect_grep '^many.conf: 5 more errors not shown$' err
# a byte a terminal does not show is named
printf 'read: 1\nwrite: fd == 1\001\n' > bin.conf
expect_status 1 $SECFILTER check bin.conf 2> err
expect_grep '^bin.conf:2:15: error: unexpected byte 0x01, a control character \(a policy is ASCII text\)$' err
printf '\357\273\277read: 1\n' > bom.conf
expect_status 1 $SECFILTER check bom.conf 2> err
expect_grep '^bom.conf:1:1: error: byte order mark \(bytes 0xef 0xbb 0xbf\) at the start' err

# --- warnings: stderr, file:line:col as errors, status 0; -q keeps them
expect_status 0 $SECFILTER check -q -e 'pread64: fd in 3|4; exit_group: 1' > out 2> err
[ -s out ] && fail "check -q printed something"
expect_grep "^<command-line>:1:10: warning: 'in' tests bits: 'fd in 3\|4' passes every fd whose bits are among 0x7 \(0, 1, 2, 3, 4, 5, 6 and 7\), not only the values written; 'fd' is a file descriptor, not a flag word: for a set of values write 'fd in \{3, 4\}'$" err
expect_grep '^    1 \| pread64: fd in 3\|4; exit_group: 1$' err
expect_grep '^      \|          \^~~~~~~~~$' err
# the set it suggests: what was written, and nothing to warn about
expect_status 0 $SECFILTER check -e 'pread64: fd in {3, 4}; exit_group: 1' > out 2> err
[ -s err ] && fail "a set warned: $(cat err)"
expect_grep '^sys_pread64: fd in \{3, 4\}$' out
# flag words keep minijail's meaning, without a warning
expect_status 0 $SECFILTER check -e 'mmap: prot in PROT_READ|PROT_WRITE; exit_group: 1' 2> err
[ -s err ] && fail "in on a flag word warned: $(cat err)"
# a policy with no way to exit, or none at all
expect_status 0 $SECFILTER check -e 'read: 1; write: 1' > out 2> err
expect_grep "^<command-line>: warning: exit_group is not allowed, nor exit: the program cannot exit and is killed when it tries \(add 'exit_group: 1'\)$" err
expect_grep '^sys_read: 1$' out
printf '# to do\n\n' > empty.conf
expect_status 0 $SECFILTER check empty.conf > out 2> err
expect_grep '^empty.conf: warning: the policy is empty \(no rules, only comments or blank lines\): every call is denied, exit_group too' err
# too large for the kernel: check says so, compile refuses
printf 'exit_group: 1\nioctl: cmd in {%s}\n' "$(seq -s ', ' 1 5000)" > huge-set.conf
expect_status 0 $SECFILTER check -q huge-set.conf 2> err
expect_grep '^huge-set.conf: warning: the policy compiles to more than 4096 BPF instructions, the kernel.s limit: `secfilter compile` and `run --trusted` refuse it' err
expect_status 1 $SECFILTER compile -p huge-set.conf -o /dev/null 2> err
expect_grep 'more than 4096' err
# a misspelt command
expect_status 2 $SECFILTER chekc good.conf 2> err
expect_grep "^secfilter: unknown command 'chekc' \(did you mean 'check'\?\)$" err

# --- constants by name in the canonical text, which parses to itself
cat > named.conf <<'P'
openat: dfd == -100 && !(flags & 0x643) && mode == 420
ioctl: cmd == 21505 || cmd == 0x5413
fcntl: cmd == 4 && fd == 3 || fd == 4
kill: sig == 15
exit_group: 1
P
expect_status 0 $SECFILTER check named.conf > out
expect_grep '^sys_openat: dfd == AT_FDCWD && !\(flags & \(O_WRONLY\|O_RDWR\|O_CREAT\|O_TRUNC\|O_APPEND\)\) && mode == 0644$' out
expect_grep '^sys_ioctl: cmd in \{TCGETS, TIOCGWINSZ\}$' out
expect_grep '^sys_fcntl: cmd == F_SETFL && fd == 3 \|\| fd == 4$' out
expect_grep '^sys_kill: sig == SIGTERM$' out
expect_status 0 $SECFILTER check out > again
cmp out again || fail "the named canonical text does not re-parse to itself"

# --- a set on a real program: head reads its standard input (fd 0) but
# not a file it opened (fd 3 or above)
echo hello > in.txt
expect_status 0 env LC_ALL=C $SECFILTER run -e '*: 1; io_uring_setup: 0; read: fd in {0, 9}' -- \
	head -c 3 < in.txt > out
[ "$(cat out)" = hel ] || fail "head under a set: $(cat out)"
expect_status 137 env LC_ALL=C $SECFILTER run -e '*: 1; io_uring_setup: 0; read: fd in {0, 9}' -- \
	head -c 3 in.txt 2> err
expect_grep '^ +rule: sys_read: fd in \{0, 9\} \(<command-line>:1\)$' err

# --- syscalls: the table
expect_status 0 $SECFILTER syscalls > table
expect_grep '^0 read \(fd: u32, buf: ptr, count: u64\)$' table
expect_grep '^63 uname sys_newuname \(name: ptr\)$' table
expect_grep '^39 getpid \(\)$' table
expect_grep '^257 openat \(dfd: s32, filename: ptr, flags: s32, mode: u16\)$' table
[ "$(wc -l < table)" -gt 300 ] || fail "the table is short: $(wc -l < table) rows"
# by name, entry alias, sys_ name and number
expect_status 0 $SECFILTER syscalls write sys_newuname sys_close 0 > some
[ "$(cat some)" = "1 write (fd: u32, buf: ptr, count: u64)
63 uname sys_newuname (name: ptr)
3 close (fd: u32)
0 read (fd: u32, buf: ptr, count: u64)" ] || fail "syscalls NAME...: $(cat some)"
expect_status 1 $SECFILTER syscalls reed write > some 2> err
expect_grep "^secfilter: syscalls: unknown system call 'reed' \(did you mean 'read'\?\)$" err
expect_grep '^1 write' some
# a number no syscall has is said to be one, not taken for a misspelt name
expect_status 1 $SECFILTER syscalls 9999 0x14 335 -- -1 > some 2> err
expect_grep "^secfilter: syscalls: no x86-64 system call has number 9999 \(the table has 0-[0-9]+, 424-[0-9]+\)$" err
expect_grep "^secfilter: syscalls: no x86-64 system call has number -1 " err
expect_no_grep 'did you mean' err
[ "$(cat some)" = "20 writev (fd: u64, vec: ptr, vlen: u64)
335 uretprobe ()" ] || fail "syscalls NUMBER...: $(cat some)"
exit 0
