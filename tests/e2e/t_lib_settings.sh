#!/usr/bin/env bash
# libsecfilter.so: a bad policy or setting stops the program with status
# 125 before main runs (fail closed); a good policy file is read.
. "$TOP/tests/e2e/lib.sh"

# bad_case NAME WANT-PATTERN ENV...: exit 125, the message, main never ran.
bad_case() {
	local name=$1 want=$2; shift 2
	env LD_PRELOAD="$LIB" "$@" "$PROBE" >"$name.out" 2>"$name.err"; local st=$?
	[ "$st" -eq 125 ] || fail "$name: expected status 125, got $st"
	expect_no_grep 'main ran' "$name.out"
	expect_grep "$want" "$name.err"
	echo "ok $name"
}

bad_case policy "^SECFILTER_POLICY:1:10: error: unknown syscall 'wrte'" SECFILTER_POLICY='read: 1; wrte: 1'
expect_grep '^ *1 \| read: 1; wrte: 1$' policy.err
expect_grep '\^' policy.err

printf 'read: 1\n# a comment\nsys_read: fdd == 0\n' >bad.conf
bad_case file "^$SCRATCH/bad.conf:3:11: error: unknown argument 'fdd'" SECFILTER_POLICY_FILE="$SCRATCH/bad.conf"
bad_case nofile "^secfilter: SECFILTER_POLICY_FILE: cannot open '/nonexistent': No such file or directory$" \
	SECFILTER_POLICY_FILE=/nonexistent
bad_case both '^secfilter: SECFILTER_POLICY and SECFILTER_POLICY_FILE are both set$' \
	SECFILTER_POLICY='*: 1' SECFILTER_POLICY_FILE="$SCRATCH/bad.conf"
bad_case action "^secfilter: SECFILTER_ACTION: expected kill, log or log-full, got 'x'$" \
	SECFILTER_POLICY='*: 1' SECFILTER_ACTION=x
bad_case log "^secfilter: SECFILTER_LOG: expected stderr, syslog or an absolute path, got 'rel/path'$" \
	SECFILTER_POLICY='*: 1' SECFILTER_LOG=rel/path
bad_case mode "^secfilter: SECFILTER_MODE: expected interpose or trusted, got 'kernel'$" \
	SECFILTER_POLICY='*: 1' SECFILTER_MODE=kernel

# A good policy file; its name and line appear in the rule of a report.
printf '# allow everything\n*: 1\nio_uring_setup: 0\nwrite: fd == 1\n' >good.conf
env LD_PRELOAD="$LIB" SECFILTER_POLICY_FILE="$SCRATCH/good.conf" "$PROBE" wrapper >good.out 2>good.err
expect_sigkill $?
expect_report good.err write "sys_write: fd == 1 ($SCRATCH/good.conf:4)"

# Reports to a file (appended).
env LD_PRELOAD="$LIB" SECFILTER_POLICY='*: 1; io_uring_setup: 0; write: fd == 1' SECFILTER_LOG="$SCRATCH/r.log" \
	"$PROBE" wrapper >f.out 2>f.err
expect_sigkill $?
[ ! -s f.err ] || fail "the report went to stderr"
expect_report r.log write 'sys_write: fd == 1'

# Without any variable the library is inert: nothing changes.
LD_PRELOAD="$LIB" "$PROBE" wrapper mode >inert.out 2>inert.err || fail "inert run failed"
expect_grep '^mode 0$' inert.out
expect_grep '^wrapper$' inert.err
echo "ok inert"
