# Generates the C error-number table from syscalls/x86_64/errno.tbl: the
# rows as they are (for lookups by name), the canonical name of each
# number (its first row) for the printer, and each number's text (what
# strerror says).  Refuses bad names, numbers outside 1..4095, a name
# twice, an alias before its number's row, a canonical row without a text
# and an alias with one.
BEGIN {
	print "/* Generated from syscalls/x86_64/errno.tbl by syscalls/gen-errno.awk. Do not edit. */"
	print "#include \"systab.h\""
	print ""
	print "const struct sf_errno sf_errnos[] = {"
	n = 0; top = 0; pool = 0
}
function fail(msg) {
	printf "errno.tbl:%d: %s\n", FNR, msg > "/dev/stderr"
	failed = 1
	exit 1
}
/^[ \t]*#[ \t]*aliases/ { aliases = 1; next }
/^[ \t]*(#|$)/ { next }
{
	text = $0
	sub(/^[ \t]*[^ \t]+[ \t]+[^ \t]+[ \t]*/, "", text)
	if (NF < 2 || $1 !~ /^E[A-Z0-9]+$/) fail("bad row '" $0 "' (expected NAME number text)")
	if (length($1) >= 16) fail("name " $1 " is longer than SF_ERRNONAME_MAX - 1")
	if ($2 !~ /^[0-9]+$/ || $2 + 0 < 1 || $2 + 0 > 4095) fail("bad number for " $1 ": '" $2 "' (1..4095)")
	if ($1 in seen) fail("duplicate name " $1)
	seen[$1] = 1
	v = $2 + 0
	if (aliases && !(v in canon)) fail("alias " $1 " of " v ", which has no row above")
	if (!aliases && (v in canon)) fail(v " has a row already (" canon[v] "): list " $1 " under '# aliases'")
	if (aliases && text != "") fail("alias " $1 " has a text: its number's row gives it")
	if (!aliases && text == "") fail("no text for " $1)
	if (text ~ /["\\]/) fail("a quote or backslash in the text of " $1)
	if (!(v in canon)) {
		canon[v] = $1; row[v] = n
		texts[v] = text; at[v] = pool; pool += length(text) + 1
	}
	if (v > top) top = v
	printf "\t{ \"%s\", %d },\n", $1, v
	n++
}
END {
	if (failed) exit 1
	if (pool > 65535) { print "errno.tbl: the texts are longer than 65535 bytes" > "/dev/stderr"; exit 1 }
	print "};"
	printf "const unsigned sf_errno_count = %d;\n\n", n
	# each number's canonical row in sf_errnos, 65535 for none: indexes,
	# not pointers (systab.h)
	printf "const unsigned short sf_errno_canon[%d] = {", top + 1
	for (v = 0; v <= top; v++)
		printf "%s%d,", (v % 16 ? " " : "\n\t"), (v in canon) ? row[v] : 65535
	print "\n};"
	printf "const unsigned sf_errno_top = %d;\n\n", top
	# the texts, NUL-separated in one array, and where each number's
	# starts in it (for a number without a row, an offset never used)
	print "const char sf_errno_texts[] ="
	for (v = 0; v <= top; v++)
		if (v in texts)
			printf "\t\"%s\\0\"\n", texts[v]
	print "\t;"
	printf "const unsigned short sf_errno_text_at[%d] = {", top + 1
	for (v = 0; v <= top; v++)
		printf "%s%d,", (v % 16 ? " " : "\n\t"), (v in at) ? at[v] : 65535
	print "\n};"
}
