#!/bin/bash
# Congestion control through ibfmd (docs/cc.md).
# On ibsim, which implements no CC and takes class 0x21 for SMPs: every
# node comes out 'unsupported', no Set is sent, and the P_Key and SL2VL
# tables read with smpquery are what they were. Against the CC node
# model (ibfmd's test build tests/ibfmd-ccmodel, whose CC transport is
# the model; faults from $IBFM_CC_MODEL_FAULTS): diff lists every node,
# apply sets and reads back,
# a second diff is empty and a second apply sends nothing; with cc_auto
# and faults, a node that times out twice fails and is set by the next
# pass, a node holding another CC_Key is reported and not retried; a
# policy gives rail 1 its own profile. A profile with an out-of-range
# value stops ibfmd with FILE:LINE, field and range.
. "$TESTLIB"

SMPQUERY=${SMPQUERY:-$(dirname "$IBROUTE")/smpquery}
ask() { "$IBFM" --socket "$T/ibfmd.sock" "$@"; }
# model_start HOST: ibfmd's test build, CC MADs answered by the model.
model_start() { IBFMD=$IBFMD_CCMODEL ibfmd_start "$1"; }
count() { grep -o "$1" "$2" | wc -l; }

# SHARP on SL 1: CC must stay off it whatever the profile says.
PLUGIN_OPTS=sharp_sl=1 routed_fabric -l 2 -k 8 --rails 2 --hosts 8
cat >"$T/ibfmd.conf" <<CONF
socket $T/ibfmd.sock
state_dir $T/state
sweep_interval 3600
light_interval 0
metrics 127.0.0.1:0
cc_tries 1
cc_backoff_ms 0
cc_timeout_ms 100
CONF
ibfmd_start "node002 mlx5_0"
until_ok 300 "$DPID" ibfmd ibfmd_swept 1

# The tables CC MADs would land in on ibsim, before.
lids=$(grep -o 'lid [0-9]* lmc' "$T/fabric.topo" | awk '{ print $2 }' | sort -un)
nlids=$(echo "$lids" | wc -l)
tables() {
	local l
	for l in $lids; do
		echo "== lid $l"
		(cd "$T" && SIM_HOST="node001 mlx5_0" LD_PRELOAD="$UMAD2SIM" timeout 30 \
			"$SMPQUERY" pkeys "$l" 2>/dev/null) || echo "pkeys $l: error"
		(cd "$T" && SIM_HOST="node001 mlx5_0" LD_PRELOAD="$UMAD2SIM" timeout 30 \
			"$SMPQUERY" sl2vl "$l" 2>/dev/null) || echo "sl2vl $l: error"
	done
}
tables >"$T/tables.before"
check "P_Key and SL2VL tables read on all $nlids LIDs" test "$(count '^== lid' "$T/tables.before")" = "$nlids"
check "with no read error" bash -c "! grep -q 'error' '$T/tables.before'"

ask cc apply --json >"$T/apply.json"
check "cc apply on ibsim: exit 0" test $? = 0
ntargets=$(count '"guid"' "$T/apply.json")
check "cc apply: one result per switch and CA port ($ntargets)" test "$ntargets" = "$nlids"
check "every node unsupported" test "$(count '"result":"unsupported"' "$T/apply.json")" = "$nlids"
check "none set, none failed" test "$(grep -c '"result":"\(set\|failed\|unchanged\)"' "$T/apply.json")" = 0
check "no Set MAD sent" test "$(count '"sets":0,' "$T/apply.json")" = "$nlids"
check "with why: ClassPortInfo does not read as a CC agent's" grep -q '"reason":"CC ClassPortInfo' "$T/apply.json"
tables >"$T/tables.after"
check "P_Key and SL2VL tables unchanged" cmp -s "$T/tables.before" "$T/tables.after"
check "OpenSM is still up" kill -0 "$OSM_PID"
check "the SM's port was not probed (umad2sim would crash OpenSM)" grep -q '"reason":"not probed: the subnet manager' "$T/apply.json"
ask cc diff --json >"$T/diff.json"
check "cc diff on ibsim: nothing pending (exit 0)" test $? = 0
check "cc diff --json: an empty list" test "$(tr -d ' \n' <"$T/diff.json")" = "[]"
ask cc show --json >"$T/show.json"
check "cc show: every node known unsupported" test "$(count '"state":"unsupported"' "$T/show.json")" = "$nlids"
check "cc show: no Set sent since start" grep -q '"sets_sent":0,' "$T/show.json"
check "cc show: the installed ibfmd's MADs go to the fabric" grep -q '"model":false' "$T/show.json"
http_get "$(metrics_port "$T/ibfmd.log")" /metrics >"$T/metrics"
check "metrics: every node unsupported" grep -q "^ibfm_cc_nodes{state=\"unsupported\"} $nlids$" "$T/metrics"
check "metrics: no CC Set sent" grep -q '^ibfm_cc_sets_total 0$' "$T/metrics"
ask events --json >"$T/events.json"
check "an event for the apply" grep -q '"kind":"cc-apply".*"detail":"0 set, 0 unchanged, 0 failed, '"$nlids"' unsupported"' "$T/events.json"
kill "$DPID" && wait "$DPID" 2>/dev/null

