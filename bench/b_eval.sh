#!/usr/bin/env bash
# The policy evaluator's cost per decision (bench/eval_bench.c).
set -eu
mkdir -p "$B/bench"
${CC:-cc} -O2 -std=gnu11 -D_GNU_SOURCE -I"$TOP/filter" -I"$B/gen" -o "$B/bench/eval_bench" \
	"$TOP/bench/eval_bench.c" "$TOP"/filter/{parse,apply,print,error,util,systab,mem-libc}.c \
	"$B"/gen/systab_data.c "$B"/gen/consts_data.c
"$B/bench/eval_bench"
