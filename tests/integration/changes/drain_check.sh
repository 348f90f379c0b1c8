#!/bin/bash
# The drain dry run comes from ibfmd (drain-check): `ibfm drain X
# --dry-run` prints ibfmd's report, for a user of the read group who
# cannot read the state directory; its figures equal the offline dry run
# on ibfmd's sweep and the plugin's dump; a second check while one runs
# is refused; a live drain prints ibfmd's check before it follows the
# reroute, and its verdict carries the same figures.
. "$TESTLIB"

[ "$(id -u)" = 0 ] || { echo "# skipped: setpriv needs root"; exit 77; }
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
ask() { "$IBFM" --socket "$T/ibfmd.sock" "$@"; }
# The figures of a dry run's JSON (one member a line), less its timing
# and where its tables came from.
figures() { grep -v '"check_ms"\|"plugin_tables"' "$1"; }

routed_fabric -l 2 -k 8
# Others may pass through $T to the socket, not into the state directory.
chmod 0711 "$T"
chmod 0700 "$T/state"
export IBFMD_DRAIN_CHECK_DELAY_MS=1500
ibfmd_beside "read_group 65534"
unset IBFMD_DRAIN_CHECK_DELAY_MS

check "nobody cannot read the plugin's tables" bash -c "! $NOBODY cat '$T/state/lfts.dump' 2>/dev/null"
$NOBODY "$IBFM" --socket "$T/ibfmd.sock" drain spine-01 --dry-run --json >"$T/live.json" 2>"$T/live.err"
check "nobody's dry run: exit 0 (safe)" test $? = 0
check "it is ibfmd's answer, on the plugin's tables" grep -q '"plugin_tables": true' "$T/live.json"
check "safe, no CA pair cut" bash -c "grep -q '\"safe\": true' '$T/live.json' && grep -q '\"unreachable_pairs\": 0,' '$T/live.json'"
check "predicted by the plugin's repair, must-move known" bash -c "grep -q '\"predicted_by\": \"repair\"' '$T/live.json' && grep -q '\"must_move_entries\": [1-9]' '$T/live.json'"
check "32 hosts: every shift, exact" bash -c "grep -q '\"max_load_exact\": true' '$T/live.json' && grep -q '\"instances\": 31,' '$T/live.json'"

"$IBFM" drain spine-01 --dry-run --topo "$T/fabric.topo" --lfts "$T/state/lfts.dump" --json >"$T/offline.json"
check "offline on ibfmd's sweep and the plugin's dump: exit 0" test $? = 0
check "the offline and live figures agree" diff <(figures "$T/offline.json") <(figures "$T/live.json")
$NOBODY "$IBFM" --socket "$T/ibfmd.sock" drain spine-01 --dry-run >"$T/live.txt"
check "text: SAFE, the load labelled exact" bash -c "grep -q '^drain switch \"spine-01\" (8 links): SAFE' '$T/live.txt' && grep -q '^  shift max load  .*: exact$' '$T/live.txt'"

# One at a time: a second check while the first (1.5 s) runs is refused.
ask drain spine-02 --dry-run --json >"$T/first.json" &
first=$!
sleep 0.5
ask drain spine-03 --dry-run 2>"$T/busy.err"
check "a second check meanwhile: refused (exit 4)" test $? = 4
check "saying why" grep -q 'a drain check is running (one at a time)' "$T/busy.err"
wait "$first"
check "the first is answered all the same" grep -q '"safe": true' "$T/first.json"
ask drain nosuch --dry-run 2>"$T/unknown.err"
check "an unknown element: exit 3" test $? = 3
ask call drain-check spine-01 bogus 2>"$T/pattern.err"
check "an unknown pattern: exit 3" test $? = 3
check "saying what is expected" grep -q 'expected shift, ring, all2all or random' "$T/pattern.err"
ask drain "node001 mlx5_0" --dry-run --json >"$T/unsafe.json"
check "a host's only link: unsafe (exit 1)" test $? = 1
check "with why" grep -q '"why": "31 CA pairs cut' "$T/unsafe.json"

# The live drain: ibfmd's check printed first, its figures the dry run's.
ask drain spine-01 >"$T/drain.txt"
check "drain spine-01: exit 0" test $? = 0
check "prints ibfmd's check first" bash -c "head -1 '$T/drain.txt' | grep -q '^drain switch \"spine-01\" (8 links): SAFE$'"
check "then the reroute, done" grep -q '^drain switch "spine-01" (8 links): done$' "$T/drain.txt"
ask call --json drain-status >"$T/ds.json"
check "drain-status carries the check" grep -q '"check":{"safe":true,' "$T/ds.json"
check "the live check leaves the loads to the dry run" bash -c "grep -q '\"check\":{[^}]*\"loads\":false' '$T/ds.json' && grep -q 'link loads  *not computed by a live drain' '$T/drain.txt'"
for k in changed_entries changed_blocks must_move_entries; do
	live=$(sed -n "s/^ *\"$k\": \([0-9.]*\),\{0,1\}$/\1/p" "$T/live.json")
	got=$(sed -n "s/.*\"check\":{[^}]*\"$k\":\([0-9.]*\).*/\1/p" "$T/ds.json")
	check "the drain's check: $k as the dry run's ($live)" test "$got" = "$live"
done
ask undrain spine-01 >/dev/null
check "undrain spine-01: exit 0" test $? = 0
finish
