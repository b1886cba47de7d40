# Files and ports (fs., net.) enforced by libsecfilter.so itself, in each
# of its ways of starting: LD_PRELOAD (interposition), LD_AUDIT (trusted
# mode), and under `secfilter run`, which enters Landlock before exec
# and tells the library so.  What must hold: the write the policy grants
# works and the one it does not fails with EACCES and a report (none in
# trusted mode without LD_PRELOAD: no wrapper sees the result); an exec
# chain deeper than Landlock's 16 layers still runs and is still
# restricted at its bottom; the "already entered" fact cannot be forged
# into skipping a layer; secfilter_apply narrows and cannot widen; the
# ways around a path rule (symlink, '..', /proc/self/root, rename,
# io_uring) fail in the library's starts too (run's: t_cli_landlock.sh).
. "$TOP/tests/e2e/lib.sh"

landlock_setup 3 fs.truncate
S=$SCRATCH
P="*: 1; fs.read: /usr /lib /etc /proc $S; fs.exec: /usr /lib /lib64 /bin; fs.write: /dev/null $S/a"

# start HOW CMD...: CMD under $P, started HOW
start() {
	local how=$1; shift
	case $how in
	preload) LD_PRELOAD=$LIB SECFILTER_POLICY=$P "$@" ;;
	audit) LD_AUDIT=$LIB SECFILTER_MODE=trusted SECFILTER_POLICY=$P "$@" ;;
	audit+preload) LD_AUDIT=$LIB LD_PRELOAD=$LIB SECFILTER_MODE=trusted SECFILTER_POLICY=$P "$@" ;;
	run) $SECFILTER run --interpose -e "$P" -- "$@" ;;
	*) fail "start: $how" ;;
	esac
}

untouched() {
	[ ! -e "$S/b/x" ] || fail "$*: $S/b/x was made: $(cat "$S/b/x")"
	[ "$(cat "$S/b/secret")" = secret ] || fail "$*: $S/b/secret changed"
	[ "$(ls "$S/b")" = secret ] || fail "$*: $S/b now holds $(ls "$S/b")"
}

# deep.sh N: N nested `sh -c`, each one exec'd by the one above; the
# innermost copies into $S/b
cat > deep.sh <<EOF
n=\$1
if [ "\$n" -gt 0 ]; then exec sh -c "sh $S/deep.sh \$((n-1)); echo level\$n=\\\$?"; fi
cp "$S/in" "$S/b/x"; echo bottom=\$?
EOF

