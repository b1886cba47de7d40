#!/usr/bin/env bash
# `secfilter syscalls @NAME` lists what systemd's group of that name holds
# on x86-64: compared, for every group, against `systemd-analyze
# syscall-filter` of the version the data follows (Debian 12's systemd,
# which .ci/run installs), or, without it, against the checked-in copy of
# its output (syscalls/systemd-groups.txt).  The expansion of nested groups
# here is the shell's own, independent of the build's awk.
. "$TOP/tests/e2e/lib.sh"

want_version=$(sed -n 's/^# version: systemd \([0-9]*\) .*/\1/p' "$TOP/syscalls/systemd-groups.txt")
[ -n "$want_version" ] || fail "no version line in syscalls/systemd-groups.txt"
if command -v systemd-analyze >/dev/null &&
   [ "$(systemd-analyze --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p')" = "$want_version" ]; then
	source_of() { systemd-analyze syscall-filter --no-pager "$@" 2>/dev/null; }
	echo "comparing against $(systemd-analyze --version | head -1)"
else
	source_of() {
		awk -v g="${1:-}" '/^@/ { on = g == "" || $1 == g } on && !/^#/' \
			"$TOP/syscalls/systemd-groups.txt"
	}
	echo "systemd-analyze $want_version not installed: comparing against the checked-in copy"
fi

# The members of group $1, nested groups expanded (once each).
declare -A seen
expand() {
	local g=$1 m
	[ -n "${seen[$g]:-}" ] && return
	seen[$g]=1
	source_of "$g" >"grp.$$" || fail "no group $g"
	[ "$(head -1 "grp.$$")" = "$g" ] || fail "group $g: unexpected output"
	while read -r m; do
		case $m in
		'#'*|'') ;;
		@*) expand "$m" ;;
		*) echo "$m" ;;
		esac
	done < <(tail -n +2 "grp.$$")
}

"$SECFILTER" syscalls | awk '{ print $2 }' | sort -u >table.txt
[ "$(wc -l <table.txt)" -gt 350 ] || fail "the table is too short"
"$SECFILTER" syscalls --groups >groups.txt || fail "syscalls --groups"
grep -q "^# systemd $want_version " groups.txt || fail "--groups does not name the version"
groups=$(awk '/^@/ { print $1 }' groups.txt)
[ "$(echo "$groups" | wc -l)" -ge 29 ] || fail "fewer groups than systemd 252 has"
# every group systemd lists, and no other
source_of | awk '/^@/ { print $1 }' | sort >theirs.txt
echo "$groups" | sort | diff - theirs.txt || fail "the group names differ"

n=0
for g in $groups; do
	seen=()
	expand "$g" | sort -u | comm -12 - table.txt >want.txt
	"$SECFILTER" syscalls "$g" | awk '{ print $2 }' | sort >got.txt
	diff want.txt got.txt >diff.txt || { cat diff.txt; fail "$g differs from systemd's"; }
	[ -s got.txt ] || fail "$g is empty"
	n=$((n + 1))
done
echo "ok $n groups as systemd $want_version has them"

# numbers in order, the table's own lines
"$SECFILTER" syscalls @system-service >ss.txt
sort -n -c ss.txt || fail "not in number order"
grep -qx '0 read (fd: u32, buf: ptr, count: u64)' ss.txt || fail "read's line"
expect_no_grep '^101 ptrace' ss.txt
echo "ok listing"

# unknown groups
expect_status 1 "$SECFILTER" syscalls @file-sytem 2>e.txt
expect_grep "unknown group '@file-sytem' \(did you mean '@file-system'\?\)" e.txt
expect_status 1 "$SECFILTER" syscalls @zzzzzz 2>e.txt
expect_grep "unknown group '@zzzzzz'" e.txt
echo "ok unknown groups"

# groups in policies: 1, 0, return E
"$SECFILTER" check - >c.txt <<'P' || fail "a policy with groups"
@file-system: 1
@privileged: 0
@network-io: return EACCES
P
expect_grep '^sys_socket: return EACCES$' c.txt
expect_grep '^sys_openat: 1$' c.txt
expect_no_grep '^sys_chown:' c.txt
echo "ok groups in policies"
