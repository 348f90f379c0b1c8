#!/bin/bash
# The changes benchmark (bench/scripts/changes.sh) as a smoke test, on a
# 2-level radix-8 tree with 3 links lost and VERIFY=1: it exits 0 and
# prints one row per change with every cell filled: blocks written by
# every drain, undrain, job change and failure, all of them read back
# equal (the command's own report, the fast path's log), every switch
# ibroute reads holding the plugin's tables, the failures repaired by
# the fast path, the entries that must move known for every drain and
# failure; then the median and the slowest of each kind.
. "$TESTLIB"

bench="$(dirname "$TESTLIB")/../../bench/scripts/changes.sh"
TMPDIR=$T HEAVY_LOCK=0 LOST=3 VERIFY=1 QUIET=1 timeout 100 bash "$bench" -l 2 -k 8 \
	>"$T/out" 2>"$T/err"
check "changes.sh: exit 0" test $? = 0
sed 's/^/# /' "$T/err"
# The changes' rows (10 cells) and the kinds' (4 cells).
awk -F'|' 'NF == 12 && $2 !~ /kind|---/' "$T/out" >"$T/rows"
awk -F'|' 'NF == 6 && $2 !~ /kind|---/' "$T/out" >"$T/kinds"
kinds() { awk -F'|' '{ print $2 }' "$T/rows" | tr -d ' ' | sort | uniq -c | awk '{ printf "%s %s,", $1, $2 }'; }
check "a row for every change: 2 drains and undrains, a job's start and end, 3 links and a switch lost" \
	test "$(kinds)" = "2 drain,1 jobend,1 jobstart,3 linklost,1 switchlost,2 undrain,"
# cell N: whether column N of every row passes the awk test COND (on v).
cells() { awk -F'|' -v n="$1" '{ v = $(n + 1); gsub(/^ +| +$/, "", v); if (!('"$2"')) bad++ } END { exit bad > 0 || NR == 0 }' "$3"; }
check "every cell filled" awk -F'|' '{ for (i = 2; i < NF; i++) if ($i ~ /^ *$/) exit 1 }' "$T/rows"
check "every change timed (ms)" cells 3 'v ~ /^[0-9]+$/' "$T/rows"
check "every change wrote blocks" cells 4 'v ~ /^[0-9]+$/ && v > 0' "$T/rows"
check "every block written read back equal" awk -F'|' '$5 + 0 != $7 + 0 { exit 1 }' "$T/rows"
check "every switch ibroute read holds the plugin's tables" cells 10 'v ~ /^equal \([0-9]+ switches\)$/' "$T/rows"
grep -E '^\| (link|switch) lost ' "$T/rows" >"$T/lost"
check "the failures: repaired by the fast path" cells 5 'v == "fast path"' "$T/lost"
grep -E '^\| (drain|link lost|switch lost) ' "$T/rows" >"$T/moves"
check "drains and failures: entries that must move, and changed per must-move" \
	cells 9 'v ~ /^[0-9]+\.[0-9][0-9]$/' "$T/moves"
check "the median and slowest of 6 kinds" test "$(wc -l <"$T/kinds")" = 6
check "... each a number of ms" awk -F'|' '$4 !~ /^ [0-9]+ $/ || $5 !~ /^ [0-9]+ $/ { exit 1 }' "$T/kinds"
finish
