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
