#!/bin/bash
# The ibfm command on topology files: help, generation, summaries, bad
# input and diffs, as an operator runs them.
. "$TESTLIB"

json_int() { # json_int FILE KEY: the integer value of "KEY" in FILE
	sed -n "s/^ *\"$2\": \([0-9]*\),\{0,1\}$/\1/p" "$1" | head -1
}

for c in "topo gen" "topo show" "topo diff"; do
	check "ibfm $c --help" bash -c "\"$IBFM\" $c --help | grep -q '^Usage: ibfm $c'"
done
check "ibfm --help lists commands" bash -c "\"$IBFM\" --help | grep -q 'topo gen'"
check "unknown command exits 2" bash -c "\"$IBFM\" frobnicate; test \$? -eq 2"

"$IBFM" topo gen --levels 3 --radix 8 -o "$T/t3.topo" >/dev/null
"$IBFM" topo show --topo "$T/t3.topo" --json >"$T/show.json"
check "show: 80 switches" test "$(json_int "$T/show.json" switches)" = 80
check "show: 128 cas" test "$(json_int "$T/show.json" cas)" = 128
check "show: 384 links" test "$(json_int "$T/show.json" links)" = 384
check "show: 3 levels" test "$(json_int "$T/show.json" levels)" = 3

"$IBFM" topo gen -l 2 -k 36 --rails 8 --hosts 576 --oversub 2:1 -o "$T/rail.topo" --json >"$T/gen.json"
check "gen --json: 576 cas" test "$(json_int "$T/gen.json" cas)" = 576
# 72 servers, SU of 24 servers: 3 SUs x 8 rails = 24 leaves, 12 spines.
check "gen rails+oversub: 36 switches" test "$(json_int "$T/gen.json" switches)" = 36
check "rail-r5 leaf carries mlx5_5 only" bash -c \
	"awk '/# \"leaf-r5-02\"/{on=1;next} /^$/{on=0} on && /mlx5_/' '$T/rail.topo' | grep -v -q 'mlx5_[^5]' && \
	 awk '/# \"leaf-r5-02\"/{on=1;next} /^$/{on=0} on && /mlx5_5/' '$T/rail.topo' | grep -c . | grep -qx 24"

check "gen refuses too many hosts (exit 3)" bash -c \
	"\"$IBFM\" topo gen -l 2 -k 8 --hosts 33 -o '$T/x.topo' 2>'$T/err'; test \$? -eq 3 && grep -q 'holds at most 32' '$T/err' && test ! -e '$T/x.topo'"
check "gen refuses a bad radix (exit 2)" bash -c \
	"\"$IBFM\" topo gen -l 2 -k abc -o '$T/x.topo' 2>'$T/err'; test \$? -eq 2 && grep -q \"bad value for --radix: 'abc'\" '$T/err'"

for f in missing-peer port-range duplicate-guid asymmetric node-type truncated duplicate-lid; do
	check "bad input $f: exit 3 with file:line" bash -c \
		"\"$IBFM\" topo show --topo '$FIXTURES/bad-$f.topo' >'$T/out' 2>'$T/err'; test \$? -eq 3 && grep -q 'bad-$f.topo:[0-9]*: T[0-9][0-9] \|bad-$f.topo: T11' '$T/err' && test ! -s '$T/out'"
done

"$IBFM" topo gen -l 2 -k 12 -o "$T/a.topo"
"$IBFM" topo gen -l 2 -k 12 --remove-links 10 --seed 4 -o "$T/b.topo"
check "diff of a file with itself: exit 0" "$IBFM" topo diff --expected "$T/a.topo" --topo "$T/a.topo"
"$IBFM" topo diff --expected "$T/a.topo" --topo "$T/b.topo" --json >"$T/diff.json"
rc=$?
# 10% of 72 switch links, rounded: 7 missing.
check "diff finds removed links: exit 1" test $rc -eq 1
check "diff counts 7 link-missing" test "$(grep -c '"kind": "link-missing"' "$T/diff.json")" = 7
check "diff JSON count is 7" test "$(json_int "$T/diff.json" count)" = 7

