#!/usr/bin/env bash
# Regenerates the programs test_minijail_diff compares with: every
# minijail policy of tests/e2e/policies compiled by minijail's own compiler,
# tools/compile_seccomp_policy.py, with the constants and syscall numbers of
# secfilter's tables (so that both read the same names), as NAME.bpf here.
# Usage: bash tests/unit/minijail/regen.sh MINIJAIL_CHECKOUT
# (google/minijail; the checked-in programs come from its commit 8d20993).
set -euo pipefail
mj=$(cd "${1:?usage: regen.sh MINIJAIL_CHECKOUT}" && pwd)
top=$(cd "$(dirname "$0")/../../.." && pwd)
out=$top/tests/unit/minijail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$top" "$tmp/constants.json" <<'PY'
import json, sys
top, dst = sys.argv[1], sys.argv[2]
def rows(name):
    for line in open(f"{top}/syscalls/x86_64/{name}.tbl"):
        f = line.split("#")[0].split()
        if f:
            yield f
syscalls = {f[1]: int(f[0]) for f in rows("syscalls")}
constants = {f[0]: int(f[1], 0) & (2**64 - 1) for f in rows("constants")}
for f in rows("errno"):
    constants.setdefault(f[0], int(f[1], 0))
json.dump({"arch_nr": 0xC000003E, "arch_name": "x86_64", "bits": 64,
           "syscalls": syscalls, "constants": constants}, open(dst, "w"))
PY
cd "$top/tests"
find e2e/policies unit/minijail -name '*.policy' | sort | while read -r f; do
	deny=
	grep -q '^@denylist' "$f" && deny=--denylist
	dst=$out/$(echo "$f" | tr / _).bpf
	(cd "$(dirname "$f")" && python3 "$mj/tools/compile_seccomp_policy.py" \
		--arch-json "$tmp/constants.json" $deny "$(basename "$f")" "$dst")
	echo "$f -> ${dst#$top/}"
done
