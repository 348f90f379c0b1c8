#!/bin/bash
# The plugin inside a real OpenSM on ibsim: OpenSM routes with "ibfm",
# the switches hold exactly ibfm's tables, every CA reaches every CA,
# a pulled cable is repaired incrementally, and a fabric ibfm must
# refuse goes to OpenSM's next engine. The pass's own block counts are
# checked, so OpenSM's passes route alone here (fast_reroute=off: the
# fast path has fast_reroute.sh).
. "$TESTLIB"
export PLUGIN_OPTS="fast_reroute=off"

json_num() { sed -n "s/^ *\"$2\": \([0-9.]*\),\{0,1\}$/\1/p" "$1" | head -1; }

"$IBFM" topo gen -l 2 -k 36 -o "$T/fabric.topo" || die "gen"
sim_start "$T/fabric.topo"
osm_conf "$T/opensm.conf" "$T/state" "ibfm,minhop"
osm_start "$T/opensm.conf"

check "plugin registered the engine" grep -q 'ibfm: routing engine "ibfm" registered' "$T/opensm.log"
check "OpenSM used ibfm" grep -q "ibfm tables configured on all switches" "$T/opensm.log"
check "no ERR in OpenSM's log" bash -c "! grep -q ' ERR ' '$T/opensm.log'"
check "snapshot published" wait_generation "$T/state" 1
# Under OpenSM's lock only what the tables need; trees and snapshot after.
check "pass timed: routing, OpenSM's tables, publisher" grep -q "ibfm: routed 54 switches.*(model and routing .* ms on [0-9]* threads, into OpenSM's tables .* ms, to the publisher .* ms)" "$T/opensm.log"
check "copy, trees and snapshot after the lock" grep -q "ibfm: generation 1 published after OpenSM's lock: \(copy .* ms, \)\{0,1\}SHARP trees .* ms, snapshot .* ms" "$T/opensm.log"
check "snapshot: 54 switches" test "$(json_num "$T/state/snapshot.json" switches)" = 54
check "snapshot: engine ibfm" grep -q '"engine": "ibfm"' "$T/state/snapshot.json"
check "lfts.dump beside it" test -s "$T/state/lfts.dump"

# The switches hold what ibfm computed, entry for entry.
read_lfts "$T/state/lfts.dump" "$T/readback.dump" "node001 mlx5_0" || die "ibroute failed"
lft_entries "$T/state/lfts.dump" >"$T/want"
lft_entries "$T/readback.dump" >"$T/got"
check "ibroute read 54 switches" test "$(grep -c '^Unicast lids' "$T/readback.dump")" = 54
# Every switch routes every LID, the 18 spines each other's too (no
# up/down path joins two top switches: they are detoured through a leaf).
check "ibfm's tables: 54 x 702 entries" test "$(wc -l <"$T/want")" = $((54 * 702))
check "switch LFTs equal ibfm's tables" cmp -s "$T/want" "$T/got"

# SHARP trees published beside them, consistent with the switches' tables.
check "sharp.json published without violations" grep -q '^{"violations":0,' "$T/state/sharp.json"
check "sharp.json holds 16 trees" test "$(grep -o '"depth":' "$T/state/sharp.json" | wc -l)" = 16

# And the same tables come out of ibfm route on what ibnetdiscover sees.
SIM_HOST="node001 mlx5_0" sim_client "$IBNETDISCOVER" >"$T/found.topo" 2>/dev/null
"$IBFM" route --topo "$T/found.topo" --dump-lfts "$T/offline.dump" >/dev/null
lft_entries "$T/offline.dump" >"$T/offline"
check "offline ibfm route gives the plugin's tables" cmp -s "$T/want" "$T/offline"

"$IBFM" sharp trees --topo "$T/found.topo" --lfts "$T/state/lfts.dump" \
	--verify-lfts "$T/readback.dump" --trees 16 --json >"$T/sharp.json"
check "the 16 trees' edges all follow the switches' own LFTs" \
	test "$(json_num "$T/sharp.json" violations)" = 0
