# Files and ports (fs., net.) under secfilter run, enforced by Landlock in
# both modes: a write where the policy grants it works, one elsewhere fails
# with EACCES; then the ways around it an attacker would try, each with a
# file or a listener as the marker that proves the write or the connection
# did not happen.  Landlock checks at the open, the link, the rename, the
# connect: symlinks, hard links, renames, /proc/self/root, '..' and a
# directory fd opened before the policy all end in the same check.
. "$TOP/tests/e2e/lib.sh"
exec 3>&2
fail() { echo "FAIL: $*" >&3; exit 1; }

landlock_setup 4 ports

S=$SCRATCH
# what every program here needs to start: read anywhere, run what is
# installed, /dev/null for redirections
base="*: 1; fs.read: /; fs.exec: /usr /lib /lib64 /bin; fs.write: /dev/null"
P="$base; fs.write: $S/a"

for mode in --interpose --trusted; do
	rm -rf "$S/a"/* "$S/b/x"
	# cp into the granted directory works; beside it, EACCES (cp: 1)
	expect_status 0 $SECFILTER run $mode -e "$P" -- cp "$S/in" "$S/a/x"
	[ "$(cat "$S/a/x")" = data ] || fail "$mode: cp into $S/a did not copy"
	expect_status 1 $SECFILTER run $mode -e "$P" -- cp "$S/in" "$S/b/x" 2> err
	expect_grep "cannot create regular file '$S/b/x': Permission denied" err
	[ ! -e "$S/b/x" ] || fail "$mode: cp wrote outside the granted directory"
	# inherited by what the program runs
	expect_status 2 $SECFILTER run $mode -e "$P" -- sh -c "sh -c 'echo x > $S/b/x'" 2> err
	expect_grep 'Permission denied' err
	[ ! -e "$S/b/x" ] || fail "$mode: a grandchild wrote outside"
done

# a static program: trusted mode, the same rules
static=$PROGS/cli_prog-static
expect_status 0 $SECFILTER run -e "$P; fs.exec: $static" -- $static touch "$S/a/s" touch "$S/b/x" out done > out
expect_grep '^done$' out
[ -e "$S/a/s" ] || fail "the static program could not write where it may"
[ ! -e "$S/b/x" ] || fail "the static program wrote outside the granted directory"

# ---- attacks: each must leave $S/b as it was ----

# attack WANT_ERRNO MODE ARGS...: the attempt fails with that errno
attack() {
	local want=$1 mode=$2; shift 2
	expect_status 1 $SECFILTER run $mode -e "$P" -- $PY attack.py "$@" 2> err
	expect_grep "^$1: $want\$" err
}

untouched() {
	[ ! -e "$S/b/x" ] || fail "$*: $S/b/x was made: $(cat "$S/b/x")"
	[ "$(cat "$S/b/secret")" = secret ] || fail "$*: $S/b/secret changed"
	[ "$(ls "$S/b")" = secret ] || fail "$*: $S/b now holds $(ls "$S/b")"
}

for mode in --interpose --trusted; do
	rm -rf "$S/a"/*
	attack EACCES $mode write "$S/b/x"; untouched "$mode write"
	# the same path spelt otherwise: '..', /proc/self/root
	attack EACCES $mode write "$S/a/../b/x"; untouched "$mode .."
	attack EACCES $mode write "/proc/self/root$S/b/x"; untouched "$mode /proc/self/root"
	# a symlink made before the policy, inside the granted directory
	ln -sf "$S/b/x" "$S/a/pre"
	attack EACCES $mode write "$S/a/pre"; untouched "$mode symlink made before"
	# one the program makes itself (making it is allowed; following it is not)
	attack EACCES $mode symlink-write "$S/a/own" "$S/b/x"; untouched "$mode own symlink"
	[ -L "$S/a/own" ] || fail "$mode: the symlink was not even made"
	# a file moved out of the granted directory, or linked out of it: $S/b
	# grants no making of files
	echo mine > "$S/a/f"
	attack EACCES $mode rename "$S/a/f" "$S/b/x"; untouched "$mode rename out"
	attack EACCES $mode link "$S/a/f" "$S/b/x"; untouched "$mode link out"
	[ "$(cat "$S/a/f")" = mine ] || fail "$mode: the file moved"
	# an outside file linked in, to be written through the new name: the
	# new name's rights would not be the file's, so Landlock wants
	# fs.refer for it (EXDEV); moved in: $S/b grants no removing
	attack EXDEV $mode link "$S/b/secret" "$S/a/in"; untouched "$mode link in"
	attack EACCES $mode rename "$S/b/secret" "$S/a/in"; untouched "$mode rename in"
	[ ! -e "$S/a/in" ] || fail "$mode: an outside file was linked in"
	# a directory fd the shell opened before run: checked at the openat
	exec 4< "$S/b"
	attack EACCES $mode openat 4 x; untouched "$mode inherited dir fd"
	exec 4<&-
	# the write itself where it is granted: the same script, allowed
	expect_status 0 $SECFILTER run $mode -e "$P" -- $PY attack.py write "$S/a/ok" 2> err
	[ "$(cat "$S/a/ok")" = pwned ] || fail "$mode: the granted write did not happen"
done

# ---- ports: a listener on each of two ports, one of them granted ----
cat > listen.py <<'EOF'
import socket, sys
# tells its port on a FIFO, then takes one connection and writes what it
# read to the marker file
fifo, marker = sys.argv[1:]
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
with open(fifo, "w") as f:
    f.write(f"{s.getsockname()[1]}\n")
c, _ = s.accept()
data = b""
while chunk := c.recv(100):
    data += chunk
open(marker, "wb").write(data)
EOF
for mode in --interpose --trusted; do
	rm -f fa fb ma mb
	mkfifo fa fb
	$PY listen.py fa ma & la=$!
	$PY listen.py fb mb & lb=$!
	read -r pa < fa
	read -r pb < fb
	NP="$P; net.connect: $pa"
	expect_status 0 $SECFILTER run $mode -e "$NP" -- $PY attack.py connect "$pa"
	expect_status 1 $SECFILTER run $mode -e "$NP" -- $PY attack.py connect "$pb" 2> err
	expect_grep '^connect: EACCES$' err
	# bind is denied too (net. rules handle both), whatever the port
	expect_status 1 $SECFILTER run $mode -e "$NP" -- $PY attack.py bind 0 2> err
	expect_grep '^bind: EACCES$' err
	# the listener of the denied port takes the first connection queued:
	# the sandbox's, had it got through, else this one
	python3 -c "import socket; socket.create_connection(('127.0.0.1', $pb)).sendall(b'probe\n')"
	wait $la $lb
	[ "$(cat ma)" = from-sandbox ] || fail "$mode: the granted connection did not arrive"
	[ "$(cat mb)" = probe ] || fail "$mode: the denied port got: $(cat mb)"
done

# ---- what run says ----
# a path that does not exist: a warning, and it grants nothing
expect_status 0 $SECFILTER run -e "$P; fs.write: $S/nonexistent" -- true 2> err
expect_grep "warning: '$S/nonexistent' cannot be opened \(No such file or directory\): skipped" err
expect_status 0 $SECFILTER check -e "fs.read: $S/nonexistent" > out 2> err
expect_grep "warning: '$S/nonexistent': No such file or directory" err
# the library itself stays loadable without the policy naming it (the
# build tree is not among the granted paths here)
case $B in /usr/*|/lib/*) ;; *)
	expect_status 0 $SECFILTER run --interpose \
		-e "*: 1; fs.read: /usr /lib /etc; fs.exec: /usr /lib /lib64 /bin" -- true ;;
esac
# a report file the policy does not grant: the library still writes it
mkdir "$S/log"
SECFILTER_LOG=$S/log/r.log expect_status 137 $SECFILTER run --interpose \
	-e "$P; fs.exec: $PROGS/cli_prog; getppid: 0" -- $PROGS/cli_prog getppid 2> err
expect_grep 'system call 110 \(sys_getppid\) blocked' "$S/log/r.log"
# a policy file the policy forbids reading, with an include: the library
# gets the policy's text, which it can always read
mkdir pol
echo "fs.write: $S/a" > pol/inc.conf
printf '*: 1\nfs.read: /usr /lib /etc\nfs.exec: /usr /lib /lib64 /bin\nfs.write: /dev/null\n@include inc.conf\n' > pol/p.conf
expect_status 1 $SECFILTER run --interpose -p pol/p.conf -- sh -c "echo y > $S/a/y; cat pol/p.conf" 2> err
expect_grep 'cat: pol/p.conf: Permission denied' err
[ "$(cat "$S/a/y")" = y ] || fail "the write the included rule grants did not happen"
# the policy's exec rules cover the program itself (run execs it inside)
expect_status 126 $SECFILTER run -e "*: 1; fs.read: /" -- true 2> err
expect_grep 'Permission denied' err

# ---- learn: a merged policy's file and port rules and the run's, in one
# union (more in t_cli_learn_files.sh) ----
printf '*: 1\nfs.read: /usr\nnet.bind: 80\n' > m.conf
expect_status 0 $SECFILTER learn --merge m.conf -o l.conf -- true > /dev/null 2>&1
expect_grep '^fs.read: /etc /usr$' l.conf
expect_grep "^fs.exec: (.* )?$(realpath "$(type -P true)")( |\$)" l.conf
expect_grep '^net.bind: 80$' l.conf

# ---- compile ----
expect_status 1 $SECFILTER compile -f oci -e "$P" > out 2> err
expect_grep 'cannot carry .*--drop-landlock' err
expect_status 0 $SECFILTER compile -f oci --drop-landlock -e "$P" > out 2> err
expect_grep 'warning: .* dropped' err
expect_grep '"defaultAction"' out
expect_status 1 $SECFILTER compile -f c -e "$P" > out 2> err
expect_status 0 $SECFILTER compile -f disasm -e "$P" > out 2> err
expect_grep 'not part of the BPF program' err
# The one ring operation Landlock does not check as its system call:
# IORING_OP_URING_CMD on a device file the program may open (no
# fs.ioctl_dev check).  check warns where the rules reach devices and
# rings are allowed without a rule of their own; it goes quiet for a rule
# naming io_uring_setup, for fs.ioctl_dev granted, and for the devices
# that take no ring command.
for pol in '*: 1; fs.read: /dev' '*: 1; fs.read: /; fs.write: /tmp'; do
	"$SECFILTER" check -q -e "$pol" 2> w.err || fail "check '$pol'"
	expect_grep "warning: fs\. rules let the program open device files at or beneath '/(dev)?'.*IORING_OP_URING_CMD.*'io_uring_setup: 0'" w.err
done
for pol in '*: 1; io_uring_setup: 0; fs.read: /' '*: 1; io_uring_setup: 1; fs.read: /dev' \
	'*: 1; fs.read: /dev; fs.ioctl_dev: /dev' '*: 1; fs.write: /dev/null /dev/pts /tmp'; do
	"$SECFILTER" check -q -e "$pol" 2> w.err || fail "check '$pol'"
	expect_no_grep 'URING_CMD' w.err
done
echo "ok check warns of ring commands to devices where fs. rules reach them and rings are allowed"

exit 0
