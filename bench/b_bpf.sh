#!/usr/bin/env bash
# The kernel filter against libseccomp's for the same policies: BPF
# instructions executed per syscall, and ns per call (bench/bpf_bench.c).
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
B=${B:-$TOP/build}
case $B in /*) ;; *) B=$TOP/$B ;; esac
GEN="systab_data.c consts_data.c errno_data.c groups_data.c"
for g in $GEN; do
	[ -f "$B/gen/$g" ] || make -s -C "$TOP" B="$B" "$B/gen/$g"
done
mkdir -p "$B/bench"
${CC:-cc} -O2 -std=gnu11 -D_GNU_SOURCE -I"$TOP/filter" -I"$TOP/tests/unit" -I"$B/gen" \
	-o "$B/bench/bpf_bench" "$TOP/bench/bpf_bench.c" "$TOP/tests/unit/bpf_sim.c" \
	"$TOP"/filter/*.c $(for g in $GEN; do echo "$B/gen/$g"; done) -lseccomp
"$B/bench/bpf_bench"
