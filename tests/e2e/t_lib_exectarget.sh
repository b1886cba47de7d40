#!/usr/bin/env bash
# libsecfilter.so decides, before an exec, whether LD_PRELOAD will reach the
# new image; when it cannot tell or it will not (static, set-ID, not
# x86-64), the policy goes in as a kernel filter.  Never an unfiltered run,
# never a crash where the kernel would return an error.
. "$TOP/tests/e2e/lib.sh"

C=$PROGS/lib_compat
STATIC=$PROGS/lib_static-static
POL='*: 1; getpriority: 0'

# killed_static NAME STEP...: the static program is exec'd and dies of its
# forbidden getpriority (SIGSYS from the kernel filter).
killed_static() {
	local name=$1; shift
	filtered "$POL" "$C" "$@" >"$name.out" 2>"$name.err"; local st=$?
	expect_grep '^static ok$' "$name.out"
	expect_no_grep 'static after' "$name.out"
	[ "$st" -eq 159 ] || { cat "$name.err" >&2; fail "$name: expected 159 (SIGSYS), got $st"; }
	echo "ok $name"
}

# fexecve of an O_PATH descriptor: it cannot be read, so the library
# cannot tell what it is by reading it.
killed_static fexecve-opath fexecve-path "$STATIC" getpriority

# Exec permission is the effective uid's, as the kernel checks it: a
# root-only static binary exec'd with real uid 65534, effective uid 0.
if [ "$(id -u)" -eq 0 ]; then
	cp "$STATIC" rootonly && chmod 700 rootonly
	killed_static setresuid setresuid-exec "$SCRATCH/rootonly" getpriority
fi

# Real and effective uid apart before a plain exec: the kernel starts
# the new image in secure mode (AT_SECURE), whose loader ignores
# LD_PRELOAD.  A dynamic image, which would run without the library.
if [ "$(id -u)" -eq 0 ]; then
	filtered '*: 1; io_uring_setup: 0; write: fd == 1' "$C" setresuid-exec "$PROGS/lib_probe" wrapper \
		>ids.out 2>ids.err; st=$?
	expect_no_grep '^wrapper$' ids.err
	[ "$st" -eq 159 ] || { cat ids.err >&2; fail "ids apart: expected 159, got $st"; }
	echo "ok a dynamic image exec'd with the effective uid apart from the real one gets the kernel filter"
fi

# An address-space limit with room for the program and the library: the
# new image loads the library, which reports the violation (a kill with
# its report, not the kernel filter's SIGSYS); 1 MiB has no room for it
# (escape battery, a_exec_rlimit).
(ulimit -v 2000000 && exec env LD_PRELOAD="$LIB" SECFILTER_POLICY='*: 1; io_uring_setup: 0; write: fd == 1' \
	"$PROGS/lib_probe" clearenv-exec "$PROGS/lib_probe" wrapper) >lim.out 2>lim.err; st=$?
expect_grep 'lib_probe\[[0-9]+\]: system call 1 \(sys_write\) blocked' lim.err
[ "$st" -eq 137 ] || { cat lim.err >&2; fail "a 2 GB limit: expected the library's kill (137), got $st"; }
echo "ok a roomy address-space limit keeps the library in the new image"

# A set-group-ID program (of group 65534, exec'd by root): the library
# sets no_new_privs before the exec, so the kernel ignores the bit (no
# secure mode) and the new image loads the library, which reports the
# violation (137, not the kernel filter's 159): the bit's changes between
# the library's look and the exec decide nothing (a_exec_chmod).
if [ "$(id -u)" -eq 0 ]; then
	cp "$PROGS/lib_probe" sgprobe && chgrp 65534 sgprobe && chmod 2755 sgprobe || fail "setgid copy"
	env LD_PRELOAD="$LIB" SECFILTER_POLICY='*: 1; io_uring_setup: 0; write: fd == 1' \
		"$PROGS/lib_probe" clearenv-exec "$SCRATCH/sgprobe" wrapper >sg.out 2>sg.err; st=$?
	expect_grep '^sgprobe\[[0-9]+\]: system call 1 \(sys_write\) blocked' sg.err
	[ "$st" -eq 137 ] || { cat sg.err >&2; fail "set-group-ID: expected the library's kill (137), got $st"; }
	echo "ok a set-group-ID program loads the library, its bit ignored"
fi

# File capabilities put the loader in secure mode for an unprivileged
# user: it ignores LD_PRELOAD, so the policy must go in as a kernel filter.
asnobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
if [ "$(id -u)" -eq 0 ] && command -v setcap >/dev/null && command -v setpriv >/dev/null &&
	chmod 755 "$SCRATCH" && asnobody test -r "$LIB" -a -x "$PROGS/lib_probe" 2>/dev/null; then
	cp "$PROGS/lib_probe" capprobe && setcap cap_net_raw+ep capprobe || fail "setcap"
	asnobody env LD_PRELOAD="$LIB" SECFILTER_POLICY='*: 1; io_uring_setup: 0; write: fd == 1' \
		"$PROGS/lib_probe" clearenv-exec "$SCRATCH/capprobe" wrapper >cap.out 2>cap.err; st=$?
	expect_no_grep '^wrapper$' cap.err
	[ "$st" -eq 159 ] || { cat cap.err >&2; fail "file capabilities: expected 159, got $st"; }
	echo "ok a program with file capabilities gets the kernel filter"
else
	echo "skip: file capabilities (needs root, setcap, setpriv and a library nobody can read)"
fi

