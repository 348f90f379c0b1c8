#!/bin/bash
# Planned changes on the fast path: with OpenSM, the plugin and ibfmd
# on ibsim, a drain, an undrain, a job start and a job end are each
# written to the switches by the plugin's fast path (a "fast-change"
# line in fast-reroute.log, every block read back equal), ibfmd says
# done on the generation the fast path published or a later one, a job
# asks for no heavy sweep, and OpenSM's pass that follows a drain (for
# multicast) sends no LFT block. With the helper missing, the same drain falls
# back to OpenSM's heavy sweep and says why (P22), and still completes.
. "$TESTLIB"

ask() { "$IBFM" --socket "$T/ibfmd.sock" "$@"; }
json_num() { sed -n "s/.*\"$2\": *\([0-9.]*\).*/\1/p" "$1" | head -1; }
nchange() { grep -c '"kind":"fast-change"' "$T/state/fast-reroute.log" 2>/dev/null; }
# last_change FIELD: FIELD of fast-reroute.log's last fast-change line.
last_change() {
	grep '"kind":"fast-change"' "$T/state/fast-reroute.log" | tail -1 |
		sed -n "s/.*\"$1\":\"\{0,1\}\([^,\"]*\).*/\1/p"
}
# published: the generation the fast path's last planned change took.
published() {
	sed -n 's/.*planned change published as generation \([0-9]*\).*/\1/p' "$T/opensm.log" | tail -1
}
# changed_fast WHAT N: the N-th fast-change is WHAT's, done, every
# block it wrote acknowledged and read back equal.
changed_fast() {
	[ "$(nchange)" = "$2" ] && [ "$(last_change lists)" = "$1" ] &&
		[ "$(last_change result)" = done ] &&
		[ "$(last_change blocks)" = "$(last_change verified)" ] &&
		[ "$(last_change mismatched)" = 0 ]
}

routed_fabric -l 2 -k 8
ibfmd_beside

ask drain spine-01 --json >"$T/drain.json"
check "drain spine-01: done" grep -q '"state":"done"' "$T/drain.json"
check "written by the fast path, every block read back equal" changed_fast "drain list" 1
check "blocks were written" test "$(last_change blocks)" -gt 0
check "ibfmd's done is on the fast path's generation or later" test "$(json_num "$T/drain.json" generation)" -ge "$(published)"
# The heavy sweep it asks for (multicast) routes the same: nothing sent.
until_ok 100 "$OSM_PID" OpenSM grep -q 'this pass routes its [0-9]* blocks the same' "$T/opensm.log"
check "OpenSM's pass after it routes the fast path's blocks the same" grep -q 'this pass routes its [0-9]* blocks the same' "$T/opensm.log"
check "and sends no LFT block" grep -q 'LFT blocks to send: 0 of .*LFT blocks the fast path wrote' "$T/opensm.log"
check "no P22" bash -c "! grep -q 'P22' '$T/opensm.log'"

ask undrain spine-01 --json >"$T/undrain.json"
check "undrain spine-01: done" grep -q '"state":"done"' "$T/undrain.json"
check "written by the fast path (a full route)" bash -c "$(declare -f nchange last_change changed_fast); T='$T' changed_fast 'drain list' 2 && [ \"\$(T='$T' last_change full)\" = true ]"
check "ibfmd's done is on the fast path's generation or later" test "$(json_num "$T/undrain.json" generation)" -ge "$(published)"

sweeps=$(grep -c 'heavy sweep asked for' "$T/opensm.log")
# The ring jobs.sh uses: it moves entries (d-mod-k sends two of its
# flows up one link of leaf 1).
ask job start 77 --hosts 'node[001-002],node005,node009' \
	--order node009,node001,node005,node002 --timeout 60 --json >"$T/start.json"
check "job start: done" grep -q '"state": *"done"' "$T/start.json"
check "job start: written by the fast path" changed_fast "jobs list" 3
check "job start: no heavy sweep asked for" test "$(grep -c 'heavy sweep asked for' "$T/opensm.log")" = "$sweeps"
ask job end 77 --timeout 60 --json >"$T/end.json"
check "job end: done" grep -q '"state": *"done"' "$T/end.json"
check "job end: written by the fast path" changed_fast "jobs list" 4
# ibfmd follows fast-reroute.log on its own clock (a few seconds).
change_event() { ask events --json | grep -q '"kind":"fast-change"'; }
until_ok 150 "$DPID" ibfmd change_event
check "the planned changes are events" change_event
ask status --json >"$T/st.json"
check "and counted: 4 changes, none left to OpenSM" grep -q '"fast_changes":4,"fast_changes_fallback":0,' "$T/st.json"

# Without the helper: OpenSM's heavy sweep routes the drain, P22 says why.
osm_stop
: >"$T/opensm.log"
SMP_HELPER=$T/no-such-helper osm_conf "$T/opensm.conf" "$T/state" "ibfm"
osm_start "$T/opensm.conf"
wait_generation "$T/state" "$(($(json_num "$T/end.json" generation) + 1))" || die "no new pass"
ask drain spine-02 --json >"$T/drain2.json"
check "helper missing: drain spine-02 done all the same" grep -q '"state":"done"' "$T/drain2.json"
check "by OpenSM's heavy sweep, P22 saying why" grep -q 'P22 fast-change drain list: not on the fast path (the SMP helper does not run)' "$T/opensm.log"
check "fast-reroute.log says it was not made" test "$(last_change result)" = not-made
check "ibfmd still up" kill -0 "$DPID"
finish
