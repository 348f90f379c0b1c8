#!/bin/bash
# ibfm rebalance after a drain that lasts: with OpenSM, the plugin and
# ibfmd on ibsim, a spine drained is a repair (only what crossed it
# moves), so the tables differ from a full route of the drained fabric;
# `ibfm rebalance --dry-run` says by how much (ibfmd's rebalance-check,
# and the same figures offline on the plugin's dump and drain list);
# `ibfm rebalance` routes from scratch on the fast path, every block read
# back, and then the tables are that full route: a second dry run
# changes nothing, and OpenSM's pass that follows sends no block.
. "$TESTLIB"

ask() { "$IBFM" --socket "$T/ibfmd.sock" "$@"; }
json_num() { sed -n "s/.*\"$2\": *\([0-9.]*\).*/\1/p" "$1" | head -1; }
last_change() {
	grep '"kind":"fast-change"' "$T/state/fast-reroute.log" | tail -1 |
		sed -n "s/.*\"$1\":\"\{0,1\}\([^,\"]*\).*/\1/p"
}

routed_fabric -l 2 -k 8
ibfmd_beside

ask rebalance --dry-run --json >"$T/none.json"
check "nothing drained: a rebalance changes nothing" test "$(json_num "$T/none.json" changed_entries)" = 0

ask drain spine-01 --json >"$T/drain.json"
check "drain spine-01: done" grep -q '"state":"done"' "$T/drain.json"

ask rebalance --dry-run --json >"$T/dry.json"
rc=$?
n=$(json_num "$T/dry.json" changed_entries)
check "dry run: safe, exit 0" test $rc = 0
check "dry run: predicted by a full route" grep -q '"predicted_by": *"full route"' "$T/dry.json"
check "dry run: the repaired tables differ from a full route ($n entries)" test "$n" -gt 0
check "dry run: loads now and after" grep -q '"all2all_max_load_before"' "$T/dry.json"
check "dry run: the list is untouched" bash -c "! grep -q '^rebalance' '$T/state/drain.list'"

# The same figures offline, from the sweep, the plugin's dump and list.
SIM_HOST="node001 mlx5_0" sim_client "$IBNETDISCOVER" >"$T/now.topo" 2>/dev/null
"$IBFM" rebalance --dry-run --topo "$T/now.topo" --lfts "$T/state/lfts.dump" \
	--drain-list "$T/state/drain.list" --json >"$T/off.json"
check "offline dry run: the same entries ($(json_num "$T/off.json" changed_entries))" \
	test "$(json_num "$T/off.json" changed_entries)" = "$n"
"$IBFM" rebalance --dry-run --topo "$T/now.topo" 2>"$T/err"
check "offline without --lfts: a usage error" test $? = 2
check "says what is missing" grep -q -- '--topo needs --lfts' "$T/err"

ask rebalance >"$T/reb.txt"
rc=$?
check "rebalance: exit 0" test $rc = 0
check "rebalance: done" grep -q '^rebalance: done' "$T/reb.txt"
check "rebalance: the check is printed first" grep -q '^rebalance: SAFE' "$T/reb.txt"
check "the list counts it" grep -q '^rebalance 1' "$T/state/drain.list"
check "written by the fast path, a full route, every block read back" \
	test "$(last_change full)/$(last_change result)/$(last_change blocks)" = "true/done/$(last_change verified)"
ask call --json drain-status >"$T/status.json"
check "drain-status says so" grep -q '"rebalances": *1' "$T/status.json"
read_lfts_any "$T/state/lfts.dump" "$T/sw.lfts" node001 node005 node009 node013 node017 node021 node025 node029
# The drained spine's own LID is routed by none: its table is not read.
check "the 11 switches read hold the plugin's tables" bash -c \
	"test \$(grep -c '^Unicast' '$T/sw.lfts') = 11 && test -z \"\$(comm -23 <($(declare -f lft_entries); lft_entries '$T/sw.lfts') <($(declare -f lft_entries); lft_entries '$T/state/lfts.dump'))\""
ask rebalance --dry-run --json >"$T/again.json"
check "a second dry run changes nothing" test "$(json_num "$T/again.json" changed_entries)" = 0
until_ok 100 "$OSM_PID" OpenSM grep -q 'this pass routes its [0-9]* blocks the same' "$T/opensm.log"
check "OpenSM's pass after it sends no LFT block" \
	bash -c "grep 'LFT blocks to send' '$T/opensm.log' | tail -1 | grep -q 'send: 0 of'"

# The full route is the drained fabric's: undrain routes back as before.
ask undrain spine-01 --json >"$T/undrain.json"
check "undrain: done" grep -q '"state":"done"' "$T/undrain.json"
ask rebalance --dry-run --json >"$T/after.json"
check "after the undrain: a rebalance changes nothing" test "$(json_num "$T/after.json" changed_entries)" = 0
finish
