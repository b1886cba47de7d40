#!/usr/bin/env bash
# @include: relative to the including file, followed by check, run and the
# library alike (which reads the files itself, SECFILTER_POLICY_FILE), with
# errors naming the chain; relative to the working directory for text
# (-e, SECFILTER_POLICY); refused by the runtime API.
. "$TOP/tests/e2e/lib.sh"
CALLS=$PROGS/act_calls

mkdir -p pol/base other
cat >pol/main.conf <<'P'
# the program's own rules
@include base/libc.conf
getppid: return ENOSYS
P
cat >pol/base/libc.conf <<'P'
@include ../../other/deny.conf
*: 1
P
cat >other/deny.conf <<'P'
default: return EPERM
P
"$SECFILTER" check pol/main.conf >c.txt || fail "check"
expect_grep '^default: return EPERM$' c.txt
expect_grep '^sys_getppid: return ENOSYS$' c.txt
echo "ok check follows includes"

# run: the library reads the file and its includes itself
"$SECFILTER" run -p pol/main.conf -- "$CALLS" getppid >r.txt 2>&1 || { cat r.txt; fail "run"; }
expect_grep '^getppid -1 38$' r.txt
# the same through a symbolic link elsewhere: includes are relative to the
# link's directory, in the tool and in the library
mkdir -p link/base
ln -s ../pol/main.conf link/main.conf
cat >link/base/libc.conf <<'P'
*: 1
getppid: return EACCES
P
"$SECFILTER" check link/main.conf >c.txt || fail "check through a link"
expect_grep '^sys_getppid: return ENOSYS$' c.txt # main.conf's rule comes last
"$SECFILTER" run -p link/main.conf -- "$CALLS" getppid >r.txt 2>&1 || { cat r.txt; fail "run"; }
expect_grep '^getppid -1 38$' r.txt
expect_no_grep 'EPERM' c.txt # link/base/libc.conf, not pol/base/libc.conf
echo "ok run and the library follow includes, relative to the path as given"

# a report names the included file and line of the rule that denied
cat >other/deny.conf <<'P'
io_uring_setup: 0
write: fd == 1
P
"$SECFILTER" run -p pol/main.conf -- cat /nonexistent 2>r.err
[ $? -eq 137 ] || fail "cat's message to stderr was not killed"
grep -q "rule: sys_write: fd == 1 (.*other/deny.conf:2)" r.err || { cat r.err; fail "report's rule"; }
echo "ok reports name the included file"

# errors: the chain, in the tool and in the library's constructor
cat >other/deny.conf <<'P'
# nothing
@include missing.conf
P
expect_status 1 "$SECFILTER" check pol/main.conf 2>e.txt
expect_grep '^In file included from pol/base/libc.conf:1,$' e.txt
expect_grep '^                 from pol/main.conf:2:$' e.txt
expect_grep "^pol/base/../../other/deny.conf:2:10: error: cannot read 'pol/base/../../other/missing.conf': No such file or directory$" e.txt
LD_PRELOAD=$LIB SECFILTER_POLICY_FILE=$PWD/pol/main.conf "$CALLS" getppid >/dev/null 2>e.txt
[ $? -eq 125 ] || fail "the library started with a broken include"
expect_grep "^In file included from $PWD/pol/base/libc.conf:1,$" e.txt
expect_grep 'error: cannot read .*other/missing.conf' e.txt
echo "@include ../pol/base/libc.conf" >other/deny.conf
expect_status 1 "$SECFILTER" check pol/main.conf 2>e.txt
expect_grep "error: @include cycle: '../pol/base/libc.conf' is pol/base/libc.conf, which includes this file" e.txt
echo "ok errors name the chain"

# text: relative to the working directory, in the tool and the library
echo '*: 1' >other/deny.conf
cd pol
"$SECFILTER" run -e '@include base/libc.conf; getppid: return EACCES' -- "$CALLS" getppid >../r.txt 2>&1 ||
	{ cat ../r.txt; fail "run -e with @include"; }
cd ..
expect_grep '^getppid -1 13$' r.txt
(cd pol && LD_PRELOAD=$LIB SECFILTER_POLICY='@include base/libc.conf; getppid: return EACCES' \
	"$CALLS" getppid) >r.txt 2>&1 || fail "SECFILTER_POLICY with @include"
expect_grep '^getppid -1 13$' r.txt
echo "ok text includes relative to the working directory"

# the API: refused
filtered '*: 1' "$PROGS/lib_probe" apply "@include $PWD/other/deny.conf" >a.txt 2>&1
expect_grep '^apply -1 EINVAL$' a.txt
expect_grep '@include is not available here' a.txt
echo "ok the API refuses @include"
