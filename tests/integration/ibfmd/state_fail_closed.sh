#!/bin/bash
# The state directory's files fail closed (hardening, F8): a FIFO or a
# directory in place of jobs.list or generation.floor neither blocks the
# plugin's pass under OpenSM's lock (the pass completes, saquery
# answers) nor ibfmd's loop (`ibfm job list` by an unprivileged user
# returns at once with an error, not "no jobs" and not a hang).
. "$TESTLIB"

[ "$(id -u)" = 0 ] || { echo "# skipped: setpriv needs root"; exit 77; }
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
SOCK="$T/run/ibfmd.sock"
generation() {
	sed -n 's/^ *"generation": \([0-9]*\),$/\1/p' "$T/state/snapshot.json"
}
# nobody_jobs: `ibfm job list` as nobody, bounded; its time in ms in
# $T/ms, its exit status in $T/rc, its error in $T/jobs.err.
nobody_jobs() {
	local t0=$(date +%s%N)
	timeout 10 $NOBODY "$IBFM" --socket "$SOCK" job list >"$T/jobs.out" 2>"$T/jobs.err"
	echo $? >"$T/rc"
	echo $((($(date +%s%N) - t0) / 1000000)) >"$T/ms"
}
saquery_answers() {
	SIM_HOST="node002 mlx5_0" sim_client timeout 20 "$SAQUERY" -s >"$T/sa.out" 2>&1 &&
		grep -q 'PortInfoRecord' "$T/sa.out"
}

routed_fabric -l 2 -k 4
chmod 0711 "$T"
cat >"$T/ibfmd.conf" <<CONF
socket $SOCK
state_dir $T/state
read_group 65534
sweep_interval 3600
light_interval 0
metrics off
CONF
swept() {
	"$IBFM" --socket "$SOCK" status --json 2>/dev/null | grep -q '"sweeps":[1-9]'
}
ibfmd_start "node002 mlx5_0"
until_ok 300 "$DPID" ibfmd swept
nobody_jobs
check "before: job list answers nobody" test "$(cat "$T/rc")" = 0

# FIFOs in place of the jobs list and the generation floor: the watcher
# sees the jobs list change, OpenSM routes again.
g=$(generation)
rm -f "$T/state/jobs.list" "$T/state/generation.floor"
mkfifo "$T/state/jobs.list" "$T/state/generation.floor"
wait_generation "$T/state" $((g + 1)) || die "the pass hung on a FIFO"
check "the pass said the jobs list is a FIFO (P12, F02)" \
	grep -q 'P12 jobs list: .*jobs.list: F02 not a regular file: a FIFO' "$T/opensm.log"
check "and the floor (P21, F02)" \
	grep -q 'ERR P21 .*generation.floor: F02 not a regular file: a FIFO' "$T/opensm.log"
check "saquery answers" saquery_answers
check "OpenSM is still running" kill -0 "$OSM_PID"

nobody_jobs
check "job list by nobody: an error (4, ibfmd's), not a hang" test "$(cat "$T/rc")" = 4
check "within 1 s" test "$(cat "$T/ms")" -lt 1000
check "saying the list is a FIFO (F02)" grep -q 'jobs.list: F02 not a regular file: a FIFO' "$T/jobs.err"
check "ibfmd still answers" "$IBFM" --socket "$SOCK" call version >/dev/null

# A directory in its place: an error too, not "no jobs".
rm -f "$T/state/jobs.list"
mkdir "$T/state/jobs.list"
nobody_jobs
check "a directory: an error" test "$(cat "$T/rc")" = 4
check "saying it is a directory" grep -q 'jobs.list: F02 not a regular file: a directory' "$T/jobs.err"

# The list back: it reads again.
g=$(generation)
rmdir "$T/state/jobs.list"
echo "# nothing" >"$T/state/jobs.list"
wait_generation "$T/state" $((g + 1)) || die "no pass after the jobs list came back"
check "the jobs list reads again" grep -q '"jobs":\[\]' <("$IBFM" --socket "$SOCK" job list --json)
osm_stop
finish
