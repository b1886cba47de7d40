# learn proposes fs. and net. rules (Landlock) from what the run used: the
# run it learned succeeds under them in every way of starting, and a write
# elsewhere, or a connection to another port, fails -- with a report that
# names it and the line to add, where the library sees the failure.
# Markers (the file not made, the listener that hears nothing) prove that
# the refused write and connection did not happen.
. "$TOP/tests/e2e/lib.sh"
exec 3>&2
fail() { echo "FAIL: $*" >&3; exit 1; }

landlock_setup 4 "net. rules"
S=$SCRATCH

# start HOW POLICY CMD...: CMD under the policy file, started HOW
start() {
	local how=$1 pol=$2; shift 2
	case $how in
	run) $SECFILTER run -p "$pol" -- "$@" ;;
	trusted) $SECFILTER run --trusted -p "$pol" -- "$@" ;;
	audit) LD_AUDIT=$LIB SECFILTER_MODE=trusted SECFILTER_POLICY_FILE=$pol "$@" ;;
	preload) LD_PRELOAD=$LIB SECFILTER_POLICY_FILE=$pol "$@" ;;
	*) fail "start: $how" ;;
	esac
}

# ---- files: the copy into a/ ----
# The failing copy is learned too, so that cp's error path (its message,
# exit 1) is in the syscall rules and a denied copy says why.
expect_status 0 $SECFILTER learn -o p.conf -- cp "$S/in" "$S/a/x" 2> /dev/null
expect_status 1 $SECFILTER learn --merge p.conf -- cp "$S/in" "$S/none/x" 2> /dev/null
cp=$(realpath "$(type -P cp)")
expect_lines p.conf \
	'^fs\.read: (.* )?/usr( |$)' '^fs\.read: (.* )?/etc( |$)' \
	"^fs\.exec: (.* )?$cp( |\$)" \
	"^fs\.read_file: $S/in\$" \
	"^fs\.make_reg: $S/a\$" "^fs\.write_file: $S/a\$" \
	'^# TCP ports: none was bound or connected to' \
	"!^fs\..*$S/(b|none)" '!^net\.'
# secfilter's own needs (the library, where reports go) are not the
# policy's: the enforcer keeps them reachable, and the runs below show it
expect_no_grep "libsecfilter|$B" p.conf
expect_status 0 $SECFILTER check -q p.conf

for how in run trusted audit preload; do
	rm -f "$S/a/x"
	expect_status 0 start $how p.conf cp "$S/in" "$S/a/x"
	[ "$(cat "$S/a/x")" = data ] || fail "$how: the learned copy did not copy"
	expect_status 1 start $how p.conf cp "$S/in" "$S/b/x" 2> err
	expect_grep "cannot create regular file '$S/b/x': Permission denied" err
	[ ! -e "$S/b/x" ] || fail "$how: cp wrote outside what it learned"
	case $how in
	run|preload)
		expect_grep "^cp\[[0-9]+\]: openat denied by Landlock: \"$S/b/x\" needs fs.make_reg$" err
		expect_grep "^    add: fs\.write: $S/b\$" err
		# a log of such reports, merged: the lines to add join the union
		expect_status 0 $SECFILTER learn --merge p.conf --merge err -o p3.conf 2> /dev/null
		expect_grep "^fs\.write: $S/b\$" p3.conf
		# the line to add lets it through
		sed -n 's/^    add: //p' err > adds
		cat p.conf adds > p2.conf
		expect_status 0 start $how p2.conf cp "$S/in" "$S/b/x"
		[ "$(cat "$S/b/x")" = data ] || fail "$how: the added line did not let cp copy"
		rm "$S/b/x"
		;;
	trusted|audit)
		# The trusted ways' reports of the same denial come from the
		# kernel's audit records where they can be read (run
		# --trusted; the directory, "add: fs.write: $S/b"), which
		# t_cli_llreport turns on to test; LD_AUDIT alone has none
		# (secfilter-preload(7)).
		;;
	esac
done
# a report file the policy does not name: written all the same
mkdir "$S/log"
SECFILTER_LOG=$S/log/r.log expect_status 1 start preload p.conf cp "$S/in" "$S/b/x" 2> /dev/null
expect_grep "openat denied by Landlock: \"$S/b/x\"" "$S/log/r.log"

# trusted mode's listener, forked before the program's Landlock layers,
# reads /proc/PID to report a kill, whatever the fs. rules grant: a
# policy learned from a program that never read /proc still reports a
# violation, and the program dies of it (it never waits)
expect_status 0 $SECFILTER learn -o t.conf -- /bin/true 2> /dev/null
expect_lines t.conf '^fs\.' '!^fs\..* /proc( |$)'
expect_status 159 env LD_AUDIT=$LIB SECFILTER_MODE=trusted SECFILTER_POLICY_FILE=t.conf \
	$PROGS/lib_openw "$S/made" 2> err