"$IBFM" path --topo "$T/a.topo" leaf01 "spine-02" 2>"$T/perr"
rc=$?
check "path to an unknown endpoint: exit 3" test $rc -eq 3
check "path suggests the closest names" grep -qx 'ibfm: did you mean "leaf-01"?' "$T/perr"

# ibfm route tells the truth in its exit code: 0 when every connected
# pair is routed, 1 (and R03) when some pairs only a credit loop would
# join are left; the tables are written either way.
"$IBFM" topo gen -l 3 -k 8 -o "$T/full.topo" >/dev/null
check "route: a full tree exits 0" "$IBFM" route --topo "$T/full.topo" --dump-lfts "$T/full.lfts"
"$IBFM" topo gen -l 3 -k 12 --remove-links 65 --seed 4 -o "$T/h65.topo" >/dev/null
"$IBFM" route --topo "$T/h65.topo" --dump-lfts "$T/h65.lfts" >/dev/null 2>"$T/h65.err"
check "route: pairs left unrouted exit 1" test $? = 1
check "route: saying R03" grep -q 'warning R03: ' "$T/h65.err"
# Its example is a pair the tables do leave unrouted, also when only
# switch pairs are left (d20).
"$IBFM" topo gen -l 3 -k 24 --remove-links 20 --seed 5 -o "$T/d20.topo" >/dev/null
"$IBFM" route --topo "$T/d20.topo" --dump-lfts "$T/d20.lfts" >/dev/null 2>"$T/d20.err"
for t in h65 d20; do
	ex=$(sed -n 's/.*e\.g\. "\([^"]*\)" to "\([^"]*\)".*/\1|\2/p' "$T/$t.err")
	"$IBFM" path "${ex%%|*}" "${ex#*|}" --topo "$T/$t.topo" --lfts "$T/$t.lfts" >/dev/null 2>&1
	check "route: R03's example pair is one left unrouted ($t: $ex)" test $? = 1
done
check "route: the tables written all the same" test -s "$T/h65.lfts"
# ibfm eval: 0 when every flow arrives, 1 when some do not (the loads
# still printed), 3 when nothing was evaluated.
check "eval: every flow delivered exits 0" "$IBFM" eval --topo "$T/full.topo" --pattern shift
"$IBFM" eval --topo "$T/h65.topo" --lfts "$T/h65.lfts" --pattern bisection --count 5 --json >"$T/h65.eval"
check "eval: unrouted flows exit 1" test $? = 1
check "eval: and are counted" grep -q '"unrouted_flows": [1-9]' "$T/h65.eval"
: >"$T/empty.dump"
"$IBFM" eval --topo "$T/full.topo" --lfts "$T/empty.dump" --pattern shift >/dev/null 2>&1
check "eval: an empty dump evaluates nothing: exit 3" test $? = 3
# ibfm eval --pattern jobs: the figures of the jobs' rings; a bad jobs
# file is bad input with its FILE:LINE and id.
"$IBFM" eval --topo "$T/full.topo" --pattern jobs --random-jobs 4 --seed 1 --json >"$T/jobs.eval"
check "eval jobs: random jobs exit 0" test $? = 0
for k in max_load mean_flow_bw job_speed jobs flows unrouted_flows; do
	check "eval jobs: JSON has $k" grep -q "\"$k\": " "$T/jobs.eval"
