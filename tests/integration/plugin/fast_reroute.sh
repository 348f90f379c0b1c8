#!/bin/bash
# The plugin's fast path (#24) with OpenSM on ibsim, one safety rule
# after another. While OpenSM does not sweep on traps (sweep_on_trap
# FALSE, no timed sweeps; a SIGHUP makes it sweep and route), what the
# switches hold between the fast path and OpenSM's pass is read with
# ibroute: repaired tables that reach every CA from every CA over the
# fabric as ibnetdiscover finds it, and a pass after them that sends no
# block and routes every written block the same. Then: a second failure
# during the fast path, a whole spine, a link that flaps back, a link
# that comes up, a switch that does not answer, OpenSM's own pass racing
# the fast path, fast_reroute=off, a standby SM, and the SM's first spine
# lost whole. ibfmd beside OpenSM makes the
# fast path's repairs events and metrics.
. "$TESTLIB"

HOSTS="node001 node017 node032"
log() { cat "$T/state/fast-reroute.log" 2>/dev/null; }
lastfast() { log | grep '"kind":"fast-reroute"' | tail -1; }
field() { lastfast | sed -n "s/.*\"$1\":\\([^,}]*\\).*/\\1/p" | tr -d '"'; }
gen() { sed -n 's/^ *"generation": \([0-9]*\),$/\1/p' "$T/state/snapshot.json"; }
id_of() { sed -n "s/^Switch.*\"\\(S-[0-9a-f]*\\)\"\\t\\t# \"$1\".*/\\1/p" "$T/f.topo"; }

# The switches' tables now, and whether they reach every CA from every
# CA over the fabric as it is (ibnetdiscover) with no credit loop.
tables_now() {
	read_lfts_any "$T/dump1" "$T/$1.lfts" $HOSTS
	SIM_HOST="node001 mlx5_0" sim_client "$IBNETDISCOVER" >"$T/$1.topo" 2>/dev/null
	"$IBFM" check --topo "$T/$1.topo" --lfts "$T/$1.lfts" --ca-sources-only \
		--json >"$T/$1.json"
}
reach() { grep -q '"unreachable_ca_pairs": 0,' "$T/$1.json" && grep -q '"credit_loops": 0' "$T/$1.json"; }
same_tables() { [ "$(lft_entries "$T/$1.lfts" | md5sum)" = "$(lft_entries "$T/$2" | md5sum)" ]; }

# pass_after WHAT: OpenSM's pass (SIGHUP) after a fast path: it routes
# what the fast path wrote the same and sends no block, and the switches
# hold after it what they held before it.
pass_after() {
	local g=$(gen) b
	kill -HUP "$OSM_PID"
	check "$1: OpenSM's pass ran" wait_generation "$T/state" $((g + 1))
	check "$1: the pass routes the fast path's blocks the same" \
		sh -c "grep 'fast path: this pass routes' '$T/opensm.log' | tail -1 | grep -q 'the same'"
	b=$(grep 'ibfm: routed' "$T/opensm.log" | tail -1 | sed -n 's/.*LFT blocks to send: \([0-9]*\) of.*/\1/p')
	check "$1: the pass sends no LFT block (sent $b)" test "$b" = 0
	read_lfts_any "$T/dump1" "$T/after.lfts" $HOSTS
	check "$1: the switches hold after the pass what the fast path wrote" same_tables after "$1.lfts"
}

# restart_osm CONF-LINES...: OpenSM again with the plugin and these lines.
restart_osm() {
	osm_stop
	osm_conf "$T/opensm.conf" "$T/state" "ibfm"
	printf '%s\n' "$@" >>"$T/opensm.conf"
	: >"$T/opensm.log"
	osm_start "$T/opensm.conf"
}

"$IBFM" topo gen -l 2 -k 8 -o "$T/f.topo" >/dev/null || die "gen"
sim_start "$T/f.topo"
osm_conf "$T/opensm.conf" "$T/state" "ibfm"
printf '%s\n' "sweep_on_trap FALSE" "sweep_interval 0" >>"$T/opensm.conf"
osm_start "$T/opensm.conf"
wait_generation "$T/state" 1 || die "no plugin snapshot"
cp "$T/state/lfts.dump" "$T/dump1"
check "no helper before the first trap" sh -c "! pgrep -P $OSM_PID -f ibfm-smp-helper"

