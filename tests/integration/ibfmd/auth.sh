#!/bin/bash
# Who may do what on ibfmd's control socket, and the audit of it
# (docs/security.md): ibfmd makes the socket's directory 0750 and gives
# it and the socket the read group; an unprivileged uid of the read
# group (nobody, through setpriv) gets answers to read-only commands and
# a clear refusal (exit 4) for drain, sweep and log-level; the same uid
# with the admin group as a supplementary group may act; a uid of
# neither group cannot connect. Every admin request and refusal is in
# the audit file (one JSON line: time, uid, gid, pid, command,
# arguments, outcome) and the events, and the audit file is never
# written through a symlink. ibfmd needs no fabric for any of it: it
# runs without a MAD port here (no ibsim).
. "$TESTLIB"

[ "$(id -u)" = 0 ] || { echo "# skipped: setpriv needs root"; exit 77; }

NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
ADMIN="setpriv --reuid=65534 --regid=65534 --groups=4242"
STRANGER="setpriv --reuid=65533 --regid=65533 --clear-groups"
SOCK="$T/run/ibfmd.sock"
ask() { "$IBFM" --socket "$SOCK" "$@"; }

# The temporary directory is root's 0700: let others through to run/.
chmod 0711 "$T"
mkdir "$T/state"
cat >"$T/ibfmd.conf" <<CONF
socket $SOCK
state_dir $T/state
read_group 65534
admin_group 4242
sweep_interval 3600
light_interval 0
metrics off
CONF
(cd "$T" && exec "$IBFMD" --config "$T/ibfmd.conf" --foreground >"$T/ibfmd.log" 2>&1) &
DPID=$!
PIDS="$PIDS $DPID"
up() { ask call version >/dev/null; }
until_ok 100 "$DPID" ibfmd up

check "the socket's directory: made 0750, of the read group" \
	test "$(stat -c '%a %g' "$T/run")" = "750 65534"
check "the socket: 0660, of the read group" \
	test "$(stat -c '%a %g' "$SOCK")" = "660 65534"

# status itself exits 1 here: with no fabric, the last sweep failed.
$NOBODY "$IBFM" --socket "$SOCK" call --json status >"$T/nobody_status.json"
check "nobody (the read group): status answered" test $? = 0
check "with the daemon's numbers" grep -q '"sweeps":' "$T/nobody_status.json"
$NOBODY "$IBFM" --socket "$SOCK" call drain element=spine-01 2>"$T/nobody_drain.err"
check "nobody: drain refused (exit 4)" test $? = 4
check "saying what it needs" grep -q 'permission denied: drain is an admin command: it needs root or group "4242" (uid 65534 is in neither)' "$T/nobody_drain.err"
$NOBODY "$IBFM" --socket "$SOCK" call sweep 2>/dev/null
check "nobody: sweep refused (exit 4)" test $? = 4
$NOBODY "$IBFM" --socket "$SOCK" call log-level all debug 2>/dev/null
check "nobody: log-level refused (exit 4)" test $? = 4
$NOBODY "$CTL_CLIENT" "$SOCK" line '{"cmd":"undrain","element":"x"}' >"$T/raw"
check "a raw undrain from nobody: refused as a permission error" \
	grep -q '^{"error":"permission denied: undrain is an admin command.*","error_kind":"permission"}$' "$T/raw"

# The pid of the refused request, for the audit file.
pid=$($NOBODY sh -c 'echo $$; exec "$0" --socket "$1" call drain element=leaf-07 >/dev/null 2>&1' \
	"$IBFM" "$SOCK")
check "the audit file: the refusal, with uid, gid, pid, command, arguments" \
	grep -q "^{\"time\":[0-9]*,\"uid\":65534,\"gid\":65534,\"pid\":$pid,\"cmd\":\"drain\",\"args\":{\"element\":\"leaf-07\"},\"outcome\":\"denied\",\"reply\":{\"error\":\"permission denied: " "$T/state/audit.log"
check "the audit file: root's only, 0640" test "$(stat -c '%a %u' "$T/state/audit.log")" = "640 0"

$ADMIN "$IBFM" --socket "$SOCK" call log-level drain debug >/dev/null
check "nobody with the admin group: log-level done (exit 0)" test $? = 0
$ADMIN "$IBFM" --socket "$SOCK" call sweep >/dev/null
check "nobody with the admin group: sweep done (exit 0)" test $? = 0
check "the audit file: the admin's log-level, ok" \
	grep -q '"uid":65534,"gid":65534,"pid":[0-9]*,"cmd":"log-level","args":{"module":"drain","level":"debug"},"outcome":"ok"' "$T/state/audit.log"
ask call drain element=spine-01 2>/dev/null
check "root: drain allowed (answered: no sweep yet, exit 4)" grep -q '"uid":0,"gid":0,"pid":[0-9]*,"cmd":"drain","args":{"element":"spine-01"},"outcome":"error","reply":{"error":"no sweep yet"}' "$T/state/audit.log"
check "the audit file: one JSON line per admin request and refusal" \
	test "$(wc -l <"$T/state/audit.log")" = 8
check "read-only requests are not audited" bash -c "! grep -q '\"cmd\":\"status\"' '$T/state/audit.log'"

$STRANGER "$IBFM" --socket "$SOCK" call status 2>"$T/stranger.err"
check "a uid of neither group cannot connect (exit 5)" test $? = 5
check "the kernel said no" grep -q 'Permission denied' "$T/stranger.err"

ask events --json >"$T/events.json"
check "the refusal is an event with who asked" \
	grep -q '"severity":"warning","kind":"request","ports":\["uid 65534 gid 65534 pid [0-9]*"\],"detail":"drain {\\"element\\":\\"spine-01\\"}: denied","uid":65534,"gid":65534,"pid":[0-9]*' "$T/events.json"
check "an admin's request is an info event" \
	grep -q '"severity":"info","kind":"request","ports":\["uid 65534 gid 65534 pid [0-9]*"\],"detail":"sweep {}: ok"' "$T/events.json"
check "the log has them (module ctl)" \
	grep -q 'warn ctl: uid 65534 gid 65534 pid [0-9]*: sweep {}: denied: {"error":"permission denied' "$T/ibfmd.log"

# A symlink in place of the audit file is not followed.
echo "precious" >"$T/target"
mv "$T/state/audit.log" "$T/audit.before"
ln -s "$T/target" "$T/state/audit.log"
ask call sweep >/dev/null
check "a symlink in place of the audit file: its target untouched" \
	test "$(cat "$T/target")" = precious
ask events --json >"$T/events2.json"
check "an audit-failed error event says so" \
	grep -q '"severity":"error","kind":"audit-failed"' "$T/events2.json"
check "ibfmd still up" kill -0 "$DPID"
finish
