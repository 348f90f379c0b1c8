#!/bin/bash
# ibfmd on ibsim: it discovers a generated fabric equal to the expected
# file, serves the numbers as Prometheus metrics, turns a pulled cable into an event with its ports, reports a
# miswired expected file after SIGHUP, notices a pulled cable by its
# light check alone, shrugs off bad clients, answers `ibfm call` and
# refuses misspelt arguments, lists its log modules and changes their
# levels at run time (log-level, log_level on SIGHUP), names a
# duplicated GUID, and stops on SIGTERM.
. "$TESTLIB"

json_num() { sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p" "$1" | head -1; }
ask() { "$IBFM" --socket "$T/ibfmd.sock" "$@"; }

"$IBFM" topo gen -l 2 -k 16 -o "$T/f.topo" >/dev/null || die "gen"
cp "$T/f.topo" "$T/expected.topo"
cat >"$T/ibfmd.conf" <<CONF
# test configuration
socket $T/ibfmd.sock
expected $T/expected.topo
sweep_interval 3600
light_interval 1
metrics 127.0.0.1:0
CONF
sim_start "$T/f.topo"
ibfmd_start "node001 mlx5_0"
until_ok 300 "$DPID" ibfmd ibfmd_swept 1

check "status: 152 nodes" test "$(json_num "$T/s.json" nodes)" = 152
check "status: 256 links" test "$(json_num "$T/s.json" links)" = 256
check "status: equal to the expected file" test "$(json_num "$T/s.json" expected_differences)" = 0
check "status: a sweep time" test -n "$(json_num "$T/s.json" last_sweep_ms)"

port=$(metrics_port "$T/ibfmd.log")
http_get "$port" /metrics >"$T/metrics"
check "metrics: HTTP 200" grep -q '^HTTP/1.[01] 200' "$T/metrics"
check "metrics: 152 nodes" grep -q '^ibfm_fabric_nodes 152' "$T/metrics"
check "metrics: 256 links" grep -q '^ibfm_fabric_links 256' "$T/metrics"
check "metrics: sweeps is a counter" grep -q '^# TYPE ibfm_sweeps_total counter' "$T/metrics"
check "metrics: the fabric is reached (ibfm_sweep_ok 1)" grep -q '^ibfm_sweep_ok 1$' "$T/metrics"
check "metrics: when the last sweep succeeded" grep -q '^ibfm_last_sweep_success_timestamp_seconds [1-9][0-9]*$' "$T/metrics"
check "metrics: sweep time in seconds" grep -q '^ibfm_last_sweep_seconds 0\.[0-9]' "$T/metrics"
http_get "$port" /nothing >"$T/404"
check "metrics: other paths 404" grep -q '^HTTP/1.[01] 404' "$T/404"

leaf=$(sed -n 's/^Switch.*"\(S-[0-9a-f]*\)"\t\t# "leaf-01".*/\1/p' "$T/f.topo")
sim_cmd "Unlink \"$leaf\"[9]"
ibfmd_sweep_now
ask events --json >"$T/events.json"
check "the pulled cable is an event" grep -q '"kind":"link-missing"' "$T/events.json"
check "events --json is a list" grep -q '^\[{"seq":1,' "$T/events.json"
check "with its ports as a list" grep -q '"kind":"link-missing","ports":\["' "$T/events.json"
check "naming leaf-01[9] and spine-01[1]" bash -c \
	"grep -q 'leaf-01\\\\\"\[9\] (0x' '$T/events.json' && grep -q 'spine-01\\\\\"\[1\] (0x' '$T/events.json'"
check "and a severity and time" grep -q '"severity":"error","kind":"link-missing"' "$T/events.json"
sim_cmd "ReLink \"$leaf\"[9]"
ibfmd_sweep_now

# A miswired expected file: node001 and node002 swapped on leaf-01.
sed -e 's/^\[1\]\t"H-0002c90300000002"/[2]\t"H-0002c90300000002"/' \
    -e 's/^\[2\]\t"H-0002c90300000004"/[1]\t"H-0002c90300000004"/' \
    -e 's/^\(\[1\](2c90300000003) \t"S-0002c90200000001"\)\[1\]/\1[2]/' \
    -e 's/^\(\[1\](2c90300000005) \t"S-0002c90200000001"\)\[2\]/\1[1]/' \
    "$T/f.topo" >"$T/expected.topo"
check "the miswired expected file parses" "$IBFM" topo show --topo "$T/expected.topo"
"$CTL_CLIENT" "$T/ibfmd.sock" held 2 >"$T/held" &
HELD=$!
sleep 0.5
kill -HUP "$DPID"
sleep 0.5
check "SIGHUP: still serving" ask status --json
wait "$HELD"
check "SIGHUP: a client connected across it is still answered" grep -q '"nodes":152' "$T/held"
check "SIGHUP: logged as reloaded" grep -q 'SIGHUP: .* reloaded' "$T/ibfmd.log"
ibfmd_sweep_now
check "the miswired expected file: 2 wrong peers" test "$(json_num "$T/s.json" expected_differences)" = 2

"$CTL_CLIENT" "$T/ibfmd.sock" line 'garbage' >"$T/g1"
check "garbage: a JSON error" grep -q '^{"error":"expected a JSON object' "$T/g1"
"$CTL_CLIENT" "$T/ibfmd.sock" line '{"cmd":"status"' >"$T/g2"
check "a truncated object: an error" grep -q '^{"error"' "$T/g2"
"$CTL_CLIENT" "$T/ibfmd.sock" line '{"cmd":"reboot"}' >"$T/g3"
check "an unknown command: an error" grep -q 'unknown command' "$T/g3"
"$CTL_CLIENT" "$T/ibfmd.sock" flood 10485760 >"$T/g4"
check "10 MB without a newline: an error or a hang-up" grep -q 'longer than 1048576\|(closed)' "$T/g4"
"$CTL_CLIENT" "$T/ibfmd.sock" many 500 >"$T/g5"
check "500 connections open: a new one is answered or told why" grep -q '"nodes":152\|too many clients' "$T/g5"
# The 500 are closed when ctl_client exits, but the daemon may still be
# reading their hang-ups (slowly under valgrind: "too many clients" in
# the meantime); it must be serving again within 10 s.
serving() { local i; for i in $(seq 100); do ask status --json >/dev/null 2>&1 && return 0; sleep 0.1; done; return 1; }
check "still serving after all that" serving

# ibfm call: any command, its arguments checked against the table ibfm
# shares with ibfmd; ibfmd checks them again (raw lines, below).
ask call status --json >"$T/call.json"
check "call status --json: the reply as it came" grep -q '^{.*"nodes":152,' "$T/call.json"
ask call status >"$T/call.txt"
check "call status: indented JSON" grep -q '^  "nodes": 152,$' "$T/call.txt"
ask call events since=0 --json >"$T/call.events"
check "call events since=0: every event" grep -q '^{"events":\[{"seq":1,' "$T/call.events"
ask call events 1 --json >"$T/call.events1"
check "call events 1: since by position" grep -q '^{"events":\[{"seq":2,' "$T/call.events1"
ask call list-commands --json >"$T/call.list"
check "list-commands: the names as before" grep -q '"commands":\["version","list-commands","status","events",' "$T/call.list"
check "list-commands: each command's arguments and help" grep -q '{"name":"events","help":"events after number \\"since\\", oldest first","args":\[{"name":"since","type":"integer","required":false}\]}' "$T/call.list"
ask call events sinse=0 >"$T/call.out" 2>"$T/call.err"
check "call: a misspelt argument is a usage error (exit 2)" test $? = 2
check "naming it, the command and what it takes" grep -q 'unknown argument "sinse" for "events" (expected: since)' "$T/call.err"
check "and nothing printed" test ! -s "$T/call.out"
ask call events since=soon 2>"$T/call.err"
check "call: a value of the wrong type: exit 2" test $? = 2
check "saying which" grep -q 'argument "since" for "events" must be an integer, not "soon"' "$T/call.err"
ask call path src=x 2>"$T/call.err"
check "call: a required argument missing: exit 2" test $? = 2
check "saying which" grep -q 'missing argument "dst" for "path"' "$T/call.err"
ask call reboot 2>"$T/call.err"
check "call: an unknown command: exit 2" test $? = 2
ask call drain 0x1 --json >"$T/call.out" 2>"$T/call.err"
check "call: ibfmd answering an error: exit 4" test $? = 4
check "the error on stderr" grep -q '^ibfm: ibfmd: ' "$T/call.err"
check "and with --json the reply" grep -q '^{"error":' "$T/call.out"
ask call >/dev/null 2>"$T/call.err"
check "call alone: usage (exit 2)" test $? = 2
check "listing the commands with their arguments" grep -q '^  path src=STR dst=STR \[all_lids=BOOL\] ' "$T/call.err"
check "call --help: exit 0" bash -c "'$IBFM' call --help | grep -q '^  events \[since=INT\] '"
"$CTL_CLIENT" "$T/ibfmd.sock" line '{"cmd":"events","sinse":0}' >"$T/g6"
check "ibfmd refuses a misspelt argument" grep -q '^{"error":"unknown argument \\"sinse\\" for \\"events\\" (expected: since)"}$' "$T/g6"
"$CTL_CLIENT" "$T/ibfmd.sock" line '{"cmd":"events","since":"0"}' >"$T/g7"
check "ibfmd refuses a value of the wrong type" grep -q '^{"error":"argument \\"since\\" for \\"events\\" must be an integer"}$' "$T/g7"
"$CTL_CLIENT" "$T/ibfmd.sock" line '{"cmd":"undrain"}' >"$T/g8"
check "ibfmd refuses a missing argument" grep -q '^{"error":"missing argument \\"element\\" for \\"undrain\\""}$' "$T/g8"

# The log: modules and levels, changed at run time through the socket.
ctl() { "$CTL_CLIENT" "$T/ibfmd.sock" line "$1"; }
ctl '{"cmd":"log-list"}' >"$T/l1"
for m in main sweep ctl metrics routing drain cc; do
	check "log-list: module $m at info" grep -q "{\"module\":\"$m\",\"level\":\"info\"}" "$T/l1"
done
check "no debug message at info" bash -c "! grep -q ' debug ' '$T/ibfmd.log'"
ctl '{"cmd":"log-level","module":"sweep","level":"debug"}' >"$T/l2"
check "log-level sweep debug: answered with the list" grep -q '{"module":"sweep","level":"debug"}' "$T/l2"
check "the other modules unchanged" grep -q '{"module":"ctl","level":"info"}' "$T/l2"
check "and logged" grep -q 'info ctl: log level of sweep set to debug' "$T/ibfmd.log"
ibfmd_sweep_now
check "sweep's debug messages now written" grep -q 'debug sweep: sweep [0-9]*: 152 nodes' "$T/ibfmd.log"
ctl '{"cmd":"log-level","module":"sweeps","level":"debug"}' >"$T/l3"
check "an unknown module is refused, naming the modules" grep -q '^{"error":"unknown log module \\"sweeps\\" (cc, ctl, drain, job, main, metrics, peer, routing, sweep, or all)"}' "$T/l3"
ctl '{"cmd":"log-level","module":"all","level":"loud"}' >"$T/l4"
check "an unknown level is refused" grep -q '^{"error":"unknown log level' "$T/l4"
ctl '{"cmd":"log-level","module":"all","level":"warn"}' >"$T/l5"
check "log-level all warn" test "$(grep -o '"level":"warn"' "$T/l5" | wc -l)" = 9
ctl '{"cmd":"log-level","module":"all","level":"info"}' >/dev/null
ask call log-level routing debug --json >"$T/l6"
check "ibfm call log-level routing debug" grep -q '{"module":"routing","level":"debug"}' "$T/l6"
ask call log-level 2>"$T/l7"
check "ibfm call log-level without its arguments: exit 2" test $? = 2
ctl '{"cmd":"log-level","module":"routing"}' >"$T/l8"
check "ibfmd refuses log-level without a level" grep -q '^{"error":"missing argument \\"level\\" for \\"log-level\\""}$' "$T/l8"
ctl '{"cmd":"log-level","module":"all","level":"info"}' >/dev/null

# No sweep asked for and the full sweep an hour away: the light check
# (every second) must see the cable go and start the sweep that names it.
ask status --json >"$T/s.json"
before=$(json_num "$T/s.json" sweeps)
check "light checks run between sweeps" test "$(json_num "$T/s.json" light_checks)" -gt 0
sim_cmd "Unlink \"$leaf\"[10]"
light_event() { ask events --json | grep -q 'leaf-01\\"\[10\] (0x'; }
until_ok 100 "$DPID" ibfmd light_event
check "the light check caught leaf-01[10] within 10 s" light_event
ask status --json >"$T/s.json"
check "by starting a full sweep" test "$(json_num "$T/s.json" sweeps)" -gt "$before"
check "and logged why" grep -q 'light check: [0-9]* known ports changed' "$T/ibfmd.log"

# log_level in the file: taken on SIGHUP when it changed.
echo "log_level debug" >>"$T/ibfmd.conf"
kill -HUP "$DPID"
debug_all() { ctl '{"cmd":"log-list"}' | grep -q '"module":"main","level":"debug".*"module":"sweep","level":"debug"'; }
until_ok 50 "$DPID" ibfmd debug_all
check "SIGHUP: log_level debug set every module" debug_all

# Two switches answering with one GUID: leaf-02 takes leaf-01's.
leaf2=$(sed -n 's/^Switch.*"\(S-[0-9a-f]*\)"\t\t# "leaf-02".*/\1/p' "$T/f.topo")
sim_cmd "Guid \"$leaf2\" 0x${leaf#S-}"
ibfmd_sweep_fresh
ask events --json >"$T/events.json"
check "a duplicated GUID is an event" grep -q "\"kind\":\"duplicate-guid\".*GUID 0x${leaf#S-}" "$T/events.json"
check "status counts the links it confuses" test "$(json_num "$T/s.json" duplicate_guid_links)" -gt 0
n=$(grep -o '"kind":"duplicate-guid"' "$T/events.json" | wc -l)
ibfmd_sweep_now
check "raised once, not every sweep" test "$(ask events --json | grep -o '"kind":"duplicate-guid"' | wc -l)" = "$n"
sim_cmd "Guid \"$leaf2\" 0x${leaf2#S-}"
ibfmd_sweep_fresh
check "and cleared when the GUID is unique again" test "$(json_num "$T/s.json" duplicate_guid_links)" = 0

kill -TERM "$DPID"
for i in $(seq 50); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.1; done
check "SIGTERM: gone" bash -c "! kill -0 $DPID 2>/dev/null"
wait "$DPID"
check "SIGTERM: exit 0" test $? -eq 0
check "the socket is removed" test ! -e "$T/ibfmd.sock"

# A sweep that fails (no such CA): status says so and exits 1, as a check.
cat >"$T/bad.conf" <<CONF
socket $T/bad.sock
metrics 127.0.0.1:0
ca no_such_ca
sweep_interval 3600
light_interval 0
CONF
(cd "$T" && LD_PRELOAD="$UMAD2SIM" exec "$IBFMD" --config "$T/bad.conf" --foreground >"$T/bad.log" 2>&1) &
BAD=$!
PIDS="$PIDS $BAD"
failed_sweep() { "$IBFM" --socket "$T/bad.sock" status --json >"$T/bad.json" 2>/dev/null; [ $? = 1 ]; }
until_ok 300 "$BAD" ibfmd failed_sweep
check "status after a failed sweep: exit 1" failed_sweep
check "and the reason" grep -q '"last_error":"[^"]' "$T/bad.json"
http_get "$(metrics_port "$T/bad.log")" /metrics >"$T/bad.metrics"
check "metrics of a daemon that cannot reach the fabric: ibfm_sweep_ok 0" grep -q '^ibfm_sweep_ok 0$' "$T/bad.metrics"
check "its failures counted" grep -q '^ibfm_sweep_failures_total [1-9]' "$T/bad.metrics"
check "and no successful sweep ever" grep -q '^ibfm_last_sweep_success_timestamp_seconds 0$' "$T/bad.metrics"
kill -TERM "$BAD"
wait "$BAD"
sim_cmd Quit
finish
