#!/bin/bash
# ibfmd peers against hostile clients and peers (docs/security.md, issue
# #41): A beside OpenSM on ibsim, B a standby, as in peers.sh. Idle
# connections from one source do not keep A's changes out of B; 16
# unauthenticated 16 MiB bodies do not grow B; a COMMIT puts in force
# only the content its digest names; a version at 2^64-1 is refused;
# two nodes holding different lists at one version converge; a peer that
# trickles its bytes costs a drain at most the publication's deadline,
# and SIGTERM stays quick; SIGHUP re-reads the peers.
. "$TESTLIB"

ask() { "$IBFM" --socket "$T/$1.sock" "${@:2}"; }
fake() { python3 "$(dirname "$TESTLIB")/peerfake.py" "$@"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# peer_ask PORT HEAD [BODY]: one request to the ibfmd peer at PORT with
# the shared key ($PSK), as a peer makes it; the answer's first line.
peer_ask() {
	{
		printf '%s\n' "$2"
		[ -z "${3:-}" ] || cat "$3"
	} | timeout 10 openssl s_client -connect "127.0.0.1:$1" -tls1_3 \
		-psk "$PSK" -psk_identity ibfmd-peer -quiet -ign_eof 2>/dev/null |
		head -1
}
version_of() { sed -n "s/^drain.list //p" "$T/state$1/peers.versions"; }
# within TENTHS CMD...: whether CMD succeeds within TENTHS tenths of a
# second (a check of its own, unlike until_ok, which stops the test).
within() {
	local i
	for i in $(seq "$1"); do
		"${@:2}" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
rss_hwm_kb() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"; }

routed_fabric -l 2 -k 8
mv "$T/state" "$T/stateA"
ln -s "$T/stateA" "$T/state"
mkdir "$T/stateB"
peer_pair "node002 mlx5_0" "node003 mlx5_0"
PSK=$(printf '%s%s' "ibfmd peers psk 1" "$(cat "$T/key")" | sha256sum | cut -c1-64)

# F5: 16 unauthenticated 16 MiB bodies at once.
fake big "$PB" 16 16 >"$T/big.out"
HWM=$(rss_hwm_kb "$PID_B")
check "F5: 16 x 16 MiB bodies: B's peak RSS ${HWM} kB < 30 MB" test "$HWM" -lt 30720
check "... B still up" kill -0 "$PID_B"

# F4: idle connections to B, all from A's address, kept open.
fake idle "$PB" 20 60 >"$T/idle.out" &
IDLE=$!
until_ok 100 "$IDLE" "the idle connections" grep -q ready "$T/idle.out"
ask A drain spine-01 --timeout 60 >"$T/drain1.txt" 2>&1
check "F4: 20 idle connections to B: a drain through A is done" test $? = 0
check "... and B holds it" cmp -s "$T/stateA/drain.list" "$T/stateB/drain.list"
kill "$IDLE"

# F6: two PREPAREs at one version, then COMMITs naming one digest.
V=$(($(version_of B) + 1))
cp "$T/stateB/drain.list" "$T/x.list"
echo "# x" >>"$T/x.list"
cp "$T/stateB/drain.list" "$T/y.list"
echo "# y" >>"$T/y.list"
DX=$(sha256sum <"$T/x.list" | cut -c1-64)
DY=$(sha256sum <"$T/y.list" | cut -c1-64)
SX=$(stat -c %s "$T/x.list")
SY=$(stat -c %s "$T/y.list")
peer_ask "$PB" "PREPARE drain.list $V $SX $DX" "$T/x.list" >"$T/f6.txt"
peer_ask "$PB" "PREPARE drain.list $V $SY $DY" "$T/y.list" >>"$T/f6.txt"
peer_ask "$PB" "COMMIT drain.list $V 0 $DY" >>"$T/f6.txt"
peer_ask "$PB" "COMMIT drain.list $V 0 $DX" >>"$T/f6.txt"
check "F6: the first PREPARE taken" test "$(sed -n 1p "$T/f6.txt")" = "OK $V 0 -"
check "... a second at the same version refused" grep -q '^ERR busy' "$T/f6.txt"
check "... a COMMIT of what is not prepared refused" grep -q '^ERR not prepared' "$T/f6.txt"
check "... the COMMIT naming the first: in force" test "$(sed -n 4p "$T/f6.txt")" = "OK $V 0 -"
check "... B holds the first, at version $V" cmp -s "$T/x.list" "$T/stateB/drain.list"
fetched() { cmp -s "$T/x.list" "$T/stateA/drain.list"; }
check "... and A fetched it" within 200 fetched

# A version at the end of the range.
peer_ask "$PB" "PREPARE drain.list 18446744073709551615 $SY $DY" "$T/y.list" >"$T/max.txt"
check "version 2^64-1: refused" grep -q '^ERR version out of range' "$T/max.txt"
check "... B's version unchanged" test "$(version_of B)" = "$V"

# Two nodes at one version with different lists: the larger digest wins.
kill "$PID_B"
wait "$PID_B" 2>/dev/null
echo "# z" >>"$T/stateB/drain.list"
peer_start B "node003 mlx5_0" "$PA" "$PB" "$T/key"
same() { cmp -s "$T/stateA/drain.list" "$T/stateB/drain.list"; }
check "a divergence at one version: both converge" within 200 same
check "... still at version $V" test "$(version_of A)" = "$V" -a "$(version_of B)" = "$V"

# F3: A's peer trickles; a drain costs at most the deadline, status and
# SIGTERM stay quick.
PF=$(free_port)
fake trickle "$PF" 120 >"$T/trickle.out" &
TRICKLE=$!
kill "$PID_A"
wait "$PID_A" 2>/dev/null
peer_start A "node002 mlx5_0" "$PF" "$PA" "$T/key"
until_ok 300 "$PID_A" ibfmd-A peer_swept A
T0=$(now_ms)
timeout 30 "$IBFM" --socket "$T/A.sock" drain spine-02 --timeout 60 >/dev/null 2>"$T/trickle.err" &
DRAIN=$!
sleep 0.3
T1=$(now_ms)
timeout 30 "$IBFM" --socket "$T/A.sock" status >/dev/null
T2=$(now_ms)
wait "$DRAIN"
RC=$?
T3=$(now_ms)
check "F3: a trickling peer: the drain refused (exit 4)" test "$RC" = 4
check "... within the deadline ($((T3 - T0)) ms < 6 s)" test $((T3 - T0)) -lt 6000
check "... status meanwhile in $((T2 - T1)) ms < 1 s: the publication is off the loop" test $((T2 - T1)) -lt 1000
check "... saying the peer is unreachable" grep -q "peer 127.0.0.1:$PF unreachable" "$T/trickle.err"
T0=$(now_ms)
kill "$PID_A"
wait "$PID_A" 2>/dev/null
T1=$(now_ms)
check "... SIGTERM in $((T1 - T0)) ms < 5 s" test $((T1 - T0)) -lt 5000
kill "$TRICKLE"

# SIGHUP re-reads the peers: A started with the trickler, then B.
peer_start A "node002 mlx5_0" "$PF" "$PA" "$T/key"
until_ok 300 "$PID_A" ibfmd-A peer_swept A
sed -i "s/^peer 127.0.0.1:$PF\$/peer 127.0.0.1:$PB/" "$T/A.conf"
kill -HUP "$PID_A"
until_ok 100 "$PID_A" "A's SIGHUP" grep -q "SIGHUP: 1 peers" "$T/A.log"
ask A drain spine-02 --timeout 60 >/dev/null 2>"$T/hup.err"
check "SIGHUP: the new peer takes the drain" test $? = 0
check "... B holds it" cmp -s "$T/stateA/drain.list" "$T/stateB/drain.list"
check "ibfmd B still up" kill -0 "$PID_B"
finish
