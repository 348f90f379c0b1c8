#!/bin/bash
# Drains also leave multicast: hosts on every leaf join the IPoIB
# broadcast group (an SA MCMemberRecord join each, tests/mcast_client.c),
# OpenSM builds the group's spanning tree on the LID matrices the plugin
# fills; the spine the tree is rooted at is drained (by writing the drain
# list); after the new generation the multicast forwarding tables read
# back off the switches set no port of the drained spine and no port that
# leads into it, and every member is still reached. With
# lid_matrices=opensm the plugin says once (P14) that drains do not
# reach multicast.
. "$TESTLIB"
. "$(dirname "$TESTLIB")/mcast.inc"

[ -x "${MCAST_CLIENT:-}" ] || die "mcast_client not built"

"$IBFM" topo gen -l 2 -k 8 -o "$T/f.topo" >/dev/null || die "gen"
sim_start "$T/f.topo"
osm_conf "$T/opensm.conf" "$T/state" "ibfm"
# -D 0x43: OpenSM dumps the multicast tables (opensm.mcfdbs) after each
# heavy sweep.
osm_start "$T/opensm.conf" -D 0x43
wait_generation "$T/state" 1 || die "no plugin snapshot"

joined=$(mcast_setup)
check "16 members on 8 leaves" test "$(sort -u "$T/members" | wc -l)" = 16
check "16 hosts joined the IPoIB broadcast group" test "$joined" = 16
check "the SA answered with its MLID" test "$(grep -c 'joined, MLID 0xc000' "$T/joins")" = 16

until_ok 100 "$OSM_PID" OpenSM test -s "$T/opensm.mcfdbs"
sleep 1
mft_readback before || die "ibroute -M failed"
check "before: the switches hold OpenSM's multicast tables" cmp -s "$T/before" "$T/before.osm"
check "before: every member is in the tree" members_reached "$T/before"
# The tree's root: the spine that forwards the group (one, on a 2-level
# tree rooted at a spine).
root=$(spines_in "$T/before")
check "before: one spine carries the group" test "$(echo "$root" | wc -w)" = 1
check "before: ports into it are set (the test can fail)" into_spine "$T/before" "$root"

ups=$(grep -c "SUBNET UP" "$T/opensm.log")
echo "$root # the multicast root spine" >"$T/state/drain.list"
wait_generation "$T/state" 2 || die "no new generation after the drain"
swept() { [ "$(grep -c 'SUBNET UP' "$T/opensm.log")" -gt "$ups" ]; }
until_ok 300 "$OSM_PID" OpenSM swept
check "the plugin filled the matrices with the drain list" \
	grep -q "ibfm: LID matrices of 12 switches filled in .* (drain list: 1 elements)" "$T/opensm.log"
mft_readback drained || die "ibroute -M failed after the drain"
check "drained: the switches hold OpenSM's multicast tables" cmp -s "$T/drained" "$T/drained.osm"
check "drained: the drained spine has no MFT port set" no_spine_ports "$T/drained" "$root"
check "drained: no MFT entry leads into the drained spine" not_into_spine "$T/drained" "$root"
check "drained: every member is still in the tree" members_reached "$T/drained"
other=$(spines_in "$T/drained")
check "drained: another spine carries the group" test "$(echo "$other" | wc -w)" = 1 -a "$other" != "$root"
check "no multicast routing error in OpenSM's log" bash -c "! grep -q 'ERR 0A' '$T/opensm.log'"

# Matrices left to OpenSM: drains do not reach multicast, said once.
osm_stop
PLUGIN_OPTS="lid_matrices=opensm" osm_conf "$T/opensm2.conf" "$T/state" "ibfm"
mv "$T/opensm.log" "$T/opensm1.log"
osm_start "$T/opensm2.conf"
wait_generation "$T/state" 3 || die "no generation with lid_matrices=opensm"
echo "$root # again" >"$T/state/drain.list"
wait_generation "$T/state" 4 || die "no generation after rewriting the drain list"
check "lid_matrices=opensm: P14 says drains do not reach multicast, once" \
	test "$(grep -c 'ibfm: P14 OpenSM builds the LID matrices (lid_matrices=opensm): multicast trees do not follow the drain list (1 elements)' "$T/opensm.log")" = 1
finish
