# Generates the C table of systemd's system call groups from
# syscalls/systemd-groups.txt (its format is at its top), expanding the
# groups a group includes and keeping the names the x86-64 table has.
# Usage: awk -f gen-groups.awk syscalls/x86_64/syscalls.tbl syscalls/systemd-groups.txt
# Refuses a member outside a group, a group without its description or
# named twice, an included group that does not exist, and a cycle.
function fail(msg) {
	printf "%s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"
	failed = 1
	exit 1
}
# Adds the x86-64 numbers of group g (and of those it includes) to out[].
function expand(g, depth,    i, m) {
	if (depth > ngroups) { cycle = g; return }
	for (i = 1; i <= nmem[g]; i++) {
		m = mem[g, i]
		if (m ~ /^@/) {
			if (!(m in gidx)) { missing = m; return }
			expand(m, depth + 1)
		} else if (m in nr) {
			out[nr[m]] = 1
		}
	}
}
FNR == NR {
	if ($0 !~ /^[ \t]*(#|$)/) nr[$2] = $1
	next
}
/^# version: / { version = substr($0, 12); next }
/^#/ || /^[ \t]*$/ { next }
/^@/ {
	g = $1
	if (g !~ /^@[a-z0-9-]+$/) fail("bad group name '" g "'")
	if (g in gidx) fail("group " g " twice")
	gidx[g] = ++ngroups
	order[ngroups] = g
	nmem[g] = 0
	next
}
/^    # / {
	if (g == "" || g in about) fail("a description outside a group's first line")
	about[g] = substr($0, 7)
	next
}
/^    [@a-z0-9_-]+$/ {
	if (g == "") fail("a member outside a group")
	if (!(g in about)) fail("group " g " has no description line")
	mem[g, ++nmem[g]] = substr($0, 5)
	next
}
{ fail("unexpected line '" $0 "'") }
END {
	if (failed) exit 1
	if (version == "") { FNR = 0; fail("no '# version: ' line") }
	print "/* Generated from syscalls/systemd-groups.txt by syscalls/gen-groups.awk. Do not edit. */"
	print "#include \"systab.h\""
	print ""
	printf "const char sf_groups_version[] = \"%s\";\n\n", version
	for (k = 1; k <= ngroups; k++) {
		g = order[k]
		delete out
		cycle = missing = ""
		expand(g, 0)
		if (cycle != "") { FNR = 0; fail("groups include each other: " g " ... " cycle) }
		if (missing != "") { FNR = 0; fail(g " includes " missing ", which is not a group") }
		n = 0
		list[k] = ""
		for (i = 0; i < 512; i++)
			if (i in out) {
				list[k] = list[k] sprintf("%s%d", (n == 0 ? "\n\t\t" : n % 16 ? ", " : ",\n\t\t"), i)
				n++
			}
		count[k] = n
	}
	print ""
	# the members in the rows, not pointed to (systab.h)
	print "const struct sf_group sf_groups[] = {"
	for (k = 1; k <= ngroups; k++) {
		a = about[order[k]]
		if (length(order[k]) >= 24) { FNR = 0; fail("group name " order[k] " is longer than SF_GROUPNAME_MAX - 1") }
		if (length(a) >= 96) { FNR = 0; fail("the description of " order[k] " is longer than SF_GROUPABOUT_MAX - 1") }
		gsub(/\\/, "\\\\", a); gsub(/"/, "\\\"", a)
		printf "\t{ \"%s\", \"%s\", {%s }, %d },\n", order[k], a, list[k], count[k]
	}
	print "};"
	printf "const unsigned sf_group_count = %d;\n", ngroups
}
