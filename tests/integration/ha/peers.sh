#!/bin/bash
# ibfmd peers (docs/ha.md): two ibfmds, A beside OpenSM and its plugin
# on ibsim, B with a state directory of its own as a standby node has. A
# drain through A is on B before it is done, in the same version; B's
# generation floor follows A's plugin. With B down a drain or a job start
# through A is refused and changes nothing anywhere; B started again with
# an empty state directory fetches the list; a peer with another key is
# refused, and says why. A's /metrics says whether its peer is up.
. "$TESTLIB"

ask() { "$IBFM" --socket "$T/$1.sock" "${@:2}"; }
json_num() { sed -n "s/.*\"$2\": *\([0-9]*\).*/\1/p" "$1" | head -1; }
generation() { sed -n 's/^ *"generation": \([0-9]*\),$/\1/p' "$T/state/snapshot.json"; }


routed_fabric -l 2 -k 8
mv "$T/state" "$T/stateA"
ln -s "$T/stateA" "$T/state" # generation() and the plugin's state_dir
mkdir "$T/stateB"
peer_pair "node002 mlx5_0" "node003 mlx5_0" "metrics 127.0.0.1:0"

ask A drain spine-01 --timeout 60 >"$T/drain.txt" 2>&1
check "drain through A: done" test $? = 0
check "B holds the drain list" grep -q '^0x0002c90200000009' "$T/stateB/drain.list"
check "the same list on both" cmp -s "$T/stateA/drain.list" "$T/stateB/drain.list"
check "in the same version" cmp -s "$T/stateA/peers.versions" "$T/stateB/peers.versions"
check "version 1" grep -qx 'drain.list 1' "$T/stateB/peers.versions"
ask A status --json >"$T/a.json"
check "A's status: its peer, ok" grep -q "\"peers\":\[{\"peer\":\"127.0.0.1:$PB\",\"state\":\"ok\"" "$T/a.json"
http_get "$(metrics_port "$T/A.log")" /metrics >"$T/a.metrics"
check "A's metrics: its peer up" grep -q "^ibfm_peer_up{peer=\"127.0.0.1:$PB\"} 1" "$T/a.metrics"
floor() { [ "$(cat "$T/stateB/generation.floor" 2>/dev/null || echo 0)" -ge "$(generation)" ]; }
until_ok 300 "$PID_B" "B's generation floor" floor
check "B's generation floor follows A's plugin" floor

# B down: nothing changes anywhere.
kill "$PID_B"
wait "$PID_B" 2>/dev/null
cp "$T/stateA/drain.list" "$T/drain.before"
ask A drain spine-02 --timeout 60 >/dev/null 2>"$T/down.err"
check "a drain with B down: refused, exit 4" test $? = 4
check "... naming the peer and that nothing changed" grep -q "peer 127.0.0.1:$PB unreachable: .*nothing changed on any node" "$T/down.err"
check "... A's list unchanged" cmp -s "$T/drain.before" "$T/stateA/drain.list"
http_get "$(metrics_port "$T/A.log")" /metrics >"$T/a.metrics"
check "A's metrics: its peer down" grep -q "^ibfm_peer_up{peer=\"127.0.0.1:$PB\"} 0" "$T/a.metrics"
ask A job start 7 --hosts node005,node009 --timeout 30 >/dev/null 2>"$T/job.err"
check "a job start with B down: refused, exit 4" test $? = 4
check "... no jobs list written" test ! -s "$T/stateA/jobs.list"

# B again, its state directory lost: it fetches the list from A.
rm -f "$T"/stateB/*
peer_start B "node003 mlx5_0" "$PA" "$PB" "$T/key" "metrics 127.0.0.1:0"
until_ok 300 "$PID_B" ibfmd-B peer_swept B
fetched() { cmp -s "$T/stateA/drain.list" "$T/stateB/drain.list"; }
until_ok 300 "$PID_B" "B fetching the drain list" fetched
check "B, its state lost, fetched the drain list from A" fetched
check "... and its version" grep -qx 'drain.list 1' "$T/stateB/peers.versions"
check "B said so" grep -q 'drain.list version 1 fetched from 127.0.0.1' "$T/B.log"

# B with another key: refused, and said.
kill "$PID_B"
wait "$PID_B" 2>/dev/null
head -c 48 /dev/urandom | base64 >"$T/other.key"
chmod 600 "$T/other.key"
peer_start B "node003 mlx5_0" "$PA" "$PB" "$T/other.key" "metrics 127.0.0.1:0"
until_ok 300 "$PID_B" ibfmd-B peer_swept B
ask A drain spine-02 --timeout 60 >/dev/null 2>"$T/key.err"
check "a peer with another key: refused, exit 4" test $? = 4
check "... saying the key differs" grep -q 'peer_key differs' "$T/key.err"
check "... B logged the refusal" grep -q 'failed authentication' "$T/B.log"
check "... A's list unchanged" cmp -s "$T/drain.before" "$T/stateA/drain.list"

# A key others may read is refused at start.
kill "$PID_B"
wait "$PID_B" 2>/dev/null
chmod 644 "$T/other.key"
"$IBFMD" --config "$T/B.conf" --foreground >"$T/badkey.log" 2>&1
check "a key readable by others: ibfmd refuses to start" test $? != 0
check "... saying why" grep -q 'only its owner may read' "$T/badkey.log"
check "ibfmd A still up" kill -0 "$PID_A"
finish
