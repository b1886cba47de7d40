# Real servers for bench/b_servers.sh and tests/e2e/t_srv_redis.sh: how to
# set up, start, drive, stop and read the logs of nginx, redis and
# postgres.  Each runs in the foreground (no daemon: the process started is
# the server, so a policy applies to it and its status is the server's),
# on a private TCP port on 127.0.0.1, with its configuration, data, pid
# file and log under its own directory; source this file, then:
#
#   srv_missing NAME            what is not installed (nothing: all is)
#   srv_setup NAME DIR PORT     make DIR's configuration and data; sets SRV_*
#   srv_start PREFIX...         start it behind PREFIX (env ..., secfilter
#                               run ... --, nothing), in a session of its own
#   srv_ready                   wait until it answers (status 1: it did not)
#   srv_load                    drive it; prints the throughput per second
#   srv_stop graceful|term      its own way to stop, or SIGTERM; sets
#                               SRV_STATUS to the started command's status
#   srv_errors                  the error lines of this start: its log's,
#                               the starter's stderr (reports), the client's
#
# SRV_SECONDS (wrk, pgbench) and SRV_REQUESTS (redis-benchmark's -n for
# each of SET and GET) size the load.  As root, postgres runs as the
# postgres user (it refuses root), the prefix too: `setpriv ... --
# secfilter run ... -- postgres`, so the filtered process is the server.
#
# SRV_PIN="S C" runs the server (every process of it) on CPU S and the
# client on CPU C (taskset), so that neither takes the other's CPU and a
# filter's cost in the server is a cost in its throughput, not a share of
# a CPU the client left idle; by default CPUs 0 and 1 where there are two
# or more, SRV_PIN= to leave them to the scheduler.  The server's CPU and
# the client's: SRV_CPU and SRV_CLIENT_CPU.
SRV_SECONDS=${SRV_SECONDS:-5}
SRV_REQUESTS=${SRV_REQUESTS:-100000}
if [ -z "${SRV_PIN+set}" ]; then
	SRV_PIN=
	[ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null && SRV_PIN="0 1"
fi
SRV_ON=() SRV_CLIENT_ON=()
if [ -n "$SRV_PIN" ]; then
	read -r SRV_CPU SRV_CLIENT_CPU <<<"$SRV_PIN"
	SRV_ON=(taskset -c "$SRV_CPU")
	# one CPU named: the server's; the client goes where the scheduler puts it
	[ -n "$SRV_CLIENT_CPU" ] && SRV_CLIENT_ON=(taskset -c "$SRV_CLIENT_CPU")
fi
SRV_PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)

srv_missing() {
	local need=() x
	case $1 in
	nginx) need=(/usr/sbin/nginx wrk) ;;
	redis) need=(redis-server redis-cli redis-benchmark) ;;
	postgres)
		[ -n "$SRV_PGBIN" ] || { printf 'postgresql (/usr/lib/postgresql/*/bin) '; return; }
		need=("$SRV_PGBIN/initdb" "$SRV_PGBIN/postgres" pgbench)
		;;
	esac
	for x in "${need[@]}"; do
		command -v "$x" >/dev/null || printf '%s ' "$x"
	done
	if [ "$1" = postgres ] && [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
		printf 'the postgres user '
	fi
}

