#!/bin/bash
# The SM view: ibfmd names the master SM and the standbys (SMInfo) in
# status, text and JSON, and in /metrics. Two OpenSMs with the plugin on
# two simulated hosts (ibsim forwards SMInfo to the SM client of a port,
# and sets IsSM in the port's CapabilityMask): the lower priority one
# stands by; SIGKILL the master, the standby takes over, and ibfmd
# names the new master and raises an sm-master event.
. "$TESTLIB"

ask() { "$IBFM" --socket "$T/ibfmd.sock" "$@"; }
# port_guid HOST: the port GUID of HOST's port 1, as ibsim gives it.
port_guid() {
	printf '0x%016x' "0x$(sed -n "/^Ca.*# \"$1\"/{n;s/^\[1\](\([0-9a-f]*\)).*/\1/p}" "$T/f.topo")"
}
# sm_conf FILE STATE_DIR PRIORITY: the plugin, and a quick failover:
# the standby polls the master every second, and gives up after two.
sm_conf() {
	osm_conf "$1" "$2" ibfm
	cat >>"$1" <<CONF
sm_priority $3
sminfo_polling_timeout 1000
polling_retry_number 2
CONF
}
# status_has TEXT: the JSON status holds TEXT (left in $T/s.json).
status_has() {
	ask status --json >"$T/s.json" 2>/dev/null
	grep -qF "$1" "$T/s.json"
}

"$IBFM" topo gen -l 2 -k 4 -o "$T/f.topo" >/dev/null || die "gen"
sim_start "$T/f.topo"
a=$(port_guid "node001 mlx5_0")
b=$(port_guid "node003 mlx5_0")
sm_conf "$T/a.conf" "$T/state" 5
mkdir "$T/a" "$T/b"
OSM_DIR="$T/a" osm_start "$T/a.conf"
A_PID=$OSM_PID
wait_generation "$T/state" 1 || die "no plugin snapshot"

cat >"$T/ibfmd.conf" <<CONF
socket $T/ibfmd.sock
state_dir $T/state
sweep_interval 3600
light_interval 1
metrics 127.0.0.1:0
CONF
ibfmd_start "node002 mlx5_0"
until_ok 300 "$DPID" ibfmd ibfmd_swept 1

# (1) One OpenSM: the master, with its priority.
master_a="\"sm_master\":{\"guid\":\"$a\",\"lid\":"
check "status: sm_master is node001's port" status_has "$master_a"
check "status: and its description" grep -qF '"desc":"node001 mlx5_0"}' "$T/s.json"
check "status: one SM, master, priority 5" \
	grep -qE "\"sms\":\[\{\"guid\":\"$a\",\"lid\":[0-9]+,\"desc\":\"node001 mlx5_0\",\"priority\":5,\"state\":\"master\",\"act_count\":[0-9]+\}\]" "$T/s.json"
check "status: no master change yet" grep -qF '"sm_master_changes":0' "$T/s.json"
ask status >"$T/status.txt"
check "text status: sminfo's line" \
	grep -qE "^sminfo: sm lid [0-9]+ sm guid 0x${a#0x000}, activity count [0-9]+ priority 5 state 3 SMINFO_MASTER \"node001 mlx5_0\"$" "$T/status.txt"
port=$(metrics_port "$T/ibfmd.log")
http_get "$port" /metrics >"$T/metrics.txt"
check "metrics: ibfm_sm_info of the master" \
	grep -qF "ibfm_sm_info{guid=\"$a\",desc=\"node001 mlx5_0\",state=\"master\"} 1" "$T/metrics.txt"
check "metrics: its priority" grep -qF "ibfm_sm_priority{guid=\"$a\"} 5" "$T/metrics.txt"
check "metrics: no master change" grep -qx "ibfm_sm_master_changes_total 0" "$T/metrics.txt"

# (2) A second OpenSM, priority 2, on node003: it stands by.
sm_conf "$T/b.conf" "$T/state2" 2
OSM_DIR="$T/b" OSM_HOST="node003 mlx5_0" OSM_UP="Entering STANDBY state" osm_start "$T/b.conf"
B_PID=$OSM_PID
ibfmd_sweep_now
check "status: the second SM stands by, priority 2" \
	status_has "{\"guid\":\"$b\",\"lid\":$(sed -n 's/.*"guid":"'"$b"'","lid":\([0-9]*\).*/\1/p' "$T/s.json"),\"desc\":\"node003 mlx5_0\",\"priority\":2,\"state\":\"standby\""
check "status: the master is still node001's" grep -qF "$master_a" "$T/s.json"
ask status >"$T/status.txt"
check "text status: the standby's line" \
	grep -qE "^sminfo: sm lid [0-9]+ sm guid 0x${b#0x000}, activity count [0-9]+ priority 2 state 2 SMINFO_STANDBY \"node003 mlx5_0\"$" "$T/status.txt"

# (3) The master dies without a word; the standby takes over.
kill -9 "$A_PID"
wait "$A_PID" 2>/dev/null
until_ok 300 "$B_PID" "standby OpenSM" grep -q "Entering MASTER state" "$T/b/opensm.log"
until_ok 300 "$DPID" ibfmd status_has "\"sm_master\":{\"guid\":\"$b\","
check "status: node003's SM is master now" grep -qE "\{\"guid\":\"$b\",[^}]*\"state\":\"master\"" "$T/s.json"
check "status: the dead master is not listed" bash -c "! grep -qF '{\"guid\":\"$a\"' '$T/s.json'"
check "status: one master change" grep -qF '"sm_master_changes":1' "$T/s.json"
ask events --json >"$T/events.json"
check "an sm-master event names the new master and the old" \
	grep -qF "\"kind\":\"sm-master\",\"ports\":[\"\\\"node003 mlx5_0\\\"[1]" "$T/events.json"
check "with the GUID before" grep -qE "\"detail\":\"master SM now $b lid [0-9]+ priority 2, was $a\"" "$T/events.json"
check "one sm-master event" test "$(grep -o '"kind":"sm-master"' "$T/events.json" | wc -l)" = 1
http_get "$port" /metrics >"$T/metrics.txt"
check "metrics: the new master" \
	grep -qF "ibfm_sm_info{guid=\"$b\",desc=\"node003 mlx5_0\",state=\"master\"} 1" "$T/metrics.txt"
check "metrics: one master change" grep -qx "ibfm_sm_master_changes_total 1" "$T/metrics.txt"
finish