expect_grep '^lib_openw\[[0-9]+\]: system call 257 \(sys_openat\) blocked at ip:' err
[ ! -e "$S/made" ] || fail "the denied openat ran"

# ---- ports: a listener on each of two ports; the run connects to one ----
cat > listen.py <<'PY'
import socket, sys
# tells its port on a FIFO, then appends what each connection sends to
# the marker file, until killed
fifo, marker = sys.argv[1:]
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(8)
with open(fifo, "w") as f:
    f.write(f"{s.getsockname()[1]}\n")
while True:
    c, _ = s.accept()
    data = b""
    while chunk := c.recv(100):
        data += chunk
    with open(marker, "ab") as m:
        m.write(data)
PY
# the attempt, whose outcome goes to standard output (the learned run
# wrote nothing on standard error)
cat > net.py <<'PY'
import errno, socket, sys
what, port = sys.argv[1], int(sys.argv[2])
s = socket.socket()
try:
    if what == "connect":
        s.connect(("127.0.0.1", port))
        s.sendall(b"from-sandbox\n")
    else:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", port))
    print(f"{what}: done")
except OSError as e:
    print(f"{what}: {errno.errorcode[e.errno]}")
finally:
    s.close()
PY
mkfifo fa fb
$PY listen.py fa ma & la=$!
$PY listen.py fb mb & lb=$!
trap 'kill $la $lb 2> /dev/null' EXIT
read -r pa < fa
read -r pb < fb
# a free port to bind: one the kernel just gave and took back
free=$($PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
expect_status 0 $SECFILTER learn -o n.conf -- $PY net.py connect $pa > out 2> /dev/null
expect_grep '^connect: done$' out
expect_status 0 $SECFILTER learn --merge n.conf -- $PY net.py bind $free > out 2> /dev/null
expect_grep '^bind: done$' out
expect_lines n.conf "^net\.bind: $free\$" "^net\.connect: $pa\$" "!^net\..* $pb" \
	'!^# TCP ports' "^fs\.read_file: $S/net\.py\$"
: > ma
for how in run trusted audit preload; do
	expect_status 0 start $how n.conf $PY net.py connect $pa > out
	expect_grep '^connect: done$' out
	expect_status 0 start $how n.conf $PY net.py connect $pb > out
	expect_grep '^connect: EACCES$' out
	expect_status 0 start $how n.conf $PY net.py bind $free > out
	expect_grep '^bind: done$' out
	expect_status 0 start $how n.conf $PY net.py bind $pb > out
	expect_grep '^bind: EACCES$' out
done
# the granted connections arrived, the refused ones did not: the
# listener of pb hears only this probe
$PY -c "import socket; socket.create_connection(('127.0.0.1', $pb)).sendall(b'probe\n')"
while [ "$(cat mb 2> /dev/null)" != probe ]; do
	[ -s mb ] && fail "the refused port got: $(cat mb)"
	sleep 0.05
done
[ "$(grep -c from-sandbox ma)" = 4 ] || fail "the granted port got: $(cat ma)"

# ---- --merge: two runs of different programs, a union that lets both
# through and still refuses the rest ----
cp p.conf m.conf
expect_status 0 $SECFILTER learn --merge m.conf -- $PY net.py connect $pa > /dev/null 2>&1
expect_lines m.conf "^net\.connect: $pa\$" "^fs\.make_reg: $S/a\$" "^fs\.read_file: .*$S/net\.py"
expect_grep "^#   cp $S/in $S/a/x\$" m.conf
for how in run trusted; do
	rm -f "$S/a/x"
	expect_status 0 start $how m.conf cp "$S/in" "$S/a/x"
	[ "$(cat "$S/a/x")" = data ] || fail "$how: the merged policy lost the copy"
	expect_status 0 start $how m.conf $PY net.py connect $pa > out
	expect_grep '^connect: done$' out
	expect_status 1 start $how m.conf cp "$S/in" "$S/b/x" 2> /dev/null
	[ ! -e "$S/b/x" ] || fail "$how: the merged policy let cp write outside"
	expect_status 0 start $how m.conf $PY net.py connect $pb > out
	expect_grep '^connect: EACCES$' out
done
# a merged policy that restricts no file: nor does the union
printf '*: 1\n' > free.conf
expect_status 0 $SECFILTER learn --merge free.conf -o u.conf -- cp "$S/in" "$S/a/x" 2> /dev/null
expect_grep '^# Files: not restricted, since free.conf restricts none' u.conf
expect_no_grep '^fs\.' u.conf
exit 0