# srv_setup NAME DIR PORT
srv_setup() {
	SRV_NAME=$1 SRV_DIR=$2 SRV_PORT=$3 SRV_AS=() SRV_TUNABLES=
	mkdir -p "$SRV_DIR" || return 1
	# nginx's workers (nobody, under root) read the pages
	chmod 755 "$SRV_DIR"
	case $1 in
	nginx)
		mkdir -p "$SRV_DIR/html" "$SRV_DIR/logs"
		# a 6 KiB page, a typical small static file
		head -c 4608 /dev/urandom | base64 >"$SRV_DIR/html/index.html"
		chmod -R a+rX "$SRV_DIR/html"
		cat >"$SRV_DIR/nginx.conf" <<-EOF
		daemon off;
		master_process on;
		worker_processes 1;
		pid $SRV_DIR/nginx.pid;
		error_log $SRV_DIR/logs/error.log notice;
		events { worker_connections 512; }
		http {
		    access_log off;
		    client_body_temp_path $SRV_DIR/tmp/body;
		    proxy_temp_path $SRV_DIR/tmp/proxy;
		    fastcgi_temp_path $SRV_DIR/tmp/fastcgi;
		    uwsgi_temp_path $SRV_DIR/tmp/uwsgi;
		    scgi_temp_path $SRV_DIR/tmp/scgi;
		    server {
		        listen 127.0.0.1:$SRV_PORT;
		        root $SRV_DIR/html;
		    }
		}
		EOF
		mkdir -p "$SRV_DIR/tmp"
		SRV_LOG=$SRV_DIR/logs/error.log SRV_PIDFILE=$SRV_DIR/nginx.pid
		SRV_CMD=(/usr/sbin/nginx -p "$SRV_DIR" -c "$SRV_DIR/nginx.conf" -e "$SRV_LOG")
		;;
	redis)
		SRV_LOG=$SRV_DIR/redis.log SRV_PIDFILE=$SRV_DIR/redis.pid
		SRV_CMD=(redis-server --port "$SRV_PORT" --bind 127.0.0.1 --daemonize no --save ''
			--appendonly no --dir "$SRV_DIR" --logfile "$SRV_LOG" --pidfile "$SRV_PIDFILE")
		;;
	postgres)
		[ "$(id -u)" = 0 ] && SRV_AS=(setpriv --reuid=postgres --regid=postgres --init-groups --)
		mkdir -p "$SRV_DIR/sock"
		[ "$(id -u)" = 0 ] && chown -R postgres: "$SRV_DIR"
		# postgres logs to stderr (the starter's redirection), no collector
		SRV_LOG=$SRV_DIR/run.err SRV_PIDFILE=$SRV_DIR/data/postmaster.pid
		SRV_CMD=("$SRV_PGBIN/postgres" -D "$SRV_DIR/data" -k "$SRV_DIR/sock" -p "$SRV_PORT"
			-c listen_addresses=127.0.0.1 -c fsync=off)
		"${SRV_AS[@]}" "$SRV_PGBIN/initdb" -D "$SRV_DIR/data" -A trust -U postgres --no-sync \
			>"$SRV_DIR/initdb.log" 2>&1 || { cat "$SRV_DIR/initdb.log"; return 1; }
		# pgbench's tables, scale 1 (100000 accounts)
		srv_start && srv_ready &&
			pgbench -i -q -h 127.0.0.1 -p "$SRV_PORT" -U postgres postgres >"$SRV_DIR/init.log" 2>&1
		local st=$?
		srv_stop graceful
		[ "$st" = 0 ] && [ "$SRV_STATUS" = 0 ] || { cat "$SRV_DIR/init.log" "$SRV_DIR/run.err"; return 1; }
		;;
	esac
}

# srv_start PREFIX...: the server started behind PREFIX; SRV_PID is the
# starter's pid, its session's id.  A shell between it and this one waits
# for it and writes its status to SRV_DIR/status: bash announces a child
# killed by a signal on its stderr whenever it happens to reap it, and the
# server's own stderr is already in run.err.  The log is kept (a policy
# may allow writing the file and not making it): srv_errors reads what
# this start added.
srv_start() {
	rm -f "$SRV_PIDFILE" "$SRV_DIR/status" "$SRV_DIR/starter.pid"
	SRV_LOGOFF=$(stat -c %s "$SRV_LOG" 2>/dev/null || echo 0)
	: >"$SRV_DIR/client.err"
	# postgres's stderr is its log: appended to
	[ "$SRV_NAME" = postgres ] || : >"$SRV_DIR/run.err"
	(
		setsid "${SRV_ON[@]}" "${SRV_AS[@]}" "$@" "${SRV_CMD[@]}" >"$SRV_DIR/run.out" 2>>"$SRV_DIR/run.err" </dev/null &
		echo $! >"$SRV_DIR/starter.pid"
		wait $!
		echo $? >"$SRV_DIR/status"
	) 2>/dev/null &
	SRV_WAITER=$!
	until [ -s "$SRV_DIR/starter.pid" ]; do sleep 0.01; done
	SRV_PID=$(cat "$SRV_DIR/starter.pid")
}

# srv_ready: it answers within 20 s (a learning run is slow); else it is
# stopped (status 1).
srv_ready() {
	local i
	for i in $(seq 200); do
		[ -e "$SRV_DIR/status" ] && break
		case $SRV_NAME in
		nginx) (exec 3<>"/dev/tcp/127.0.0.1/$SRV_PORT") 2>/dev/null ;;
		redis) [ "$(timeout 5 redis-cli -p "$SRV_PORT" ping 2>/dev/null)" = PONG ] ;;
		# its log says so: a connection before would be logged FATAL
		postgres) tail -c +$((SRV_LOGOFF + 1)) "$SRV_LOG" | grep -q 'ready to accept connections' ;;
		esac && [ -s "$SRV_PIDFILE" ] && return 0
		sleep 0.1
	done
	if [ -e "$SRV_DIR/status" ]; then
		echo "$SRV_NAME exited before it answered" >>"$SRV_DIR/client.err"
	else
		echo "$SRV_NAME did not answer within 20 s" >>"$SRV_DIR/client.err"
	fi
	srv_stop term
	return 1
}

