#!/usr/bin/env bash
# libsecfilter.so's own structure: every `syscall` instruction of the
# library lies in its allowed region (section sf_region) except the one
# trampoline meant to trap; it exports only the interposed functions and
# the API, and calls almost no function of another object; and with no
# variable set it does nothing.
. "$TOP/tests/e2e/lib.sh"

objdump -d "$LIB" | awk '
	/^Disassembly of section/ { sec = $4 }
	/^[0-9a-f]+ <.*>:$/ { fn = $2 }
	/\tsyscall/ { print sec, fn }' | sort | uniq -c >sites.txt
outside=$(grep -v ' sf_region: ' sites.txt | grep -v '<sf_trap_syscall>:' || true)
[ -z "$outside" ] || { cat sites.txt >&2; fail "syscall instructions outside the region: $outside"; }
echo "ok $(awk '{n += $1} END {print n}' sites.txt) syscall instructions, all in the region but the trap trampoline"

# Trusted mode's guard knows the two stubs that may change SIGSYS by where
# their syscall ends within its page (preload/trap/trusted.c): 27 and 59, and
# no other syscall instruction of the library ends there.
objdump -d "$LIB" | awk '/^[0-9a-f]+ <.*>:$/ { fn = $2 } /\tsyscall/ { sub(/:$/, "", $1); print $1, fn }' |
	while read -r at fn; do echo "$(( (0x$at + 2) % 4096 )) $fn"; done >ends.txt
stubs=$(awk '$1 == 27 || $1 == 59' ends.txt | sort | tr '\n' ' ')
[ "$stubs" = "27 <sf_guard_stub_install>: 59 <sf_guard_stub_default>: " ] ||
	fail "syscall instructions ending at the guard's offsets: $stubs"
echo "ok only the guard's stubs end a syscall at page offsets 27 and 59"
# Nor does libc's rt_sigaction (glibc's posix_spawn child resets SIGSYS
# through it): a syscall within a few instructions of mov $13,%eax.
libc=$(ldd /bin/true | awk '$1 == "libc.so.6" { print $3 }')
objdump -d "$libc" | awk '/mov +\$0xd,%eax/ { n = 5; next }
	n && /\tsyscall/ { sub(/:$/, "", $1); print $1; n = 0; next } n { n-- }' >libc_sa.txt
[ -s libc_sa.txt ] || fail "no rt_sigaction site found in $libc"
while read -r at; do
	o=$(( (0x$at + 2) % 4096 ))
	[ $o -ne 27 ] && [ $o -ne 59 ] || fail "libc's rt_sigaction at $at ends at the guard's offset $o"
done <libc_sa.txt
echo "ok libc's rt_sigaction sites end elsewhere: $(tr '\n' ' ' <libc_sa.txt)"

# Exports: the API, the wrapped functions, nothing of the engine.
nm -D --defined-only "$LIB" | awk '{print $3}' >exports.txt
for f in secfilter_apply secfilter_error secfilter_mode read write openat syscall; do
	grep -qx "$f" exports.txt || fail "$f is not exported"
done
if grep -E '^(sf_|__start_|__stop_)' exports.txt; then fail "internal symbols exported"; fi
echo "ok $(wc -l <exports.txt) exported symbols"

# Imports: every function the library calls in another object goes
# through the PLT to whatever the program exports under that name.  Only
# these may remain: __cxa_finalize (the compiler's exit code), dlsym
# (signal() and friends before the constructor, when no policy is in
# force).  No dlopen: the reports' unwinder is the library's own.
readelf -W --dyn-syms "$LIB" | awk '$7 == "UND" && $4 == "FUNC" { sub(/@.*/, "", $8); print $8 }' |
	sort >imports.txt
extra=$(grep -vxE '__cxa_finalize|dlsym' imports.txt || true)
[ -z "$extra" ] || fail "the library calls other objects' functions:" $extra "(define them in preload/base/libc.c)"
echo "ok imports: $(tr '\n' ' ' <imports.txt)"
# Nor the loader's list by name: a reference to _r_debug binds to what
# the program exports under that name (objs.c finds the loader's own).
if readelf -W --dyn-syms "$LIB" | awk '$7 == "UND" { print $8 }' | grep -q '^_r_debug'; then
	fail "the library imports _r_debug"
fi

# The wrappers table and the functions it generates agree.
n=$(grep -cvE '^[[:space:]]*(#|$)' "$TOP/preload/interpose/wrappers.tbl")
m=$(grep -c '^SF_WRAPPER' "$B/gen/wrappers.c")
[ "$n" -eq "$m" ] || fail "wrappers.tbl has $n rows, wrappers.c $m functions"

# Inert: no SIGSYS handler, no dispatch.
LD_PRELOAD="$LIB" grep -E '^(SigCgt|Seccomp):' /proc/self/status >inert.txt
LD_PRELOAD="$LIB" cat /proc/self/maps >maps.txt
expect_grep 'libsecfilter' maps.txt # loaded; that it publishes no state: t_cli_show
# Segments aligned to 4 KiB (max-page-size, Makefile): the loader maps
# the library without reserving, trimming and closing holes around it
# (that the hot text stays within 64 KiB, the link checks).
readelf -lW "$LIB" | awk '$1 == "LOAD" && $NF != "0x1000" { bad = 1 } END { exit bad }' ||
	fail "a LOAD segment of the library is not aligned to 4 KiB"
echo "ok 4 KiB segments"
sigcgt=$(awk '/SigCgt/ {print $2}' inert.txt)
(( (16#$sigcgt >> 30) & 1 )) && fail "SIGSYS handler installed while inert"
echo "ok inert"
