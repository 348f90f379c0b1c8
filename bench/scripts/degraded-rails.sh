#!/bin/bash
# degraded-rails.sh IBFM... [-- GEN-ARGS]: rail-optimized fabrics (the
# B200-style 3-tier and SuperPOD H100 presets, a rail tree) with links
# removed at random from fixed seeds, routed by each `ibfm` given (e.g. a
# base worktree's cli/ibfm, then this tree's) and loaded with `ibfm eval`:
# shift over every host, and each rail's own shift and ring (all rails at
# once). Prints one markdown row per fabric: max / mean load per build.
# PATTERNS picks others (e.g. "shift bisection": EBB for bisection).
# GEN-ARGS: one fabric's `ibfm topo gen` arguments instead of the list.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 IBFM... [-- GEN-ARGS]" >&2; exit 2; }
# shellcheck source=bench/scripts/builds.sh
. "$(dirname "$0")/builds.sh"
split_builds "$@"
fabrics=()
for u in 4 8; do
	for x in 1 2 3 5; do
		for s in 1 2 3; do
			fabrics+=("--preset b200-3tier --units $u --remove-links $x --seed $s")
		done
	done
done
fabrics+=(
	"--preset b200-3tier --units 16 --remove-links 10 --seed 2"
	"--preset b200-3tier --units 4 --remove-switches 1 --seed 1"
	"--preset superpod-h100 --units 4 --remove-links 5 --seed 1"
	"--preset superpod-h100 --units 8 --remove-links 10 --seed 1"
	"-l 3 -k 32 -n 4096 -r 8 --remove-links 10 --seed 5"
	"-l 3 -k 32 -n 4096 -r 8 --remove-links 2 --seed 1"
)
fabrics_from_args
read -ra patterns <<<"${PATTERNS:-shift rail-shift rail-ring}"
[ ${#patterns[@]} -gt 0 ] || { echo "$0: PATTERNS names no pattern" >&2; exit 2; }
head="| fabric (ibfm topo gen) |"
rule="|---|"
for b in "${builds[@]}"; do
	for p in "${patterns[@]}"; do
		[ "$p" = "${patterns[0]}" ] && head="$head $b:"
		head="$head $p |"
		rule="$rule---|"
	done
done
echo "$head"
echo "$rule"
for fab in "${fabrics[@]}"; do
	echo "$fab" >&2
	# shellcheck disable=SC2086
	"${builds[0]}" topo gen $fab -o "$dir/f.topo" >/dev/null
	row="| \`$fab\` |"
	for b in "${builds[@]}"; do
		for p in "${patterns[@]}"; do
			"$b" eval --topo "$dir/f.topo" --pattern "$p" --json >"$dir/e.json"
			row="$row $(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
if "ebb" in d:
    print("%.3f" % d["ebb"])
else:
    print("%g / %.3f" % (d["max_load"], d["mean_load"]))' "$dir/e.json") |"
		done
	done
	echo "$row"
done
