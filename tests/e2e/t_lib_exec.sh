#!/usr/bin/env bash
# libsecfilter.so across exec: a static binary exec'd by a filtered process
# (LD_PRELOAD cannot reach it) gets the policy as a kernel filter; a
# pending policy (on_next_syscall: 1) takes effect in the next image only.
. "$TOP/tests/e2e/lib.sh"

STATIC=$PROGS/lib_static-static

# Allowed work: runs normally.
filtered '*: 1; getpriority: 0' sh -c "$STATIC; echo status \$?" >ok.out 2>ok.err
expect_grep '^static ok$' ok.out
expect_grep '^status 0$' ok.out
echo "ok static binary under a policy allowing its work"

# A forbidden call: the kernel kills it with SIGSYS (status 159 in sh).
filtered '*: 1; getpriority: 0' sh -c "$STATIC getpriority; echo status \$?" >bad.out 2>bad.err
expect_grep '^static ok$' bad.out
expect_grep '^status 159$' bad.out
expect_no_grep 'static after' bad.out
echo "ok static binary killed by SIGSYS on a forbidden call"

# Pending: the first image runs unrestricted, the exec'd one is filtered.
filtered 'on_next_syscall: 1; *: 1; io_uring_setup: 0; write: fd == 1' \
	"$PROBE" mode wrapper clearenv-exec "$PROBE" mode wrapper >p.out 2>p.err
expect_sigkill $?
expect_grep '^mode 0$' p.out
expect_grep '^mode 2$' p.out
[ "$(grep -c '^wrapper$' p.err)" -eq 1 ] || fail "the first image's write should have passed"
expect_report p.err write 'sys_write: fd == 1 (SECFILTER_POLICY:'
echo "ok pending policy takes effect after exec"

# `*: 1; io_uring_setup: 1; ...`: the short form an exec'd image parses
# starts with `*: 1`, which does not name io_uring_setup; it names it again,
# or the image would refuse the policy (125).  A minijail policy let through
# with a warning (t_cli_frontends) is passed on the same way.
filtered '*: 1; io_uring_setup: 1; openat: !(flags & O_CREAT)' sh -c 'cat /etc/hostname' >u.out 2>u.err ||
	{ cat u.err >&2; fail "exec under a policy naming io_uring_setup: 1"; }
printf '@denylist\nptrace: return EPERM\nsocket: arg0 == AF_NETLINK; return EACCES\n' >u.policy
LD_PRELOAD=$LIB SECFILTER_POLICY_FILE=$PWD/u.policy sh -c 'cat /etc/hostname' >u.out 2>u.err ||
	{ cat u.err >&2; fail "exec under a minijail denylist"; }
echo "ok an exec'd image keeps the policy's word on io_uring_setup"

# The program cannot drop the library or the policy from the environment.
filtered '*: 1; io_uring_setup: 0; write: fd == 1' env -u LD_PRELOAD SECFILTER_POLICY='*: 1' "$PROBE" wrapper >e.out 2>e.err
expect_sigkill $?
expect_report e.err write 'sys_write: fd == 1'
echo "ok env cannot drop the library or widen the policy"

# What the new image is, the library decides on an open descriptor and
# executes that descriptor; a script runs the way the kernel runs it.
# Scripts, nested scripts and names through symlinks look the same as
# without the library: argv, $0, the process's name.
C=$PROGS/lib_compat
printf '#!/bin/sh -e\necho "0=$0 1=$1 2=$2 3=$3"; cat /proc/$$/comm\n' >s.sh
printf '#!%s/s.sh  x y \n' "$SCRATCH" >s2
printf '#!%s/s2\n' "$SCRATCH" >s3
ln -s "$PROGS/lib_probe" probelink
chmod +x s.sh s2 s3
for f in ./s.sh ./s2 "$SCRATCH/s3"; do
	"$C" exec "$f" a b >ref 2>&1
	filtered '*: 1' "$C" exec "$f" a b >got 2>&1
	cmp -s ref got || { diff ref got >&2; fail "script $f differs from an unfiltered run"; }
done
expect_grep '^s3$' got
filtered '*: 1' "$C" exec ./probelink comm >got 2>&1
expect_grep '^comm probelink$' got
echo "ok scripts and names as without the library"

# An exec that fails says what the kernel says, and never runs anything.
mkdir dir
printf 'no interpreter line\n' >plain && chmod +x plain
printf '#!\n' >empty && chmod +x empty
printf '#!/nonexistent/interp\n' >noint && chmod +x noint
printf '#!/bin/sh\n' >noexec
printf '#!%s/loop1\n' "$SCRATCH" >loop0
for i in 1 2 3 4 5 6; do printf '#!%s/loop%d\n' "$SCRATCH" $((i + 1)) >loop$i; done
printf '#!/bin/true\n' >loop7
chmod +x loop*
for f in ./missing ./dir ./plain ./empty ./noint ./noexec ./loop0 ./loop2 ./loop3; do
	"$C" exec "$f" >ref 2>&1; echo "status $?" >>ref
	filtered '*: 1' "$C" exec "$f" >got 2>&1; echo "status $?" >>got
	cmp -s ref got || { diff ref got >&2; fail "exec of $f differs from an unfiltered run"; }
done
echo "ok failed execs as without the library"

# The new image preloads the library and nothing else, and gets none of
# the loader's variables that act before its constructor; LD_LIBRARY_PATH
# stays.
filtered '*: 1' env LD_PRELOAD="$SCRATCH/other.so" LD_AUDIT=x.so LD_DEBUG_OUTPUT=dbg \
	LD_PROFILE=libc.so.6 LD_LIBRARY_PATH=/nonexistent "$PROBE" environ >env.out 2>&1
expect_grep "^LD_PRELOAD=$LIB\$" env.out
expect_grep '^LD_LIBRARY_PATH=/nonexistent$' env.out
expect_no_grep '^LD_(AUDIT|DEBUG_OUTPUT|PROFILE)=' env.out
expect_no_grep '^SECFILTER_COMM=' env.out
echo "ok the new image's loader variables"

# posix_spawn's child shares the parent's memory (CLONE_VM|CLONE_VFORK):
# what the library maps for its exec must not stay behind in the parent
# (it did: 4 kB a spawn).
"$C" spawn-vmsize 1000 /bin/true >vm.ref 2>&1
filtered '*: 1' "$C" spawn-vmsize 1000 /bin/true >vm.got 2>&1
expect_grep '^1000 spawns: VmSize grew' vm.ref
cmp -s vm.ref vm.got || { diff vm.ref vm.got >&2; fail "1000 spawns: VmSize differs from an unfiltered run"; }
echo "ok posix_spawn leaves nothing behind: $(cat vm.got)"