check "ibfm sharp trees lists 16 trees of 648 hosts" \
	test "$(grep -c '"hosts": 648' "$T/sharp.json")" = 16

# All pairs over the tables read back from the switches.
"$IBFM" check --topo "$T/found.topo" --lfts "$T/readback.dump" --ca-sources-only --json >"$T/check.json"
check "all CA pairs reachable on the switches' tables" test "$(json_num "$T/check.json" unreachable_pairs)" = 0
check "no routing loop" test "$(json_num "$T/check.json" routing_loops)" = 0
check "no credit loop" test "$(json_num "$T/check.json" credit_loops)" = 0
check "648 x (647 + 54) pairs checked" test "$(json_num "$T/check.json" pairs)" = $((648 * 701))

# A sample of paths with ibtracert, from node001 to hosts on other leaves.
lid_of() { awk -v d="# \"$1\"" 'index($0, d) && /^Ca/ { getline; sub(/.*# lid /, ""); print $1; exit }' "$T/found.topo"; }
src=$(lid_of "node001 mlx5_0")
for n in 019 200 377 648; do
	dst=$(lid_of "node$n mlx5_0")
	check "ibtracert node001 -> node$n" bash -c \
		"cd '$T' && LD_PRELOAD='$UMAD2SIM' timeout 60 '$IBTRACERT' $src $dst 2>/dev/null | grep -q '^To ca .*\"node$n mlx5_0\"'"
done

# ibfm path prints what ibtracert prints, hop by hop, on the same tables.
for n in 002 019 200 377 648; do
	dst=$(lid_of "node$n mlx5_0")
	(cd "$T" && SIM_HOST="node001 mlx5_0" LD_PRELOAD="$UMAD2SIM" timeout 60 \
		"$IBTRACERT" "$src" "$dst" >"$T/tr.$n" 2>/dev/null)
	"$IBFM" path "node001 mlx5_0" "node$n mlx5_0" --topo "$T/found.topo" \
		--lfts "$T/readback.dump" >"$T/path.$n"
	check "ibfm path node001 -> node$n equals ibtracert" cmp -s "$T/tr.$n" "$T/path.$n"
done
"$IBFM" path "node001 mlx5_0" "node648 mlx5_0" --topo "$T/found.topo" \
	--lfts "$T/readback.dump" --json >"$T/path.json"
check "ibfm path --json: 3 switch hops with guid, name, lid, ports" \
	test "$(grep -c '"out_port"' "$T/path.json")" = 6

"$IBFM" routes summary --topo "$T/found.topo" --lfts "$T/state/lfts.dump" \
	--state "$T/state" --json >"$T/summary.json"
check "routes summary: engine ibfm, generation 1" bash -c \
	"grep -q '\"engine\": \"ibfm\"' '$T/summary.json' && grep -q '\"generation\": 1,' '$T/summary.json'"
check "routes summary: every leaf spreads evenly (spread 0)" \
	test "$(json_num "$T/summary.json" worst_spread)" = 0
cp "$T/state/lfts.dump" "$T/before.dump"

# Pull leaf-01's cable to spine-01: OpenSM resweeps, ibfm repairs.
leaf=$(sed -n 's/^Switch\t36 "\([^"]*\)"\t\t# "leaf-01".*/\1/p' "$T/fabric.topo")
sim_cmd "Unlink \"$leaf\"[19]"
check "rerouted after the unlink" wait_generation "$T/state" 2
check "the reroute was incremental" grep -q '"incremental": true' "$T/state/snapshot.json"
changed=$(json_num "$T/state/snapshot.json" blocks_changed)
total=$(json_num "$T/state/snapshot.json" blocks_total)
echo "# after the unlink: $changed of $total LFT blocks sent"
check "fewer blocks sent than a full rewrite" test "$changed" -gt 0 -a "$changed" -lt "$total"
"$IBFM" routes diff "$T/before.dump" "$T/state/lfts.dump" --topo "$T/found.topo" --json >"$T/rdiff.json"
check "routes diff counts the blocks the plugin sent ($changed)" \
	test "$(json_num "$T/rdiff.json" changed_blocks)" = "$changed"
