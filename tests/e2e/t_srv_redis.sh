# A real server learned and run under its policy (issue 32): redis-server
# on a private port (bench/servers.sh, as `make bench` runs it), learned
# under redis-benchmark's SET and GET and stopped by SHUTDOWN, then under
# that policy in each way of starting: it answers (a key set is read back,
# the benchmark completes), its log and stderr hold no error, and it exits
# 0 on SHUTDOWN and on SIGTERM (the signal's handler calls what learn's
# run, stopped by SHUTDOWN, never made: learn's timing families must
# cover it).  Under LD_AUDIT glibc 2.36 cannot start redis (libjemalloc's
# static TLS, secfilter(1)): it must then be refused with a report saying
# why and what to use, and run with the tunable the report names.  And
# the policy holds: told to MIGRATE a key to another port, which makes
# redis connect out (learning never did), it is killed at connect with a
# report, and no connection reaches the port; with `connect` allowed,
# Landlock denies the port (reported in interposition) and redis goes on.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/bench/servers.sh"

missing=$(srv_missing redis)
[ -z "$missing" ] || { echo "skip: not installed: $missing(Debian's redis-server)" >&2; exit 0; }

SRV_REQUESTS=2000
POL=$SCRATCH/learned.conf
trap 'srv_kill "$SCRATCH/redis"' EXIT
srv_setup redis "$SCRATCH/redis" "$(srv_free_port)" || fail "redis: setup"

# drive [what]: it answers, the load completes, no error in its log
drive() {
	local got
	srv_ready || fail "$1: $(srv_errors)"
	[ "$(redis-cli -p "$SRV_PORT" set k "$1" 2>&1)" = OK ] || fail "$1: SET did not answer OK"
	got=$(redis-cli -p "$SRV_PORT" get k 2>&1)
	[ "$got" = "$1" ] || fail "$1: GET k gave '$got'"
	[ -n "$(srv_load)" ] || fail "$1: redis-benchmark: $(cat "$SRV_DIR/client.out")"
}

# stopped HOW WHAT: it stops HOW (graceful: SHUTDOWN, term: SIGTERM),
# exits 0, and nothing in its log, its stderr or the client's is an error
stopped() {
	srv_stop "$1"
	local errs
	errs=$(srv_errors)
	[ -z "$errs" ] || { cat "$SRV_DIR/run.err" >&2; fail "$2, stopped by $1: $errs"; }
}

srv_start "$SECFILTER" learn -o "$POL" --
drive learn
stopped graceful learn
expect_status 0 "$SECFILTER" check -q "$POL"

# start MODE [ENV...]: redis under the learned policy in MODE
start() {
	local mode=$1; shift
	case $mode in
	interpose) srv_start "$SECFILTER" run --interpose -p "$POL" -- ;;
	kernel) srv_start "$SECFILTER" run --trusted -p "$POL" -- ;;
	libtrusted) srv_start env "$@" LD_AUDIT="$LIB" SECFILTER_MODE=trusted SECFILTER_POLICY_FILE="$POL" ;;
	esac
}

for mode in interpose kernel; do
	for how in graceful term; do
		start $mode
		drive "$mode-$how"
		stopped $how "$mode"
	done
done

# LD_AUDIT: it runs, or it is refused before main with the loader's message
# and both ways out; with the tunable named, it runs.
tunable=
start libtrusted
if ! srv_ready; then
	[ "$SRV_STATUS" = 137 ] || [ "$SRV_STATUS" = 159 ] ||
		{ cat "$SRV_DIR/run.err" >&2; fail "LD_AUDIT: status $SRV_STATUS, expected a refusal (137 or 159)"; }
	expect_lines "$SRV_DIR/run.err" '^redis-server\[[0-9]+\]: system call' \
		'message: .*cannot allocate memory in static TLS block' \
		'hint: .*start the program with `secfilter run --trusted`' \
		'hint: .*GLIBC_TUNABLES=glibc\.rtld\.optional_static_tls=N .*4096 fits libjemalloc'
	tunable=GLIBC_TUNABLES=glibc.rtld.optional_static_tls=4096
else
	drive libtrusted-first
	stopped term libtrusted
fi
for how in graceful term; do
	start libtrusted $tunable
	drive "libtrusted-$how"
	stopped $how "libtrusted${tunable:+ ($tunable)}"
done
# the policy has redis's files and port
expect_lines "$POL" "^net\.bind: $SRV_PORT\$" "^fs\.[a-z_]+: .*$SRV_DIR"

# A listener on another port that writes a line for every connection, until
# one says "end": ours, made after the attack, so whatever redis connected
# before it was accepted before it.
listen() {
	/usr/bin/python3 - "$1" >"$2" <<-'PY' &
	import socket, sys
	s = socket.socket()
	s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
	s.bind(("127.0.0.1", int(sys.argv[1])))
	s.listen(8)
	print("listening", flush=True)
	while True:
	    c, _ = s.accept()
	    if c.recv(16).startswith(b"end"):
	        break
	    print("connected", flush=True)
	PY
	LISTENER=$!
	until grep -q listening "$2"; do
		kill -0 $LISTENER 2>/dev/null || fail "the listener on port $1 did not start"
		sleep 0.05
	done
}
# migrate MODE: redis in MODE told to MIGRATE a key to a port of ours;
# what the client said in migrate.MODE, the connections that reached the
# port in marker.MODE
migrate() {
	local other
	other=$(srv_free_port)
	listen "$other" "marker.$1"
	start "$1" $tunable
	srv_ready || fail "$1, MIGRATE: $(srv_errors)"
	redis-cli -p "$SRV_PORT" set k v >/dev/null
	timeout 20 redis-cli -p "$SRV_PORT" migrate 127.0.0.1 "$other" k 0 5000 >"migrate.$1" 2>&1
	srv_stop term
	(exec 3<>"/dev/tcp/127.0.0.1/$other" && echo end >&3)
	wait "$LISTENER"
	expect_no_grep connected "marker.$1"
	OTHER=$other
}
for mode in interpose kernel libtrusted; do
	migrate $mode
	[ "$SRV_STATUS" = 137 ] || [ "$SRV_STATUS" = 159 ] ||
		{ cat "$SRV_DIR/run.err" >&2; fail "$mode, MIGRATE: status $SRV_STATUS, expected a kill"; }
	expect_lines "$SRV_DIR/run.err" "^redis-server\[[0-9]+\]: system call 42 \(sys_connect\) blocked" \
		"uservaddr = \{AF_INET, 127\.0\.0\.1:$OTHER\}" '^    add: sys_connect'
done

# With connect allowed, the ports are still the learned ones: Landlock
# denies the connection, redis answers an error and goes on
{ cat "$POL"; echo 'sys_connect: 1'; } >connect.conf
POL=$SCRATCH/connect.conf
for mode in interpose kernel libtrusted; do
	migrate $mode
	[ "$SRV_STATUS" = 0 ] || { cat "$SRV_DIR/run.err" >&2; fail "$mode, MIGRATE, connect allowed: status $SRV_STATUS"; }
	expect_grep '^IOERR' "migrate.$mode"
	[ $mode != interpose ] || expect_lines "$SRV_DIR/run.err" \
		"^redis-server\[[0-9]+\]: connect denied by Landlock: TCP port $OTHER\$" "^    add: net\.connect: $OTHER\$"
done

echo "ok redis learned, then run under its policy in every way of starting${tunable:+ (LD_AUDIT: refused with a report that says why and what to use; runs with $tunable)}"
