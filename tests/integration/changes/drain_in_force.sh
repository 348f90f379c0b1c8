#!/bin/bash
# Drains listed but not in force are said, not left silent (hardening):
# OpenSM started with a typo in the plugin's options routes with its
# fallback engine (minhop), which ignores the drain list holding
# spine-01: ibfmd raises a drains-not-in-force error event, its metric
# and status say so. With the plugin loaded the drain is routed around
# and the event clears. OpenSM restarted with a typo (fast_rerute=on)
# while the older ibfm snapshot stays (F7): that pass is of the OpenSM
# run before, plugin.run says the plugin refused its options, and within
# one look ibfmd says the drains are not in force. Without plugin.run (a
# plugin from before it), a drain added then is followed by no pass,
# and that is said too. The state directory: missing, it is an error
# event and status says so; a missing state_dir key is warned at start.
. "$TESTLIB"

ask() { "$IBFM" --socket "$T/ibfmd.sock" "$@"; }
json_num() { sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p" "$1" | head -1; }
# has_event PATTERN: ibfmd's events match PATTERN (left in $T/ev.json).
has_event() { ask events --json >"$T/ev.json" && grep -q "$1" "$T/ev.json"; }
# osm_restart OPTS: OpenSM again, with plugin options OPTS added.
osm_restart() {
	osm_stop
	mv "$T/opensm.log" "$T/opensm.$(date +%s%N).log"
	PLUGIN_OPTS="$1" osm_conf "$T/opensm.conf" "$T/state" "ibfm,minhop"
	osm_start "$T/opensm.conf"
}
STATUS() { ask call --json status >"$T/status.json"; }

"$IBFM" topo gen -l 2 -k 8 -o "$T/f.topo" >/dev/null || die "gen"
mkdir "$T/state"
echo "0x0002c90200000009 # spine-01" >"$T/state/drain.list"
sim_start "$T/f.topo"
PLUGIN_OPTS="drain_fiel=x" osm_conf "$T/opensm.conf" "$T/state" "ibfm,minhop"
osm_start "$T/opensm.conf"
check "the typo stops the plugin (P01)" grep -q 'ERR P01 .*bad option "drain_fiel"' "$T/opensm.log"
check "OpenSM routes with minhop" grep -q 'minhop tables configured on all switches' "$T/opensm.log"
check "and no ibfm pass is published" test ! -e "$T/state/snapshot.json"

cat >"$T/ibfmd.conf" <<CONF
socket $T/ibfmd.sock
state_dir $T/state
drain_grace 2
sweep_interval 3600
light_interval 0
metrics 127.0.0.1:0
CONF
ibfmd_start "node002 mlx5_0"
until_ok 300 "$DPID" ibfmd ibfmd_swept 1
until_ok 100 "$DPID" "the drains-not-in-force event" \
	has_event '"severity":"error","kind":"drains-not-in-force"'
check "it says why" grep -q '1 drains listed, the plugin refused its options (P01 in OpenSM.s log): the fallback engine ignores drains' "$T/ev.json"
check "the log says it (err)" grep -q 'err routing: .*1 drains listed, the plugin refused its options' "$T/ibfmd.log"
STATUS
check "status: drains_not_in_force 1" test "$(json_num "$T/status.json" drains_not_in_force)" = 1
check "status: drains_listed 1" test "$(json_num "$T/status.json" drains_listed)" = 1
check "status: the problem in state_problem" grep -q '"state_problem":"1 drains listed, the plugin refused its options' "$T/status.json"
http_get "$(metrics_port "$T/ibfmd.log")" /metrics >"$T/metrics"
check "metric: ibfm_drains_not_in_force 1" grep -q '^ibfm_drains_not_in_force 1$' "$T/metrics"

# The plugin loads: it routes around spine-01, and that is said.
osm_restart ""
wait_generation "$T/state" 1 || die "no plugin pass"
until_ok 100 "$DPID" "the drains' end of trouble" \
	has_event '"severity":"info","kind":"drains-not-in-force","ports":\[".*"\],"detail":"the drains listed are routed around"'
STATUS
check "status: drains_not_in_force 0" test "$(json_num "$T/status.json" drains_not_in_force)" = 0
check "status: the generation's age" test -n "$(json_num "$T/status.json" routing_generation_age_s)"
check "status: no problem" grep -q '"state_problem":""' "$T/status.json"

# F7: a typo in the options at a restart, the ibfm snapshot of the run
# before in place: OpenSM's fallback routes through spine-01, and
# within one look (2 s) ibfmd says so.
osm_restart "fast_rerute=on"
check "the typo stops the plugin again" grep -q 'ERR P01 .*bad option "fast_rerute"' "$T/opensm.log"
check "the old snapshot is still of engine ibfm" grep -q '"engine": "ibfm"' "$T/state/snapshot.json"
until_ok 50 "$DPID" "a second drains-not-in-force event within one look" \
	bash -c "'$IBFM' --socket '$T/ibfmd.sock' events --json | grep -o '\"severity\":\"error\",\"kind\":\"drains-not-in-force\"' | wc -l | grep -qx 2"
STATUS
check "status: drains_not_in_force 1 after the restart" test "$(json_num "$T/status.json" drains_not_in_force)" = 1
check "saying the plugin refused its options" grep -q '"state_problem":"1 drains listed, the plugin refused its options' "$T/status.json"

# A plugin from before plugin.run: a drain added to the list is followed
# by no pass, and that is said.
rm "$T/state/plugin.run"
echo "0x0002c9020000000a # spine-02" >>"$T/state/drain.list"
said_no_pass() {
	STATUS && grep -q '"state_problem":"the drain list changed [0-9]* s ago and no routing pass followed (generation 1)' "$T/status.json"
}
until_ok 100 "$DPID" "saying the list changed and no pass followed" said_no_pass
osm_stop

# The state directory goes away: an error event, and status says so.
mv "$T/state" "$T/state.moved"
until_ok 100 "$DPID" "the state-dir event" \
	has_event '"severity":"error","kind":"state-dir","ports":\[".*"\],"detail":"the state directory cannot be used: No such file or directory"'
STATUS
check "status: state_dir_ok 0" test "$(json_num "$T/status.json" state_dir_ok)" = 0
mv "$T/state.moved" "$T/state"
until_ok 100 "$DPID" "the state directory back" \
	has_event '"severity":"info","kind":"state-dir"'
kill "$DPID"
wait "$DPID"

# No state_dir at all: warned at start.
sed -i '/^state_dir/d' "$T/ibfmd.conf"
ibfmd_start "node002 mlx5_0"
until_ok 300 "$DPID" ibfmd ibfmd_swept 1
check "no state_dir: warned at start" grep -q 'warn main: no state_dir in .*: no drains, no routes of the plugin (path, drain), no audit file' "$T/ibfmd.log"
finish
