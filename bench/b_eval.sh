#!/usr/bin/env bash
# The policy evaluator's cost per decision (bench/eval_bench.c).
set -eu
# The policy language as `make all` built it (see b_bpf.sh).
[ -f "$B/obj/filter/apply.c.o" ] || make -s -C "$TOP" B="$B" all
mkdir -p "$B/bench"
${CC:-cc} -O2 -std=gnu11 -D_GNU_SOURCE -I"$TOP/filter" -I"$B/gen" -o "$B/bench/eval_bench" \
	"$TOP/bench/eval_bench.c" "$B"/obj/filter/*.c.o $(find "$B/obj" -path '*/gen/*.c.o')
"$B/bench/eval_bench"
