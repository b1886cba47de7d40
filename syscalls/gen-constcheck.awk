# Generates, from syscalls/x86_64/constants.tbl, one check per constant for
# the unit test (tests/unit/test_systab.c): wherever the headers the test
# includes define the same name, the two values must agree.  A name that no
# included header defines is simply not checked.
BEGIN {
	print "/* Generated from syscalls/x86_64/constants.tbl by syscalls/gen-constcheck.awk. Do not edit. */"
}
function fail(msg) {
	printf "constants.tbl:%d: %s\n", FNR, msg > "/dev/stderr"
	failed = 1
	exit 1
}
/^[ \t]*(#|$)/ { next }
{
	if (NF < 2 || $1 !~ /^[A-Z_][A-Z0-9_]*$/) fail("bad row '" $0 "' (expected NAME value)")
	if ($2 !~ /^-?(0x[0-9a-fA-F]+|[0-9]+)$/) fail("bad value for " $1 ": '" $2 "'")
	printf "#ifdef %s\nSF_CONST_CHECK(%s, %sULL)\n#endif\n", $1, $1, $2
}
END {
	if (failed) exit 1
}