done
check "eval jobs: 4 jobs" grep -q '"jobs": 4,' "$T/jobs.eval"
printf '# two jobs\na node001,node002 mlx5_0\nb node003,node999\n' >"$T/bad.jobs"
"$IBFM" eval --topo "$T/full.topo" --pattern jobs --jobs "$T/bad.jobs" >/dev/null 2>"$T/jobs.err"
check "eval jobs: a bad jobs file exits 3" test $? = 3
check "eval jobs: saying FILE:LINE and J03" grep -q "bad.jobs:3: J03 unknown host 'node999'" "$T/jobs.err"
printf 'a node001,node002\n' >"$T/good.jobs"
check "eval jobs: a jobs file exits 0" "$IBFM" eval --topo "$T/full.topo" --pattern jobs --jobs "$T/good.jobs"
"$IBFM" eval --topo "$T/full.topo" --pattern jobs >/dev/null 2>&1
check "eval jobs: without --jobs or --random-jobs exits 2" test $? = 2
# ibfm path on an empty tables file: a file error, not "no route".
: >"$T/empty.bin"
"$IBFM" path leaf-01 leaf-02 --topo "$T/full.topo" --lfts "$T/empty.bin" >/dev/null 2>"$T/empty.err"
check "path: an empty tables file is bad input: exit 3" test $? = 3
check "path: saying so (V02)" grep -q 'V02 .*empty.bin holds no forwarding entry' "$T/empty.err"
# ibfm topo draw: the fabric as a picture. 10% of a radix-8 tree's 32
# spine-leaf links removed, drawn against the full one: 12 switches, 32
# pairs, the 3 missing dashed red; a drained spine purple; DOT rows.
"$IBFM" topo gen -l 2 -k 8 -o "$T/k8.topo" >/dev/null
"$IBFM" topo gen -l 2 -k 8 --remove-links 10 --seed 3 -o "$T/k8deg.topo" >/dev/null
# Cabling differences by cable (#22), as ibdiagnet reports them:
# leaf-01's cable moved from spine-01[1] to spine-01[2], where leaf-02's
# was, is one wrong peer naming both its ends, expected and found, and
# leaf-02's cable missing; not two wrong peers about the same cable.
sed -e '/^\[5\]\t"S-0002c90200000009"\[2\]/d' \
    -e 's/^\[5\]\t"S-0002c90200000009"\[1\]/[5]\t"S-0002c90200000009"[2]/' \
    -e '/^\[1\]\t"S-0002c90200000001"\[5\]/d' \
    -e 's/^\[2\]\t"S-0002c90200000002"\[5\]\t\t# "leaf-02"/[2]\t"S-0002c90200000001"[5]\t\t# "leaf-01"/' \
    "$T/k8.topo" >"$T/moved.topo"
"$IBFM" topo diff --expected "$T/k8.topo" --topo "$T/moved.topo" >"$T/moved.txt"
check "moved cable: topo diff exits 1" test $? = 1
check "moved cable: 2 differences" grep -qx '2 differences' "$T/moved.txt"
check "moved cable: one wrong peer" test "$(grep -c '^link-wrong-peer' "$T/moved.txt")" = 1
check "... leaf-01[5] expected on spine-01[1], found on spine-01[2]" grep -q \
	'^link-wrong-peer *"leaf-01"\[5\] (0x[0-9a-f]*) expected "spine-01"\[1\] (0x[0-9a-f]*), found "spine-01"\[2\] (0x[0-9a-f]*)$' "$T/moved.txt"
check "... and leaf-02[5]'s cable missing" grep -q '^link-missing *"leaf-02"\[5\] (0x[0-9a-f]*) - "spine-01"\[2\]' "$T/moved.txt"
"$IBFM" topo diff --expected "$T/k8.topo" --topo "$T/moved.topo" --json >"$T/moved.json"
check "moved cable --json: exit 1" test $? = 1
check "moved cable --json: the same two findings" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
k = sorted(x["kind"] for x in d["differences"])
w = [x for x in d["differences"] if x["kind"] == "link-wrong-peer"][0]
assert d["count"] == 2 and k == ["link-missing", "link-wrong-peer"], d
assert (w["port"]["desc"], w["port"]["port"]) == ("leaf-01", 5), w
assert (w["expected_peer"]["desc"], w["expected_peer"]["port"]) == ("spine-01", 1), w
assert (w["found_peer"]["desc"], w["found_peer"]["port"]) == ("spine-01", 2), w
' "$T/moved.json"
# Two cables crossed: two findings, one per cable.
sed -e 's/^\(\[5\]\t"S-0002c90200000009"\)\[1\]/\1[2]/;t' \
    -e 's/^\(\[5\]\t"S-0002c90200000009"\)\[2\]/\1[1]/;t' \
    -e 's/^\(\[1\]\t"S-0002c9020000000\)1\("\[5\]\t\t# "leaf-0\)1"/\12\22"/;t' \
    -e 's/^\(\[2\]\t"S-0002c9020000000\)2\("\[5\]\t\t# "leaf-0\)2"/\11\21"/' \
    "$T/k8.topo" >"$T/crossed.topo"