# The same fabric, CC MADs answered by the node model instead.
cat >>"$T/ibfmd.conf" <<CONF
cc_profile ai
CONF
model_start "node002 mlx5_0"
until_ok 300 "$DPID" ibfmd ibfmd_swept 1
ask cc diff --json >"$T/mdiff.json"
check "model: cc diff exits 1 (changes pending)" test $? = 1
check "model: diff lists every node" test "$(count '"result":"pending"' "$T/mdiff.json")" = "$nlids"
check "model: a switch's threshold 0 -> 15" grep -q '"type":"switch".*"field":"threshold","have":"0","want":"15"' "$T/mdiff.json"
check "model: a CA's control map, without SHARP's SL 1" grep -q '"type":"ca".*"field":"control_map","have":"0","want":"65533"' "$T/mdiff.json"
ask cc apply --json >"$T/mapply.json"
check "model: cc apply exit 0" test $? = 0
check "model: every node set and read back" test "$(count '"result":"set"' "$T/mapply.json")" = "$nlids"
ask cc diff --json >"$T/mdiff2.json"
check "model: diff after apply exits 0" test $? = 0
check "model: and is an empty list" test "$(tr -d ' \n' <"$T/mdiff2.json")" = "[]"
ask cc apply --json >"$T/mapply2.json"
check "model: apply again changes nothing" test "$(count '"result":"unchanged"' "$T/mapply2.json")" = "$nlids"
check "model: and sends no Set" test "$(count '"sets":0,' "$T/mapply2.json")" = "$nlids"
ask cc show --json >"$T/mshow.json"
check "cc show: SHARP's SL as the plugin publishes it" grep -q '"sharp_sl":1,' "$T/mshow.json"
check "cc show: the test build's are answered by the model" grep -q '"model":true' "$T/mshow.json"
ask cc show >"$T/mshow.txt"
check "cc show for people names the profile" grep -q '^profile ai; policy none' "$T/mshow.txt"
check "and counts the nodes" grep -q "^nodes: $nlids unchanged, 0 set" "$T/mshow.txt"
kill "$DPID" && wait "$DPID" 2>/dev/null

