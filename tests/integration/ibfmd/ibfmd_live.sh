#!/bin/bash
# ibfmd beside OpenSM and the plugin on ibsim: PMA counters per sweep
# (errors set in ibsim become events, metrics and the "errors" list;
# PortXmitWait ranks the hot ports), paths over the socket equal
# ibtracert and carry each hop's counters, summary and diff, and
# drain --dry-run on the live fabric.
. "$TESTLIB"

json_num() { sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p" "$1" | head -1; }
ask() { "$IBFM" --socket "$T/ibfmd.sock" "$@"; }

routed_fabric -l 2 -k 8
cp "$T/f.topo" "$T/expected.topo"
ibfmd_beside "expected $T/expected.topo" "metrics 127.0.0.1:0"

links=$(json_num "$T/s.json" links)
check "status: 64 links" test "$links" = 64
check "counters read on both ends of every link" test "$(json_num "$T/s.json" counter_ports)" = $((2 * links))
check "status: the plugin's routing generation" test "$(json_num "$T/s.json" routing_generation)" -ge 1
check "status: the sweep is on file" grep -q "\"fabric_file\":\"$T/fabric.topo\"" "$T/s.json"
check "which ibfm reads back" "$IBFM" topo diff --expected "$T/expected.topo" --topo "$T/fabric.topo"

ask summary --json >"$T/summary.json"
check "summary: 12 switches, 2 levels" bash -c "grep -q '\"switches\":12,' '$T/summary.json' && grep -q '\"switch_levels\":2,' '$T/summary.json'"
check "summary: 64 links 4xHDR, all active" bash -c "grep -q '\"links_by_rate\":{\"4xHDR\":64}' '$T/summary.json' && grep -q '\"links_active\":64' '$T/summary.json'"
ask diff --json >"$T/diff.json"
check "diff: nothing against the expected file, exit 0" test $? = 0
check "diff: nothing against the expected file" grep -q '"differences":\[\],"count":0' "$T/diff.json"

# Errors and congestion, set in ibsim's PMA.
leaf=$(sed -n 's/^Switch.*"\(S-[0-9a-f]*\)"\t\t# "leaf-01".*/\1/p' "$T/f.topo")
spine=$(sed -n 's/^Switch.*"\(S-[0-9a-f]*\)"\t\t# "spine-02".*/\1/p' "$T/f.topo")
sim_cmd "PerformanceSet \"$leaf\"[5] PortCounters.SymbolErrorCounter=7"
sim_cmd "PerformanceSet \"$leaf\"[5] PortCounters.LinkDownedCounter=1"
sim_cmd "PerformanceSet \"$spine\"[3] PortCounters.PortXmitWait=50000"
ibfmd_sweep_now
ask events --json >"$T/events.json"
check "rising error counters are an event" grep -q '"kind":"port-errors","ports":\["\\"leaf-01\\"\[5\]' "$T/events.json"
check "which says which counters rose" grep -q '"detail":"symbol_errors +7, link_downed +1"' "$T/events.json"
ask counters --top 3 --json >"$T/counters.json"
check "counters: ports with errors exit 1, as a check" test $? = 1
check "counters: leaf-01[5] heads the errors list" \
	bash -c "sed 's/.*\"errors\":\[//' '$T/counters.json' | grep -q '^{\"port\":\"\\\\\"leaf-01\\\\\"\[5\]'"
check "counters: its delta" grep -q '"errors":8,"delta":{"symbol_errors":7,"link_recovers":0,"link_downed":1' "$T/counters.json"
check "counters: spine-02[3] is the hottest port" \
	bash -c "sed 's/.*\"hot\":\[//' '$T/counters.json' | grep -q '^{\"port\":\"\\\\\"spine-02\\\\\"\[3\]'"
check "counters: with its PortXmitWait delta" grep -q '"xmit_wait":50000,' "$T/counters.json"
# The next sweep: nothing rose, but the counters still hold the errors.
ibfmd_sweep_now
ask counters --top 3 --json >"$T/counters2.json"
check "counters remember: leaf-01[5] still listed a sweep later" \
	bash -c "sed 's/.*\"errors\":\[//' '$T/counters2.json' | grep -q '^{\"port\":\"\\\\\"leaf-01\\\\\"\[5\] [^}]*\"errors\":0,\"delta\".*\"errors_total\":8,'"
check "and nothing rising" grep -q '"rising":\[\]' "$T/counters2.json"
# Thresholds and a suppress list, as ibqueryerrors takes them: leaf-01[5]
# holds SymbolErrorCounter 7 and LinkDownedCounter 1.
ask counters --threshold SymbolErrorCounter=10,LinkDownedCounter=1 >/dev/null
check "counters: below every threshold, exit 0" test $? = 0
ask counters --threshold symbol_errors=5 --json >"$T/thr.json"
check "counters: above a threshold, exit 1" test $? = 1
check "... leaf-01[5] listed" grep -q '"errors":\[{"port":"\\"leaf-01\\"\[5\]' "$T/thr.json"
printf '# thresholds\nSymbolErrorCounter=10\nLinkDownedCounter\n' >"$T/thr.bad"
ask counters --threshold-file "$T/thr.bad" >/dev/null 2>"$T/thr.err"
check "counters: a bad threshold file line, exit 3" test $? = 3
check "... with FILE:LINE" grep -q 'thr.bad:3: expected NAME=N' "$T/thr.err"
printf '# thresholds\nSymbolErrorCounter = 10\n\nLinkDownedCounter=5 # flaps\n' >"$T/thr.conf"
ask counters --threshold-file "$T/thr.conf" >/dev/null
check "counters: an ibqueryerrors threshold file, all below: exit 0" test $? = 0
ask counters --suppress SymbolErrorCounter,link_downed >/dev/null
check "counters: the counters suppressed, exit 0" test $? = 0
# PortXmitWait by ibqueryerrors' name (spine-02[3] holds 50000): it
# counts only above a threshold given for it.
ask counters --suppress SymbolErrorCounter,LinkDownedCounter --threshold PortXmitWait=1000 --json >"$T/wait.json"
check "counters: PortXmitWait above its threshold, exit 1" test $? = 1
check "... spine-02[3] listed, the counter named" grep -q '"errors":\[{"port":"\\"spine-02\\"\[3\] [^{]*{.*"over":{"PortXmitWait":50000}' "$T/wait.json"
ask counters --suppress SymbolErrorCounter,LinkDownedCounter --threshold PortXmitWait=1000 >"$T/wait.txt"
check "... and in text, as ibqueryerrors brackets it" grep -q '"spine-02"\[3\] .*\[PortXmitWait == 50000\]' "$T/wait.txt"
ask counters --suppress SymbolErrorCounter,LinkDownedCounter --threshold PortXmitWait=1000000000,xmit_data=1000000000000 >/dev/null
check "counters: below its threshold, exit 0" test $? = 0
# --node-name-map through ibfmd (#22): events, counters and status say
# the map's names, and only with it; the GUIDs stay in JSON.
smguid=$(sed -n 's/.*"sms":\[{"guid":"\(0x[0-9a-f]*\)".*/\1/p' "$T/s.json")
printf '0x%s "rack1-leaf"\n%s "the-sm-host"\n' "${leaf#S-}" "$smguid" >"$T/names.map"
ask events >"$T/ev0.txt"
ask events --node-name-map "$T/names.map" >"$T/ev1.txt"
check "events --node-name-map: the leaf's name" bash -c "grep -q 'port-errors *\"rack1-leaf\"\[5\] (0x${leaf#S-})' '$T/ev1.txt' && ! grep -q rack1-leaf '$T/ev0.txt'"
ask events --json --node-name-map "$T/names.map" >"$T/ev1.json"
check "events --json --node-name-map: renamed, GUID kept" grep -q "\"ports\":\[\"\\\\\"rack1-leaf\\\\\"\[5\] (0x${leaf#S-})\"" "$T/ev1.json"
ask counters --top 3 --node-name-map "$T/names.map" >"$T/cn1.txt"
check "counters --node-name-map: the leaf's name" grep -q '^  "rack1-leaf"\[5\]' "$T/cn1.txt"
ask counters --top 3 --json --node-name-map "$T/names.map" >"$T/cn1.json"
check "counters --json --node-name-map: name beside its GUID" grep -q "\"guid\":\"0x${leaf#S-}\",\"name\":\"rack1-leaf\"" "$T/cn1.json"
ask status --node-name-map "$T/names.map" >"$T/st1.txt"
check "status --node-name-map: the SM's node by name" bash -c "test -n '$smguid' && grep -q 'SMINFO_MASTER \"the-sm-host\"' '$T/st1.txt'"
ask status --node-name-map "$T/nowhere.map" >/dev/null 2>&1
check "status --node-name-map: a map that does not read, exit 3" test $? = 3
ask counters --threshold NoSuchCounter=1 >/dev/null 2>"$T/thr2.err"
check "counters: an unknown counter is bad input, exit 3" test $? = 3
check "... naming it" grep -q 'unknown error counter "NoSuchCounter"' "$T/thr2.err"
http_get "$(metrics_port "$T/ibfmd.log")" /metrics >"$T/metrics"
check "metrics: the port's symbol errors, labelled" grep -q "^ibfm_port_symbol_errors_total{guid=\"0x${leaf#S-}\",port=\"5\",node=\"leaf-01\"} 7$" "$T/metrics"
check "metrics: events by severity" grep -q '^ibfm_events_by_severity_total{severity="warning"} [1-9]' "$T/metrics"
check "metrics: the plugin's routing generation" grep -q '^ibfm_routing_generation [1-9]' "$T/metrics"


# Paths: over the socket, on the plugin's LFTs, equal to ibtracert.
lid_of() { awk -v d="# \"$1\"" 'index($0, d) && /^Ca/ { getline; sub(/.*# lid /, ""); print $1; exit }' "$T/fabric.topo"; }
src=$(lid_of "node001 mlx5_0")
for n in 002 009 032; do
	dst=$(lid_of "node$n mlx5_0")
	(cd "$T" && SIM_HOST="node001 mlx5_0" LD_PRELOAD="$UMAD2SIM" timeout 60 \
		"$IBTRACERT" "$src" "$dst" >"$T/tr.$n" 2>/dev/null)
	ask path "node001 mlx5_0" "node$n mlx5_0" >"$T/path.$n"
	check "ibfm --socket path node001 -> node$n equals ibtracert" cmp -s "$T/tr.$n" "$T/path.$n"
done
ask path "node001 mlx5_0" "node032 mlx5_0" --json >"$T/path.json"
check "path --json: 3 switch hops" test "$(grep -o '"out_port"' "$T/path.json" | wc -l)" = 3
check "each with its counters" test "$(grep -o '"xmit_wait_delta"' "$T/path.json" | wc -l)" = 3
"$IBFM" path "node001 mlx5_0" "node032 mlx5_0" --topo "$T/fabric.topo" --lfts "$T/state/lfts.dump" --json >"$T/offline.json"
hops() { grep -o '"guid":"[^"]*","name":"[^"]*","lid":[0-9]*,"in_port":[0-9]*,"out_port":[0-9]*' "$1" | head -3; }
check "the same hops as offline on the same files" test "$(hops "$T/path.json")" = "$(hops <(tr -d ' \n' <"$T/offline.json"))"
ask path "node001 mlx5_0" "node032 mlx5_0" --all-lids --json >"$T/all.json"
check "path --all-lids: one path per LID of node032 (LMC 0: one)" test "$(grep -o '"paths":\[{"lid":[0-9]*,"hops"' "$T/all.json" | wc -l)" = 1
ask path "node001 mlx5_0" "nodee032 mlx5_0" 2>"$T/bad.err"
check "an unknown endpoint is bad input, as offline (exit 3)" test $? = 3
check "naming it and a near match" bash -c "grep -q 'unknown endpoint \"nodee032 mlx5_0\"' '$T/bad.err'"

# Drain --dry-run on the live fabric: a spine of a full tree is safe.
ask drain spine-01 --dry-run --json >"$T/drain.json"
check "drain --dry-run --socket: a spine is safe (exit 0)" test $? = 0
check "drain --dry-run --socket: no unreachable pair" grep -q '"unreachable_pairs": 0' "$T/drain.json"
ask drain "node001 mlx5_0" --dry-run --json >/dev/null
check "drain --dry-run --socket: a host's only link is unsafe (exit 1)" test $? = 1

# A pulled cable: the diff names it.
sim_cmd "Unlink \"$leaf\"[5]"
ibfmd_sweep_now
ask diff --json >"$T/diff2.json"
check "diff: differences exit 1, as topo diff does" test $? = 1
check "diff: the pulled cable, by port" grep -q '"kind":"link-missing","ports":\["\\"leaf-01\\"\[5\]' "$T/diff2.json"
check "diff: one difference" grep -q '"count":1}' "$T/diff2.json"
ask diff --node-name-map "$T/names.map" >"$T/diff3.txt"
check "diff --node-name-map: the pulled cable by the leaf's name" grep -q 'link-missing *"rack1-leaf"\[5\]' "$T/diff3.txt"

# A cable moved (#22), as ibdiagnet reports it, by cable: leaf-01[5]'s
# cable, pulled above from spine-01[1], plugged into spine-01[2] in
# place of leaf-02[5]'s. One wrong peer naming the cable found and where
# it was expected, and leaf-02[5]'s cable missing.
leaf2=$(sed -n 's/^Switch.*"\(S-[0-9a-f]*\)"\t\t# "leaf-02".*/\1/p' "$T/f.topo")
spine1=$(sed -n 's/^Switch.*"\(S-[0-9a-f]*\)"\t\t# "spine-01".*/\1/p' "$T/f.topo")
seq0=$(ask events --json | grep -o '"seq":[0-9]*' | tail -1 | cut -d: -f2)
sim_cmd "Unlink \"$leaf2\"[5]"
sim_cmd "Link \"$leaf\"[5] \"$spine1\"[2]"
ibfmd_sweep_now
ask diff --json >"$T/diff4.json"
check "moved cable: diff exits 1" test $? = 1
check "moved cable: two differences" grep -q '"count":2}' "$T/diff4.json"
check "moved cable: one wrong peer, the cable found and expected" grep -q \
	'"kind":"link-wrong-peer","ports":\["\\"leaf-01\\"\[5\] (0x[0-9a-f]*)","\\"spine-01\\"\[2\] (0x[0-9a-f]*)"\],"expected":\["\\"leaf-01\\"\[5\] (0x[0-9a-f]*)","\\"spine-01\\"\[1\] (0x[0-9a-f]*)"\]' \
	"$T/diff4.json"
check "moved cable: leaf-02[5]'s cable missing" grep -q '"kind":"link-missing","ports":\["\\"leaf-02\\"\[5\] (0x[0-9a-f]*)","\\"spine-01\\"\[2\]' "$T/diff4.json"
check "moved cable: no other wrong peer" test "$(grep -o link-wrong-peer "$T/diff4.json" | wc -l)" = 1
ask diff >"$T/diff4.txt"
check "moved cable: diff in text, the cable and where it was expected" grep -q \
	'link-wrong-peer *"leaf-01"\[5\] (0x[0-9a-f]*) -- "spine-01"\[2\] (0x[0-9a-f]*), expected "leaf-01"\[5\] (0x[0-9a-f]*) -- "spine-01"\[1\]' "$T/diff4.txt"
ask events --since "$seq0" --json >"$T/events4.json"
check "moved cable: one event since the sweep before, the cable moved" python3 -c '
import json, sys
ev = [e for e in json.load(open(sys.argv[1])) if e["kind"].startswith("link-")]
assert [e["kind"] for e in ev] == ["link-wrong-peer"], ev
assert ev[0]["ports"][0].startswith("\"spine-01\"[2]"), ev
assert ev[0]["ports"][1].startswith("\"leaf-01\"[5]"), ev
assert ev[0]["expected"][1].startswith("\"leaf-02\"[5]"), ev
' "$T/events4.json"

kill "$DPID"
wait "$DPID"
check "ibfmd exits 0 on SIGTERM" test $? = 0
finish
