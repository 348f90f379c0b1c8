#!/bin/bash
# OpenSM's own engines route a generated fabric on ibsim; ibfm reads the
# real opensm-lfts.dump and checks it (reachability, routing loops,
# credit loops) and evaluates it beside ibfm's own routes.
. "$TESTLIB"

[ -x "${OPENSM:-}" ] || die "opensm not found (install opensm)"

json_num() { # json_num FILE KEY
	sed -n "s/^ *\"$2\": \([0-9.]*\),\{0,1\}$/\1/p" "$1" | head -1
}

# run_opensm ENGINE: one sweep with ENGINE, LFTs dumped into $T/ENGINE/.
run_opensm() {
	local dir="$T/$1"
	mkdir -p "$dir"
	(cd "$dir" && SIM_HOST="node001 mlx5_0" OSM_CACHE_DIR="$dir" OSM_TMP_DIR="$dir" \
		LD_PRELOAD="$UMAD2SIM" timeout 120 "$OPENSM" -o -R "$1" -D 0x43 \
		-f "$dir/opensm.log" >"$dir/opensm.out" 2>&1)
	check "$1: OpenSM reached SUBNET UP" grep -q "SUBNET UP" "$dir/opensm.log"
	check "$1: OpenSM used $1" grep -q "$1 tables configured on all switches" "$dir/opensm.log"
	check "$1: opensm-lfts.dump written" test -s "$dir/opensm-lfts.dump"
}

"$IBFM" topo gen -l 3 -k 8 -o "$T/fabric.topo" || die "gen"
sim_start "$T/fabric.topo"

for engine in ftree updn minhop; do
	run_opensm $engine
	"$IBFM" check --topo "$T/fabric.topo" --lfts "$T/$engine/opensm-lfts.dump" --json >"$T/$engine.check"
	rc=$?
	check "$engine: ibfm check exits 0" test $rc -eq 0
	check "$engine: 128 hosts x (127 hosts + 80 switches) pairs" \
		test "$(json_num "$T/$engine.check" pairs)" = $((128 * 207))
	check "$engine: no unreachable pair" test "$(json_num "$T/$engine.check" unreachable_pairs)" = 0
	"$IBFM" eval --topo "$T/fabric.topo" --lfts "$T/$engine/opensm-lfts.dump" \
		--pattern shift --json >"$T/$engine.eval"
	echo "# OpenSM $engine: shift max load $(json_num "$T/$engine.eval" max_load)"
done
# minhop does not avoid credit loops on a fat tree by design; updn and
# ftree do: the checker must see no loop in theirs.
check "updn: no credit loop" test "$(json_num "$T/updn.check" credit_loops)" = 0
check "ftree: no credit loop" test "$(json_num "$T/ftree.check" credit_loops)" = 0

"$IBFM" eval --topo "$T/fabric.topo" --pattern shift --json >"$T/ibfm.eval"
echo "# ibfm: shift max load $(json_num "$T/ibfm.eval" max_load)"
check "ibfm: shift max load 1" test "$(json_num "$T/ibfm.eval" max_load)" = 1
check "ibfm balances shifts no worse than OpenSM ftree" awk -v a="$(json_num "$T/ibfm.eval" max_load)" \
	-v b="$(json_num "$T/ftree.eval" max_load)" 'BEGIN { exit !(a <= b) }'

# ibfm's own dump reads back as the same tables.
"$IBFM" route --topo "$T/fabric.topo" --dump-lfts "$T/ibfm.dump" >/dev/null
check "ibfm dump: check passes on it" "$IBFM" check --topo "$T/fabric.topo" --lfts "$T/ibfm.dump"

sim_cmd Quit
finish
