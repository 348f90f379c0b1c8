#!/bin/bash
# On a rail-optimized fabric in ibsim, the plugin finds the rails by
# itself, says so in OpenSM's log, and its tables keep every rail's ring
# and shifts at one flow per link with all rails at once.
. "$TESTLIB"

json_num() { sed -n "s/^ *\"$2\": \([0-9.]*\),\{0,1\}$/\1/p" "$1" | head -1; }

# 32 servers x 4 HCAs: 4 scalable units of 8 servers, 16 leaves, 8 spines.
"$IBFM" topo gen -l 2 -k 16 --rails 4 --hosts 128 -o "$T/rails.topo" || die "gen"
"$IBFM" topo show --topo "$T/rails.topo" --json >"$T/show.json"
check "topo show finds 4 rails" test "$(json_num "$T/show.json" rails)" = 4
check "topo show: nothing miswired" grep -q '"miswired": \[\]' "$T/show.json"

sim_start "$T/rails.topo"
osm_conf "$T/opensm.conf" "$T/state sharp_sl=5" "ibfm,minhop"
osm_start "$T/opensm.conf"
check "OpenSM used ibfm" grep -q "ibfm tables configured on all switches" "$T/opensm.log"
check "the plugin says it routes rail-aware" \
	grep -q "ibfm: rail-optimized fabric: 4 rails, 32 servers: routing rail-aware" "$T/opensm.log"
check "the pass was rail-aware" grep -q "LIDs (full, rail-aware)" "$T/opensm.log"
wait_generation "$T/state" 1 || die "no snapshot"

for p in rail-ring rail-shift; do
	"$IBFM" eval --topo "$T/rails.topo" --lfts "$T/state/lfts.dump" --pattern $p --json >"$T/$p.json"
	check "$p: max load 1 with all rails at once" test "$(json_num "$T/$p.json" max_load)" = 1
	check "$p: per_rail lists 4 rails" test "$(tr -d ' \n' <"$T/$p.json" | sed -n 's/.*"per_rail":\[\([^]]*\)\].*/\1/p')" = "1,1,1,1"
done
"$IBFM" check --topo "$T/rails.topo" --lfts "$T/state/lfts.dump" --ca-sources-only --json >"$T/check.json"
check "every CA reaches every LID" test "$(json_num "$T/check.json" unreachable_pairs)" = 0
check "no credit loop" test "$(json_num "$T/check.json" credit_loops)" = 0
# SA PathRecords: SHARP's SL between two switches (AN to AN), OpenSM's
# default elsewhere.
sl_of() {
	SIM_HOST="node002 mlx5_0" sim_client "$SAQUERY" -p --src-to-dst "$1:$2" 2>/dev/null |
		sed -n 's/^[[:space:]]*sl\.*\(0x[0-9a-f]*\)$/\1/p' | head -1
}
read -r sw1 sw2 < <(sed -n 's/^Unicast lids .* of switch Lid \([0-9]*\) guid.*/\1/p' "$T/state/lfts.dump" | head -2 | tr '\n' ' ')
read -r ca1 ca2 < <(sed -n 's/^\(0x[0-9a-f]*\) [0-9]* # Channel Adapter.*/\1/p' "$T/state/lfts.dump" | sort -u | head -2 | tr '\n' ' ')
check "PathRecord switch $sw1 -> switch $sw2 has sharp_sl 5" test "$(sl_of "$sw1" "$sw2")" = 0x5
check "PathRecord CA -> CA keeps SL 0" test "$(sl_of $((ca1)) $((ca2)))" = 0x0
osm_stop
sim_cmd Quit
finish
