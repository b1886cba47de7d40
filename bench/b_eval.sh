#!/usr/bin/env bash
# The policy evaluator's cost per decision (bench/eval_bench.c).
set -eu
GEN="systab_data.c consts_data.c errno_data.c groups_data.c"
for g in $GEN; do
	[ -f "$B/gen/$g" ] || make -s -C "$TOP" B="$B" "$B/gen/$g"
done
mkdir -p "$B/bench"
${CC:-cc} -O2 -std=gnu11 -D_GNU_SOURCE -I"$TOP/filter" -I"$B/gen" -o "$B/bench/eval_bench" \
	"$TOP/bench/eval_bench.c" "$TOP"/filter/{parse,build,apply,print,error,util,systab,mem-libc}.c \
	$(for g in $GEN; do echo "$B/gen/$g"; done)
"$B/bench/eval_bench"
