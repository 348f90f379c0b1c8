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

[ -x "${MCAST_CLIENT:-}" ] || die "mcast_client not built"

"$IBFM" topo gen -l 2 -k 8 -o "$T/f.topo" >/dev/null || die "gen"
sim_start "$T/f.topo"
osm_conf "$T/opensm.conf" "$T/state" "ibfm"
# -D 0x43: OpenSM dumps the multicast tables (opensm.mcfdbs) after each
# heavy sweep.
osm_start "$T/opensm.conf" -D 0x43
wait_generation "$T/state" 1 || die "no plugin snapshot"

# "switch-guid port peer-guid" for every switch port cabled to a switch.
awk '/^Switch/ { sw = $3; gsub(/"|S-/, "", sw); next }
     /^\[[0-9]+\]\t"S-/ { p = $1; gsub(/[^0-9]/, "", p); pe = $2
	sub(/^"S-/, "", pe); sub(/".*/, "", pe)
	printf "0x%s %03d 0x%s\n", sw, p, pe }' "$T/f.topo" >"$T/links"
# "leaf-guid port" of the members: two hosts on every leaf.
members="node001 node003 node006 node008 node009 node012 node014 node015
	node017 node020 node022 node023 node025 node026 node030 node032"
: >"$T/members"
for h in $members; do
	awk -v h="$h mlx5_0" '/^Switch/ { sw = $3; gsub(/"|S-/, "", sw); next }
	     /^\[[0-9]+\]\t"H-/ && index($0, "\"" h "\"") {
		p = $1; gsub(/[^0-9]/, "", p); printf "0x%s %03d\n", sw, p }' \
		"$T/f.topo" >>"$T/members"
done
check "16 members on 8 leaves" test "$(sort -u "$T/members" | wc -l)" = 16

joined=0
for h in $members; do
	SIM_HOST="$h mlx5_0" sim_client "$MCAST_CLIENT" >>"$T/joins" 2>&1 &&
		joined=$((joined + 1))
done
check "16 hosts joined the IPoIB broadcast group" test "$joined" = 16
check "the SA answered with its MLID" test "$(grep -c 'joined, MLID 0xc000' "$T/joins")" = 16

# mft_readback NAME: every switch's multicast table as the switch holds
# it, read with ibroute -M over directed routes from node001 (leaf-01
# port 1: spines behind its ports 5-8, leaf j behind spine-02's port j),
# so a switch without a unicast route to it is read too; as
# "guid mlid port" lines, and OpenSM's own dump the same way.
mft_readback() {
	local path
	: >"$T/$1.ibroute"
	for path in 0,1 0,1,5 0,1,6 0,1,7 0,1,8 0,1,6,2 0,1,6,3 0,1,6,4 0,1,6,5 0,1,6,6 0,1,6,7 0,1,6,8; do
		SIM_HOST="node001 mlx5_0" sim_client "$IBROUTE" -M -D "$path" >>"$T/$1.ibroute" 2>/dev/null || return 1
	done
	awk '/^Multicast mlids/ { for (i = 1; i <= NF; i++) if ($i == "guid") g = $(i + 1); next }
	     /Ports:/ { n = 0; for (c = 1; c <= length($0); c++) {
			ch = substr($0, c, 1)
			if (ch ~ /[0-9]/ && substr($0, c - 1, 1) == " ") {
				num = substr($0, c); sub(/[^0-9].*/, "", num); col[c] = num + 0
			} } next }
	     /^0x[0-9a-fA-F]+ / { for (c in col) if (substr($0, c, 1) == "x")
			printf "%s %s %03d\n", g, tolower($1), col[c] }' "$T/$1.ibroute" | sort >"$T/$1"
	awk 'function hex(s,  v, i) { v = 0; s = tolower(substr(s, 3))
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	     /^Switch 0x/ { g = tolower($2); next }
	     /^0x[0-9A-F]+ :/ { for (i = 3; i <= NF; i++) printf "%s %s %03d\n", g, tolower($1), hex($i) }' \
		"$T/opensm.mcfdbs" | sort >"$T/$1.osm"
}
# Tree checks on a read-back: the members' ports are set at their leaves;
# spine GUID $2's ports, or ports leading to it, are (not) set.
members_reached() {
	local l
	while read -r l; do
		awk -v l="$l" 'BEGIN { split(l, m, " ") } $1 == m[1] && $2 == "0xc000" && $3 == m[2] { f = 1 } END { exit !f }' "$1" || return 1
	done <"$T/members"
}
spine_ports() { awk -v s="$2" '$1 == s' "$1" | grep -q .; }
into_spine() {
	awk -v s="$2" 'NR == FNR { if ($3 == s) to[$1 " " $2] = 1; next }
		       (($1 " " $3) in to) { f = 1 } END { exit !f }' "$T/links" "$1"
}

until_ok 100 "$OSM_PID" OpenSM test -s "$T/opensm.mcfdbs"
sleep 1
mft_readback before || die "ibroute -M failed"
check "before: the switches hold OpenSM's multicast tables" cmp -s "$T/before" "$T/before.osm"
check "before: every member is in the tree" members_reached "$T/before"
# The tree's root: the spine that forwards the group (one, on a 2-level
# tree rooted at a spine).
sed -n 's/^Switch.*"S-\([0-9a-f]*\)".*# "spine-.*/0x\1/p' "$T/f.topo" >"$T/spines"
spines_in() { awk 'NR == FNR { sp[$1] = 1; next } ($1 in sp) { print $1 }' "$T/spines" "$1" | sort -u; }
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
no_spine_ports() { ! spine_ports "$@"; }
check "drained: the drained spine has no MFT port set" no_spine_ports "$T/drained" "$root"
not_into_spine() { ! into_spine "$@"; }
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
