#!/usr/bin/env bash
# `make bench`: runs every bench/b_*.sh in order.  Each prints its own table:
# medians of several runs, as ratios against the same run without secfilter
# and against kernel seccomp built with libseccomp.
# Usage: bash bench/run.sh [NAME-PATTERN]   (only the b_*.sh whose name
# contains it, as `make bench-servers` runs b_servers)
set -u
here=$(cd "$(dirname "$0")" && pwd)
export TOP=$(cd "$here/.." && pwd)
export B=${B:-build}
case $B in /*) ;; *) B=$TOP/$B ;; esac
pattern=${1:-}
status=0
for b in "$here"/b_*.sh; do
	[[ -n $pattern && $(basename "$b" .sh) != *$pattern* ]] && continue
	echo "### $(basename "$b" .sh)"
	bash "$b" || status=1
	echo
done
exit $status
