#!/bin/bash
# ibfm sharp on generated fabrics: trees without violations, job trees
# carved under the per-AN quota, released, and re-carved around a failed
# link with the job named.
. "$TESTLIB"

json_num() { sed -n "s/^ *\"$2\": \([0-9.]*\),\{0,1\}$/\1/p" "$1" | head -1; }

"$IBFM" topo gen -l 3 -k 8 -o "$T/f.topo" >/dev/null || die "gen"
"$IBFM" sharp trees --topo "$T/f.topo" --json >"$T/trees.json"
check "16 trees, one per core" test "$(grep -c '"depth": 3' "$T/trees.json")" = 16
check "no violations" test "$(json_num "$T/trees.json" violations)" = 0
check "every tree joins all 128 hosts" test "$(grep -c '"hosts": 128' "$T/trees.json")" = 16
"$IBFM" sharp trees --topo "$T/f.topo" --radix 2 --json >"$T/radix.json"
rc=$?
check "radix 2 cannot join 8 pods: violations, exit 1" \
	test $rc -eq 1 -a "$(json_num "$T/radix.json" violations)" -gt 0
check "sharp tree 0 lists its edges" bash -c \
	"'$IBFM' sharp tree 0 --topo '$T/f.topo' | grep -q '^  level 1 leaf-01 .*-> .* spine-01'"

J="$T/jobs"
"$IBFM" sharp job carve --topo "$T/f.topo" --jobs-file "$J" --jobs-per-an 1 \
	--hosts "node001 mlx5_0,node005 mlx5_0" >"$T/j1"
check "job 1: leaf-01, leaf-02 and a spine" grep -q '^job 1: .* 3 ANs: leaf-01 leaf-02 spine-' "$T/j1"
"$IBFM" sharp job carve --topo "$T/f.topo" --jobs-file "$J" --jobs-per-an 1 \
	--hosts "node002 mlx5_0,node100 mlx5_0" 2>"$T/err"
rc=$?
check "quota 1: leaf-01 is taken, exit 3" test $rc -eq 3
check "the error says why" grep -q 'S04 no SHARP tree joins' "$T/err"
"$IBFM" sharp job carve --topo "$T/f.topo" --jobs-file "$J" --jobs-per-an 1 \
	--hosts "node100 mlx5_0,node120 mlx5_0" >/dev/null
check "two jobs in the file" test "$(grep -c '^[0-9]' "$J")" = 2

# Cut the link job 1's tree takes up from leaf-01: show re-carves it.
spine=$(sed -n 's/^job 1: .* \(spine-[0-9]*\)$/\1/p' "$T/j1")
sguid=$(sed -n "s/^Switch.*\"\\(S-[0-9a-f]*\\)\"\t\t# \"$spine\".*/\\1/p" "$T/f.topo")
lguid=$(sed -n 's/^Switch.*"\(S-[0-9a-f]*\)"\t\t# "leaf-01".*/\1/p' "$T/f.topo")
awk -v s="\"$sguid\"" -v l="\"$lguid\"" '
	/^Switch/ { cur = $3 }
	/^\[/ && cur == l && index($0, s) { next }
	/^\[/ && cur == s && index($0, l) { next }
	{ print }' "$T/f.topo" >"$T/cut.topo"
check "the cut topology lost one link" bash -c \
	"'$IBFM' topo diff --expected '$T/f.topo' --topo '$T/cut.topo' | grep -q '^1 difference'"
"$IBFM" sharp job show --topo "$T/cut.topo" --jobs-file "$J" --jobs-per-an 1 >"$T/show"
check "job 1 is reported re-carved" grep -q '^job 1 (re-carved: its tree changed)' "$T/show"
check "job 2 is not" grep -q '^job 2: ' "$T/show"
check "job 1 no longer uses $spine" bash -c "! grep '^job 1 ' '$T/show' | grep -q '$spine\$'"
"$IBFM" sharp job release 1 --topo "$T/f.topo" --jobs-file "$J" >/dev/null
check "release leaves one job" test "$(grep -c '^[0-9]' "$J")" = 1
finish
