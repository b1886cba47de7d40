# Generates the fast-path wrappers (build/gen/wrappers.c) from
# preload/wrappers.tbl; see the format at the top of that file.
# Usage: awk -f gen-wrappers.awk syscalls/x86_64/syscalls.tbl preload/wrappers.tbl
# Syscall names are checked against the project's table once it is
# complete; numbers come from the kernel's headers (__NR_*).
function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
function fail(msg) {
	printf "%s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"
	failed = 1
	exit 1
}
function conv(arg, n, types,    k, t) {
	arg = trim(arg)
	if (arg ~ /^\$[0-9]+$/) {
		k = substr(arg, 2) + 0
		if (k >= n) fail("$" k " but only " n " parameters")
		t = types[k]
		return (t ~ /[*\]]/ ? "SF_P(p" k ")" : "SF_U(p" k ")")
	}
	if (arg ~ /^"/) return "SF_P(" arg ")"
	return "SF_U(" arg ")"
}
BEGIN {
	print "/* Generated from preload/wrappers.tbl by preload/gen-wrappers.awk. Do not edit. */"
	print "#include <stddef.h>"
	print "#include <stdint.h>"
	print "#include <sys/syscall.h>"
	print "#include <sys/types.h>"
	print ""
	print "#include \"wrap.h\""
	print ""
	print "/* No libc header declaring these functions is included: glibc's"
	print " * prototypes use transparent unions and attributes of their own. */"
	print "typedef unsigned int socklen_t;"
	print "typedef unsigned long nfds_t;"
	print "#define AT_FDCWD (-100)"
	print "#define AT_SYMLINK_NOFOLLOW 0x100"
	print "#define AT_EMPTY_PATH 0x1000"
	print "#define CLOCK_REALTIME 0"
	print "struct stat; struct statx; struct iovec; struct sockaddr; struct msghdr;"
	print "struct pollfd; struct epoll_event; struct utsname; struct rlimit;"
	print "struct rusage; struct timespec; struct sysinfo;"
	nsys = 0
}
FNR == NR {
	if ($0 ~ /^[ \t]*(#|$)/) next
	sys[$2] = $1
	nsys++
	next
}
/^[ \t]*(#|$)/ { next }
{
	nf = split($0, f, "|")
	if (nf != 4 && nf != 5)
		fail("expected: function | return | parameters | syscall(arguments) [| cancel | raw]")
	name = trim(f[1]); ret = trim(f[2]); params = trim(f[3]); call = trim(f[4])
	cancel = nf == 5 ? trim(f[5]) : ""
	if (cancel != "" && cancel != "cancel" && cancel != "raw")
		fail("the fifth column is `cancel', `raw' or nothing")
	raw = cancel == "raw"
	if (raw) cancel = ""
	if (name in seen) fail("duplicate function " name)
	seen[name] = 1
	if (call !~ /^[a-z_0-9]+\(.*\)$/) fail("bad call '" call "'")
	sc = call; sub(/\(.*/, "", sc)
	argtext = call; sub(/^[a-z_0-9]+\(/, "", argtext); sub(/\)$/, "", argtext)
	# The project's table is checked only once it is complete.
	if (nsys > 300 && !(sc in sys)) fail("unknown syscall " sc)
	n = 0
	proto = ""
	delete types
	if (params != "void") {
		n = split(params, pp, ",")
		for (i = 1; i <= n; i++) {
			types[i - 1] = t = trim(pp[i])
			# "int[2]": the array bound goes after the name, as glibc declares it.
			dim = ""
			if (match(t, /\[[0-9]*\]$/)) {
				dim = substr(t, RSTART)
				t = trim(substr(t, 1, RSTART - 1))
			}
			proto = proto (i > 1 ? ", " : "") t (t ~ /\*$/ ? "" : " ") "p" (i - 1) dim
		}
	} else {
		proto = "void"
	}
	na = 0
	delete args
	if (trim(argtext) != "") {
		na = split(argtext, aa, ",")
		if (na > 6) fail("more than six arguments")
		for (i = 1; i <= na; i++) args[i - 1] = conv(aa[i], n, types)
	}
	for (i = na; i < 6; i++) args[i] = "0"
	printf "\nSF_WRAPPER %s%s%s(%s)\n{\n", ret, (ret ~ /\*$/ ? "" : " "), name, proto
	printf "\treturn (%s)%s(sf_wrap6%s(__NR_%s, %s, %s, %s, %s, %s, %s, SF_CALLER));\n}\n",
		ret, (raw ? "" : "sf_ret"), (cancel != "" ? "_cancel" : ""), sc, args[0], args[1], args[2],
		args[3], args[4], args[5]
}
END {
	if (failed) exit 1
}
