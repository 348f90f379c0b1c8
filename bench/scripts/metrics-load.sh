#!/bin/bash
# ibfmd's /metrics under load at scale: OpenSM (with the plugin) assigns
# LIDs on an ibsim fabric, ibfmd sweeps it and reads every port's
# counters, then N clients (default 10) scrape /metrics at once, plain
# and then with gzip (as Prometheus asks). Prints per mode: the body's
# size, time to the first byte and to the end (median and slowest of
# the N), and ibfmd's resident memory before and at its peak during the
# scrapes (sampled every 20 ms; VmHWM after). Heavy: takes
# /tmp/ibfm-heavy.lock.
# Usage: bench/scripts/metrics-load.sh [GEN ARGS] (default -l 3 -k 48:
# 27,648 hosts + 2,880 switches = 30,528 nodes). N=clients.
set -u
exec 9>/tmp/ibfm-heavy.lock
flock 9
cd "$(dirname "$0")/../.."
. scripts/tree-env.sh
. bench/scripts/ibfmd-lib.sh
[ $# -eq 0 ] && set -- -l 3 -k 48
n=${N:-10}
command -v curl >/dev/null || die "curl not found"

"$IBFM" topo gen "$@" -o "$T/f.topo" >/dev/null || die "gen $*"
printf '%s\n' "socket $T/ibfmd.sock" "sweep_interval 3600" \
	"light_interval 0" "metrics 127.0.0.1:0" >"$T/ibfmd.conf"
SIM_WAIT=6000 sim_start "$T/f.topo" -N 65536 -S 8192 -P 524288 -L 49152
host=$(sed -n 's/^Ca.*# "\(.*\)"$/\1/p' "$T/f.topo" | head -1)
osm_conf "$T/opensm.conf" "$T/state" "ibfm"
GLIBC_TUNABLES=glibc.malloc.hugetlb=1:glibc.malloc.top_pad=67108864 \
	OSM_WAIT=6000 OSM_HOST=$(sed -n 's/^Ca.*# "\(.*\)"$/\1/p' "$T/f.topo" | sed -n 2p) \
	osm_start "$T/opensm.conf"
ibfmd_start "$host"
until_ok 6000 "$DPID" ibfmd more sweeps 0
# A sweep after OpenSM's LIDs: the counters of every port.
"$IBFM" --socket "$T/ibfmd.sock" sweep >/dev/null
until_ok 6000 "$DPID" ibfmd more sweeps 1
port=$(metrics_port "$T/ibfmd.log")
rss() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$DPID/status"; }

echo
echo "\`ibfm topo gen $*\`: $(num "$T/s.json" nodes) nodes, $(num "$T/s.json" counter_ports) ports' counters; $n clients at once"
echo
echo "| mode | body MB | first byte s: median / slowest | whole s: median / slowest | ibfmd RSS MB before | peak during |"
echo "|---|---|---|---|---|---|"
for mode in plain gzip; do
	hdr=()
	[ "$mode" = gzip ] && hdr=(-H 'Accept-Encoding: gzip')
	before=$(rss)
	: >"$T/times"
	pids=()
	for i in $(seq "$n"); do
		curl -sS --http1.1 "${hdr[@]}" -o "$T/body.$i" \
			-w '%{time_starttransfer} %{time_total} %{size_download}\n' \
			"http://127.0.0.1:$port/metrics" >>"$T/times" &
		pids+=($!)
	done
	peak=$before
	while kill -0 "${pids[@]}" 2>/dev/null; do
		r=$(rss)
		[ -n "$r" ] && [ "$r" -gt "$peak" ] && peak=$r
		sleep 0.02
	done
	wait "${pids[@]}"
	[ "$(wc -l <"$T/times")" = "$n" ] || die "$mode: a scrape failed"
	printf "| %s | %.1f | %.2f / %.2f | %.2f / %.2f | %.0f | %.0f |\n" "$mode" \
		"$(awk '{ s = $3 } END { print s / 1048576 }' "$T/times")" \
		"$(cut -d' ' -f1 "$T/times" | median)" "$(cut -d' ' -f1 "$T/times" | sort -n | tail -1)" \
		"$(cut -d' ' -f2 "$T/times" | median)" "$(cut -d' ' -f2 "$T/times" | sort -n | tail -1)" \
		"$(awk "BEGIN { print $before / 1024 }")" "$(awk "BEGIN { print $peak / 1024 }")"
	rm -f "$T"/body.*
done
echo
echo "ibfmd's VmHWM (peak RSS since it started, its sweeps included): $(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$DPID/status" | awk '{ printf "%.0f", $1 / 1024 }') MB"
