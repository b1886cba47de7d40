# Generates the C syscall table from syscalls/x86_64/syscalls.tbl.
# Refuses rows out of order, duplicate numbers or names, numbers at or above
# SF_NR_COUNT, unknown type classes, more than six arguments, an argument
# named twice in a row, and sys_ni_syscall rows with arguments (the kernel
# reads none for them).  Entry points must be unique, sys_ni_syscall aside,
# because policies accept them as aliases.  Names must fit the rows'
# arrays (systab.h: SF_NAME_MAX, SF_ENTRY_MAX, SF_ARGNAME_MAX).  Also
# writes the indexes of the rows sorted by name and by entry point, in
# byte order (the Makefile runs this with LC_ALL=C), each number's row, and
# a byte per number that says whether the table has it.
BEGIN {
	types["s32"] = "SF_T_S32"; types["u32"] = "SF_T_U32"; types["u16"] = "SF_T_U16"
	types["s64"] = "SF_T_S64"; types["u64"] = "SF_T_U64"; types["ptr"] = "SF_T_PTR"
	print "/* Generated from syscalls/x86_64/syscalls.tbl by syscalls/gen-systab.awk. Do not edit. */"
	print "#include \"systab.h\""
	print ""
	print "const struct sf_syscall sf_syscalls[] = {"
	last = -1; n = 0
}
function fail(msg) {
	printf "%s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"
	failed = 1
	exit 1
}
/^[ \t]*(#|$)/ { next }
{
	nr = $1 + 0
	if ($1 !~ /^[0-9]+$/) fail("bad number '" $1 "'")
	if (nr <= last) fail("number " nr " out of order")
	if (nr >= 512) fail("number " nr " is not below SF_NR_COUNT (512)")
	if (NF < 3) fail("expected: number name entry [type:arg ...]")
	if ($2 in seen) fail("duplicate name " $2)
	seen[$2] = 1
	if ($3 !~ /^sys_[a-z0-9_]+$/) fail("bad entry point '" $3 "'")
	if (length($2) >= 24) fail("name " $2 " is longer than SF_NAME_MAX - 1")
	if ($2 ~ /^sys_/) fail("name " $2 " starts with sys_, which lookups take for the prefix")
	if (length($3) >= 32) fail("entry point " $3 " is longer than SF_ENTRY_MAX - 1")
	if ($3 != "sys_ni_syscall") {
		if ($3 in entries) fail("entry point " $3 " also used by " entries[$3])
		entries[$3] = $2
	} else if (NF > 3) fail("sys_ni_syscall takes no arguments")
	if (NF - 3 > 6) fail("more than six arguments")
	args = ""
	split("", argseen)
	for (i = 4; i <= NF; i++) {
		if (split($i, p, ":") != 2 || !(p[1] in types) || p[2] !~ /^[a-z_][a-z0-9_]*$/)
			fail("bad argument '" $i "' (expected type:name, type one of s32 u32 u16 s64 u64 ptr)")
		if (p[2] in argseen) fail("argument " p[2] " named twice")
		if (length(p[2]) >= 24) fail("argument " p[2] " is longer than SF_ARGNAME_MAX - 1")
		argseen[p[2]] = 1
		args = args sprintf("{ \"%s\", %s }, ", p[2], types[p[1]])
	}
	printf "\t{ \"%s\", \"%s\", %d, %d, { %s} },\n", $2, $3, nr, NF - 3, args
	name[n] = $2; entry[n] = $3; row[nr] = n
	last = nr; n++
}
# idx[0..k) sorted by key[idx[i]]: insertion sort, a few hundred rows.
function sort_by(key, idx, k,    i, j, t) {
	for (i = 1; i < k; i++) {
		t = idx[i]
		for (j = i - 1; j >= 0 && key[idx[j]] > key[t]; j--)
			idx[j + 1] = idx[j]
		idx[j + 1] = t
	}
}
function print_index(cname, idx, k,    i) {
	printf "const unsigned short %s[] = {", cname
	for (i = 0; i < k; i++)
		printf "%s%d,", (i % 16 ? " " : "\n\t"), idx[i]
	print "\n};"
}
END {
	if (failed) exit 1
	print "};"
	print ""
	printf "const unsigned sf_syscall_count = %d;\n", n
	for (i = 0; i < n; i++) by_name[i] = i
	sort_by(name, by_name, n)
	print ""
	print_index("sf_syscall_by_name", by_name, n)
	k = 0
	for (i = 0; i < n; i++)
		if (entry[i] != "sys_ni_syscall") by_entry[k++] = i
	sort_by(entry, by_entry, k)
	print ""
	print_index("sf_syscall_by_entry", by_entry, k)
	printf "const unsigned sf_syscall_entry_count = %d;\n", k
	for (i = 0; i < 512; i++) by_nr[i] = (i in row) ? row[i] : 65535
	print ""
	print_index("sf_syscall_row", by_nr, 512)
	printf "\nconst unsigned char sf_syscall_listed[] __attribute__((aligned(8))) = {"
	for (i = 0; i < 512; i++)
		printf "%s%d,", (i % 32 ? " " : "\n\t"), (i in row)
	print "\n};"
}
