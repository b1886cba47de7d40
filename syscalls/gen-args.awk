# Generates the C tables of argument hints (filter/decode.h) from
# syscalls/x86_64/args.tbl (its format is at its top).
# Usage: LC_ALL=C sort -k1,1 -s constants.tbl |
#        awk -f gen-args.awk syscalls.tbl - args.tbl
# The constants come sorted as gen-consts.awk sees them, so that a
# constant's index here is its index in sf_consts.
# Refuses unknown syscalls, arguments, constants, sets and kinds; a set
# named with two meanings; two names for one value in an enum or a field;
# a risky flag or a pair member that is not one bit of its set.
function fail(msg) {
	printf "%s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"
	failed = 1
	exit 1
}
# A constant's value as a number (exact below 2^53, which every member of
# a set is); mawk reads no hex by itself.
function num(s,    v, i, c, neg) {
	neg = s ~ /^-/
	sub(/^-/, "", s)
	v = 0
	if (s ~ /^0x/) {
		s = tolower(substr(s, 3))
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	} else {
		v = s + 0
	}
	return neg ? -v : v
}
function one_bit(v) {
	if (v <= 0) return 0
	while (v > 1) { if (v % 2) return 0; v = v / 2 }
	return 1
}
function need_const(c) {
	if (!(c in cidx)) fail("unknown constant " c)
}
function new_set(s, flags) {
	if (s in sidx) {
		if (sflags[s] != flags) fail("set " s " is both an enum and flags")
		return
	}
	if (length(s) >= 16) fail("set name " s " is longer than 15")
	sidx[s] = nsets
	sname[nsets++] = s
	sflags[s] = flags
	nitem[s] = 0; nfield[s] = 0
}
# No value twice in one list (the enum's, or the field's): a value has one name.
function no_dup(list, s, c,    k) {
	k = list SUBSEP s SUBSEP sprintf("%.0f", num(cval[c]))
	if (k in seenval) fail("in set " s ", " c " has the value of " seenval[k])
	seenval[k] = c
}
BEGIN {
	kinds["num"] = "SF_AK_NUM"; kinds["fd"] = "SF_AK_FD"; kinds["dirfd"] = "SF_AK_DIRFD"
	kinds["path"] = "SF_AK_PATH"; kinds["str"] = "SF_AK_STR"; kinds["mode"] = "SF_AK_MODE"
	autos["-"] = "SF_AA_NO"; autos["yes"] = "SF_AA_YES"; autos["values"] = "SF_AA_VALUES"
}
FNR == 1 { file++ }
file == 1 {
	if ($0 ~ /^[ \t]*(#|$)/) next
	nr[$2] = $1
	for (i = 4; i <= NF; i++) {
		split($i, p, ":")
		argi[$2, p[2]] = i - 4
	}
	next
}
file == 2 {
	if ($0 ~ /^[ \t]*(#|$)/) next
	cidx[$1] = nconst++
	cval[$1] = $2
	next
}
/^[ \t]*(#|$)/ { next }
$1 == "enum" || $1 == "flags" {
	if (NF < 3) fail("expected: " $1 " SET CONST...")
	new_set($2, $1 == "flags")
	for (i = 3; i <= NF; i++) {
		need_const($i)
		if ($1 == "enum") no_dup("e", $2, $i)
		item[$2, nitem[$2]++] = $i
	}
	next
}
$1 == "field" {
	if (NF < 4) fail("expected: field SET MASK ITEM...")
	new_set($2, 1)
	if ($3 in cidx) fmask[$2] = cval[$3]
	else if ($3 ~ /^(0x[0-9a-fA-F]+|[0-9]+)$/) fmask[$2] = $3
	else fail("bad mask " $3)
	for (i = 4; i <= NF; i++) {
		if ($i ~ /^@/) {
			s2 = substr($i, 2)
			if (!(s2 in sidx) || sflags[s2]) fail($i " is not an enum defined above")
			for (j = 0; j < nitem[s2]; j++) {
				no_dup("f", $2, item[s2, j])
				field[$2, nfield[$2]++] = item[s2, j]
			}
			continue
		}
		need_const($i)
		no_dup("f", $2, $i)
		field[$2, nfield[$2]++] = $i
	}
	next
}
$1 == "risky" || $1 == "pair" {
	if (!($2 in sidx) || !sflags[$2]) fail($2 " is not a flags set defined above")
	if ($1 == "pair" && NF != 4) fail("expected: pair SET CONST CONST")
	for (i = 3; i <= NF; i++) {
		need_const($i)
		if (!one_bit(num(cval[$i]))) fail($i " is not a single bit")
		ok = 0
		for (j = 0; j < nitem[$2]; j++) if (item[$2, j] == $i) ok = 1
		for (j = 0; j < nfield[$2]; j++) if (field[$2, j] == $i) ok = 1
		if (!ok) fail($i " is not a member of set " $2)
		if ($1 == "risky") risky[$2] = risky[$2] (risky[$2] == "" ? "" : " | ") cval[$i] "ULL"
		else pair[$2, i - 3] = cval[$i] "ULL"
	}
	next
}
$1 == "arg" {
	if (NF < 4 || NF > 5) fail("expected: arg SYSCALL ARGUMENT KIND [AUTO]")
	if (!($2 in nr)) fail("unknown syscall " $2)
	if (!(($2, $3) in argi)) fail("sys_" $2 " has no argument " $3)
	a = nr[$2] * 8 + argi[$2, $3]
	au = NF == 5 ? $5 : "-"
	if (!(au in autos)) fail("bad AUTO '" au "' (expected -, yes or values)")
	kind = $4; set = 0; aux = "SF_NO_ARG"; cond = 0
	if (kind ~ /^sockaddr:/) {
		len = substr(kind, 10)
		if (!(($2, len) in argi)) fail("sys_" $2 " has no argument " len)
		kind = "SF_AK_SOCKADDR"; aux = argi[$2, len]
	} else if (kind ~ /^(enum|flags):/) {
		split(kind, p, ":")
		s = p[2]; c = ""
		if (s ~ /\?/) {
			split(s, q, "?"); s = q[1]
			if (split(q[2], r, "=") != 2 || !(($2, r[1]) in argi)) fail("bad condition " q[2])
			need_const(r[2])
			aux = argi[$2, r[1]]; cond = cval[r[2]]
		}
		if (!(s in sidx)) fail("unknown set " s)
		if (sflags[s] != (p[1] == "flags")) fail("set " s " is not " p[1])
		kind = p[1] == "flags" ? "SF_AK_FLAGS" : "SF_AK_ENUM"; set = sidx[s]
	} else if (kind in kinds) {
		kind = kinds[kind]
	} else {
		fail("bad kind '" kind "'")
	}
	# several rows for one argument: each decodes it under its own value
	# of the same other argument, and they agree on AUTO
	if (a in rowaux) {
		if (aux == "SF_NO_ARG" || rowaux[a] != aux) fail("argument " $3 " of " $2 " twice")
		if (rowauto[a] != au) fail("argument " $3 " of " $2 " with another AUTO")
		if ((a, cond) in rowcond) fail("argument " $3 " of " $2 " twice for " r[2])
	}
	rowaux[a] = aux; rowauto[a] = au; rowcond[a, cond] = 1
	row[nrows] = sprintf("{ %d, %d, %s, %s, %d, %s, %sULL }", nr[$2], argi[$2, $3], kind,
			     autos[au], set, aux, cond)
	keys[nrows] = a
	order[nrows] = nrows
	nrows++
	next
}
{ fail("bad row '" $0 "'") }
END {
	if (failed) exit 1
	print "/* Generated from syscalls/x86_64/args.tbl by syscalls/gen-args.awk. Do not edit. */"
	print "#include \"decode.h\""
	print ""
	print "const uint16_t sf_cset_items[] = {"
	n = 0
	for (k = 0; k < nsets; k++) {
		s = sname[k]
		ffirst[s] = n
		for (j = 0; j < nfield[s]; j++) { printf "\t%d, /* %s */\n", cidx[field[s, j]], field[s, j]; n++ }
		first[s] = n
		for (j = 0; j < nitem[s]; j++) { printf "\t%d, /* %s */\n", cidx[item[s, j]], item[s, j]; n++ }
	}
	print "};"
	print ""
	print "const struct sf_cset sf_csets[] = {"
	for (k = 0; k < nsets; k++) {
		s = sname[k]
		printf "\t{ \"%s\", %d, %d, %d, %d, %d, %sULL, %s, { %s, %s } },\n", s, sflags[s],
		       first[s], nitem[s], ffirst[s], nfield[s], (s in fmask) ? fmask[s] : "0",
		       risky[s] == "" ? "0" : risky[s],
		       ((s, 0) in pair) ? pair[s, 0] : "0", ((s, 1) in pair) ? pair[s, 1] : "0"
	}
	print "};"
	printf "const unsigned sf_cset_count = %d;\n\n", nsets
	# rows by number, then argument, an argument's rows in the file's order
	for (i = 1; i < nrows; i++) {
		t = order[i]
		for (j = i - 1; j >= 0 && keys[order[j]] > keys[t]; j--) order[j + 1] = order[j]
		order[j + 1] = t
	}
	print "const struct sf_argdesc sf_argdescs[] = {"
	for (i = 0; i < nrows; i++) printf "\t%s,\n", row[order[i]]
	print "};"
	printf "const unsigned sf_argdesc_count = %d;\n", nrows
}
