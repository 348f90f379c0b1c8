#!/bin/bash
# tables.sh [BENCH_TABLES]: fingerprints of the routing pass's tables,
# full routes and 8 incremental updates each, on the test zoo
# (tests/zoo.list), degraded fabrics, rail fabrics and an 11,664-host
# tree, with LIDs in node order and in an SM's scattered order. Run it
# with two builds' bench_tables and diff the outputs: a change meant to
# keep the tables (a refactor) must print the same lines.
#   bench/scripts/tables.sh >before.txt; ...; bench/scripts/tables.sh | diff before.txt -
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tables=${1:-$here/bench_tables}
ibfm=${IBFM:-$here/../cli/ibfm}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
{
	grep -v '^#' "$here/../tests/zoo.list"
	cat <<LIST
deg3-k16-links10 -l 3 -k 16 --remove-links 10 --seed 99
deg3-k24-links10 -l 3 -k 24 --remove-links 10 --seed 2
deg2-k36-links5 -l 2 -k 36 --remove-links 5 --seed 7
deg3-k16-switches3 -l 3 -k 16 --remove-switches 3 --seed 4
su4-links3 --preset superpod-h100 --units 4 --remove-links 3 --seed 42
b200-u4-links2 --preset b200-3tier --units 4 --remove-links 2 --seed 42
b200-u8-links1 --preset b200-3tier --units 8 --remove-links 1 --seed 2
rails2-k64-r8 -l 2 -k 64 --rails 8 --hosts 512
ftree3-k36 -l 3 -k 36
LIST
} | while read -r name args; do
	# shellcheck disable=SC2086
	"$ibfm" topo gen $args -o "$dir/$name.topo" >/dev/null
	for seed in "" 1; do
		"$tables" "$dir/$name.topo" $seed | sed "s/^/$name ${seed:-0} /"
	done
done