sleep 1
# From a host on another leaf: leaf-01 has no up/down route to spine-01's
# LID any more (issue note: switch LIDs stay strictly up/down).
read_lfts "$T/state/lfts.dump" "$T/readback2.dump" "node648 mlx5_0" || die "ibroute failed"
lft_entries "$T/state/lfts.dump" >"$T/want2"
lft_entries "$T/readback2.dump" >"$T/got2"
check "switch LFTs equal the repaired tables" cmp -s "$T/want2" "$T/got2"
SIM_HOST="node001 mlx5_0" sim_client "$IBNETDISCOVER" >"$T/found2.topo" 2>/dev/null
"$IBFM" check --topo "$T/found2.topo" --lfts "$T/readback2.dump" --ca-sources-only --json >"$T/check2.json"
check "all CA pairs still reachable" test "$(json_num "$T/check2.json" unreachable_ca_pairs)" = 0
check "still no routing or credit loop" test \
	"$(json_num "$T/check2.json" routing_loops)$(json_num "$T/check2.json" credit_loops)" = 00
osm_stop
sim_cmd Quit
exec 3>&-
wait "$SIM_PID" 2>/dev/null
rm -f "$T/console"

# A ring of four leaves has no up/down routes: ibfm detours every pair
# over the ring's links, without a credit loop.
cat >"$T/ring.topo" <<'RING'
Switch	3 "a"
[1]	"ha"[1]
[2]	"b"[3]
[3]	"d"[2]

Switch	3 "b"
[1]	"hb"[1]
[2]	"c"[3]
[3]	"a"[2]

Switch	3 "c"
[1]	"hc"[1]
[2]	"d"[3]
[3]	"b"[2]

Switch	3 "d"
[1]	"hd"[1]
[2]	"a"[3]
[3]	"c"[2]

Ca	1 "ha"
[1]	"a"[1]

Ca	1 "hb"
[1]	"b"[1]

Ca	1 "hc"
[1]	"c"[1]

Ca	1 "hd"
[1]	"d"[1]
RING
sim_start "$T/ring.topo"
mv "$T/opensm.log" "$T/opensm-fat.log"
osm_conf "$T/ring.conf" "$T/ring-state" "ibfm,minhop"
SIM_HOST=ha
# ring_sweep LOG: one OpenSM sweep of the ring with $T/ring.conf.
ring_sweep() {
	rm -f "$T/opensm-lfts.dump"
	(cd "$T" && SIM_HOST=ha OSM_CACHE_DIR="$T" OSM_TMP_DIR="$T" LD_LIBRARY_PATH="$PLUGIN_DIR" \
		LD_PRELOAD="$UMAD2SIM" timeout 120 "$OPENSM" -F "$T/ring.conf" -o -d2 -D 0x43 \
		-f "$T/$1" >"$T/opensm.out" 2>&1)
}
ring_sweep opensm.log
check "ring: ibfm routed it" grep -q "ibfm tables configured on all switches" "$T/opensm.log"
check "ring: no pair left unrouted" bash -c "! grep -q 'ERR P05' '$T/opensm.log'"
check "ring: OpenSM's tables reach every pair, no credit loop (switch sources too)" \
	"$IBFM" check --topo "$T/ring.topo" --lfts "$T/opensm-lfts.dump"
# A fabric ibfm refuses (a root GUID that is not there) goes to minhop.
echo 0x00000000deadbeef >"$T/badroots"
PLUGIN_OPTS="root_guid_file=$T/badroots" osm_conf "$T/ring.conf" "$T/ring-state" "ibfm,minhop"
ring_sweep opensm-refused.log
check "refused: ibfm says why" grep -q 'ibfm: ERR P04 R01 root GUID' "$T/opensm-refused.log"
check "refused: minhop routed instead" grep -q "minhop tables configured on all switches" "$T/opensm-refused.log"
check "refused: SUBNET UP all the same" grep -q "SUBNET UP" "$T/opensm-refused.log"
sim_cmd Quit
finish
