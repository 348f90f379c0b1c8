#!/bin/bash
# The changes benchmark (bench/scripts/changes.sh) as a smoke test, on a
# 2-level radix-8 tree with 3 links lost and VERIFY=1: it runs to its
# end and prints one row per change with every cell filled: drains' and
# the rebalance's dry runs timed apart, blocks written by every drain,
# undrain, rebalance, job change and failure, all of them read back equal (the command's own report,
# the fast path's log), every switch ibroute reads holding the plugin's
# tables, the failures repaired by the fast path (at least one: OpenSM's
# pass may come first on a fabric this small), the entries that must
# move known for every drain and failure; then the median and the
# slowest of each kind.
. "$TESTLIB"

bench="$(dirname "$TESTLIB")/../../bench/scripts/changes.sh"
TMPDIR=$T HEAVY_LOCK=0 LOST=3 VERIFY=1 QUIET=1 timeout 100 bash "$bench" -l 2 -k 8 \
	>"$T/out" 2>"$T/err"
rc=$?
sed 's/^/# /' "$T/err"
# The changes' rows (11 cells) and the kinds' (5 cells). On a fabric this
# small OpenSM's own pass takes ~10 ms after the trap and may repair a
# failure before the fast path does (then the row is timed to OpenSM's
# pass, "(OpenSM)", and the run exits 1): such rows are set apart.
awk -F'|' 'NF == 13 && $2 !~ /kind|---/' "$T/out" >"$T/rows"
awk -F'|' 'NF == 7 && $2 !~ /kind|---/' "$T/out" >"$T/kinds"
grep -F '(OpenSM) |' "$T/rows" >"$T/late"
grep -vF '(OpenSM) |' "$T/rows" >"$T/timed"
check "changes.sh ran to its end: exit 0 (or 1 for failures OpenSM repaired first: $(wc -l <"$T/late"))" \
	test "$rc" = 0 -o "$rc" = 1 -a -s "$T/late"
kinds() { awk -F'|' '{ print $2 }' "$T/rows" | tr -d ' ' | sort | uniq -c | awk '{ printf "%s %s,", $1, $2 }'; }
check "a row for every change: 3 drains, 2 undrains, a rebalance and its undrain, a job's start and end, 3 links and a switch lost" \
	test "$(kinds)" = "3 drain,1 jobend,1 jobstart,3 linklost,1 rebalance,1 switchlost,2 undrain,1 undrain,rebalanced,"
# cells N COND FILE: whether column N of every row of FILE passes the
# awk test COND (on v).
cells() { awk -F'|' -v n="$1" '{ v = $(n + 1); gsub(/^ +| +$/, "", v); if (!('"$2"')) bad++ } END { exit bad > 0 || NR == 0 }' "$3"; }
check "every cell filled" awk -F'|' '{ for (i = 2; i < NF; i++) if ($i ~ /^ *$/) exit 1 }' "$T/rows"
check "every change timed to its read-back (ms)" cells 3 'v ~ /^[0-9]+$/' "$T/timed"
grep -E '^\| (drain|rebalance) ' "$T/rows" >"$T/drains"
check "drains and the rebalance: their dry run timed apart" cells 4 'v ~ /^[0-9]+$/' "$T/drains"
check "every change wrote blocks" cells 5 'v ~ /^[0-9]+$/ && v > 0' "$T/rows"
check "every block written read back equal" awk -F'|' '$6 + 0 != $8 + 0 { exit 1 }' "$T/timed"
check "every switch ibroute read holds the plugin's tables" cells 11 'v ~ /^equal \([0-9]+ switches\)$/' "$T/rows"
grep -E '^\| (link|switch) lost ' "$T/timed" >"$T/lost"
check "the failures: repaired by the fast path (all but those OpenSM repaired first)" \
	cells 6 'v == "fast path"' "$T/lost"
grep -E '^\| (drain|link lost|switch lost) ' "$T/rows" >"$T/moves"
check "drains and failures: entries that must move, and changed per must-move" \
	cells 10 'v ~ /^[0-9]+\.[0-9][0-9]$/' "$T/moves"
check "the median and slowest of 8 kinds" test "$(wc -l <"$T/kinds")" = 8
# A kind all of whose changes were set apart has no figure ("-").
check "... each a number of ms" awk -F'|' '($4 !~ /^ [0-9]+ $/ || $5 !~ /^ [0-9]+ $/) &&
	!($4 == " - " && $5 == " - " && $3 == $6) { exit 1 }' "$T/kinds"
check "... flagging only the failures OpenSM repaired first" \
	test "$(awk -F'|' '{ s += $6 } END { print s + 0 }' "$T/kinds")" = "$(wc -l <"$T/late")"
finish
