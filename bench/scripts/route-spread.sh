#!/bin/bash
# route-spread.sh ROUNDS BENCH_ROUTE... [-- ARGS]: every route's own time
# (bench_route's stderr, 5 routes a run), for each build given and 1 and
# 2 threads, interleaved over ROUNDS rounds, pinned to cores 0-1; prints
# per (build, threads) the minimum, the median and how many routes. On a
# noisy VM the minimum moves least; route-ab.sh gives the medians.
# Default fabric: 45,056 hosts, LIDs in an SM's order.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 ROUNDS BENCH_ROUTE... [-- ARGS]" >&2; exit 2; }
rounds=$1
shift
# shellcheck source=bench/scripts/builds.sh
. "$(dirname "$0")/builds.sh"
split_builds "$@"
[ ${#args[@]} -gt 0 ] || args=(-l 3 -k 64 -n 45056 -s 1)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for r in $(seq "$rounds"); do
	for j in 1 2; do
		for b in "${builds[@]}"; do
			echo "round $r, $j thread(s): $b" >&2
			taskset -c 0,1 "$b" "${args[@]}" -r 5 -q -j "$j" 2>&1 >/dev/null |
				awk -v b="$b" -v j="$j" '/^route / { print b, j, $2 }' >>"$out"
		done
	done
done
sort -k1,1 -k2,2n -k3,3n "$out" | awk '
	{ k = $1 " " $2; v[k, ++n[k]] = $3 }
	END {
		for (k in n)
			printf "%s thread(s): min %.1f ms, median %.1f ms, %d routes\n",
				k, v[k, 1], v[k, int((n[k] + 1) / 2)], n[k]
	}' | sort
