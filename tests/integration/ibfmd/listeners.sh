#!/bin/bash
# ibfmd's listeners hold against local users who misbehave (hardening
# #19): no client stalls the control plane, and memory stays bounded.
#  - descriptors: the soft limit raised to the hard one, split between
#    the listeners; more idle TCP connections to /metrics than ibfmd has
#    descriptors leave `ibfm status` answering within 1 s, and the log
#    and the CPU quiet;
#  - accept() failing for want of descriptors (the limit lowered under
#    the running daemon) pauses accepting instead of spinning;
#  - /metrics: a head sent a byte a second is cut at the deadline, a
#    100 MB header line or body is refused at once and RSS stays low, a
#    non-loopback address is warned about; connections that only wait
#    give way to a scrape (the oldest idle one is closed);
#  - the control socket: 10 clients sending 4,000 `events` each without
#    reading keep ibfmd under 64 MB and `ibfm status` within 1 s; 300
#    idle connections do not lock a new client out;
#  - one ibfmd per socket; the CLI times out on a daemon that does not
#    answer and survives one that hangs up (exit 5, no SIGPIPE).
# Clients that misbehave: tests/integration/flood.py (python3).
. "$TESTLIB"

FLOOD="python3 $(dirname "$TESTLIB")/flood.py"
ask() { "$IBFM" --socket "$T/ibfmd.sock" "$@"; }
# The most ibfmd's RSS has been since it started (kB).
peak_kb() { sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$DPID/status"; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$DPID/stat"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# timed_status: `ibfm status` ($T/s.json); its time in ms in $MS.
timed_status() {
	local t0=$(now_ms) rc
	ask status --json >"$T/s.json" 2>"$T/s.err"
	rc=$?
	MS=$(($(now_ms) - t0))
	# 1: the last sweep failed (no sweep yet is fine too); answered.
	[ "$rc" -le 1 ] && grep -q '"nodes"' "$T/s.json"
}
# hold NAME CMD...: a flood.py client in the background until it says
# "ready" (its pid in HOLD, killed by the cleanup if not before).
hold() {
	local out="$T/$1.out"
	shift
	$FLOOD "$@" >"$out" 2>&1 &
	HOLD=$!
	PIDS="$PIDS $HOLD"
	until_ok 300 "$HOLD" "$1 client" grep -q '^ready' "$out"
}
lines() { wc -l <"$T/ibfmd.log"; }
nfds() { ls "/proc/$DPID/fd" | wc -l; }
fds_below() { [ "$(nfds)" -lt "$1" ]; }

# The fabric differs from the expected file: the first sweep makes many
# events, so every `events` reply is some 27 kB (what ibfmd answered
# before this was bounded, 4,000 at a time, went over 64 MB).
"$IBFM" topo gen -l 2 -k 8 -o "$T/f.topo" >/dev/null || die "gen"
"$IBFM" topo gen -l 2 -k 20 -o "$T/expected.topo" >/dev/null || die "gen"
cat >"$T/ibfmd.conf" <<CONF
socket $T/ibfmd.sock
expected $T/expected.topo
sweep_interval 3600
light_interval 0
metrics 127.0.0.1:0
CONF
sim_start "$T/f.topo"
# 128 open, 256 at most: ibfmd raises its limit to 256.
(cd "$T" && SIM_HOST="node001 mlx5_0" LD_PRELOAD="$UMAD2SIM" \
	exec prlimit --nofile=128:256 "$IBFMD" --config "$T/ibfmd.conf" \
	--foreground >"$T/ibfmd.log" 2>&1) &
DPID=$!
PIDS="$PIDS $DPID"
until_ok 300 "$DPID" ibfmd ibfmd_swept 1
port=$(metrics_port "$T/ibfmd.log")

check "descriptors: the soft limit raised to the hard one (256)" \
	grep -q 'descriptors: 256 (raised to the hard limit); at most 144 control clients and 48 metrics connections' "$T/ibfmd.log"
ask events --json >"$T/events.json"
check "the first sweep made events (replies of some size)" \
	test "$(stat -c %s "$T/events.json")" -gt 20000

# One ibfmd per socket: the second says who holds it, exits non-zero
# and leaves the first one's socket alone.
timeout 10 "$IBFMD" --config "$T/ibfmd.conf" --foreground >"$T/second.log" 2>&1
check "a second ibfmd on the same socket: refused (exit 1)" test $? = 1
check "naming the first one's pid and the lock" \
	grep -q "another ibfmd (pid $DPID) holds $T/ibfmd.sock.lock" "$T/second.log"
check "the first one's socket is still there and answers" timed_status

# /metrics, slowly: a head a byte a second is cut at the deadline (10 s);
# it runs while the rest goes on.
$FLOOD slow "$port" 20 >"$T/slow.out" 2>&1 &
SLOW=$!
PIDS="$PIDS $SLOW"
# Connected and accepted before the flood below fills every slot.
until_ok 100 "$SLOW" "the slow client" grep -q '^ready' "$T/slow.out"
sleep 0.2

# More idle TCP connections to /metrics than ibfmd has descriptors.
n0=$(lines)
c0=$(cpu_ticks)
hold tcp tcp "$port" 400 600
check "400 idle connections to /metrics: ibfm status answers" timed_status
check "within 1 s ($MS ms)" test "$MS" -lt 1000
$FLOOD http "$port" 'GET /metrics HTTP/1.0\r\n\r\n' >"$T/full.out"
check "/metrics full of idle connections: a scrape is still answered (the oldest idle one closed)" \
	grep -q '^HTTP/1.1 200' "$T/full.out"
sleep 1
check "the log stays quiet ($(($(lines) - n0)) lines)" test $(($(lines) - n0)) -lt 30
check "and the CPU ($(($(cpu_ticks) - c0)) ticks)" test $(($(cpu_ticks) - c0)) -lt 100
kill "$HOLD"
wait "$HOLD" 2>/dev/null

# accept() failing for want of descriptors: the soft limit lowered to
# what ibfmd has open, under it.
until_ok 100 "$DPID" ibfmd fds_below 24
prlimit --pid "$DPID" --nofile="$(nfds):" || die "prlimit"
n0=$(lines)
c0=$(cpu_ticks)
hold tcp2 tcp "$port" 20 600
ask --socket-timeout 1 status >/dev/null 2>&1
sleep 1
check "no descriptors: accepting pauses, the CPU stays idle ($(($(cpu_ticks) - c0)) ticks)" \
	test $(($(cpu_ticks) - c0)) -lt 50
check "and the log says so, a few times ($(($(lines) - n0)) lines)" \
	test $(($(lines) - n0)) -ge 1 -a $(($(lines) - n0)) -lt 30
check "naming the cause" grep -q 'cannot accept on the metrics port: Too many open files; not accepting for 500 ms' "$T/ibfmd.log"
prlimit --pid "$DPID" --nofile=256: || die "prlimit"
check "descriptors back: ibfm status answers" timed_status
check "within 1 s ($MS ms)" test "$MS" -lt 1000
kill "$HOLD"
wait "$HOLD" 2>/dev/null

# /metrics: 100 MB of header line, or of body, refused at once.
$FLOOD big "$port" head 100 >"$T/bighead.out"
check "a 100 MB header line: 431" grep -q '^HTTP/1.1 431 .* in [01]\.' "$T/bighead.out"
$FLOOD big "$port" body 100 >"$T/bigbody.out"
check "a 100 MB body: refused (405 or hung up) within 2 s" grep -q '^\(HTTP/1.1 405 .*\|closed\) in [01]\.' "$T/bigbody.out"
check "RSS stays low (peak $(peak_kb) kB)" test "$(peak_kb)" -lt 32768
$FLOOD http "$port" 'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n' >"$T/ok.out"
check "/metrics still serves" grep -q '^HTTP/1.1 200 OK' "$T/ok.out"

# The control socket: replies piling up unread.
hold unread unread "$T/ibfmd.sock" 10 4000 events 600
sleep 1
check "10 clients x 4,000 events unread: RSS under 64 MB (peak $(peak_kb) kB)" \
	test "$(peak_kb)" -lt 65536
check "ibfm status answers" timed_status
check "within 1 s ($MS ms)" test "$MS" -lt 1000
kill "$HOLD"
wait "$HOLD" 2>/dev/null

# The control socket: 200 clients each sending 1 MB of a line (a line
# may be 1 MiB): what ibfmd holds of them is budgeted (64 MiB, then
# only the client holding the most is read on), not 200 MB.
rss0=$(peak_kb)
hold partial partial "$T/ibfmd.sock" 200 1000000 8
check "200 clients x 1 MB unfinished: RSS grew under 128 MB ($(($(peak_kb) - rss0)) kB)" \
	test $(($(peak_kb) - rss0)) -lt 131072
check "ibfm status answers" timed_status
check "within 1 s ($MS ms)" test "$MS" -lt 1000
kill "$HOLD"
wait "$HOLD" 2>/dev/null

# 300 idle connections: a new client is still answered.
hold idle unix "$T/ibfmd.sock" 300 600
sleep 0.5
check "300 idle connections: ibfm status answers" timed_status
check "within 1 s ($MS ms)" test "$MS" -lt 1000
kill "$HOLD"
wait "$HOLD" 2>/dev/null

wait "$SLOW"
check "a head a byte a second: cut at the deadline ($(tail -1 "$T/slow.out"))" \
	grep -q '^closed after 1[01] s' "$T/slow.out"

# A metrics address that is not a loopback one: served, with a warning.
sed -e "s|^socket .*|socket $T/other.sock|" -e 's|^metrics .*|metrics 0.0.0.0:0|' \
	"$T/ibfmd.conf" >"$T/other.conf"
# (No MAD port needed: it serves without one.)
"$IBFMD" --config "$T/other.conf" --foreground >"$T/other.log" 2>&1 &
OTHER=$!
PIDS="$PIDS $OTHER"
until_ok 100 "$OTHER" "the other ibfmd" grep -q 'serving metrics' "$T/other.log"
check "metrics on 0.0.0.0: a warning" grep -q 'warn metrics: metrics on 0.0.0.0:0: not a loopback address' "$T/other.log"
kill "$OTHER"
wait "$OTHER" 2>/dev/null

# The CLI: a daemon that never answers, one that hangs up.
python3 - "$T/mute.sock" "$T/rude.sock" <<'PY' &
import select, socket, sys
mute, rude = (socket.socket(socket.AF_UNIX) for _ in range(2))
for s, path in ((mute, sys.argv[1]), (rude, sys.argv[2])):
    s.bind(path)
    s.listen(8)
held = []
while True:
    for s in select.select([mute, rude], [], [])[0]:
        c = s.accept()[0]
        held.append(c) if s is mute else c.close()
PY
FAKE=$!
PIDS="$PIDS $FAKE"
until_ok 50 "$FAKE" "the fake daemons" test -S "$T/rude.sock"
t0=$(now_ms)
IBFM_SOCKET_TIMEOUT=1 "$IBFM" --socket "$T/mute.sock" status 2>"$T/mute.err"
rc=$?
MS=$(($(now_ms) - t0))
check "a daemon that does not answer: exit 5" test "$rc" = 5
check "after the timeout (1 s: $MS ms)" test "$MS" -ge 900 -a "$MS" -lt 3000
check "saying so" grep -q "did not answer within 1 s" "$T/mute.err"
"$IBFM" --socket "$T/rude.sock" --socket-timeout 5 status 2>"$T/rude.err"
check "a daemon that hangs up: exit 5, not SIGPIPE" test $? = 5
check "saying so" grep -q "closed the connection without a reply" "$T/rude.err"

kill -TERM "$DPID"
wait "$DPID"
check "SIGTERM: exit 0" test $? = 0
check "the socket removed" test ! -e "$T/ibfmd.sock"
finish
