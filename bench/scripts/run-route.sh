#!/bin/bash
# Prints the routing benchmark table of docs/BENCHMARKS.md: one process
# per fabric (so peak RSS is that fabric's), pinned to one core.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "| fabric | hosts | switches | LIDs | route (median) | lower bound | reroute 1 link (median) | entries changed | blocks changed | LFT bytes | peak RSS | SHARP trees (median) | shift max | ring max | all2all max | reroute 1 link (max) |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for args in "-l 2 -k 36" "-l 3 -k 16" "-l 3 -k 36" "-l 3 -k 64 -n 45056"; do
	echo "bench_route $args" >&2
	taskset -c 0 ./bench_route $args -r 5
done
