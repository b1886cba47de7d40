#!/usr/bin/env bash
# libsecfilter.so on real programs: under a policy that allows exactly
# the calls they make (learned in log mode), the output is identical to an
# unfiltered run; and a call they make that the policy leaves out kills.
. "$TOP/tests/e2e/lib.sh"

mkdir -p data && printf 'alpha\nbeta\ngamma\n' >data/f.txt && ln -s f.txt data/link
cat >script.sh <<'SH'
echo start
for i in 1 2 3; do echo "line $i"; done | sort -r
x=$(cat data/f.txt | wc -l); echo "lines $x"
ls data
SH

# learn NAME CMD...: the set of syscalls CMD makes, as a policy.
learn() {
	local name=$1; shift
	local i
	for i in 1 2; do
		env LD_PRELOAD="$LIB" SECFILTER_POLICY='' SECFILTER_ACTION=log \
			SECFILTER_LOG="$SCRATCH/$name.learn" "$@" >"$name.lout" 2>&1
	done
	sed -n 's/.*system call [0-9]* (sys_\([a-z0-9_]*\)).*/\1: 1/p' "$name.learn" | sort -u >"$name.policy"
	[ -s "$name.policy" ] || fail "$name: nothing learned"
}

# same NAME CMD...: output and status identical to the unfiltered run.
same() {
	local name=$1; shift
	"$@" >"$name.ref" 2>&1; local want=$?
	learn "$name" "$@"
	env LD_PRELOAD="$LIB" SECFILTER_POLICY_FILE="$SCRATCH/$name.policy" "$@" >"$name.got" 2>&1
	local got=$?
	[ "$got" -eq "$want" ] || { cat "$name.got" >&2; fail "$name: status $got, unfiltered $want"; }
	cmp -s "$name.ref" "$name.got" || { diff "$name.ref" "$name.got" | head >&2; fail "$name: output differs"; }
	echo "ok $name: identical under a $(wc -l <"$name.policy")-syscall policy"
}

same cat cat data/f.txt /etc/hostname
same ls ls -la --time-style=+ data /usr/include/linux
same sh sh script.sh
same python3 /usr/bin/python3 -c 'import os, json, hashlib; print(json.dumps(sorted(os.listdir("data")))); print(hashlib.sha256(open("data/f.txt","rb").read()).hexdigest())'
same sqlite3 sqlite3 db.sqlite 'create table if not exists t(a); delete from t; insert into t values(1),(2),(3); select count(*), sum(a) from t;'

# Leave one learned call out: the run dies with a report naming it.
grep -v '^getdents64: 1$' ls.policy >ls-nodents.policy
env LD_PRELOAD="$LIB" SECFILTER_POLICY_FILE="$SCRATCH/ls-nodents.policy" ls data >x.out 2>x.err
expect_sigkill $?
expect_report x.err getdents64 'not in the allowed set'
echo "ok ls without getdents64 is killed"
