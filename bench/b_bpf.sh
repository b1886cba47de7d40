#!/usr/bin/env bash
# The kernel filter against libseccomp's for the same policies: BPF
# instructions executed per syscall, and ns per call (bench/bpf_bench.c).
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
B=${B:-$TOP/build}
case $B in /*) ;; *) B=$TOP/$B ;; esac
[ -f "$B/gen/systab_data.c" ] && [ -f "$B/gen/consts_data.c" ] ||
	make -s -C "$TOP" B="$B" "$B/gen/systab_data.c" "$B/gen/consts_data.c"
mkdir -p "$B/bench"
${CC:-cc} -O2 -std=gnu11 -D_GNU_SOURCE -I"$TOP/filter" -I"$TOP/tests/unit" -I"$B/gen" \
	-o "$B/bench/bpf_bench" "$TOP/bench/bpf_bench.c" "$TOP/tests/unit/bpf_sim.c" \
	"$TOP"/filter/*.c "$B"/gen/systab_data.c "$B"/gen/consts_data.c -lseccomp
"$B/bench/bpf_bench"
