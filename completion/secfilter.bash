# bash completion for secfilter(1).                    -*- shell-script -*-
#
# Everything it offers comes from the secfilter being completed, so that it
# never falls behind the tool: the commands from `secfilter --help`, each
# command's options from `secfilter CMD --help` (an option written
# "-x, --name=ARG" takes an argument; "--name=a|b|c" in the Usage line
# lists its values), the syscall names from `secfilter syscalls`.  Works
# with and without the bash-completion package; with it, PROG and its
# arguments after `run --` or `learn --` are completed as that command's.

# The secfilter on the command line when it can be run, else the one on PATH.
_secfilter_bin()
{
	local b=${COMP_WORDS[0]}
	b=${b/#\~/$HOME}
	[[ $b == */* && -x $b ]] || b=$(type -P secfilter) || return 1
	printf '%s\n' "$b"
}

_secfilter_commands()
{
	"$1" --help 2> /dev/null | sed -n 's/^  secfilter \([a-z]*\) .*/\1/p'
}

# _secfilter_opts BIN CMD: "--name" or "--name=" (takes an argument), one
# a line; the short forms too with _secfilter_opts BIN CMD short.
_secfilter_opts()
{
	local re='^  *\(-[A-Za-z]\)\{0,1\}\(, \)\{0,1\}\(--[a-z][a-z-]*\)\(=\)\{0,1\}.*'
	if [[ ${3-} == short ]]; then
		"$1" "$2" --help 2> /dev/null | sed -n "s/$re/\1 \3\4/p"
	else
		"$1" "$2" --help 2> /dev/null | sed -n "s/$re/\3\4/p"
	fi
}

# _secfilter_long BIN CMD WORD: the long form of an option that takes an
# argument ("-p" or "--policy": "--policy"); nothing for any other word.
_secfilter_long()
{
	local s l
	while IFS=" " read -r s l; do
		[[ -z $l && $s == --* ]] && l=$s s= # a long option alone
		[[ $l == *= ]] || continue
		l=${l%=}
		[[ $3 == "$s" || $3 == "$l" ]] && { printf '%s\n' "$l"; return; }
	done < <(_secfilter_opts "$1" "$2" short)
}

# _secfilter_is_arg BIN CMD I: whether word I is an option's argument
# ("--opt ARG", "-o ARG", or "--opt = ARG" when "=" splits words).
_secfilter_is_arg()
{
	local w=${COMP_WORDS[$3]} p=${COMP_WORDS[$3 - 1]}
	[[ $w == = || $p == = ]] && return 0
	[[ -n $(_secfilter_long "$1" "$2" "$p") ]]
}

# _secfilter_argname BIN CMD OPT: what CMD's help calls OPT's argument
# ("--policy=FILE": FILE).
_secfilter_argname()
{
	"$1" "$2" --help 2> /dev/null |
		sed -n "s/^  *\(-[A-Za-z], \)\{0,1\}$3=\([A-Z]*\).*/\2/p" | head -1
}

# _secfilter_values BIN CMD OPT: the values "OPT=a|b|c" lists in CMD's Usage.
_secfilter_values()
{
	"$1" "$2" --help 2> /dev/null | sed -n '1s/.*'"$3"'=\([^] ]*\).*/\1/p' | tr '|' '\n'
}

# Processes whose policy show could print: those with the library loaded
# (whose maps we may read); every process when none can be told.
_secfilter_pids()
{
	local maps pids=()
	for maps in /proc/[0-9]*/maps; do
		grep -qs '/libsecfilter[^/]*$' "$maps" && pids+=("${maps//[^0-9]/}")
	done
	if ((${#pids[@]})); then
		printf '%s\n' "${pids[@]}"
	else
		printf '%s\n' /proc/[0-9]* | sed 's|/proc/||'
	fi
}

_secfilter_files()
{
	local IFS=$'\n'
	compopt -o filenames 2> /dev/null
	COMPREPLY=($(compgen -f -- "$1"))
}

_secfilter()
{
	local bin cur prev cmd="" i prog=0 o="" vals IFS=$'\n'
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	bin=$(_secfilter_bin) || return 0

	# The command, and for run and learn where PROG starts: after "--", or
	# the first word that is neither an option nor an option's argument.
	for ((i = 1; i < COMP_CWORD; i++)); do
		local w=${COMP_WORDS[i]}
		if [[ -z $cmd ]]; then
			[[ $w == -* ]] || cmd=$w
			continue
		fi
		[[ $cmd == run || $cmd == learn ]] || break
		if [[ $w == -- ]]; then
			prog=$((i + 1))
			break
		fi
		if [[ $w != -* ]] && ! _secfilter_is_arg "$bin" "$cmd" "$i"; then
			prog=$i
			break
		fi
	done
	if [[ $cmd == run || $cmd == learn ]] && ((!prog)) && [[ $cur != -* ]] &&
		! _secfilter_is_arg "$bin" "$cmd" "$COMP_CWORD"; then
		prog=$COMP_CWORD
	fi

	if [[ -z $cmd ]]; then
		COMPREPLY=($(compgen -W "$(_secfilter_commands "$bin")"$'\n'"help"$'\n'"--help"$'\n'"--version" -- "$cur"))
		return 0
	fi
	if [[ $cmd == help ]]; then
		((COMP_CWORD == 2)) && COMPREPLY=($(compgen -W "$(_secfilter_commands "$bin")" -- "$cur"))
		return 0
	fi
	if ((prog)); then
		if ((prog == COMP_CWORD)); then
			compopt -o filenames 2> /dev/null
			COMPREPLY=($(compgen -c -- "$cur"))
		elif declare -F _command_offset > /dev/null; then
			_command_offset "$prog"
		else
			_secfilter_files "$cur"
		fi
		return 0
	fi

	# An option's argument: --opt=VALUE (one word, or three when "=" is in
	# COMP_WORDBREAKS, as it is by default), or the word after an option
	# that takes one.
	if [[ $cur == --*=* ]]; then
		o=${cur%%=*}
		cur=${cur#*=}
	elif [[ $cur == = && $prev == --* ]]; then
		o=$prev
		cur=
	elif [[ $prev == = ]] && ((COMP_CWORD >= 2)); then
		o=${COMP_WORDS[COMP_CWORD - 2]}
	else
		o=$(_secfilter_long "$bin" "$cmd" "$prev")
	fi
	if [[ -n $o ]]; then
		vals=$(_secfilter_values "$bin" "$cmd" "$o")
		if [[ -n $vals ]]; then
			COMPREPLY=($(compgen -W "$vals" -- "$cur"))
		else
			case $(_secfilter_argname "$bin" "$cmd" "$o") in
			FILE | OUT | PATH | DIR) _secfilter_files "$cur" ;;
			esac
		fi
		return 0
	fi

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_secfilter_opts "$bin" "$cmd")" -- "$cur"))
		[[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2> /dev/null
		return 0
	fi
	case $cmd in
	check) _secfilter_files "$cur" ;;
	show) COMPREPLY=($(compgen -W "$(_secfilter_pids)" -- "$cur")) ;;
	syscalls) COMPREPLY=($(compgen -W "$("$bin" syscalls 2> /dev/null | cut -d' ' -f2)" -- "$cur")) ;;
	esac
	return 0
}
complete -F _secfilter secfilter
