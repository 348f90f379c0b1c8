#!/bin/bash
# degraded-reach.sh IBFM... [-- GEN-ARGS]: on degraded fabrics (links
# removed at random from a fixed seed), routes each with every `ibfm`
# binary given (e.g. a base worktree's cli/ibfm, then this tree's) and
# checks the tables with `ibfm check` (every CA port and every switch to
# every LID, and the channel dependency graph), and evaluates them with
# `ibfm eval` (shift, and 20 random bisections). Prints one markdown row
# per (fabric, build): unreachable pairs (all, and from switches),
# credit loops, the wall time of the check (routing included), shift
# max / mean load, EBB.
# GEN-ARGS: one fabric's `ibfm topo gen` arguments instead of the list.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 IBFM... [-- GEN-ARGS]" >&2; exit 2; }
# shellcheck source=bench/scripts/builds.sh
. "$(dirname "$0")/builds.sh"
split_builds "$@"
fabrics=(
	"-l 3 -k 16 --remove-links 5 --seed 2"
	"-l 3 -k 20 --remove-links 8 --seed 1"
	"-l 3 -k 24 --remove-links 3 --seed 4"
	"-l 3 -k 24 --remove-links 8 --seed 6"
	"-l 3 -k 24 --remove-links 10 --seed 1"
	"-l 3 -k 24 --remove-links 20 --seed 2"
	"-l 3 -k 16 --remove-links 30 --seed 1"
	"-l 2 -k 16 --remove-links 65 --seed 3"
	"-l 3 -k 32 -n 4096 -r 8 --remove-links 10 --seed 5"
	"-l 3 -k 32 -n 8192 --remove-links 5 --seed 5"
	"-l 3 -k 32 -n 8192 --remove-links 10 --seed 5"
	"-l 3 -k 24 --remove-links 10 --seed 2"
	"-l 3 -k 24 --remove-links 15 --seed 1"
	"--preset superpod-h100 --units 4 --remove-links 5 --seed 1"
	"--preset superpod-h100 --units 8 --remove-links 10 --seed 1"
	"--preset b200-3tier --units 4 --remove-links 3 --seed 1"
	"--preset b200-3tier --units 16 --remove-links 10 --seed 2"
)
fabrics_from_args
echo "| fabric (ibfm topo gen) | build | unreachable pairs | from switches | credit loops | check s | shift max / mean | EBB |"
echo "|---|---|---|---|---|---|---|---|"
for fab in "${fabrics[@]}"; do
	# shellcheck disable=SC2086
	"${builds[0]}" topo gen $fab -o "$dir/f.topo" >/dev/null
	for b in "${builds[@]}"; do
		echo "$fab: $b" >&2
		t0=$(date +%s.%N)
		rc=0
		"$b" check --topo "$dir/f.topo" --json >"$dir/out.json" || rc=$?
		t1=$(date +%s.%N)
		[ "$rc" -le 1 ] || { echo "$b check failed ($rc) on $fab" >&2; exit 1; }
		"$b" eval --topo "$dir/f.topo" --pattern shift --json >"$dir/shift.json" || true
		"$b" eval --topo "$dir/f.topo" --pattern bisection --count 20 \
			--json >"$dir/ebb.json" || true
		python3 - "$dir" "$fab" "$b" "$t0" "$t1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1] + "/out.json"))
s = json.load(open(sys.argv[1] + "/shift.json"))
e = json.load(open(sys.argv[1] + "/ebb.json"))
print("| `%s` | %s | %d | %d | %d | %.2f | %g / %.3f | %.4f |" % (
    sys.argv[2], sys.argv[3], d["unreachable_pairs"],
    d["unreachable_switch_source_pairs"], d["credit_loops"],
    float(sys.argv[5]) - float(sys.argv[4]), s["max_load"], s["mean_load"],
    e["ebb"]))
EOF
	done
done