ibfmd_beside
fast_status() { "$IBFM" --socket "$T/ibfmd.sock" status --json >"$T/st.json" 2>/dev/null && grep -q '"fast_reroutes":1,' "$T/st.json"; }

# 1. A leaf's up-link lost: repaired on the switches before OpenSM routes.
sim_cmd "Unlink \"$(id_of leaf-01)\"[5]"
check "leaf up-link: the fast path fired" more_fast 0
check "leaf up-link: the helper runs beside the master" pgrep -P "$OSM_PID" -f ibfm-smp-helper
check "leaf up-link: one link lost, every block acknowledged and read back" \
	test "$(field result)/$(field links)/$(field acked)/$(field verified)" = "done/1/$(field blocks)/$(field blocks)"
check "leaf up-link: some block changed" test "$(field blocks)" -gt 0
check "leaf up-link: OpenSM has not routed yet" test "$(gen)" = 1
tables_now leaf
check "leaf up-link: the switches' tables reach every CA, no credit loop" reach leaf
pass_after leaf
until_ok 60 "$DPID" ibfmd fast_status
check "ibfmd counts the repair" grep -q '"fast_reroute_last_blocks":[1-9]' "$T/st.json"
"$IBFM" --socket "$T/ibfmd.sock" events --json >"$T/ev.json"
check "ibfmd's event says it (fast-reroute, done)" grep -q '"kind":"fast-reroute".*done: 1 links lost' "$T/ev.json"

# 2. A second failure during the fast path (20 ms after the first).
n=$(nfast)
echo "Unlink \"$(id_of leaf-02)\"[6]" >&3
sleep 0.02
echo "Unlink \"$(id_of leaf-03)\"[7]" >&3
sleep 0.5
check "second failure: the fast path fired" more_fast "$n"
links=$(log | tail -n +$((n + 1)) | grep '"kind":"fast-reroute"' | sed -n 's/.*"links":\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s }')
check "second failure: both links repaired ($links)" test "$links" = 2
check "second failure: OpenSM has not routed yet" test "$(gen)" = 2
tables_now second
check "second failure: the switches' tables reach every CA" reach second
pass_after second

# 2b. A whole spine lost: its links count as lost; OpenSM's subnet then
# lacks the switch, and the plugin's pass still repairs nothing more.
n=$(nfast)
sim_cmd "Unlink \"$(id_of spine-04)\""
check "whole spine: the fast path fired" more_fast "$n"
sleep 0.5
links=$(log | tail -n +$((n + 1)) | grep '"kind":"fast-reroute"' | sed -n 's/.*"links":\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s }')
check "whole spine: its 8 links lost ($links)" test "$links" = 8
tables_now spine
check "whole spine: the switches' tables reach every CA" reach spine
pass_after spine
check "whole spine: the plugin publishes no table for it" \
	sh -c "! grep -q \"'spine-04'\" '$T/state/lfts.dump'"

# 3. A link that flaps back before the fast path looks: nothing lost.
n=$(nfast)
g=$(gen)
printf 'Unlink "%s"[8]\nReLink "%s"[8]\n' "$(id_of leaf-04)" "$(id_of leaf-04)" >&3
sleep 1
check "flap: no fast path (the port is not Down)" test "$(nfast)" = "$n"
read_lfts_any "$T/dump1" "$T/flap.lfts" $HOSTS
check "flap: the switches' tables are untouched" same_tables flap spine.lfts
check "flap: OpenSM has not routed" test "$(gen)" = "$g"

# 4. A link that comes up waits for OpenSM.
sim_cmd "ReLink \"$(id_of leaf-01)\"[5]"
sleep 0.7
check "link up: no fast path" test "$(nfast)" = "$n"
read_lfts_any "$T/dump1" "$T/up.lfts" $HOSTS
check "link up: the switches' tables are untouched" same_tables up spine.lfts

# 5. A switch that does not answer: the rest is repaired, in bounded time.
n=$(nfast)
sim_cmd "Error \"$(id_of leaf-05)\" 100"
sim_cmd "Unlink \"$(id_of leaf-05)\"[5]"
check "silent switch: the fast path fired" more_fast "$n"
r=$(field result)
check "silent switch: not done ($r), not all acknowledged" \
	test "$r" != done -a "$(field acked)" -lt "$(field blocks)"