for how in preload audit audit+preload run; do
	rm -rf "$S/a"/*
	expect_status 0 start $how cp "$S/in" "$S/a/x"
	[ "$(cat "$S/a/x")" = data ] || fail "$how: cp into $S/a did not copy"
	expect_status 1 start $how cp "$S/in" "$S/b/x" 2> err
	expect_grep "cannot create regular file '$S/b/x': Permission denied" err
	untouched "$how cp"
	if [ $how = audit ]; then
		# no wrapper of the library in the program sees the EACCES: a
		# report comes from the kernel's audit records only where audit
		# is on, the machine's setting (t_cli_llreport tests it)
		:
	else
		expect_grep "^cp\[[0-9]+\]: openat denied by Landlock: \"$S/b/x\" needs fs.make_reg$" err
		# run -e's text is cited as <command-line>, as its errors say
		src=SECFILTER_POLICY; [ $how = run ] && src='<command-line>'
		expect_grep "^    rule: fs.write \($src:1\) does not grant it here$" err
		expect_grep "^    add: fs.write: $S/b$" err
	fi
	# relative: as given, and where it resolves
	if [ $how = preload ]; then
		(cd "$S/a" && expect_status 1 start $how cp ../in ../b/x) 2> err
		expect_grep "openat denied by Landlock: \"../b/x\" \($S/b/x\) needs fs.make_reg$" err
	fi

	# 20 images deep: each inherits the domain, none stacks it again
	expect_status 0 start $how sh deep.sh 20 > out 2> err
	expect_grep '^bottom=1$' out
	[ "$(grep -c '^level[0-9]*=0$' out)" = 20 ] || fail "$how: the chain broke: $(cat out err)"
	expect_grep "cannot create regular file '$S/b/x': Permission denied" err
	untouched "$how deep chain"

	# a fact forged inside: whatever the variable says, the image runs in
	# the domain it inherited (and exec in interposition mode replaces it)
	expect_status 1 start $how sh -c "SECFILTER_LANDLOCK=q:0000000000000000 SECFILTER_POLICY='*: 1' cp $S/in $S/b/x" 2> err
	expect_grep 'Permission denied' err
	untouched "$how forged fact"

	# the ways around a path rule
	for way in "write $S/a/../b/x" "write /proc/self/root$S/b/x" "symlink-write $S/a/own $S/b/x"; do
		rm -f "$S/a/own"
		expect_status 1 start $how $PY attack.py $way 2> err
		expect_grep ': EACCES$' err
		untouched "$how $way"
	done
	echo mine > "$S/a/f"
	expect_status 1 start $how $PY attack.py rename "$S/a/f" "$S/b/x" 2> err
	expect_grep '^rename: EACCES$' err
	untouched "$how rename out"
done

# The fact as its first image gets it, set by hand where no layer was
# entered: no no_new_privs, so it is not believed.
fact=$(LD_PRELOAD=$LIB SECFILTER_POLICY=$P sh -c 'sh -c "env" | grep "^SECFILTER_LANDLOCK="')
[ -n "$fact" ] || fail "no fact passed across exec"
expect_status 1 env "$fact" LD_PRELOAD=$LIB SECFILTER_POLICY="$P" cp "$S/in" "$S/b/x" 2> err
expect_grep 'Permission denied' err
untouched "forged fact outside"
# and one that claims more layers than this policy has
expect_status 1 env SECFILTER_LANDLOCK=q:0 LD_PRELOAD=$LIB SECFILTER_POLICY="$P" cp "$S/in" "$S/b/x" 2> err
untouched "forged count outside"

# io_uring: a ring's OPENAT goes through the same Landlock check
if command -v cc > /dev/null; then
	cc -O1 -I"$TOP/tests/escape" -o ring_open "$TOP/tests/escape/a_uring_named.c"
	for how in preload audit run; do
		P="$P; fs.exec: $S/ring_open; io_uring_setup: 1" \
			expect_status 1 start $how ./ring_open "$S/b/x"
		untouched "$how io_uring"
	done
fi

# Ring operations, one by one, against what Landlock answers for the
# same system call (doc/security.md, "io_uring and Landlock"): each
# denied outside the policy's paths and ports, made directly, forced to
# the ring's worker threads, and on a ring (and a worker) older than the
# layer (secfilter_apply); and each done where the policy grants it, so
# that a denial is Landlock's and not a broken operation.
python3 -c 'import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0)); s.listen(8); print(s.getsockname()[1], flush=True); time.sleep(60)' > port.txt &
lsn=$!
for _ in $(seq 50); do [ -s port.txt ] && break; sleep 0.1; done
port=$(cat port.txt)
# a port to bind, below the ephemeral range (the connections' own ports)
fport=$(python3 -c 'import socket, random
for p in random.sample(range(20000, 30000), 200):
    try: socket.socket().bind(("127.0.0.1", p)); print(p); break
    except OSError: pass')
[ -n "$port" ] || fail "no listener"
mkdir -p "$S/c" "$S/ok"
RP="fs.read: /usr /lib /etc/ld.so.cache /etc/passwd /proc $S; fs.exec: /usr /lib /lib64 /bin $B; fs.write: /dev/null $S/a $S/ok; fs.write_file: $S/c; net.connect: 1; net.bind: 2"
ops() { # DIR: the operations, each a line, on targets in DIR
	local d=$1
	echo "creat $d/x"; echo "openat2 $d/x2"; echo "mkdir $d/d"; echo "symlink $d/l /etc/passwd"
	echo "link $S/a/f $d/hl"; echo "rename $S/a/t $d/t"; echo "unlink $d/g"
}
ring_ops() { # WAY DIR TRUNC PORT POLICY: each operation's line
	local way=$1 d=$2 tf=$3 p=$4 pol=$5 op
	{ ops "$d"; echo "truncate $tf"; echo "connect x $p"; echo "bind x $fport"; echo "read $S/../../etc/shadow"; } |
	while read -r op; do
		echo y > "$d/g"; echo z > "$S/a/t"; [ -e "$S/a/f" ] || echo f > "$S/a/f"
		case $way in
		early*) LL_APPLY="$pol" LD_PRELOAD=$LIB SECFILTER_POLICY='*: 1; io_uring_setup: 1' \
			"$PROGS/ll_ring" "$way" $op ;;
		*) LD_PRELOAD=$LIB SECFILTER_POLICY="*: 1; io_uring_setup: 1; $pol" "$PROGS/ll_ring" "$way" $op ;;
		esac 2>/dev/null
	done
}
echo w > "$S/c/w"; echo w > "$S/ok/w"
for way in sys ring async early early-async; do
	ring_ops "$way" "$S/b" "$S/c/w" "$port" "$RP" > "ring.$way"
	[ "$(grep -c ': Permission denied$' "ring.$way")" = 11 ] ||
		{ cat "ring.$way" >&2; fail "$way: an operation outside the policy was not denied"; }
	[ "$(cat "$S/c/w")" = w ] || fail "$way: the truncation ran"
	[ "$(ls "$S/b")" = "$(printf 'g\nsecret')" ] || fail "$way: $S/b now holds $(ls "$S/b")"
	rm -f "$S/b/g"
done
# the same operations where the policy grants them: done
RPOK="fs.read: /usr /lib /etc /proc $S /root; fs.exec: /usr /lib /lib64 /bin $B; fs.write: /dev/null $S/a $S/ok; fs.refer: $S/a $S/ok; net.connect: $port; net.bind: $fport"
for way in ring async; do
	ring_ops "$way" "$S/ok" "$S/ok/w" "$port" "$RPOK" > "ring.ok.$way"
	[ "$(grep -c ': ok$' "ring.ok.$way")" = 11 ] || { cat "ring.ok.$way" >&2; fail "$way: an operation the policy grants failed"; }
	rm -rf "$S/ok"/*; echo w > "$S/ok/w"
done
kill $lsn 2>/dev/null
echo "ok ring operations (open, openat2, mkdir, symlink, link, rename, unlink, ftruncate, connect, bind) are denied where their system calls are, on old rings and workers too"

# secfilter_apply: a layer of its own, which narrows and cannot widen
cat > narrow.py <<EOF
import ctypes, sys
lib = ctypes.CDLL(None)
def write(path):
    try:
        open(path, "w").write("x")
        return "ok"
    except OSError as e:
        return e.strerror
print("before", write("$S/a/one"))
if lib.secfilter_apply(sys.argv[1].encode()) != 0:
    print("apply failed"); sys.exit(3)
print("after", write("$S/a/two"), write("$S/a/sub/three"), write("$S/b/x"))
EOF
mkdir -p "$S/a/sub"
for how in preload run; do
	rm -f "$S/a/one" "$S/a/two" "$S/a/sub/three"
	expect_status 0 start $how $PY narrow.py "fs.read: /; fs.write: $S/a/sub $S/b" > out
	expect_grep '^before ok$' out
	expect_grep '^after Permission denied ok Permission denied$' out
	untouched "$how apply"
done

# a port: denied before any connection is tried, and reported
abi=$(python3 -c 'import ctypes; print(ctypes.CDLL(None, use_errno=True).syscall(444, None, 0, 1))')
if [ "$abi" -ge 4 ]; then
	expect_status 1 env LD_PRELOAD=$LIB SECFILTER_POLICY="$P; net.connect: 1" \
		$PY attack.py connect 9 2> err
	expect_grep '^connect: EACCES$' err
	expect_grep '^python3\[[0-9]+\]: connect denied by Landlock: TCP port 9$' err
	expect_grep '^    rule: net.connect \(SECFILTER_POLICY:1\) does not grant it here$' err
	expect_grep '^    add: net.connect: 9$' err
fi
