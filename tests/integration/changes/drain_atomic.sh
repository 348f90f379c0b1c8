#!/bin/bash
# The drain check and the drain are one step (#21): ibfmd's safety check
# stretched to 3 s (IBFMD_DRAIN_CHECK_DELAY_MS); while it runs the plugin
# routes again (the jobs list written by hand) or the drain list is
# edited: the drain is refused (state changed, exit 4) and the spine is
# not on the list. Undisturbed, the same drain is done, also when
# OpenSM's heavy sweep after the last list change (multicast) lands
# during its check with the same tables.
. "$TESTLIB"

ask() { "$IBFM" --socket "$T/ibfmd.sock" "$@"; }
generation() { sed -n 's/^ *"generation": \([0-9]*\),$/\1/p' "$T/state/snapshot.json"; }
# Drains spine-01 and, a second into its stretched check, runs the
# command given after $1; returns the drain's exit code, its stderr in
# $T/$1.err.
drain_disturbed() {
	local err=$1 pid
	shift
	ask drain spine-01 --timeout 60 >/dev/null 2>"$T/$err.err" &
	pid=$!
	sleep 1
	"$@"
	wait "$pid"
}
# A job whose ring moves entries (jobs.sh's): a pass that routes the
# same tables (the heavy sweep after a change the fast path made) does
# not refuse a drain, one that changes them does.
pass_jobs() { echo "j1 node009,node001,node005,node002" >"$T/state/jobs.list"; }
edit_drains() { echo "0x0002c9020000000a # spine-02, by hand" >"$T/state/drain.list"; }

routed_fabric -l 2 -k 8
export IBFMD_DRAIN_CHECK_DELAY_MS=3000
ibfmd_beside
unset IBFMD_DRAIN_CHECK_DELAY_MS

# A routing pass during the check.
gen=$(generation)
drain_disturbed routed pass_jobs
check "a pass during the check: refused, exit 4" test $? = 4
check "... saying the fabric was routed again" grep -q 'routed again during the safety check (generation' "$T/routed.err"
check "... state changed" grep -q 'spine-01: changed' "$T/routed.err"
check "... a pass did run" test "$(generation)" -gt "$gen"
check "... spine-01 not drained" bash -c "! grep -q '^0x0002c90200000009' '$T/state/drain.list' 2>/dev/null"
rm -f "$T/state/jobs.list"
wait_generation "$T/state" "$(($(generation) + 1))" || die "no pass after the jobs list went"

# The drain list edited during the check.
drain_disturbed edited edit_drains
check "the list edited during the check: refused, exit 4" test $? = 4
check "... saying so" grep -q 'the drain list changed during the safety check' "$T/edited.err"
check "... spine-01 not drained" bash -c "! grep -q '^0x0002c90200000009' '$T/state/drain.list'"
: >"$T/state/drain.list"
wait_generation "$T/state" "$(($(generation) + 1))" || true

# Undisturbed: done.
ask drain spine-01 --timeout 60 >/dev/null 2>"$T/done.err"
check "undisturbed: the drain is done" test $? = 0
check "... spine-01 on the list" grep -q '^0x0002c90200000009' "$T/state/drain.list"
finish
