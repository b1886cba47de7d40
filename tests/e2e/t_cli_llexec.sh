# An exec Landlock denies, reported with the file that lacks the right
# and the line that grants it, wherever the exec is made: by `run` itself
# (its child's exec of PROG, before any code of ours runs in it: run
# reads the files the kernel would open), and by a program under the
# library.  The file is the one the kernel opens, links resolved (on a
# merged /usr, /bin/sh is /usr/bin/dash): the program, a script's
# interpreter, or the ELF loader ("the interpreter of" what was run),
# and the add: line grants the later files denied the same right too:
# the kernel stops at the first, and one line must let the exec through.
# Appending each add: line in turn makes the run succeed, here always in
# one step; a policy with no fs.exec rule at all says so rather than
# citing a rule of another right.
. "$TOP/tests/e2e/lib.sh"

landlock_setup 1 "fs. rules"
S=$SCRATCH
SH=$(realpath "$(command -v sh)")
LOADER=$(realpath /lib64/ld-linux-x86-64.so.2)
CAT=$(realpath "$(command -v cat)")
P0="*: 1; io_uring_setup: 0; fs.read: /; fs.write: /dev/null $S"
PYR=$(realpath /usr/bin/python3)
printf '#!/bin/sh\necho script ran\n' > "$S/s.sh"
printf '#!/usr/bin/python3\nprint("python script ran")\n' > "$S/s.py"
chmod +x "$S/s.sh" "$S/s.py"

# fix_until_it_runs WHAT POLICY STEPS WANT... CMD...: runs CMD (a command
# line taking the policy as $POL) under POLICY, appending the add: line
# of each denial; it must run after exactly STEPS additions, the i-th
# report's first line matching the i-th WANT (an extended regex).  Sets
# POL to the policy that ran and ADDS to the add: lines, one per line.
fix_until_it_runs() {
	local what=$1 steps=$3 i add; POL=$2; ADDS=; shift 3
	local wants=("${@:1:$steps}"); shift "$steps"
	for ((i = 0; i <= steps; i++)); do
		if POL=$POL eval "$*" > out 2> err; then
			[ "$i" = "$steps" ] || fail "$what: ran after $i additions, not $steps: $(cat err)"
			return
		fi
		[ "$i" -lt "$steps" ] || fail "$what: still failing after $steps additions: $(cat err)"
		expect_grep "${wants[$i]}" err
		[ "$(grep -c '^    add: ' err)" = 1 ] || fail "$what: not one add: line: $(cat err)"
		add=$(sed -n 's/^    add: //p' err)
		POL="$POL; $add"
		ADDS="$ADDS$add
"
	done
}
# added LINE: the additions were this one line
added() { [ "$ADDS" = "$1
" ] || fail "added: '$ADDS', expected '$1'"; }

for mode in --interpose --trusted; do
	# run's own exec of PROG: the program and its loader in one line; the
	# report says no rule grants exec at all
	fix_until_it_runs "run $mode sh" "$P0" 1 \
		"^secfilter\[[0-9]+\]: execve denied by Landlock: \"[^\"]*\"( \($SH\))? needs fs\.execute$" \
		'$SECFILTER run '"$mode"' -e "$POL" -- sh -c "echo ran"'
	expect_grep '^ran$' out
	added "fs.exec: $SH $LOADER"
	$SECFILTER run $mode -e "$P0" -- sh -c true 2> err
	expect_grep "^    rule: no fs\.exec rule, and the fs\. rules \((<command-line>|SECFILTER_POLICY):1\) deny what none grants$" err
	expect_grep "^secfilter: run: sh: Permission denied$" err

	# the program granted, its loader not: the loader is named
	fix_until_it_runs "run $mode loader" "$P0; fs.exec: $SH" 1 \
		"^secfilter\[[0-9]+\]: execve denied by Landlock: \"/lib64/ld-linux-x86-64\.so\.2\"( \($LOADER\))?, the interpreter of \"[^\"]*\", needs fs\.execute$" \
		'$SECFILTER run '"$mode"' -e "$POL" -- sh -c "echo ran"'
	added "fs.exec: $LOADER"

	# a script: itself, its #! interpreter, the loader
	fix_until_it_runs "run $mode script" "$P0" 1 \
		"^secfilter\[[0-9]+\]: execve denied by Landlock: \"$S/s\.sh\" needs fs\.execute$" \
		'$SECFILTER run '"$mode"' -e "$POL" -- "$S/s.sh"'
	expect_grep '^script ran$' out
	added "fs.exec: $S/s.sh $SH $LOADER"
	# its interpreter alone missing: named as the script's line writes it
	fix_until_it_runs "run $mode interpreter" "$P0; fs.exec: $S/s.sh $LOADER" 1 \
		"^secfilter\[[0-9]+\]: execve denied by Landlock: \"/bin/sh\"( \($SH\))?, the interpreter of \"$S/s\.sh\", needs fs\.execute$" \
		'$SECFILTER run '"$mode"' -e "$POL" -- "$S/s.sh"'
	added "fs.exec: $SH"
done

# Under the library: sh (granted, with the loader) runs /bin/cat, and
# then the script, each exec reported by the process that made it
P1="$P0; fs.exec: $SH $LOADER"
fix_until_it_runs "library: /bin/cat" "$P1" 1 \
	"^sh\[[0-9]+\]: execve denied by Landlock: \"/bin/cat\"( \($CAT\))? needs fs\.execute$" \
	'env LD_PRELOAD="$LIB" SECFILTER_POLICY="$POL" sh -c "/bin/cat /dev/null && echo cat ran"'
expect_grep '^cat ran$' out
added "fs.exec: $CAT"

# a script whose interpreter is not granted either: both in one line
fix_until_it_runs "library: python script" "$P1" 1 \
	"^sh\[[0-9]+\]: execve denied by Landlock: \"$S/s\.py\" needs fs\.execute$" \
	'env LD_PRELOAD="$LIB" SECFILTER_POLICY="$POL" sh -c "\"$S/s.py\""'
expect_grep '^python script ran$' out
added "fs.exec: $S/s.py $PYR"

# the script's interpreter and loader are granted: only the script lacks it
fix_until_it_runs "library: script" "$P1" 1 \
	"^sh\[[0-9]+\]: execve denied by Landlock: \"$S/s\.sh\" needs fs\.execute$" \
	'env LD_PRELOAD="$LIB" SECFILTER_POLICY="$POL" sh -c "\"$S/s.sh\""'
expect_grep '^script ran$' out

# a loader the policy does not grant, for a program it does (sh itself
# was loaded before the library's constructor entered the layers)
fix_until_it_runs "library: loader" "$P0; fs.exec: $SH $CAT" 1 \
	"^sh\[[0-9]+\]: execve denied by Landlock: \"/lib64/ld-linux-x86-64\.so\.2\"( \($LOADER\))?, the interpreter of \"/bin/cat\", needs fs\.execute$" \
	'env LD_PRELOAD="$LIB" SECFILTER_POLICY="$POL" sh -c "/bin/cat /dev/null && echo cat ran"'
expect_grep '^cat ran$' out
echo "ok Landlock's exec denials name the file and the line that grants it, in run and under the library"