"$IBFM" topo diff --expected "$T/k8.topo" --topo "$T/crossed.topo" >"$T/crossed.txt"
check "crossed cables: exit 1" test $? = 1
check "crossed cables: 2 differences, both wrong peers" bash -c \
	"grep -qx '2 differences' '$T/crossed.txt' && test \$(grep -c '^link-wrong-peer' '$T/crossed.txt') = 2"
"$IBFM" topo draw -t "$T/k8deg.topo" -e "$T/k8.topo" -o "$T/k8.svg" --json >"$T/draw.json"
check "draw: exit 0" test $? = 0
check "draw: the SVG parses" python3 -c "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])" "$T/k8.svg"
check "draw: 12 switches" test "$(grep -c '<g class="switch">' "$T/k8.svg")" = 12
check "draw: 32 switch pairs" test "$(grep -c '<g class="link">' "$T/k8.svg")" = 32
check "draw: 3 pairs short of links, dashed red" test "$(grep -c 'stroke="#d62728" stroke-width="1.6" stroke-dasharray' "$T/k8.svg")" = 3
check "draw: JSON says 3 pairs missing" grep -q '"pairs_missing": 3' "$T/draw.json"
check "draw: leaves show their hosts" grep -q '>4 hosts<' "$T/k8.svg"
echo "0x0002c90200000009 # spine-01" >"$T/draw.drains"
"$IBFM" topo draw -t "$T/k8.topo" --drain-list "$T/draw.drains" --format dot -o "$T/k8.dot" >/dev/null
check "draw --format dot: two rows" test "$(grep -c 'rank=same' "$T/k8.dot")" = 2
check "draw: the drained spine and its 8 pairs purple" test "$(grep -c '#9467bd' "$T/k8.dot")" = 9
"$IBFM" topo draw -t "$T/nowhere.topo" -o "$T/x.svg" 2>/dev/null
check "draw: a missing topology exits 3" test $? = 3
# A 3-level tree by its groups (#43): topo show lists 8 pods and 4 core
# planes; topo draw draws a block each, --group one pod, an unknown
# group is bad input.
"$IBFM" topo gen -l 3 -k 8 -o "$T/k8l3.topo" >/dev/null
"$IBFM" topo show "$T/k8l3.topo" >"$T/groups.txt"
check "topo show: 12 groups" grep -qx 'groups    12' "$T/groups.txt"
check "topo show: pod-1, 8 switches, 4 leaves, 16 hosts" grep -q '^  pod-1 *pod *8 switches, 4 leaves, 16 hosts' "$T/groups.txt"
"$IBFM" topo show "$T/k8l3.topo" --json >"$T/groups.json"
check "topo show --json: the groups" python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))["groups"]
assert [x["kind"] for x in g] == ["pod"] * 8 + ["core plane"] * 4, g
assert g[8] == {"name": "core-plane-1", "kind": "core plane", "switches": 4, "leaves": 0, "hosts": 0}, g[8]' "$T/groups.json"
"$IBFM" topo draw -t "$T/k8l3.topo" --format html -o "$T/k8l3.html" --json >"$T/k8l3.json"
check "draw a 3-level tree: 12 blocks, each a link" test "$(grep -o '<a href="[a-z0-9-]*.html"><g class="group">' "$T/k8l3.html" | wc -l)" = 12
check "draw --json: 12 groups, not whole" grep -q '"whole": false' "$T/k8l3.json"
"$IBFM" topo draw -t "$T/k8l3.topo" --group pod-2 -o "$T/pod-2.svg" >/dev/null
check "draw --group pod-2: its 8 switches and 16 cores" test "$(grep -c '<g class="switch">' "$T/pod-2.svg")" = 24
"$IBFM" topo draw -t "$T/k8l3.topo" --group pod-9 -o "$T/pod-9.svg" 2>"$T/pod-9.err"
check "draw --group pod-9: no such group, exit 3" test $? = 3
check "... saying so" grep -q 'no group "pod-9" in this fabric' "$T/pod-9.err"

