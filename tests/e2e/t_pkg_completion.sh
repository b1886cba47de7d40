# The bash completion script (completion/secfilter.bash): commands,
# options and their values, policy files, PIDs for show, syscall names,
# and PROG after run's options, everything taken from the tool itself;
# alone and under the bash-completion package.
. "$TOP/tests/e2e/lib.sh"
exec 3>&2
fail() { echo "FAIL: $*" >&3; exit 1; }

SCRIPT=$TOP/completion/secfilter.bash
BC=/usr/share/bash-completion/bash_completion

# comp [bc] WORD...: the candidates, one a line, for the last WORD of
# "secfilter WORD..."; with bc first, under the bash-completion package.
comp() {
	local pre=:
	if [ "$1" = bc ]; then
		pre=". $BC"
		shift
	fi
	bash -c "$pre"'
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_secfilter
		printf "%s\n" "${COMPREPLY[@]}"' _ "$SCRIPT" "$SECFILTER" "$@" 2> comp.err | LC_ALL=C sort
	[ -s comp.err ] && fail "completing '$*' wrote: $(cat comp.err)"
	return 0
}

# offers WORD... => EXPECTED...: the candidates for WORD... include each
# EXPECTED
offers() {
	local words=() w
	while [ "$1" != '=>' ]; do words+=("$1"); shift; done
	shift
	comp "${words[@]}" > got
	for w in "$@"; do
		grep -qxF -- "$w" got || { cat got >&3; fail "completing '${words[*]}': no '$w'"; }
	done
}

offers '' '=>' check run show compile learn syscalls help --help --version
offers ch '=>' check
offers help le '=>' learn
# options come from each command's --help: every one of them, once
offers run -- '=>' --policy= --expr= --trusted --interpose --log --help --version
comp run -- > got
[ "$(sort got | uniq -d)" = "" ] || fail "duplicate options: $(sort got | uniq -d)"
for c in check run show compile learn syscalls; do
	comp $c -- > got
	for o in $($SECFILTER $c --help | grep -oE -- '^ +(-[a-zA-Z], )?--[a-z-]+' | grep -oE -- '--[a-z-]+'); do
		grep -qE -- "^$o=?\$" got || fail "secfilter $c -- does not offer $o"
	done
done
offers check --e '=>' --expr=
# an option's values, from the Usage line; as one word or split at '='
offers compile --format = '' '=>' disasm c raw oci
offers compile --format = r '=>' raw
offers compile --format=r '=>' raw
offers compile -f '' '=>' disasm c raw oci
offers compile --format=o '=>' oci
offers check --syntax = '' '=>' secfilter minijail oci
offers run --syntax=m '=>' minijail
offers compile --syntax '' '=>' secfilter minijail oci
offers learn --args = '' '=>' none auto strict
offers learn -a s '=>' strict
# files for -p, -o, check's FILEs
touch pol.conf other.txt
offers run -p po '=>' pol.conf
offers run --policy = po '=>' pol.conf
offers compile -o ot '=>' other.txt
offers check -q po '=>' pol.conf
offers learn -o ot '=>' other.txt
offers learn --merge po '=>' pol.conf
offers learn -m pol.conf -m ot '=>' other.txt
# a TEXT is not a file
comp run -e po > got
grep -q . got && fail "run -e offers: $(cat got)"
comp run -e '*: 1' -p '' > got
expect_grep '^pol.conf$' got
# the syscall table's names
offers syscalls open '=>' open openat openat2 open_by_handle_at
# PROG: a command, wherever it starts; then its arguments
PATH=$PROGS:$PATH offers run -e '*: 1' -- cli_p '=>' cli_prog
PATH=$PROGS:$PATH offers run -p pol.conf --log cli_p '=>' cli_prog
PATH=$PROGS:$PATH offers learn -o out -- cli_p '=>' cli_prog
offers run -e '*: 1' -- ls o '=>' other.txt
comp run -e x '' > got
grep -qxF ls got || fail "no command offered for PROG"
# show: the processes running under the library
$SECFILTER run -e '*: 1' -- sleep 5 & runner=$!
for i in $(seq 100); do child=$(pgrep -P $runner) && $SECFILTER show $child > /dev/null 2>&1 && break; sleep 0.05; done
offers show '' '=>' $child
kill $runner; wait $runner

# the same under bash-completion, which completes PROG's own arguments
if [ -r "$BC" ]; then
	offers bc '' '=>' check run show compile learn syscalls
	offers bc compile --format = '' '=>' disasm c raw
	offers bc run -p po '=>' pol.conf
	PATH=$PROGS:$PATH offers bc run -e '*: 1' -- cli_p '=>' cli_prog
	offers bc run -e '*: 1' -- ls o '=>' other.txt
	offers bc run -e '*: 1' -- ls --al '=>' --all
else
	echo "bash-completion missing: not tested under it" >&3
fi
exit 0
