#!/bin/bash
# ibfm topo lids: the guid2lid it writes is OpenSM's own format, and
# OpenSM, started with it in its cache directory, gives every switch and
# every host the LID the plan says (switches first, leaves before
# spines; a leaf's hosts together); the plan from ibfmd's last sweep is
# the one from the topology file; bad options are refused.
. "$TESTLIB"

"$IBFM" topo gen -l 2 -k 8 -o "$T/f.topo" >/dev/null || die "gen"
"$IBFM" topo lids --topo "$T/f.topo" -o "$T/guid2lid"
check "written: exit 0" test $? = 0
check "44 ports, an empty line after each" test "$(grep -c '^0x[0-9a-f]\{16\} 0x[0-9a-f]\{4\} 0x[0-9a-f]\{4\}$' "$T/guid2lid")" = 44
cp "$T/guid2lid" "$T/plan"

sim_start "$T/f.topo"
osm_conf "$T/opensm.conf" "$T/state" "ibfm"
osm_start "$T/opensm.conf" # OSM_CACHE_DIR is $T: it reads $T/guid2lid
wait_generation "$T/state" 1 || die "no plugin snapshot"
# "GUID LID" of every port OpenSM gave a LID, from its subnet list.
sed -n 's/.*PortGUID:\([0-9a-f]*\) .*{\([^}]*\)} LID:\([0-9A-F]*\) PN.*/\1 \3 \2/p' \
	"$T/opensm-subnet.lst" | sort -u >"$T/given"
honoured() {
	local bad=0 g lid
	while read -r g lid _; do
		grep -q "^0x$g 0x$(printf '%04x' "$((16#$lid))") " "$T/plan" || bad=$((bad + 1))
	done <"$T/given"
	[ "$bad" = 0 ] && [ "$(wc -l <"$T/given")" -ge 40 ]
}
check "OpenSM gave every port the plan's LID" honoured
check "leaf-01 has LID 1, spine-04 LID 12" bash -c "grep -q 'switch Lid 1 guid .*leaf-01' '$T/state/lfts.dump' && grep -q 'switch Lid 12 guid .*spine-04' '$T/state/lfts.dump'"

ibfmd_beside
"$IBFM" --socket "$T/ibfmd.sock" topo lids >"$T/live"
check "from ibfmd's last sweep: the same plan" cmp -s "$T/live" "$T/plan"
"$IBFM" topo lids --topo "$T/f.topo" --json >"$T/plan.json"
check "--json: 12 switches, top LID 44" grep -q '"switches": 12,' "$T/plan.json"
"$IBFM" topo lids --topo "$T/f.topo" --lmc 8 2>"$T/lmc.err"
check "--lmc 8: usage (exit 2)" test $? = 2
check "saying what it takes" grep -q 'expected 0..7' "$T/lmc.err"
"$IBFM" topo lids --topo "$T/nothing.topo" 2>/dev/null
check "a topology that does not read: exit 3" test $? = 3
check "ibfmd still up" kill -0 "$DPID"
finish