# Automatic passes, faults and a rail policy, on the model.
guid_of() { grep -o "\"[SH]-[0-9a-f]*\"[^#]*# \"$1\"" "$T/f.topo" | head -1 | sed 's/^"[SH]-\([0-9a-f]*\)".*/0x\1/'; }
leaf=$(guid_of leaf-r0-01)
hca=$(guid_of "node003 mlx5_1")
test -n "$leaf" && test -n "$hca" || die "GUIDs of leaf-r0-01 and node003 mlx5_1 not found"
printf '%s drop_sets 2\n%s key 0xbeef\n' "$leaf" "$hca" >"$T/faults"
printf 'rail 1 ai\n' >"$T/policy"
export IBFM_CC_MODEL_FAULTS=$T/faults
cat >>"$T/ibfmd.conf" <<CONF
cc_policy $T/policy
cc_auto on
cc_tries 2
CONF
sed -i 's/^cc_profile ai$/cc_profile reference/' "$T/ibfmd.conf"
status() { "$CTL_CLIENT" "$T/ibfmd.sock" line '{"cmd":"cc-status"}'; }
job_done() { status >"$T/st.json" && grep -q "\"job\":$1,.*\"state\":\"done\"" "$T/st.json"; }
model_start "node002 mlx5_0"
until_ok 300 "$DPID" ibfmd job_done 1
cp "$T/st.json" "$T/st1.json"
check "auto: the first sweep applies to all $nlids nodes" grep -q "\"total\":$nlids," "$T/st.json"
check "auto: the switch that lost two Sets failed" grep -q "\"guid\":\"$leaf\"[^}]*\"result\":\"failed\",\"reason\":\"SwitchCongestionSetting Set (block 0): no answer (2 tries)\"" "$T/st.json"
check "auto: the HCA with another CC_Key failed, saying so" grep -q "\"guid\":\"$hca\"[^}]*\"result\":\"failed\",\"reason\":\"wrong CC_Key" "$T/st.json"
check "auto: the others set" test "$(count '"result":"set"' "$T/st.json")" = $((nlids - 2))
check "policy: rail 1 HCAs get ai" bash -c "grep -o '\"name\":\"node00[0-9] mlx5_1\",[^}]*\"profile\":\"[a-z]*\"' '$T/st.json' | grep -vc 'profile\":\"ai' | grep -qx 0"
check "policy: rail 0 HCAs and switches the default" bash -c "grep -o '\"name\":\"node00[0-9] mlx5_0\",[^}]*\"profile\":\"[a-z]*\"' '$T/st.json' | grep -vc 'profile\":\"reference' | grep -qx 0"
ask events --json >"$T/events2.json"
check "events: the failures, by node" test "$(count '"kind":"cc-failed"' "$T/events2.json")" = 2
"$IBFM" --socket "$T/ibfmd.sock" sweep >/dev/null
until_ok 300 "$DPID" ibfmd job_done 2
check "next pass: only the switch is tried again" grep -q '"total":1,' "$T/st.json"
check "next pass: and it is set" grep -q "\"guid\":\"$leaf\"[^}]*\"result\":\"set\"" "$T/st.json"
"$IBFM" --socket "$T/ibfmd.sock" sweep >/dev/null
ibfmd_sweep_now
check "a pass with nothing left to do starts no job" job_done 2
ask cc apply --json >"$T/apply3.json"
check "cc apply by hand tries the keyed HCA again: exit 4" test $? = 4
check "and reports the wrong CC_Key" grep -q "\"guid\":\"$hca\"[^}]*\"reason\":\"wrong CC_Key" "$T/apply3.json"
check "with no Set sent to it" grep -q "\"guid\":\"$hca\"[^}]*\"sets\":0," "$T/apply3.json"
# A new default profile on SIGHUP: the last results keep naming theirs.
sed -i 's/^cc_profile reference$/cc_profile ai/' "$T/ibfmd.conf"
kill -HUP "$DPID"
until_ok 100 "$DPID" ibfmd grep -q 'cc: profile ai' "$T/ibfmd.log"
status >"$T/st3.json"
check "SIGHUP: the last job's results still name their profile" grep -q '"profile":"reference"' "$T/st3.json"
ask cc diff --json >"$T/diff4.json"
check "SIGHUP: the new default makes the switches pending" test $? = 1
check "with ai's marking rate" grep -q '"type":"switch".*"field":"marking_rate","have":"10","want":"4"' "$T/diff4.json"
kill "$DPID" && wait "$DPID" 2>/dev/null

# A profile with a value out of its IBA width stops ibfmd at start.
printf 'base ai\n[switch]\nthreshold 16\n' >"$T/bad.ccp"
sed -i "s|^cc_profile .*|cc_profile $T/bad.ccp|" "$T/ibfmd.conf"
(cd "$T" && SIM_HOST="node002 mlx5_0" LD_PRELOAD="$UMAD2SIM" timeout 30 \
	"$IBFMD" --config "$T/ibfmd.conf" --foreground >"$T/bad.log" 2>&1)
check "a bad profile: ibfmd refuses to start" test $? = 1
check "naming FILE:LINE, field and range" grep -q "$T/bad.ccp:3: \[switch\] threshold: expected 0..15 (4 bits)" "$T/bad.log"
# No option of the installed ibfmd switches the model on: the key is gone.
printf 'socket %s/x.sock\ncc_model on\n' "$T" >"$T/model.conf"
"$IBFMD" --config "$T/model.conf" --foreground >"$T/model.log" 2>&1
check "cc_model: no key of ibfmd (exit 1)" test $? = 1
check "saying so" grep -q 'model.conf:2: unknown key "cc_model"' "$T/model.log"
finish
