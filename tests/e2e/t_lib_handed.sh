#!/usr/bin/env bash
# What an exec'd image believes of its environment, and what it does not
# redo: it hands on the text it was handed (SECFILTER_POLICY with
# SECFILTER_ORIGINS) without printing it again, and under trusted mode
# loads no filter the mark says is in force, also for the user's own text
# that images under LD_AUDIT alone inherit.  None of it is taken from the
# environment alone: a forged one still gets the policy enforced, by the
# library or by a filter the image loads itself (the marker stays absent).
# And the exec'd image keeps the name execve would give it, where the
# parent no longer asks it to set it (only a symbolic link, a script).
. "$TOP/tests/e2e/lib.sh"

DENY='*: 1; io_uring_setup: 0; mkdir: 0'

# Interposition: SECFILTER_ORIGINS set by hand (the mark of a handed-on
# text) beside a text that is no short form; the image and what it execs
# enforce it all the same.
env LD_PRELOAD="$LIB" SECFILTER_POLICY="# set by hand
$DENY" SECFILTER_ORIGINS= mkdir m1 2>m1.err
expect_sigkill $?
[ ! -e m1 ] || fail "a forged handed-on policy was not enforced: m1 made"
expect_report m1.err mkdir 'not in the allowed set'
env LD_PRELOAD="$LIB" SECFILTER_POLICY="# set by hand
$DENY" SECFILTER_ORIGINS= sh -c 'mkdir m2; sh -c "mkdir m3"; echo "ran $?"' >m2.out 2>m2.err
expect_grep '^ran 137$' m2.out
[ ! -e m2 ] && [ ! -e m3 ] || fail "an image exec'd under a forged handed-on policy made its marker"
echo "ok a forged handed-on text is enforced, and so in what it execs"

# Trusted mode with no filter in force: the environment of an image exec'd
# under one (handed-on text, layers entered) does not stand for one.
env LD_AUDIT="$LIB" SECFILTER_MODE=trusted SECFILTER_POLICY="$DENY" SECFILTER_ORIGINS= \
	SECFILTER_LANDLOCK=0:0 mkdir m4 2>m4.err
expect_sigsys $?
[ ! -e m4 ] || fail "trusted mode: a forged environment ran unfiltered: m4 made"
grep -q '^Seccomp:[[:space:]]*2' <(env LD_AUDIT="$LIB" SECFILTER_MODE=trusted SECFILTER_POLICY="$DENY" \
	SECFILTER_ORIGINS= cat /proc/self/status) || fail "trusted mode: a forged environment: no kernel filter"
echo "ok trusted mode: a forged environment gets the filter loaded"

# Trusted mode, LD_AUDIT alone: the images inherit the user's text (not
# its short form); the first image's mark answers for it, so they load
# nothing (as many filters as the shell), and another text of the same
# policy (its short form's id) neither.  A wider text loads its own on
# top, and the tree's filter still denies.
P="# the user's own text
$DENY"
env LD_AUDIT="$LIB" SECFILTER_MODE=trusted SECFILTER_POLICY="$P" sh -c '
	grep "^Seccomp_filters" /proc/$$/status; grep "^Seccomp_filters" /proc/self/status
	SECFILTER_POLICY="# another comment
$0" grep "^Seccomp_filters" /proc/self/status
	SECFILTER_POLICY="*: 1" grep "^Seccomp_filters" /proc/self/status
	SECFILTER_POLICY="*: 1" mkdir m5; echo "wider $?"' "$DENY" >t.out 2>t.err
sh_n=$(sed -n 1p t.out | awk '{print $2}'); same_n=$(sed -n 2p t.out | awk '{print $2}')
other_text_n=$(sed -n 3p t.out | awk '{print $2}'); wider_n=$(sed -n 4p t.out | awk '{print $2}')
[ -n "$sh_n" ] && [ "$sh_n" -ge 3 ] || { cat t.err >&2; fail "the shell's filters: '$sh_n'"; }
[ "$same_n" = "$sh_n" ] || fail "an image given the user's text loaded a filter: $sh_n -> $same_n"
[ "$other_text_n" = "$sh_n" ] || fail "an image given another text of the policy loaded a filter: $sh_n -> $other_text_n"
[ "$wider_n" = $((sh_n + 2)) ] || fail "an image given a wider policy loaded no filter and mark: $sh_n -> $wider_n"
expect_grep '^wider 159$' t.out
[ ! -e m5 ] || fail "a wider text widened the tree's filter: m5 made"
echo "ok LD_AUDIT alone: the user's text is loaded once ($sh_n filters), a wider one on top"

# The name of an exec'd image: its file's name, a hard link's, a name cut
# at 15 bytes, a symbolic link's (not its target's), a script's.
cp "$PROGS/lib_probe" probe_with_a_long_name
ln probe_with_a_long_name hard
ln -s probe_with_a_long_name soft
printf '#!/bin/sh\ncat /proc/$$/comm\n' >script.sh && chmod +x script.sh
for f in probe_with_a_long_name hard soft; do
	want=$(./$f comm)
	got=$(filtered '*: 1' sh -c "exec ./$f comm") || fail "exec ./$f: status $?"
	[ "$got" = "$want" ] || fail "exec ./$f: '$got', without the library '$want'"
done
filtered '*: 1' sh -c 'exec ./soft comm' | grep -qx 'comm soft' || fail "a symbolic link's name"
[ "$(filtered '*: 1' sh -c 'exec ./script.sh')" = "script.sh" ] || fail "a script's name"
echo "ok exec'd images are named as execve names them"
