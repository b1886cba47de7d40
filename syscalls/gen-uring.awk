# Generates the C table of io_uring operations from
# syscalls/x86_64/io_uring.tbl, naming their syscalls by number (the first
# file given is syscalls.tbl, read for the names).  Refuses rows out of
# order or with gaps (the table must list every opcode the kernel has, or
# an unlisted one would count as harmless), unknown or repeated syscalls,
# and more of them than a row holds.  Also the number of io_uring_setup,
# which every policy's check asks (a lookup by name touched two pages of
# the syscall table in every filtered start).
BEGIN {
	print "/* Generated from syscalls/x86_64/io_uring.tbl by syscalls/gen-uring.awk. Do not edit. */"
	print "#include \"uring.h\""
	print ""
	print "const struct sf_uring_op sf_uring_ops[] = {"
	next_op = 0; n = 0
}
function fail(msg) {
	printf "%s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"
	failed = 1
	exit 1
}
/^[ \t]*(#|$)/ { next }
FNR == NR { nr[$2] = $1; next }
{
	if ($1 !~ /^[0-9]+$/ || $1 + 0 != next_op) fail("expected opcode " next_op ", got '" $1 "'")
	if ($2 !~ /^[A-Z][A-Z0-9_]*$/) fail("bad name '" $2 "'")
	if (length($2) >= 24) fail("name longer than 23 characters (SF_URING_NAME_MAX)")
	if (NF < 3) fail("expected: number name syscall... (or -)")
	list = ""; k = 0
	split("", seen)
	if (!(NF == 3 && $3 == "-")) {
		for (i = 3; i <= NF; i++) {
			if (!($i in nr)) fail("unknown syscall '" $i "'")
			if ($i in seen) fail("syscall " $i " named twice")
			seen[$i] = 1
			list = list (k ? ", " : "") nr[$i]
			k++
		}
	}
	if (k > 8) fail("more than 8 syscalls (SF_URING_MAX_CALLS)")
	printf "\t{ %d, \"%s\", %d, { %s } },\n", $1, $2, k, k ? list : "0"
	next_op++; n++
}
END {
	if (failed) exit 1
	if (!("io_uring_setup" in nr)) {
		print "syscalls.tbl: no io_uring_setup" > "/dev/stderr"
		exit 1
	}
	print "};"
	print ""
	printf "const unsigned sf_uring_op_count = %d;\n", n
	printf "const unsigned sf_uring_setup_nr = %d;\n", nr["io_uring_setup"]
}
