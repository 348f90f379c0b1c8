#!/bin/bash
# The plugin inside real OpenSM on two zoo fabrics built as clusters are:
# a DGX SuperPOD H100-shaped one (leaves cabled to every spine with
# parallel links, 8 rails) and the same with 5% of its switch links
# gone; and a 3-level tree less 20% of its links, whose detours need
# their hubs' turns in another order (66 pairs were left). The tables are read back from the simulated switches with
# ibroute: they are ibfm's, every pair is reached (switches as sources
# too), no credit loop closes on one VL, on the full fabric every link
# of a parallel group carries its share, and on the degraded one the
# leaves that lost links balance by load.
. "$TESTLIB"

json_num() { sed -n "s/^ *\"$2\": \([0-9.]*\),\{0,1\}$/\1/p" "$1" | head -1; }

# zoo NAME GEN-ARGS...: the fabric in ibsim, OpenSM with the plugin,
# the switches' tables read back into $T/NAME.readback.
zoo() {
	local name=$1
	shift
	"$IBFM" topo gen "$@" -o "$T/$name.topo" >/dev/null || die "gen $*"
	sim_start "$T/$name.topo"
	osm_conf "$T/$name.conf" "$T/$name-state" "ibfm,minhop"
	osm_start "$T/$name.conf"
	check "$name: OpenSM used ibfm" grep -q "ibfm tables configured on all switches" "$T/opensm.log"
	check "$name: no pair left unrouted (no P05)" bash -c "! grep -q 'ERR P05' '$T/opensm.log'"
	wait_generation "$T/$name-state" 1 || die "no snapshot"
	read_lfts "$T/$name-state/lfts.dump" "$T/$name.readback" "node001 mlx5_0" || die "ibroute failed"
	lft_entries "$T/$name-state/lfts.dump" >"$T/$name.want"
	lft_entries "$T/$name.readback" >"$T/$name.got"
	check "$name: the switches hold ibfm's tables, entry for entry" cmp -s "$T/$name.want" "$T/$name.got"
	"$IBFM" check --topo "$T/$name.topo" --lfts "$T/$name.readback" --json >"$T/$name.check"
	check "$name: every CA and switch reaches every LID" \
		test "$(json_num "$T/$name.check" unreachable_pairs)" = 0
	check "$name: switches were sources" test "$(json_num "$T/$name.check" switch_source_pairs)" -gt 0
	check "$name: no credit loop, switch sources included" \
		test "$(json_num "$T/$name.check" credit_loops)" = 0
	osm_stop
	mv "$T/opensm.log" "$T/$name.opensm.log"
	sim_cmd Quit
	exec 3>&-
	wait "$SIM_PID" 2>/dev/null
	rm -f "$T/console"
}

# 2 scalable units: 16 rail leaves, 8 spines, 4 links a leaf-spine pair.
zoo superpod --preset superpod-h100 --units 2
hosts=$(grep -c '^Ca' "$T/superpod.topo")
for p in shift ring rail-ring rail-shift; do
	"$IBFM" eval --topo "$T/superpod.topo" --lfts "$T/superpod.readback" --pattern $p --json >"$T/$p.json"
	check "superpod: $p max load 1" test "$(json_num "$T/$p.json" max_load)" = 1
done
"$IBFM" eval --topo "$T/superpod.topo" --lfts "$T/superpod.readback" --pattern all2all --json >"$T/a2a.json"
check "superpod: all-to-all puts no link above a host link ($((hosts - 1)))" \
	test "$(json_num "$T/a2a.json" max_load)" = $((hosts - 1))

zoo superpod-links5 --preset superpod-h100 --units 2 --remove-links 5 --seed 3
# Leaves that lost links balance by load, and each source leaf sends the
# hosts past a degraded leaf's slots down a spine of its own
# (routing/engine/ftree_bal.c): all-to-all 704 where the slots alone put
# 960 (dfsssp 896, nue 864 in OpenSM), shift 2 where they put 3.
for p in all2all:704 shift:2; do
	"$IBFM" eval --topo "$T/superpod-links5.topo" --lfts "$T/superpod-links5.readback" \
		--pattern "${p%:*}" --json >"$T/links5-${p%:*}.json"
	check "superpod-links5: ${p%:*} max load at most ${p#*:}" \
		test "$(json_num "$T/links5-${p%:*}.json" max_load)" -le "${p#*:}"
done
zoo tree8-links20 -l 3 -k 8 --remove-links 20 --seed 2
check "tree8-links20: the pass says it tried another order" \
	grep -q "turn points, 2 full routes" "$T/tree8-links20.opensm.log"
finish
