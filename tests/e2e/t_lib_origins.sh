#!/usr/bin/env bash
# A report quotes the rule as its source wrote it (constants by name), at
# the source's line, in every image of the tree: an exec'd image parses
# the short form its parent hands on, and gets each filter's source, line
# and text back with it (SECFILTER_ORIGINS).  Every way of starting; a
# child exec'd by the filtered shell and a grandchild exec'd by that one.
. "$TOP/tests/e2e/lib.sh"

printf '*: 1\nio_uring_setup: 0\nsys_openat: !(flags & O_CREAT)\n' >p.conf
echo hi >a
FILE=$SCRATCH/p.conf
RULE='sys_openat: !(flags & O_CREAT)'

# by_file HOW CMD...: CMD under p.conf, started HOW.
by_file() {
	local how=$1; shift
	case $how in
	preload) LD_PRELOAD=$LIB SECFILTER_POLICY_FILE=$FILE "$@" ;;
	run) "$SECFILTER" run -p p.conf -- "$@" ;;
	run-trusted) "$SECFILTER" run --trusted -p p.conf -- "$@" ;;
	audit) LD_AUDIT=$LIB LD_PRELOAD=$LIB SECFILTER_MODE=trusted SECFILTER_POLICY_FILE=$FILE "$@" ;;
	esac
}

# expect_cited FILE COMM SOURCE:LINE: FILE reports COMM's openat, denied
# by RULE as written, cited at SOURCE:LINE.
expect_cited() {
	local file=$1 comm=$2 at=$3
	grep -q "^$comm\[[0-9]*\]: system call 257 (sys_openat) blocked" "$file" ||
		{ cat "$file" >&2; fail "no report of $comm's openat in $file"; }
	grep -F -x -q -- "    rule: $RULE ($at)" "$file" ||
		{ cat "$file" >&2; fail "the rule is not '$RULE ($at)' in $file"; }
}

for how in preload run run-trusted audit; do
	rm -f b
	by_file $how sh -c 'cp a b' >"$how.out" 2>"$how.err"
	[ -e b ] && fail "$how: cp created b"
	expect_cited "$how.err" cp "$FILE:3"
	rm -f b
	by_file $how sh -c 'sh -c "cp a b"' >"$how.2.out" 2>"$how.2.err"
	[ -e b ] && fail "$how: the grandchild cp created b"
	expect_cited "$how.2.err" cp "$FILE:3"
	echo "ok $how: the exec'd child and grandchild cite $RULE at p.conf:3"
done

# -e: <command-line>, as its errors say, in the program and in its child
TEXT="*: 1; io_uring_setup: 0; $RULE"
for mode in --interpose --trusted; do
	rm -f b
	"$SECFILTER" run $mode -e "$TEXT" -- cp a b >out 2>"e$mode.err"
	expect_cited "e$mode.err" cp "<command-line>:1"
	"$SECFILTER" run $mode -e "$TEXT" -- sh -c 'cp a b' >out 2>"e$mode.2.err"
	expect_cited "e$mode.2.err" cp "<command-line>:1"
done
echo "ok run -e: the program and its child cite <command-line>:1"

# the environment's text: SECFILTER_POLICY, at the user's line, not the
# short form's
POL=$(cat p.conf)
filtered "$POL" sh -c 'cp a b' >out 2>env.err
expect_cited env.err cp "SECFILTER_POLICY:3"
echo "ok SECFILTER_POLICY's rule cited at its own line in the exec'd child"

# the map as the library reads it: LINE, @LEN:SOURCE, =LEN:TEXT; one
# that does not fit the policy (malformed, or not one entry per filter)
# leaves the text's own origins, and never a crash
SHORT=$'*: 1\nio_uring_setup: 0\nsys_openat: !(flags & 0x40)'
map_cites() {
	LD_PRELOAD=$LIB SECFILTER_POLICY="$SHORT" SECFILTER_ORIGINS="$1" cp a b >out 2>map.err
	grep -F -x -q -- "    rule: $2" map.err || { cat map.err >&2; fail "map '$1': no rule line '$2'"; }
}
map_cites '7@6:x.conf=15:!(flags & 0100)' 'sys_openat: !(flags & 0100) (x.conf:7)'
map_cites '7@6:x.conf-' 'sys_openat: !(flags & O_CREAT) (x.conf:7)' # no text: the canonical one
for bad in '3@1:x=2:zz7-' '3=2:zz' '3@9:x=1:y' '3@1:x' 'x' '3@1:x=1:y;' '99999999999@1:x-'; do
	map_cites "$bad" 'sys_openat: !(flags & 0x40) (SECFILTER_POLICY:3)'
