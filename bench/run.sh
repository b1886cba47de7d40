#!/usr/bin/env bash
# `make bench`: runs every bench/b_*.sh in order.  Each prints its own table:
# medians of several runs, as ratios against the same run without secfilter
# and against kernel seccomp built with libseccomp.
set -u
here=$(cd "$(dirname "$0")" && pwd)
export TOP=$(cd "$here/.." && pwd)
export B=${B:-build}
case $B in /*) ;; *) B=$TOP/$B ;; esac
status=0
for b in "$here"/b_*.sh; do
	echo "### $(basename "$b" .sh)"
	bash "$b" || status=1
	echo
done
exit $status
