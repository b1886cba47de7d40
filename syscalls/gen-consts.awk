# Generates the C constants table from syscalls/x86_64/constants.tbl, which
# the Makefile feeds through `LC_ALL=C sort` so that lookups can bisect.
# Values are copied as C literals with a ULL suffix: -100 becomes the
# two's-complement 64-bit pattern, as the argument's type then reads it.
BEGIN {
	print "/* Generated from syscalls/x86_64/constants.tbl by syscalls/gen-consts.awk. Do not edit. */"
	print "#include \"systab.h\""
	print ""
	print "const struct sf_const sf_consts[] = {"
	n = 0
}
function fail(msg) {
	printf "constants.tbl: %s\n", msg > "/dev/stderr"
	failed = 1
	exit 1
}
/^[ \t]*(#|$)/ { next }
{
	if (NF < 2 || $1 !~ /^[A-Z_][A-Z0-9_]*$/) fail("bad row '" $0 "' (expected NAME value)")
	if ($2 !~ /^-?(0x[0-9a-fA-F]+|[0-9]+)$/) fail("bad value for " $1 ": '" $2 "'")
	if (length($1) >= 40) fail("name " $1 " is longer than SF_CONSTNAME_MAX - 1")
	# C would silently truncate a literal wider than 64 bits; keep hex to
	# 16 digits and decimal to 19 (below 2^64), which every value fits.
	v = $2
	sub(/^-/, "", v)
	if (v ~ /^0x/) { sub(/^0x0*/, "", v); if (length(v) > 16) fail("value of " $1 " is wider than 64 bits") }
	else { sub(/^0*/, "", v); if (length(v) > 19) fail("value of " $1 " is out of range") }
	if ($1 == prev) fail("duplicate constant " $1)
	prev = $1
	printf "\t{ \"%s\", %sULL },\n", $1, $2
	n++
}
END {
	if (failed) exit 1
	print "};"
	print ""
	printf "const unsigned sf_const_count = %d;\n", n
}