done
echo "ok the origin map read as written; one that does not fit is ignored"

# a map past the kernel's limit on one environment string (128 KiB) is
# not handed on, or the exec would fail (E2BIG): the child runs, and
# cites the short form
pad=$(printf '%1000s' '')
{ printf '*: 1\nio_uring_setup: 0\n'; for i in $(seq 200); do printf 'reboot: magic1%s != %d\n' "$pad" "$i"; done
  printf 'sys_openat: !(flags & O_CREAT)\n'; } >big.conf
[ "$(wc -c <big.conf)" -gt 200000 ] || fail "big.conf is too small"
LD_PRELOAD=$LIB SECFILTER_POLICY_FILE=$SCRATCH/big.conf sh -c 'echo ran; cp a b' >big.out 2>big.err
expect_grep '^ran$' big.out
grep -q '^    rule: sys_openat: !(flags & 0x40) (SECFILTER_POLICY:[0-9]*)$' big.err ||
	{ cat big.err >&2; fail "a map too big: no report from the short form"; }
echo "ok a map past 128 KiB is not handed on; the exec'd child runs"

# ---- Landlock's rules (fs./net.): the map carries their sources and
# lines too, after the filters'; the exec'd cp's report of a denial cites
# the fs.write rule where the user wrote it, not the short form's line.
mkdir ll && cd ll && SCRATCH=$SCRATCH/ll # this test's ./a is a file
landlock_setup 3 fs.truncate
S=$SCRATCH
printf 'fs.read: /\nfs.exec: /usr /lib /lib64 /bin\n' >ll.conf
printf '*: 1\nio_uring_setup: 0\n@include ll.conf\nfs.write: /dev/null %s/a\nsys_reboot: magic1 != 0\n' "$S" >lp.conf
# ll_cited FILE SOURCE:LINE: FILE reports cp's denied openat, by fs.write at SOURCE:LINE
ll_cited() {
	expect_grep "^cp\[[0-9]+\]: openat denied by Landlock: \"$S/b/x\" needs fs.make_reg$" "$1"
	grep -F -x -q -- "    rule: fs.write ($2) does not grant it here" "$1" ||
		{ cat "$1" >&2; fail "the rule is not fs.write ($2) in $1"; }
}
"$SECFILTER" run -p "$S/lp.conf" -- sh -c "cp $S/in $S/b/x" >ll.out 2>ll-run.err
[ ! -e "$S/b/x" ] || fail "run: cp wrote outside the granted directory"
ll_cited ll-run.err "$S/lp.conf:4"
LD_PRELOAD=$LIB SECFILTER_POLICY_FILE=$S/lp.conf sh -c "cp $S/in $S/b/x" >ll.out 2>ll-pre.err
[ ! -e "$S/b/x" ] || fail "preload: cp wrote outside the granted directory"
ll_cited ll-pre.err "$S/lp.conf:4"
LD_PRELOAD=$LIB SECFILTER_POLICY_FILE=$S/lp.conf sh -c "sh -c 'cp $S/in $S/b/x'" >ll.out 2>ll-pre2.err
ll_cited ll-pre2.err "$S/lp.conf:4"
echo "ok Landlock: the exec'd cp and grandchild cite fs.write at lp.conf:4"

# A forged map changes what a report says, never a decision: 7 Landlock
# rules after the filter (/ /bin /dev/null /lib /lib64 /usr $S/a), all
# cited at forged:77.  One that does not fit (an entry
# short or too many, a text on a Landlock rule, malformed) is ignored:
# the text's own lines.
LSHORT=$(printf '*: 1\nio_uring_setup: 0\nfs.read: /\nfs.exec: /usr /lib /lib64 /bin\nfs.write: /dev/null %s/a\nsys_reboot: magic1 != 0' "$S")
ll_map() {
	LD_PRELOAD=$LIB SECFILTER_POLICY="$LSHORT" SECFILTER_ORIGINS="$1" cp "$S/in" "$S/b/x" >out 2>llmap.err &&
		fail "map '$1': cp succeeded"
	[ ! -e "$S/b/x" ] || fail "map '$1': cp wrote outside the granted directory"
	ll_cited llmap.err "$2"
}
F='1@1:f-77@6:forged-77-77-77-77-77-'
ll_map "${F}77-" 'forged:77'
for bad in "$F" "${F}77-77-" "${F}77=1:x" "${F}77" "${F}x-"; do
	ll_map "$bad" 'SECFILTER_POLICY:5'
done
echo "ok Landlock: a forged map only changes the report; one that does not fit is ignored"
