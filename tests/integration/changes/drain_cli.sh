#!/bin/bash
# ibfm drain --dry-run as a runbook uses it: a spine of a full 2-level
# tree drains safely with the exact new max load (every shift; above
# 1448 hosts a sample, labelled so); a host's only link does not;
# without --dry-run the daemon is needed; a mistyped name gets the
# closest names.
. "$TESTLIB"

json_num() { sed -n "s/^ *\"$2\": \([0-9.]*\),\{0,1\}$/\1/p" "$1" | head -1; }

"$IBFM" topo gen -l 2 -k 36 -o "$T/f.topo" >/dev/null
"$IBFM" drain spine-05 --dry-run --topo "$T/f.topo" --json >"$T/spine.json"
rc=$?
check "spine: safe, exit 0" test $rc -eq 0
check "spine: safe true" grep -q '"safe": true' "$T/spine.json"
check "spine: no CA pair unreachable" test "$(json_num "$T/spine.json" unreachable_pairs)" = 0
# 18 hosts per leaf over 17 spines: some shift puts 2 flows on a link.
check "spine: shift max load 2 (was 1)" test \
	"$(json_num "$T/spine.json" max_load)/$(json_num "$T/spine.json" max_load_before)" = 2/1
check "spine: blocks would change" test "$(json_num "$T/spine.json" changed_blocks)" -gt 0

check "spine: 648 hosts, every shift evaluated: exact" bash -c "grep -q '\"max_load_exact\": true' '$T/spine.json' && test \"\$(sed -n 's/^ *\"evaluated\": \([0-9]*\),\$/\1/p' '$T/spine.json')\" = 647"
check "spine: all-to-all too" test "$(json_num "$T/spine.json" all2all_max_load_before)" = 647

# Above 1448 hosts (2^21 flows a table), a seeded sample of shifts, and
# the figure says it is the most over the sample.
"$IBFM" topo gen -l 2 -k 72 -o "$T/big.topo" >/dev/null
"$IBFM" drain spine-05 --dry-run --topo "$T/big.topo" --json >"$T/big.json"
check "2592 hosts: shifts sampled, not exact" grep -q '"max_load_exact": false' "$T/big.json"
check "2592 hosts: 809 of 2591 shifts" test "$(json_num "$T/big.json" evaluated)/$(json_num "$T/big.json" instances)" = 809/2591
check "2592 hosts: labelled a lower bound" grep -q '"max_load_text": "at least [0-9]* (now at least [0-9]*): 809 of 2591 shifts evaluated, the most over those"' "$T/big.json"
"$IBFM" eval --topo "$T/f.topo" --pattern shift --count 10 >"$T/eval.txt"
check "eval over a sample of shifts says so" grep -q '^shift over 648 hosts (10 of 647 evaluated, a seeded sample): max load at least ' "$T/eval.txt"

"$IBFM" drain "node001 mlx5_0" --dry-run --topo "$T/f.topo" --json >"$T/host.json"
rc=$?
check "a host's only link: unsafe, exit 1 (a check that found a problem)" test $rc -eq 1
check "unsafe: node001 unreachable from 647 hosts" test "$(json_num "$T/host.json" unreachable_pairs)" = 647

"$IBFM" drain "leaf-01[19]" --dry-run --topo "$T/f.topo" >"$T/link.txt"
check "one link: SAFE in text" grep -q '^drain link "leaf-01"\[19\]: SAFE' "$T/link.txt"

"$IBFM" drain spine-05 --topo "$T/f.topo" 2>"$T/err"
check "--topo without --dry-run: a usage error" test $? -eq 2
check "says how to go on" grep -q 'drop --topo, or add --dry-run' "$T/err"
"$IBFM" drain spine-05 --socket "$T/none.sock" 2>"$T/err"
check "a live drain without ibfmd: exit 5" test $? -eq 5
check "says how to start it" grep -q 'start it with ibfmd --config FILE' "$T/err"
"$IBFM" undrain spine-05 --socket "$T/none.sock" 2>/dev/null
check "undrain without ibfmd: exit 5" test $? -eq 5
"$IBFM" drain nosuchswitch --dry-run --topo "$T/f.topo" 2>"$T/err2"
rc=$?
check "unknown element: exit 3" test $rc -eq 3
check "unknown element: says which" grep -q 'unknown element "nosuchswitch"' "$T/err2"
check "nothing close: no suggestion" bash -c "! grep -q 'did you mean' '$T/err2'"
"$IBFM" drain "Spine05[3]" --dry-run --topo "$T/f.topo" 2>"$T/err3"
check "a typo: suggests only the closest switch" grep -qx 'ibfm: did you mean "spine-05"?' "$T/err3"
finish
