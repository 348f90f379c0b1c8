#!/bin/bash
# Job ring loads on static and job-aware routes over every fabric of the
# test zoo (tests/zoo.list): bench_jobs with N seeded random placements
# of 4 to 64 jobs each (default 1,000). Prints one row a fabric; with
# -P also the whole fabric's shift, ring and all-to-all loads (slow: use
# a smaller N).
#   bench/scripts/jobs-zoo.sh [N [-P]]
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-1000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
make -s -C "$top/bench" bench_jobs >&2
printf '%-24s ' fabric
"$top/bench/bench_jobs" -l 2 -k 4 -N 1 | head -1
grep -v '^#' "$top/tests/zoo.list" | while read -r name args; do
	# shellcheck disable=SC2086 # ARGS are words
	"$top/cli/ibfm" topo gen $args -o "$dir/$name.topo" >/dev/null
	printf '%-24s ' "$name"
	"$top/bench/bench_jobs" -t "$dir/$name.topo" -N "$n" -q ${2:+"$2"}
done
