#!/bin/bash
# ibfm's max load beside its lower bound (routing/checks/bound.h), per
# pattern, on the test zoo (tests/zoo.list) and bench/scripts/degraded.list:
# one markdown row a fabric, each cell "max_load / lower_bound"; rail
# patterns only where the fabric has rails. The table in docs/routing.md
# ("How far from the limit").
#   bench/scripts/bounds.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
ibfm=${IBFM:-$here/../cli/ibfm}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
patterns=(shift ring all2all random bisection rail-shift rail-alltoall xrail-alltoall)
printf '| fabric | hosts |'
printf ' %s |' "${patterns[@]}"
printf '\n|---|---|'
printf -- '---|%.0s' "${patterns[@]}"
printf '\n'
grep -hv '^#' "$here/../tests/zoo.list" "$here/scripts/degraded.list" | while read -r name args; do
	# shellcheck disable=SC2086 # ARGS are words
	"$ibfm" topo gen $args -o "$dir/$name.topo" >/dev/null
	row="" hosts=""
	for p in "${patterns[@]}"; do
		if out=$("$ibfm" eval -t "$dir/$name.topo" --pattern "$p" --json 2>/dev/null); then
			row+=" $(jq -r '"\(.max_load) / \(.lower_bound)"' <<<"$out") |"
			hosts=$(jq -r .hosts <<<"$out")
		else
			row+=" - |"
		fi
	done
	printf '| %s | %s |%s\n' "$name" "$hosts" "$row"
done
