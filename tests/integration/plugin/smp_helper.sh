#!/bin/bash
# The fast path's SMP helper cannot hurt OpenSM, with OpenSM on ibsim:
# the SM's M_Key and OpenSM's environment are not on the helper's
# command line nor in its environment; a helper killed with SIGKILL
# costs no SIGPIPE in OpenSM and the next loss starts another; a helper
# file others can write is refused (P20); a helper that never answers
# and ignores SIGTERM is killed and OpenSM still stops; OpenSM killed
# takes its helper with it.
. "$TESTLIB"

MKEY=1122334455667788
log() { cat "$T/state/fast-reroute.log" 2>/dev/null; }
field() { log | grep '"kind":"fast-reroute"' | tail -1 | sed -n "s/.*\"$1\":\\([^,}]*\\).*/\\1/p" | tr -d '"'; }
id_of() { sed -n "s/^Switch.*\"\\(S-[0-9a-f]*\\)\"\\t\\t# \"$1\".*/\\1/p" "$T/f.topo"; }
helper_of() { pgrep -P "$1" -f "$2" | head -1; }
# until_gone TENTHS PID: true once PID has exited.
until_gone() {
	local i
	for i in $(seq "$1"); do
		kill -0 "$2" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}
# start_osm HELPER: OpenSM with the fast path on HELPER, the M_Key set.
start_osm() {
	SMP_HELPER=$1 osm_conf "$T/opensm.conf" "$T/state" "ibfm"
	printf '%s\n' "sweep_on_trap FALSE" "sweep_interval 0" "m_key 0x$MKEY" >>"$T/opensm.conf"
	: >"$T/opensm.log"
	IBFM_TEST_SECRET=visible-to-opensm-only osm_start "$T/opensm.conf"
}

# The helper from a folder of the test's own, to change its mode.
mkdir -m 755 "$T/bin"
cp "$SMP_HELPER" "$T/bin/ibfm-smp-helper"
chmod 755 "$T/bin/ibfm-smp-helper"
HELPER=$T/bin/ibfm-smp-helper

"$IBFM" topo gen -l 2 -k 8 -o "$T/f.topo" >/dev/null || die "gen"
sim_start "$T/f.topo"
start_osm "$HELPER"
wait_generation "$T/state" 1 || die "no plugin snapshot"

# 1. The first loss starts the helper: no secret where others read.
sim_cmd "Unlink \"$(id_of leaf-01)\"[5]"
check "first loss: repaired on the switches" more_fast 0
check "first loss: done ($(field result))" test "$(field result)" = done
hp=$(helper_of "$OSM_PID" ibfm-smp-helper)
check "the helper runs beside OpenSM" test -n "$hp"
args=$(ps -o args= -p "$hp")
check "its command line is its path alone ($args)" test "$args" = "$HELPER"
check "as an unprivileged user, ps shows no M_Key" \
	sh -c "! setpriv --reuid=65534 --regid=65534 --clear-groups ps -o args= -p $hp | grep -qi $MKEY"
check "its environment has neither the M_Key nor OpenSM's variables" \
	sh -c "! tr '\\0' '\\n' </proc/$hp/environ | grep -qi -e $MKEY -e IBFM_TEST_SECRET"
check "its environment keeps what opens the port (SIM_HOST)" \
	sh -c "tr '\\0' '\\n' </proc/$hp/environ | grep -q '^SIM_HOST='"

# 2. The helper killed: the next loss costs OpenSM nothing and starts
# another helper that repairs it.
kill -9 "$hp"
n=$(nfast)
sim_cmd "Unlink \"$(id_of leaf-02)\"[6]"
check "helper killed: the next loss is repaired" more_fast "$n"
check "helper killed: OpenSM is still up" kill -0 "$OSM_PID"
check "helper killed: the repair is done ($(field result))" test "$(field result)" = done
hp2=$(helper_of "$OSM_PID" ibfm-smp-helper)
check "helper killed: another helper runs ($hp -> $hp2)" test -n "$hp2" -a "$hp2" != "$hp"
check "helper killed: OpenSM's log says so" grep -q "P18 fast path: .* was killed by signal 9; starting another" "$T/opensm.log"

# 3. A helper others can write: refused, said at load and at the loss.
osm_stop
chmod o+w "$HELPER"
start_osm "$HELPER"
check "writable helper: P20 at load" grep -q "ERR P20 fast path: the SMP helper $HELPER is writable by others" "$T/opensm.log"
n=$(nfast)
sim_cmd "Unlink \"$(id_of leaf-03)\"[7]"
sleep 1
check "writable helper: not started" test -z "$(helper_of "$OSM_PID" ibfm-smp-helper)"
check "writable helper: no fast path" test "$(nfast)" = "$n"
check "writable helper: OpenSM is still up" kill -0 "$OSM_PID"
chmod o-w "$HELPER"
osm_stop

# 4. A helper that never answers and ignores SIGTERM: OpenSM still stops.
printf '#!/bin/sh\ntrap "" TERM\nexec sleep 600\n' >"$T/bin/mute-helper"
chmod 755 "$T/bin/mute-helper"
start_osm "$T/bin/mute-helper"
sim_cmd "Unlink \"$(id_of leaf-04)\"[8]"
sleep 1
mute=$(helper_of "$OSM_PID" sleep)
check "mute helper: started" test -n "$mute"
kill "$OSM_PID"
check "mute helper: OpenSM stops within 20 s" until_gone 200 "$OSM_PID"
check "mute helper: it is killed" until_gone 30 "$mute"
[ -n "$mute" ] && kill -9 "$mute" 2>/dev/null
wait "$OSM_PID" 2>/dev/null

# 5. OpenSM killed: its helper goes with it (checked last: a killed
# OpenSM leaves its ibsim client behind).
start_osm "$HELPER"
n=$(nfast)
sim_cmd "Unlink \"$(id_of leaf-05)\"[5]"
check "OpenSM killed: the loss is repaired first" more_fast "$n"
hp=$(helper_of "$OSM_PID" ibfm-smp-helper)
kill -9 "$OSM_PID"
check "OpenSM killed: its helper ($hp) exits within 5 s" until_gone 50 "$hp"
[ -n "$hp" ] && kill -9 "$hp" 2>/dev/null
finish
