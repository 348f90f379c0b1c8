#!/bin/bash
# A switch port that keeps trapping link errors: OpenSM marks it
# unhealthy and sweeps; the plugin routes around the link (no LFT entry
# left on it, every CA pair still reachable), and the LID matrices it
# fills treat the link as OpenSM does (it reaches its neighbour, nothing
# further): the same dump as OpenSM's own builder under the same traps.
. "$TESTLIB"

[ -x "${TRAP_CLIENT:-}" ] || die "trap_client not built"
json_num() { sed -n "s/^ *\"$2\": \([0-9.]*\),\{0,1\}$/\1/p" "$1" | head -1; }

"$IBFM" topo gen -l 2 -k 8 -o "$T/f.topo" >/dev/null || die "gen"
sim_start "$T/f.topo"

# unhealthy_run NAME [PLUGIN_OPTS]: OpenSM + plugin up, traps about
# leaf-01 port 5 from a host, until the plugin rerouted; files in $T/NAME.
unhealthy_run() {
	mkdir -p "$T/$1"
	PLUGIN_OPTS=${2:-} osm_conf "$T/opensm.conf" "$T/$1/state" "ibfm,minhop"
	osm_start "$T/opensm.conf" -D 0x47
	wait_generation "$T/$1/state" 1 || die "$1: not routed"
	cp "$T/$1/state/lfts.dump" "$T/$1/before.dump"
	leaf_lid=$(sed -n "s/^Unicast lids .* of switch Lid \([0-9]*\) guid .*('leaf-01'):$/\1/p" "$T/$1/before.dump")
	[ -n "$leaf_lid" ] || die "$1: no LID for leaf-01"
	SIM_HOST="node032 mlx5_0" sim_client "$TRAP_CLIENT" "$leaf_lid" 5 12 >"$T/$1/traps.out"
	wait_generation "$T/$1/state" 2 || die "$1: no reroute after the traps"
	sleep 1
	cp "$T/opensm-lid-matrix.dump" "$T/$1/lid-matrix.dump"
	osm_stop
	mv "$T/opensm.log" "$T/$1/opensm.log"
}

unhealthy_run ibfm
d=$T/ibfm
check "OpenSM received the 12 traps 129 about leaf-01 port 5" test \
	"$(grep -c "num:129 .* Port 5 " "$d/opensm.log")" = 12
check "OpenSM marked leaf-01 port 5 unhealthy" \
	grep -q "Marking unhealthy physical port by lid:$leaf_lid num:5" "$d/opensm.log"
check "the plugin routed around the link" \
	grep -q 'ibfm: unhealthy link "leaf-01"\[5\] - "spine-[0-9]*"\[[0-9]*\] routed around' "$d/opensm.log"
check "the reroute was incremental" grep -q '"incremental": true' "$d/state/snapshot.json"
spine=$(sed -n 's/.*ibfm: unhealthy link "leaf-01"\[5\] - "\(spine-[0-9]*\)"\[\([0-9]*\)\].*/\1 \2/p' "$d/opensm.log" | head -1)
read -r spine spine_port <<<"$spine"
# port_entries DUMP SWITCH PORT: LFT entries of SWITCH that forward to PORT.
port_entries() {
	awk -v sw="('$2'):" -v port="$3" '/^Unicast lids/ { on = $NF == sw; next }
		on && /^0x/ && $2 + 0 == port { n++ } END { print n + 0 }' "$1"
}
check "before: leaf-01 sent over port 5" test "$(port_entries "$d/before.dump" leaf-01 5)" -gt 0
check "after: no entry of leaf-01 on port 5" test "$(port_entries "$d/state/lfts.dump" leaf-01 5)" = 0
check "after: no entry of $spine on port $spine_port" test "$(port_entries "$d/state/lfts.dump" "$spine" "$spine_port")" = 0
"$IBFM" check --topo "$T/f.topo" --lfts "$d/state/lfts.dump" --ca-sources-only --json >"$d/check.json"
check "every CA pair still reachable" test "$(json_num "$d/check.json" unreachable_ca_pairs)" = 0
check "no credit loop" test "$(json_num "$d/check.json" credit_loops)" = 0
# In leaf-01's matrix, port 5 (field 7: the LID, then ports 0..) reaches
# only its neighbour: one row holds 01 there, every other ff.
spine_lid=$(sed -n "s/^Unicast lids .* of switch Lid \([0-9]*\) guid .*('$spine'):$/\1/p" "$d/state/lfts.dump")
awk -v g="$(sed -n "s/^Unicast lids .* guid \(0x[0-9a-f]*\) ('leaf-01'):$/\1/p" "$d/state/lfts.dump")" \
	'/^Switch: guid/ { on = $3 == g; next } on && /^0x/ { print $1, $7 }' "$d/lid-matrix.dump" >"$d/port5"
check "leaf-01's matrix: port 5 reaches $spine (LID $spine_lid) in 1 hop" \
	grep -qx "$(printf '0x%04x: 01' "$spine_lid")" "$d/port5"
check "leaf-01's matrix: and nothing else over port 5" test "$(grep -vc ' ff$' "$d/port5")" = 1

unhealthy_run osm lid_matrices=opensm
check "OpenSM's own builder: the same matrices under the same traps" \
	cmp -s "$T/ibfm/lid-matrix.dump" "$T/osm/lid-matrix.dump"
check "no ERR in OpenSM's logs" bash -c "! grep -h ' ERR ' '$T/ibfm/opensm.log' '$T/osm/opensm.log'"
sim_cmd Quit
finish