check "silent switch: given up within 2 s ($(field found_ms) ms to find)" \
	awk -v a="$(field found_ms)" 'BEGIN { exit !(a < 2000) }'
check "silent switch: OpenSM still up" kill -0 "$OSM_PID"
sim_cmd "Error \"$(id_of leaf-05)\" 0"
g=$(gen)
kill -HUP "$OSM_PID"
check "silent switch: OpenSM's pass ran" wait_generation "$T/state" $((g + 1))
sleep 1
read_lfts_any "$T/dump1" "$T/silent.lfts" $HOSTS
check "silent switch: after the pass, the switches hold the pass's tables" \
	same_tables silent state/lfts.dump

# 6. OpenSM's own pass racing the fast path (sweep_on_trap, the default).
restart_osm
n=$(nfast)
g=$(gen)
sim_cmd "Unlink \"$(id_of leaf-06)\"[6]"
check "race: OpenSM routed" wait_generation "$T/state" $((g + 1))
sleep 2
tables_now race
check "race: the switches hold the plugin's last tables" same_tables race state/lfts.dump
check "race: they reach every CA" reach race
check "race: OpenSM still up" kill -0 "$OSM_PID"

# 7. fast_reroute=off: no helper, no fast path.
PLUGIN_OPTS="fast_reroute=off" restart_osm "sweep_on_trap FALSE" "sweep_interval 0"
n=$(nfast)
g=$(gen)
sim_cmd "Unlink \"$(id_of leaf-07)\"[7]"
sleep 1
check "off: no helper" sh -c "! pgrep -P $OSM_PID -f ibfm-smp-helper"
check "off: no fast path" test "$(nfast)" = "$n"
check "off: nor a pass" test "$(gen)" = "$g"

# 8. A standby SM: no helper, no fast path; the master's does the work.
restart_osm "sweep_on_trap FALSE" "sweep_interval 0" "sm_priority 5"
MASTER=$OSM_PID
mkdir -p "$T/B"
osm_conf "$T/B/opensm.conf" "$T/stateB" "ibfm"
printf '%s\n' "sweep_on_trap FALSE" "sweep_interval 0" "sm_priority 1" >>"$T/B/opensm.conf"
OSM_DIR="$T/B" OSM_HOST="node003 mlx5_0" OSM_UP="Entering STANDBY state" \
	osm_start "$T/B/opensm.conf"
STANDBY=$OSM_PID
OSM_PID=$MASTER
n=$(nfast)
sim_cmd "Unlink \"$(id_of leaf-08)\"[5]"
check "standby: the master's fast path fired" more_fast "$n"
check "standby: no fast path there" test ! -e "$T/stateB/fast-reroute.log"
check "standby: no helper there" sh -c "! pgrep -P $STANDBY -f ibfm-smp-helper"
check "both SMs still up" kill -0 "$MASTER" "$STANDBY"
g=$(gen)
kill -HUP "$MASTER"
check "the master still routes beside its helper and a standby" wait_generation "$T/state" $((g + 1))

# 9. The first spine lost whole (the SM's directed routes go up through
# spine-01 first): a neighbour whose trap went by it cannot tell, and
# its neighbours are asked by routes that avoid it: every link found.
SIM_HOST="node001 mlx5_0" sim_client "$IBNETDISCOVER" >"$T/pre.topo" 2>/dev/null
expect=$(awk '/^Switch/ { s = /# "spine-01"/ } s && /^\[[0-9]+\]/ { n++ } END { print n + 0 }' "$T/pre.topo")
n=$(nfast)
t0=$(date +%s%3N)
sim_cmd "Unlink \"$(id_of spine-01)\""
check "first spine: the fast path fired" more_fast "$n"
sleep 0.5
# The rounds of traps that came after the unlink.
links=$(log | grep '"kind":"fast-reroute"' | sed -n 's/.*"links":\([0-9]*\).*"trap_at":\([0-9]*\).*/\1 \2/p' |
	awk -v t0="$t0" '$2 >= t0 { s += $1 } END { print s + 0 }')
check "first spine: its $expect links lost ($links)" test "$links" = "$expect"
check "first spine: the round is done ($(field result))" test "$(field result)" = done
tables_now first
check "first spine: the switches' tables reach every CA" reach first
finish