# A program that drops its privileges and then execs: the new image's
# loader can no longer open the library (here: a copy in a directory only
# root may enter) and would go on without it.
if [ "$(id -u)" -eq 0 ] && asnobody test -x "$PROGS/lib_probe" 2>/dev/null; then
	mkdir -m 700 priv && cp "$LIB" priv/ || fail "cp"
	env LD_PRELOAD="$SCRATCH/priv/libsecfilter.so" SECFILTER_POLICY='*: 1; io_uring_setup: 0; write: fd == 1' \
		"$C" dropuid-exec "$PROGS/lib_probe" wrapper >drop.out 2>drop.err; st=$?
	expect_no_grep '^wrapper$' drop.err
	[ "$st" -eq 159 ] || { cat drop.err >&2; fail "unreachable library: expected 159, got $st"; }
	echo "ok a library the new image cannot load: kernel filter"
fi

# The library in a directory whose name has a space, preloaded by a
# relative name: its absolute path would be cut in two by the new image's
# loader.
mkdir "a b" && cp "$LIB" "a b/" || fail "cp"
(cd "a b" && env LD_PRELOAD=./libsecfilter.so SECFILTER_POLICY='*: 1; io_uring_setup: 0; write: fd == 1' \
	"$PROGS/lib_probe" clearenv-exec "$PROGS/lib_probe" wrapper >../sp.out 2>../sp.err); st=$?
expect_no_grep '^wrapper$' sp.err
[ "$st" -eq 159 ] || { cat sp.err >&2; fail "library path with a space: expected 159, got $st"; }
echo "ok a library path the loader would cut: kernel filter"

# envp == NULL (Linux takes it as empty): still filtered.
killed_static nullenv execve-nullenv "$STATIC" getpriority

# A 32-bit program: LD_PRELOAD cannot load a 64-bit library into it, and
# the policy does not speak its syscalls: the kernel filter kills it.
if command -v as >/dev/null && command -v ld >/dev/null; then
	cat >s32.S <<'S'
	.globl _start
	.text
_start:	mov $4, %eax
	mov $1, %ebx
	mov $msg, %ecx
	mov $7, %edx
	int $0x80
	mov $1, %eax
	xor %ebx, %ebx
	int $0x80
	.data
msg:	.ascii "32-bit\n"
S
	if as --32 -o s32.o s32.S 2>/dev/null && ld -m elf_i386 -o s32 s32.o 2>/dev/null &&
		[ "$(./s32 2>/dev/null)" = 32-bit ]; then
		filtered '*: 1' sh -c "$SCRATCH/s32; echo status \$?" >s32.out 2>&1
		expect_no_grep '^32-bit$' s32.out
		expect_grep '^status 159$' s32.out
		echo "ok 32-bit program under the kernel filter"
	else
		echo "skip: cannot build or run a 32-bit program here"
	fi
fi

# execveat(fd, NULL, ..., AT_EMPTY_PATH): EFAULT, as without the library.
"$C" execveat-null "$PROGS/lib_probe" >null.ref 2>&1
filtered '*: 1' "$C" execveat-null "$PROGS/lib_probe" >null.got 2>&1; st=$?
[ "$st" -eq 0 ] || { cat null.got >&2; fail "execveat(fd, NULL): status $st"; }
cmp -s null.ref null.got || { diff null.ref null.got >&2; fail "execveat(fd, NULL) differs"; }
echo "ok execveat(fd, NULL): $(cat null.got)"

# The descriptor pins the file, not its content: a writer that flips the
# PT_INTERP of a file the program may write (here: any process of the
# user, with open/write/close each time) between the real loader and a
# static program (h_interp, from the escape battery) must not get the
# library to decide on one and execute the other.  The library holds a
# read lease from its reading to the exec (a writer's open waits).
cat >flip.c <<'C'
/* flip FILE SECONDS: rewrites FILE's PT_INTERP, alternately the real
 * loader and what it was, opening the file for each write. */
#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	char was[256] = "", ld[256] = "/lib64/ld-linux-x86-64.so.2";
	time_t end = time(NULL) + atoi(argv[2]);
	int fd = open(argv[1], O_RDONLY), i;
	Elf64_Ehdr eh;
	Elf64_Phdr ph;

	(void)argc;
	if (fd < 0 || pread(fd, &eh, sizeof eh, 0) != sizeof eh)
		return 1;
	for (i = 0; i < eh.e_phnum; i++)
		if (pread(fd, &ph, sizeof ph, eh.e_phoff + i * sizeof ph) == sizeof ph &&
		    ph.p_type == PT_INTERP && ph.p_filesz < sizeof was &&
		    pread(fd, was, ph.p_filesz, ph.p_offset) == (ssize_t)ph.p_filesz)
			break;
	close(fd);
	if (!was[0])
		return 1;
	while (time(NULL) < end)
		for (i = 0; i < 2; i++) {
			fd = open(argv[1], O_WRONLY);
			if (fd < 0)
				continue;
			if (pwrite(fd, i ? was : ld, ph.p_filesz, ph.p_offset) < 0)
				return 1;
			close(fd);
		}
	return 0;
}
C
cc -O2 -o flip flip.c || fail "cc"
cp "$B/escape/h_interp_user" rw && chmod 755 rw || fail "cp"
./flip "$SCRATCH/rw" 4 &
writer=$!
sleep 0.2
filtered '*: 1; openat: !(flags & O_CREAT); open: !(flags & O_CREAT)' \
	sh -c 'end=$(($(date +%s) + 3)); while [ $(date +%s) -lt $end ] && [ ! -e marker ]; do ./rw marker; done' \
	>rw.out 2>&1
wait $writer
[ ! -e marker ] || fail "a rewritten PT_INTERP ran unfiltered"
echo "ok a file rewritten between probe and exec"
