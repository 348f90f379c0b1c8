#!/bin/bash
# ibfm plan: a job that fits a healthy rail-optimized fabric, and one
# that misses its step on a fabric with a link down to 1x, with the link
# named.
. "$TESTLIB"

json_num() { sed -n "s/^ *\"$2\": \([-0-9.e+]*\),\{0,1\}$/\1/p" "$1" | head -1; }

"$IBFM" topo gen -l 2 -k 16 --rails 4 --hosts 128 --speed NDR -o "$T/rails.topo" >/dev/null
"$IBFM" plan --topo "$T/rails.topo" --params 7e9 --dtype bf16 --step 0.5 \
	--gpus-per-node 4 --tp 4 --json >"$T/fit.json"
rc=$?
check "fits: exit 0" test $rc -eq 0
check "fits: verdict true" grep -q '"fits": true' "$T/fit.json"
check "rule of thumb 2 x 7e9 x 2 / 0.5 s = 56 GB/s" test "$(json_num "$T/fit.json" rule_of_thumb_gbs)" = 56
check "4 rails at 400 Gb/s: 1600 Gb/s per node" test "$(json_num "$T/fit.json" node_gbps)" = 1600

"$IBFM" topo gen -l 2 -k 8 -o "$T/p.topo" >/dev/null
leaf=$(sed -n 's/^Switch.*"\(S-[0-9a-f]*\)"\t\t# "leaf-01".*/\1/p' "$T/p.topo")
spine=$(sed -n 's/^Switch.*"\(S-[0-9a-f]*\)"\t\t# "spine-01".*/\1/p' "$T/p.topo")
awk -v l="\"$leaf\"" -v s="\"$spine\"" '/^Switch/ { cur = $3 }
	/^\[/ && ((cur == l && index($0, s)) || (cur == s && index($0, l))) { sub(/4xHDR/, "1xHDR") }
	{ print }' "$T/p.topo" >"$T/slow.topo"
"$IBFM" plan --topo "$T/slow.topo" --params 1e9 --step 0.5 --gpus-per-node 1 --json >"$T/slow.json"
rc=$?
check "a 1x link: does not fit, exit 1" test $rc -eq 1
check "the verdict says so" grep -q '"fits": false' "$T/slow.json"
check "the bottleneck is leaf-01[5] -> spine-01[1]" \
	grep -q '"link": "\\"leaf-01\\"\[5\] (0x[0-9a-f]*) -> \\"spine-01\\"\[1\]' "$T/slow.json"
check "50 Gb/s per flow" test "$(json_num "$T/slow.json" flow_gbps)" = 50
check "relieving it is listed as a fix that fits" bash -c \
	"tr -d '\n ' <'$T/slow.json' | grep -q '\"fix\":\"relievethebottlenecklinks\".*\"fits\":true'"
"$IBFM" plan --topo "$T/slow.topo" --params 1e9 --step 0.5 --gpus-per-node 1 >"$T/slow.txt"
check "text: names the link and the verdict" bash -c \
	"grep -q 'bottleneck: \"leaf-01\"\[5\]' '$T/slow.txt' && grep -q '^verdict: does NOT fit' '$T/slow.txt'"
check "bad layout: exit 3 with the reason" bash -c \
	"'$IBFM' plan --topo '$T/p.topo' --params 1e9 --step 1 --tp 3 2>'$T/err'; test \$? -eq 3 && grep -q 'tensor-parallel size 3' '$T/err'"
finish
