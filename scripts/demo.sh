#!/bin/bash
# The demo on a simulated fabric: a generated 648-host fat tree in ibsim,
# OpenSM routing it with the ibfm plugin, ibfm checking the cabling and
# the routes, and a pulled cable repaired incrementally.
set -u
. "$(dirname "$0")/tree-env.sh"

step() { echo "[$1/11] $2" >&2; }
json_num() { sed -n "s/^ *\"$2\": \([0-9.]*\),\{0,1\}$/\1/p" "$1" | head -1; }
lid_of() { awk -v d="# \"$1\"" 'index($0, d) && /^Ca/ { getline; sub(/.*# lid /, ""); print $1; exit }' "$T/found.topo"; }

step 1 "generating a 2-level radix-36 fat tree (648 hosts, 54 switches)"
"$IBFM" topo gen --levels 2 --radix 36 -o "$T/fabric.topo" || exit 1

step 2 "starting ibsim on it"
sim_start "$T/fabric.topo"

step 3 "starting OpenSM with the ibfm plugin (routing_engine ibfm,minhop)"
osm_conf "$T/opensm.conf" "$T/state" "ibfm,minhop"
start=$(date +%s.%N)
osm_start "$T/opensm.conf"
end=$(date +%s.%N)
wait_generation "$T/state" 1 || die "no snapshot from the plugin"
awk -v s="$start" -v e="$end" 'BEGIN { printf "OpenSM: SUBNET UP %.1f s after start\n", e - s }'
sed -n 's/.*ucast_build_fwd_tables: //p' "$T/opensm.log" | head -1
grep -o '[a-z]* tables configured on all switches' "$T/opensm.log" | head -1
echo "ERR lines in OpenSM's log: $(grep -c ' ERR ' "$T/opensm.log")"

step 4 "discovering with ibnetdiscover and comparing with the expected cabling"
SIM_HOST="node001 mlx5_0" sim_client "$IBNETDISCOVER" >"$T/found.topo" 2>/dev/null
"$IBFM" topo show --topo "$T/found.topo"
"$IBFM" topo diff --expected "$T/fabric.topo" --topo "$T/found.topo"

step 5 "checking and evaluating the routes ibfm gave OpenSM"
"$IBFM" check --topo "$T/found.topo" --lfts "$T/state/lfts.dump"
for p in shift ring all2all; do
	"$IBFM" eval --topo "$T/found.topo" --lfts "$T/state/lfts.dump" --pattern $p | head -1
done

step 6 "tracing a path with ibtracert"
src=$(lid_of "node001 mlx5_0")
dst=$(lid_of "node648 mlx5_0")
echo "node001 (lid $src) -> node648 (lid $dst):"
(cd "$T" && SIM_HOST="node001 mlx5_0" LD_PRELOAD="$UMAD2SIM" timeout 60 "$IBTRACERT" "$src" "$dst" 2>/dev/null)

step 7 "starting ibfmd: it sweeps the fabric and compares it with the expected file"
printf 'socket %s\nexpected %s\nstate_dir %s\nsweep_interval 30\nmetrics off\ncc_tries 1\ncc_timeout_ms 20\n' \
	"$T/ibfmd.sock" "$T/fabric.topo" "$T/state" >"$T/ibfmd.conf"
ibfmd_start "node002 mlx5_0"
until_ok 300 "$DPID" ibfmd ibfmd_swept 1
echo "ibfm status:"
"$IBFM" --socket "$T/ibfmd.sock" status

step 8 "pulling leaf-01's cable on port 19: discovery names it, ibfm reroutes, ibfmd reports it"
leaf=$(sed -n 's/^Switch\t36 "\([^"]*\)"\t\t# "leaf-01".*/\1/p' "$T/fabric.topo")
sim_cmd "Unlink \"$leaf\"[19]"
SIM_HOST="node001 mlx5_0" sim_client "$IBNETDISCOVER" >"$T/found2.topo" 2>/dev/null
"$IBFM" topo diff --expected "$T/fabric.topo" --topo "$T/found2.topo"
wait_generation "$T/state" 2 || die "no reroute after the unlink"
sed -n 's/.*ucast_build_fwd_tables: //p' "$T/opensm.log" | tail -1
"$IBFM" check --topo "$T/found2.topo" --lfts "$T/state/lfts.dump" | head -4
"$IBFM" --socket "$T/ibfmd.sock" sweep >/dev/null
until_ok 300 "$DPID" ibfmd bash -c "'$IBFM' --socket '$T/ibfmd.sock' events --json | grep -q link-missing"
echo "ibfm events:"
"$IBFM" --socket "$T/ibfmd.sock" events
# The fast path wrote the repair's blocks itself (fast-reroute.log);
# OpenSM's pass that followed sent only what was left (snapshot.json).
fast=$(grep '"kind":"fast-reroute"' "$T/state/fast-reroute.log" 2>/dev/null |
	sed -n 's/.*"blocks":\([0-9]*\).*/\1/p' | tail -1)
echo "summary: engine ibfm; ${fast:-0} LFT blocks written by the plugin's fast path," \
	"then $(json_num "$T/state/snapshot.json" blocks_changed) of" \
	"$(json_num "$T/state/snapshot.json" blocks_total) sent by OpenSM for the reroute"
grep 'ibfm: routed' "$T/opensm.log" | tail -1 | sed -n 's/.*; generation [0-9]*; /pass: /p'

step 9 "errors on a port: ibfmd reads the PMA counters on every sweep"
sim_cmd "PerformanceSet \"$leaf\"[20] PortCounters.SymbolErrorCounter=12"
ibfmd_sweep_now
"$IBFM" --socket "$T/ibfmd.sock" counters --top 3
echo "a path over ibfmd, each hop with its counters:"
"$IBFM" --socket "$T/ibfmd.sock" path "node001 mlx5_0" "node648 mlx5_0" --json | head -c 400; echo

step 10 "draining spine-02 live: checked, rerouted by the plugin, confirmed on the switches"
"$IBFM" --socket "$T/ibfmd.sock" drain spine-02 || die "drain spine-02"
"$IBFM" --socket "$T/ibfmd.sock" undrain spine-02 || die "undrain spine-02"

step 11 "congestion control: ibfmd probes every switch and HCA before setting anything"
echo "(ibsim implements no CC: every node must come out unsupported, with no Set sent; docs/cc.md)"
"$IBFM" --socket "$T/ibfmd.sock" cc apply | tail -1
osm_stop
sim_cmd Quit
exit 0
