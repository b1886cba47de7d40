# Reports a person acts on, in each mode: arguments decoded (flags by
# name, file names shown), the rule as written, an add: line that,
# applied, lets the call run; log mode's summary on one screen, whose
# lines let the run through; a log that learn merges into a policy.
. "$TOP/tests/e2e/lib.sh"
exec 3>&2
fail() { echo "FAIL: $*" >&3; exit 1; }

MODES="--trusted --interpose"

for mode in $MODES; do
	# a write where the policy allows reading only
	pol='*: 1; io_uring_setup: 0; openat: !(flags & (O_WRONLY|O_RDWR))'
	rm -f f
	$SECFILTER run $mode -e "$pol" -- sh -c 'echo x > f' > out 2> err
	st=$?
	[ $st -eq 137 ] || [ $st -eq 159 ] || fail "$mode: status $st: $(cat err)"
	expect_grep '^sh\[[0-9]+\]: system call 257 \(sys_openat\) blocked at ip:[0-9a-f]+$' err
	expect_grep '^    dfd = AT_FDCWD \(-100\)$' err
	expect_grep '^    filename = "f" \(0x[0-9a-f]+\)$' err
	expect_grep '^    flags = O_WRONLY\|O_CREAT\|O_TRUNC \(0x241\)$' err
	expect_grep '^    mode = 0666$' err
	# the rule as the policy wrote it, constants and all (the library
	# reads -e's text from its environment, and cites <command-line>
	# as run's errors do)
	expect_grep '^    rule: sys_openat: !\(flags & \(O_WRONLY\|O_RDWR\)\) \(<command-line>:1\)$' err
	expect_grep '^    add: sys_openat: 0; sys_openat: \(!\(flags & \(O_WRONLY\|O_RDWR\)\)\) \|\| dfd == AT_FDCWD && !\(flags & \(O_RDWR\|O_APPEND\)\)$' err
	[ -e f ] && fail "$mode: the file was created"
	# applied, the add: line lets it run
	fixed="$pol; $(sed -n 's/^    add: //p' err)"
	expect_status 0 $SECFILTER run $mode -e "$fixed" -- sh -c 'echo x > f'
	expect_grep '^x$' f

	# socket addresses, shown; the family and type by name
	$SECFILTER run $mode -e '*: 1; io_uring_setup: 0; connect: 0' -- /usr/bin/python3 -c '
import socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect("/nonexistent/sock")' > out 2> err
	expect_grep '^    uservaddr = \{AF_UNIX, "/nonexistent/sock"\} \(0x[0-9a-f]+\)$' err
	expect_grep '^    add: sys_connect: 1$' err
	$SECFILTER run $mode -e '*: 1; io_uring_setup: 0; connect: 0' -- /usr/bin/python3 -c '
import socket
socket.create_connection(("127.0.0.1", 9))' > out 2> err
	expect_grep '^    uservaddr = \{AF_INET, 127\.0\.0\.1:9\} \(0x[0-9a-f]+\)$' err
	$SECFILTER run $mode -e '*: 1; io_uring_setup: 0; socket: family == AF_UNIX' -- /usr/bin/python3 -c '
import socket
socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)' > out 2> err
	expect_grep '^    family = AF_INET6 \(10\)$' err
	expect_grep '^    type = SOCK_DGRAM\|SOCK_CLOEXEC \(0x80002\)$' err
	expect_grep '^    add: sys_socket: 0; sys_socket: \(family == AF_UNIX\) \|\| family == AF_INET6 && type == SOCK_DGRAM\|SOCK_CLOEXEC$' err

	# a rule's own action: quoted, and an add: line that sets it aside
	$SECFILTER run $mode -e '*: 1; getppid: kill' -- /usr/bin/python3 -c 'import os; os.getppid()' > out 2> err
	expect_grep '^    rule: sys_getppid: kill$' err
	expect_grep '^    add: sys_getppid: 1$' err
	expect_status 0 $SECFILTER run $mode -e "*: 1; getppid: kill; $(sed -n 's/^    add: //p' err)" -- \
		/usr/bin/python3 -c 'import os; os.getppid()'
done

# a program that closed its standard error (coreutils do, at exit) still
# gets its report: the library hands it to run, which writes it
for mode in $MODES; do
	$SECFILTER run $mode -e '*: 1; exit_group: 0' -- ls / > out 2> err
	st=$?
	[ $st -eq 137 ] || [ $st -eq 159 ] || fail "$mode: status $st: $(cat err)"
	expect_grep '^ls\[[0-9]+\]: system call 231 \(sys_exit_group\) blocked at ip:[0-9a-f]+$' err
	expect_grep '^    add: sys_exit_group: 1$' err
done

# log mode's summary of `echo hi` under `read: 1`: on one screen, and the
# policy it suggests lets echo run, in every mode
for mode in $MODES; do
	expect_status 0 $SECFILTER run $mode -e 'read: 1' --log -- /bin/echo hi > out 2> err
	expect_grep '^hi$' out
	sed -n '/log mode: .* these lines let them run:$/,$p' err | grep -E '^(secfilter|    )' > summary
	[ -s summary ] || fail "$mode: no summary: $(cat err)"
	n=$(wc -l < summary)
	[ "$n" -le 24 ] || fail "$mode: the summary is $n lines: $(cat summary)"
	echo "note: $mode: the summary of echo under 'read: 1' is $n lines" >&3
	# each call reported once: no report twice for the same syscall
	dups=$(grep -oE '^[^ ]+\[[0-9]+\]: system call [0-9]+' err | sort | uniq -d)
	[ -z "$dups" ] || fail "$mode: reported twice: $dups"
	{ echo 'read: 1'; sed -n 's/^    \(sys_.*\)/\1/p' summary; } > suggested.conf
	expect_status 0 $SECFILTER check -q suggested.conf
	# the library sees the calls made after its constructor, not the
	# loader's: what its log suggests is for interposition
	runs="--interpose"
	[ "$mode" = --trusted ] && runs="--trusted --interpose"
	for m in $runs; do
		expect_status 0 $SECFILTER run $m -p suggested.conf -- /bin/echo hi > out 2> err2
		expect_grep '^hi$' out
		[ -s err2 ] && fail "$mode's summary, run $m: $(cat err2)"
	done

	# the same log, written to a file, merged by learn into the policy
	rm -f log
	SECFILTER_LOG=$PWD/log expect_status 0 $SECFILTER run $mode -e 'read: 1' --log -- /bin/echo hi > /dev/null
	echo 'read: 1' > base.conf
	expect_status 0 $SECFILTER learn --merge base.conf --merge log -o merged.conf
	expect_grep '^sys_read: 1' merged.conf
	expect_grep '^sys_write: fd == 1 ' merged.conf
	for m in $runs; do
		expect_status 0 $SECFILTER run $m -p merged.conf -- /bin/echo hi > out
		expect_grep '^hi$' out
	done
done
exit 0
