#!/bin/bash
# tables.sh [BENCH_TABLES]: fingerprints of the routing pass's tables,
# full routes and 8 incremental updates each, on the test zoo
# (tests/zoo.list) and on degraded fabrics, rail fabrics and an
# 11,664-host tree (bench/scripts/degraded.list), with LIDs in node order and in
# an SM's scattered order. Run it with two builds' bench_tables and diff
# the outputs: a change meant to keep the tables (a refactor) must print
# the same lines.
#   bench/scripts/tables.sh >before.txt; ...; bench/scripts/tables.sh | diff before.txt -
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tables=${1:-$here/bench_tables}
ibfm=${IBFM:-$here/../cli/ibfm}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
grep -hv '^#' "$here/../tests/zoo.list" "$here/scripts/degraded.list" | while read -r name args; do
	# shellcheck disable=SC2086
	"$ibfm" topo gen $args -o "$dir/$name.topo" >/dev/null
	for seed in "" 1; do
		"$tables" "$dir/$name.topo" $seed | sed "s/^/$name ${seed:-0} /"
	done
done
