#!/bin/bash
# The fabric page at scale (docs/operators.md): ibfmd's / and a pod's
# /group/NAME on a generated 3-level tree in ibsim, routed by OpenSM with
# the plugin, with one cable pulled (leaf-100[19]), one spine drained
# (spine-095) and errors on one port (leaf-104[2]) and PortXmitWait on
# another, all in pod-06 (at radix 8: leaf-03, spine-03, leaf-04, in
# pod-1): each page's size and reply time (curl, median of 5), and
# screenshots in a 1,400-pixel wide window (IBFM_SCREENSHOTS=DIR keeps
# them).
# Usage: bench/scripts/fabric-page.sh [GEN ARGS] (default: -l 3 -k 36,
# 11,664 hosts). Heavy: run it under flock /tmp/ibfm-heavy.lock.
set -u
cd "$(dirname "$0")/../.."
. scripts/tree-env.sh

[ $# -eq 0 ] && set -- -l 3 -k 36
"$IBFM" topo gen "$@" -o "$T/f.topo" >/dev/null || die "gen $*"
SIM_WAIT=${SIM_WAIT:-6000} sim_start "$T/f.topo" -N 65536 -S 8192 -P 524288 -L 49152
hosts() { sed -n 's/^Ca.*# "\(.*\)"$/\1/p' "$T/f.topo"; }
id_of() { sed -n "s/^Switch.*\"\(S-[0-9a-f]*\)\".*# \"$1\".*/\1/p" "$T/f.topo"; }
osm_conf "$T/opensm.conf" "$T/state" "ibfm"
t0=$(date +%s)
OSM_HOST=$(hosts | sed -n 2p) OSM_WAIT=6000 osm_start "$T/opensm.conf"
echo "# OpenSM up in $(($(date +%s) - t0)) s" >&2
printf '%s\n' "socket $T/ibfmd.sock" "state_dir $T/state" "expected $T/f.topo" \
	"sweep_interval 3600" "light_interval 0" "metrics 127.0.0.1:0" >"$T/ibfmd.conf"
ibfmd_start "$(hosts | head -1)"
until_ok 6000 "$DPID" ibfmd ibfmd_swept 1
port=$(metrics_port "$T/ibfmd.log")

leaf=leaf-100 spine=spine-095 errs=leaf-104
[ -n "$(id_of $errs)" ] || { leaf=leaf-03 spine=spine-03 errs=leaf-04; }
sim_cmd "Unlink \"$(id_of $leaf)\"[$(($(sed -n 's/^Switch\t\([0-9]*\) .*/\1/p' "$T/f.topo" | head -1) / 2 + 1))]"
echo "0x$(id_of $spine | sed 's/^S-//') # $spine" >"$T/state/drain.list"
sim_cmd "PerformanceSet \"$(id_of $errs)\"[2] PortCounters.SymbolErrorCounter=9"
ibfmd_sweep_fresh
sim_cmd "PerformanceSet \"$(id_of $errs)\"[3] PortCounters.PortXmitWait=50000"
ibfmd_sweep_now
pod=$(curl -s "http://127.0.0.1:$port/" | sed -n "s|.*cable missing</td><td>$leaf\[[0-9]*\].*<a href=\"/group/\([a-z0-9-]*\)\">.*|\1|p" | head -1)
[ -n "$pod" ] || die "no missing cable of $leaf on the page"

# page PATH: "bytes median-ms" of 5 GETs of PATH.
page() {
	local i
	for i in 1 2 3 4 5; do
		curl -s -o /dev/null -w '%{size_download} %{time_total}\n' "http://127.0.0.1:$port$1"
	done | awk '{ print $1, $2 * 1000 }' | sort -k2 -n | sed -n 3p
}
read -r ob oms < <(page /)
read -r db dms < <(page "/group/$pod")
read -r sb sms < <(page /fabric.svg)
echo "| fabric | hosts | / bytes | / ms | /group/$pod bytes | ms | /fabric.svg bytes | ms |"
echo "|---|---|---|---|---|---|---|---|"
printf "| %s | %s | %s | %.1f | %s | %.1f | %s | %.1f |\n" "$*" "$(hosts | wc -l)" \
	"$ob" "$oms" "$db" "$dms" "$sb" "$sms"
screenshot "http://127.0.0.1:$port/" "$T/fabric-page.png" 1400 1000
screenshot "http://127.0.0.1:$port/group/$pod" "$T/fabric-pod.png" 1400 700
png_width "$T/fabric-page.png" 1400 && png_width "$T/fabric-pod.png" 1400 || die "no screenshots"
keep_image "$T/fabric-page.png"
keep_image "$T/fabric-pod.png"
