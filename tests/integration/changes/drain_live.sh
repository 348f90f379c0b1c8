#!/bin/bash
# A live drain with OpenSM, the plugin and ibfmd on ibsim: drain a spine
# (the switches stop using it, every CA still reaches every CA, and ibfmd
# says done only once the switches hold the new tables), undrain it (the
# switches end with the original tables), and a drain that would cut a
# host off is refused with nothing changed: by the CLI's check, and by
# ibfmd's own when the request comes raw on the socket.
. "$TESTLIB"

json_num() { sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p" "$1" | head -1; }
ask() { "$IBFM" --socket "$T/ibfmd.sock" "$@"; }

routed_fabric -l 2 -k 8
ibfmd_beside

# What the switches hold, read with ibroute from node001 (a drained
# spine has no route to its LID: "-" counts the switches not read).
switch_lfts() {
	local lid miss=0
	: >"$T/$1.dump"
	for lid in $(sed -n 's/^Unicast lids .* of switch Lid \([0-9]*\) guid.*/\1/p' "$T/state/lfts.dump"); do
		SIM_HOST="node001 mlx5_0" sim_client "$IBROUTE" "$lid" >>"$T/$1.dump" 2>/dev/null || miss=$((miss + 1))
	done
	lft_entries "$T/$1.dump" >"$T/$1"
	echo "$miss" >"$T/$1.missed"
}
switch_lfts orig
check "ibroute read all 12 switches" test "$(cat "$T/orig.missed")" = 0
# Leaves' port 5 leads to spine-01 (ports 1-4 hosts, 5-8 spines).
leaf_guids=$(sed -n 's/^Switch.*"S-\([0-9a-f]*\)"\t\t# "leaf-.*/0x\1/p' "$T/f.topo" | tr '\n' ' ')
via_spine1() { awk -v l="$leaf_guids" 'index(l, $1 " ") && $3 == "005"' "$1" | grep -q .; }
check "before: the leaves send through spine-01" via_spine1 "$T/orig"
gen0=$(sed -n 's/^ *"generation": \([0-9]*\),$/\1/p' "$T/state/snapshot.json")

ask drain spine-01 --json >"$T/drain.json"
check "drain spine-01: exit 0" test $? = 0
check "drain spine-01: done" grep -q '"state":"done"' "$T/drain.json"
check "drain spine-01: a new routing generation" test "$(json_num "$T/drain.json" generation)" -gt "$gen0"
check "drain spine-01: LFT blocks read back off the switches" test "$(json_num "$T/drain.json" blocks)" -gt 0
check "drain spine-01: none differs" test "$(json_num "$T/drain.json" mismatched)" = 0
check "the drain list names spine-01" grep -q '# "spine-01"' "$T/state/drain.list"
switch_lfts drained
check "ibroute read 11 switches (spine-01 has no route to it)" test "$(cat "$T/drained.missed")" = 1
no_spine1() { ! via_spine1 "$1"; }
check "the leaves no longer send through spine-01" no_spine1 "$T/drained"
"$IBFM" check --topo "$T/fabric.topo" --lfts "$T/drained.dump" --ca-sources-only --json >"$T/check.json"
check "every CA still reaches every CA" grep -q '"unreachable_ca_pairs": 0,' "$T/check.json"
check "no credit loop" grep -q '"credit_loops": 0' "$T/check.json"
ask drain spine-01 >/dev/null 2>"$T/again.err"
check "draining it again is refused (exit 4)" test $? = 4
check "saying why" grep -q 'already drained' "$T/again.err"

ask drain "node001 mlx5_0" --json >"$T/unsafe.json" 2>/dev/null
check "draining node001's only link is unsafe (exit 1)" test $? = 1
check "and nothing changed" test "$(grep -c '^0x' "$T/state/drain.list")" = 1

# The same drain sent raw, past the CLI's check: ibfmd checks it itself
# and refuses it before the list is touched; the reply is the verdict.
cp "$T/state/drain.list" "$T/list.before"
"$CTL_CLIENT" "$T/ibfmd.sock" line '{"cmd":"drain","element":"node001 mlx5_0"}' >"$T/raw.json"
check "a raw drain of node001's only link: ibfmd checks it, the reply says unsafe" grep -q '"active":false,.*"state":"unsafe","error":"31 CA pairs cut (e.g. ' "$T/raw.json"
ask call --json drain-status >"$T/ds.json"
check "drain-status says so at once" grep -q '"active":false,.*"state":"unsafe"' "$T/ds.json"
check "naming the CA pairs it cuts, with an example" grep -q '"error":"31 CA pairs cut (e.g. ' "$T/ds.json"
check "the drain list is unchanged" cmp -s "$T/list.before" "$T/state/drain.list"
ask events --json >"$T/unsafe_events.json"
check "the refusal is an error event" grep -q '"severity":"error","kind":"drain","ports":\["host \\"node001 mlx5_0\\" (1 links)"\],"detail":"31 CA pairs cut' "$T/unsafe_events.json"

ask undrain 0x00000000deadbeef 2>"$T/notdrained.err"
check "undraining what is not on the list is refused (exit 4)" test $? = 4
check "saying so" grep -q 'not drained' "$T/notdrained.err"

ask undrain spine-01 --json >"$T/undrain.json"
check "undrain spine-01: exit 0" test $? = 0
check "undrain spine-01: done" grep -q '"state":"done"' "$T/undrain.json"
switch_lfts after
check "the switches end with the original tables" cmp -s "$T/orig" "$T/after"
check "the drain list is empty" test "$(grep -c '^0x' "$T/state/drain.list")" = 0
ask events --json >"$T/events.json"
check "drain and undrain are events" bash -c "grep -q '\"kind\":\"drain\"' '$T/events.json' && grep -q '\"kind\":\"undrain\"' '$T/events.json'"
check "ibfmd still up" kill -0 "$DPID"
finish
