#!/bin/bash
# route-ab.sh BASE [ROUNDS] [-- BENCH_ROUTE ARGS]: the full route before
# and after a change, in one run: bench_route of another build (BASE,
# e.g. a worktree's bench/bench_route) and this one's, interleaved,
# ROUNDS rounds (default 3) of 1 and 2 threads, both pinned to cores 0-1.
# Prints one line per (build, threads, round): the route's median of 5,
# the write bound, the one-link reroute's median, and the steps of the
# last route (stderr of bench_route). Default fabric: the largest single
# subnet, LIDs in an SM's order (-l 3 -k 64 -n 45056 -s 1).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 BASE_BENCH_ROUTE [ROUNDS] [-- ARGS]" >&2; exit 2; }
base=$1
rounds=${2:-3}
shift $(($# >= 2 ? 2 : 1))
[ "${1:-}" = -- ] && shift
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(-l 3 -k 64 -n 45056 -s 1)
here=$(dirname "$0")/../bench_route
err=$(mktemp)
trap 'rm -f "$err"' EXIT
for r in $(seq "$rounds"); do
	for j in 1 2; do
		for v in before after; do
			b=$base
			[ $v = after ] && b=$here
			out=$(taskset -c 0,1 "$b" "${args[@]}" -r 5 -q -j "$j" 2>"$err")
			steps=$(grep '^route' "$err" | tail -1 | sed 's/^route [0-9.]* ms on [0-9]* threads: //')
			echo "$out" | awk -F'|' -v v=$v -v j=$j -v r=$r -v s="$steps" \
				'{ printf "%-6s %d thread(s) round %d: route%s bound%s reroute%s | %s\n", v, j, r, $6, $7, $8, s }'
		done
	done
done
