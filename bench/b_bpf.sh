#!/usr/bin/env bash
# The kernel filter against libseccomp's for the same policies: BPF
# instructions executed per syscall, and ns per call (bench/bpf_bench.c).
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
B=${B:-$TOP/build}
case $B in /*) ;; *) B=$TOP/$B ;; esac
# The policy language as `make all` built it (bench depends on all): its
# objects, generated tables included, rather than a list of sources here
# that new ones leave behind.
[ -f "$B/obj/filter/bpf.c.o" ] || make -s -C "$TOP" B="$B" all
mkdir -p "$B/bench"
${CC:-cc} -O2 -std=gnu11 -D_GNU_SOURCE -I"$TOP/filter" -I"$TOP/tests/unit" -I"$B/gen" \
	-o "$B/bench/bpf_bench" "$TOP/bench/bpf_bench.c" "$TOP/tests/unit/bpf_sim.c" \
	"$B"/obj/filter/*.c.o $(find "$B/obj" -path '*/gen/*.c.o') -lseccomp
"$B/bench/bpf_bench"