# --node-name-map (#22): every offline command that prints node names
# prints the map's (here "named-0xGUID" for every node), and not
# without it; the GUIDs stay in JSON.
sed -n 's/^\(switchguid\|caguid\)=\(0x[0-9a-f]*\).*/\2/p' "$T/k8.topo" |
	while read -r g; do printf '0x%016x "named-0x%016x"\n' "$g" "$g"; done >"$T/names.map"
"$IBFM" route --topo "$T/k8.topo" --dump-lfts "$T/k8.lfts" >/dev/null
names_check() { # names_check LABEL CMD...: the map's names, only with it
	local label=$1
	shift
	"$@" >"$T/nm0.out" 2>&1
	"$@" --node-name-map "$T/names.map" >"$T/nm1.out" 2>&1
	check "--node-name-map: $label" bash -c "grep -q 'named-0x' '$T/nm1.out' && ! grep -q 'named-0x' '$T/nm0.out'"
}
names_check "topo diff" "$IBFM" topo diff --expected "$T/k8.topo" --topo "$T/k8deg.topo"
names_check "topo diff --json" "$IBFM" topo diff --expected "$T/k8.topo" --topo "$T/k8deg.topo" --json
check "... each name beside its own GUID" bash -c "tr -d ' \n' <'$T/nm1.out' | grep -q '\"desc\":\"named-\(0x[0-9a-f]*\)\",\"guid\":\"\1\"'"
names_check "topo draw" "$IBFM" topo draw -t "$T/k8deg.topo" -e "$T/k8.topo" -o -
names_check "check" "$IBFM" check --topo "$T/k8deg.topo" --lfts "$T/k8.lfts"
names_check "eval" "$IBFM" eval --topo "$T/k8.topo" --pattern shift
names_check "eval --json" "$IBFM" eval --topo "$T/k8.topo" --lfts "$T/k8.lfts" --pattern ring --json
names_check "routes summary" "$IBFM" routes summary --topo "$T/k8.topo"
names_check "sharp trees" "$IBFM" sharp trees --topo "$T/k8.topo"
names_check "drain --dry-run" "$IBFM" drain leaf-01 --dry-run --topo "$T/k8.topo"
names_check "path" "$IBFM" path "node001 mlx5_0" "node005 mlx5_0" --topo "$T/k8.topo"
IBFM_NODE_NAME_MAP="$T/names.map" "$IBFM" eval --topo "$T/k8.topo" --pattern shift >"$T/nm2.out"
check "IBFM_NODE_NAME_MAP names the map too" grep -q 'named-0x' "$T/nm2.out"
printf '0x10 "a"\nnot a line\n' >"$T/bad.map"
"$IBFM" eval --topo "$T/k8.topo" --pattern shift --node-name-map "$T/bad.map" >/dev/null 2>"$T/nm.err"
check "a map that does not read: exit 3" test $? = 3
check "... with FILE:LINE" grep -q 'bad.map:2: N01' "$T/nm.err"
"$IBFM" route --topo "$T/k8.topo" --node-name-map "$T/names.map" >/dev/null 2>&1
check "route prints no names: --node-name-map is a usage error" test $? = 2
finish
