#!/usr/bin/env bash
# Runs every end-to-end test, tests/e2e/t_*.sh, each in its own scratch
# directory.  A test passes by exiting 0; its output is shown when it fails.
# A test that cannot run here (a package, a kernel feature missing) exits 0
# after a line "skip: WHY": the line is shown and the test counted skipped
# (a test that skips a part only goes on after the line).
# Usage: bash tests/e2e/run.sh [NAME-PATTERN]   (B=build dir, default build)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
export B=${B:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
export TOP=$top
pattern=${1:-}
pass=0 fail=0 skipped=0 failed=()
for t in "$here"/t_*.sh; do
	name=$(basename "$t" .sh)
	[[ -n $pattern && $name != *$pattern* ]] && continue
	scratch=$(mktemp -d "${TMPDIR:-/tmp}/secfilter-e2e.XXXXXX")
	start=$(date +%s.%N)
	if out=$(cd "$scratch" && SCRATCH=$scratch timeout 300 bash "$t" 2>&1); then
		pass=$((pass + 1))
		printf 'ok   %-40s %5.1fs\n' "$name" "$(echo "$(date +%s.%N) - $start" | bc)"
		if skips=$(printf '%s\n' "$out" | grep '^skip: '); then
			skipped=$((skipped + 1))
			printf '%s\n' "$skips" | sed 's/^/     | /'
		fi
	else
		fail=$((fail + 1)); failed+=("$name")
		printf 'FAIL %s\n' "$name"
		printf '%s\n' "$out" | sed 's/^/     | /'
	fi
	rm -rf "$scratch"
done
echo "e2e: $pass passed ($skipped skipped in whole or part), $fail failed${failed:+: ${failed[*]}}"
[ "$fail" -eq 0 ]