# srv_load: the load, as many connections as a small server sees; the
# throughput on stdout (nothing when the client failed)
srv_load() {
	local out=$SRV_DIR/client.out
	case $SRV_NAME in
	nginx)
		"${SRV_CLIENT_ON[@]}" timeout $((SRV_SECONDS + 30)) wrk -t2 -c32 -d"${SRV_SECONDS}s" "http://127.0.0.1:$SRV_PORT/" >"$out" 2>&1
		grep -E 'Socket errors|Non-2xx' "$out" >>"$SRV_DIR/client.err"
		awk '/^Requests\/sec:/ { print $2 }' "$out"
		;;
	redis)
		# the rate of the two together: requests over their total time
		"${SRV_CLIENT_ON[@]}" timeout $((SRV_REQUESTS / 1000 + 60)) redis-benchmark -h 127.0.0.1 -p "$SRV_PORT" -c 32 \
			-n "$SRV_REQUESTS" -t set,get --csv >"$out" 2>&1
		grep -Ei 'error|refused' "$out" >>"$SRV_DIR/client.err"
		awk -F'"' '$2 == "SET" || $2 == "GET" { n++; t += 1 / $4 }
			END { if (n == 2) printf "%.1f\n", n / t }' "$out"
		;;
	postgres)
		"${SRV_CLIENT_ON[@]}" timeout $((SRV_SECONDS + 30)) pgbench -n -S -T "$SRV_SECONDS" -c 4 -j 2 -h 127.0.0.1 \
			-p "$SRV_PORT" -U postgres postgres >"$out" 2>&1
		grep -E '^pgbench: error|failed transactions: [1-9]' "$out" >>"$SRV_DIR/client.err"
		awk '/^tps = / { print $3; exit }' "$out"
		;;
	esac
}

# srv_stop graceful|term: graceful is the server's own way (nginx: QUIT,
# redis: SHUTDOWN, postgres: INT, its fast shutdown), term is SIGTERM
# (what a service manager sends: learn must have seen what the handlers
# then call).  Waits up to 30 s, then kills the session.
srv_stop() {
	local pid i
	pid=$(head -1 "$SRV_PIDFILE" 2>/dev/null)
	case $1-$SRV_NAME in
	graceful-redis) timeout 10 redis-cli -p "$SRV_PORT" shutdown nosave >/dev/null 2>&1 ;;
	graceful-nginx) [ -n "$pid" ] && kill -QUIT "$pid" 2>/dev/null ;;
	graceful-postgres) [ -n "$pid" ] && kill -INT "$pid" 2>/dev/null ;;
	term-*) [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null ;;
	esac
	[ -n "$pid" ] || [ -e "$SRV_DIR/status" ] || kill -TERM "$SRV_PID" 2>/dev/null
	for i in $(seq 300); do
		[ -e "$SRV_DIR/status" ] && break
		sleep 0.1
	done
	if ! [ -e "$SRV_DIR/status" ]; then
		echo "$SRV_NAME did not stop within 30 s" >>"$SRV_DIR/client.err"
		kill -KILL -- "-$SRV_PID" 2>/dev/null
	fi
	wait "$SRV_WAITER"
	SRV_STATUS=$(cat "$SRV_DIR/status")
}

# srv_errors: one line each; the status is srv_stop's.  secfilter's own
# lines are reports (a call killed or denied by Landlock) and warnings;
# learn's notes are not errors.
srv_errors() {
	local re rep='blocked at ip|denied by Landlock|Bad system call|error while loading|^secfilter'
	case $SRV_NAME in
	nginx) re='\[(error|crit|alert|emerg)\]' ;;
	redis) re=' # .*([Ee]rror|[Ff]ailed|[Cc]an.t|[Uu]nable|[Dd]enied|[Rr]efused)|crashed by signal|BUG REPORT' ;;
	postgres) re='(ERROR|FATAL|PANIC):|terminated by signal|exited with exit code [1-9]' ;;
	esac
	# reports go to stderr: postgres's log, and nginx makes its log its stderr
	{
		tail -c +$((SRV_LOGOFF + 1)) "$SRV_LOG" 2>/dev/null | grep -E -- "$re|$rep"
		[ "$SRV_LOG" = "$SRV_DIR/run.err" ] || grep -E -- "$rep|\[(error|crit|alert|emerg)\]" "$SRV_DIR/run.err"
	} | grep -Ev '^secfilter: learn: (note:|  )|logical replication launcher.*exited with exit code 1$'
	cat "$SRV_DIR/client.err"
	[ "$SRV_STATUS" = 0 ] || echo "exit status $SRV_STATUS"
}

# srv_kill DIR...: the servers started in these directories (srv_setup's)
# that still run, with their sessions (a script's EXIT trap: srv_start may
# have run in a subshell)
srv_kill() {
	local d
	for d in "$@"; do
		[ -s "$d/starter.pid" ] && [ ! -e "$d/status" ] && kill -KILL -- "-$(cat "$d/starter.pid")" 2>/dev/null
	done
}

# srv_free_port: a TCP port nothing listens on at 127.0.0.1, below the
# kernel's ephemeral range: a port in that range can be the local end of
# any connection (redis-benchmark's, a client's), and a bind to it fails
# with EADDRINUSE even though nothing listens there
srv_free_port() {
	local p low=32768 high
	read -r low high </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null
	[ "$low" -gt 11000 ] 2>/dev/null || low=32768
	while :; do
		p=$((10000 + RANDOM % (low - 10000)))
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || break
	done
	echo "$p"
}
