#!/bin/bash
# The library's floors (HACKING.md), checked on what was built: every
# undefined symbol of a preload/ object is bound to the object that
# defines it, and
#   - no object calls (or takes the address of) anything in a floor above
#     its own;
#   - no more than 4 objects all reach each other (a strongly connected
#     group of the graph): each unit has a place, not one knot.
# Usage: tests/layers.sh [BUILD_DIR [OBJECT...]]; exits 1 with the
# offending edges or groups.  The objects are the ones the library is
# linked from (the Makefile names them: an object left in the build
# directory by an older layout is not the library's); without them,
# every object under BUILD_DIR/pic/preload.  The floors, lowest first,
# are the Makefile's FLOORS.
set -euo pipefail

b=${1:-build}
[ $# -gt 0 ] && shift
top=$(cd "$(dirname "$0")/.." && pwd)
floors=$(sed -n 's/^FLOORS := //p' "$top/Makefile")
[ -n "$floors" ] || { echo "layers: no FLOORS in the Makefile" >&2; exit 1; }
if [ $# -gt 0 ]; then
	objs=$(printf '%s\n' "$@" | grep "^$b/pic/preload/" | sort)
else
	objs=$(find "$b/pic/preload" -name '*.o' | sort)
fi
[ -n "$objs" ] || { echo "layers: no objects under $b/pic/preload: build first" >&2; exit 1; }
# The generated wrappers belong to interpose/.
[ -f "$b/pic/$b/gen/wrappers.c.o" ] && objs="$objs $b/pic/$b/gen/wrappers.c.o"

for o in $objs; do
	n=${o#"$b/pic/preload/"}
	[ "$n" != "$o" ] || n=interpose/wrappers.c.o
	nm "$o" | awk -v n="${n%.o}" '
		NF == 3 && $2 ~ /^[TDBRVW]$/ { print "D", n, $3 }
		NF == 2 && $1 == "U" { print "U", n, $2 }'
done | awk -v floors="$floors" '
	BEGIN { nf = split(floors, f, " "); for (i = 1; i <= nf; i++) level[f[i]] = i }
	function floor_of(obj,  d) { d = obj; sub(/\/.*/, "", d); return d }
	$1 == "D" { if (!($3 in def)) def[$3] = $2; objs[$2] = 1; next }
	$1 == "U" { use[NR] = $2 " " $3; objs[$2] = 1 }
	END {
		bad = 0
		for (k in objs) if (!(floor_of(k) in level)) {
			printf "layers: %s is in no floor of the Makefile (%s)\n", k, floors
			bad = 1
		}
		for (r in use) {
			split(use[r], p, " ")
			if (!(p[2] in def) || def[p[2]] == p[1]) continue
			a = p[1]; t = def[p[2]]
			if (level[floor_of(a)] < level[floor_of(t)]) {
				printf "layers: %s uses %s of %s, a floor above it\n", a, p[2], t
				bad = 1
			}
			edge[a, t] = 1
		}
		# Which objects reach which (transitive closure), then the groups
		# of objects that reach each other.
		n = 0
		for (k in objs) name[++n] = k
		for (i = 1; i <= n; i++) for (j = 1; j <= n; j++)
			reach[i, j] = (i == j) || ((name[i], name[j]) in edge)
		for (m = 1; m <= n; m++) for (i = 1; i <= n; i++) if (reach[i, m])
			for (j = 1; j <= n; j++) if (reach[m, j]) reach[i, j] = 1
		for (i = 1; i <= n; i++) {
			if (done[i]) continue
			g = name[i]; size = 1
			for (j = i + 1; j <= n; j++) if (reach[i, j] && reach[j, i]) {
				g = g " " name[j]; size++; done[j] = 1
			}
			if (size > 4) {
				printf "layers: %d objects all reach each other: %s\n", size, g
				bad = 1
			}
		}
		if (!bad) printf "layers: %d objects in %d floors, no edge upwards, no group over 4\n", n, nf
		exit bad
	}'
