#!/bin/bash
# The plugin fills OpenSM's min-hop LID matrices (multicast reads them)
# instead of OpenSM's own builder: OpenSM's dump of them is the same
# either way, on a full tree, every fabric of the test zoo, degraded
# ones, and one ibfm refuses, where minhop then routes on the plugin's
# matrices to the same tables; and the same whatever the plugin's
# thread count.
. "$TESTLIB"

[ -x "${OPENSM:-}" ] || die "opensm not found (install opensm)"

# one_sweep NAME ENGINES [PLUGIN_OPTS]: one OpenSM sweep (-o) with the
# plugin; dumps in $T/NAME/. LIDs come from one cache, $T, so every run
# of a fabric assigns the same ones.
one_sweep() {
	local d="$T/$1"
	mkdir -p "$d"
	PLUGIN_OPTS=${3:-} osm_conf "$d/opensm.conf" "$d/state" "$2"
	(cd "$d" && SIM_HOST="node001 mlx5_0" OSM_CACHE_DIR="$T" OSM_TMP_DIR="$d" \
		LD_LIBRARY_PATH="$PLUGIN_DIR" LD_PRELOAD="$UMAD2SIM" timeout 300 \
		"$OPENSM" -F "$d/opensm.conf" -o -D 0x43 -f "$d/opensm.log" >"$d/opensm.out" 2>&1)
}

# compare NAME ENGINE GEN-ARGS...: the fabric routed with the matrices
# filled by ibfm, then by OpenSM; ENGINE is the one expected to route.
compare() {
	local name=$1 engine=$2 nsw
	shift 2
	"$IBFM" topo gen "$@" -o "$T/$name.topo" >/dev/null || die "gen $*"
	nsw=$(grep -c '^Switch' "$T/$name.topo")
	sim_start "$T/$name.topo"
	one_sweep "$name-ibfm" "ibfm,minhop" "${EXTRA_OPTS:-}"
	one_sweep "$name-osm" "ibfm,minhop" "lid_matrices=opensm${EXTRA_OPTS:+ $EXTRA_OPTS}"
	# The plugin fills on its threads (the default: the CPUs): 1 and 5.
	one_sweep "$name-t1" "ibfm,minhop" "threads=1${EXTRA_OPTS:+ $EXTRA_OPTS}"
	one_sweep "$name-t5" "ibfm,minhop" "threads=5${EXTRA_OPTS:+ $EXTRA_OPTS}"
	sim_cmd Quit
	exec 3>&-
	wait "$SIM_PID" 2>/dev/null
	rm -f "$T/console" "$T/guid2lid"

	local a="$T/$name-ibfm" b="$T/$name-osm"
	check "$name: SUBNET UP both ways" grep -q "SUBNET UP" "$a/opensm.log" "$b/opensm.log"
	check "$name: $engine routed" grep -q "$engine tables configured" "$a/opensm.log"
	check "$name: the plugin filled the matrices of $nsw switches" \
		grep -q "ibfm: LID matrices of $nsw switches filled" "$a/opensm.log"
	check "$name: with lid_matrices=opensm it did not" \
		bash -c "! grep -q 'LID matrices of' '$b/opensm.log'"
	check "$name: a row to every switch LID from every switch" \
		test "$(grep -c '^0x' "$a/opensm-lid-matrix.dump")" = $((nsw * nsw))
	check "$name: OpenSM's dump of both matrices is the same" \
		cmp -s "$a/opensm-lid-matrix.dump" "$b/opensm-lid-matrix.dump"
	check "$name: and so are the tables" cmp -s "$a/opensm-lfts.dump" "$b/opensm-lfts.dump"
	check "$name: the plugin filled them on 1 and on 5 threads too" \
		bash -c "grep -q 'ibfm: LID matrices of $nsw switches filled' '$T/$name-t1/opensm.log' &&
			grep -q 'ibfm: LID matrices of $nsw switches filled' '$T/$name-t5/opensm.log'"
	check "$name: the same matrices filled on 1 and on 5 threads" \
		cmp -s "$T/$name-t1/opensm-lid-matrix.dump" "$T/$name-t5/opensm-lid-matrix.dump"
	check "$name: and as on the default threads" \
		cmp -s "$a/opensm-lid-matrix.dump" "$T/$name-t1/opensm-lid-matrix.dump"
	check "$name: no ERR in OpenSM's log but ibfm's refusal" \
		bash -c "! grep ' ERR ' '$a/opensm.log' | grep -v 'ERR P04 R01'"
}

compare full ibfm -l 3 -k 8
# Every shape of the test zoo: parallel links, scalable units, rails, a
# core tier, oversubscription, mixed speeds, degradations.
while read -r name args; do
	compare "zoo-$name" ibfm $args
done < <(grep -v '^#' "$(dirname "$TESTLIB")/../zoo.list")
compare degraded ibfm -l 3 -k 8 --remove-links 5 --seed 2
# 25% of the links gone: leaves that share no spine, detoured.
compare degraded25 ibfm -l 2 -k 8 --remove-links 25 --seed 2
# ibfm refuses a root GUID that is not there: minhop routes.
echo 0x00000000deadbeef >"$T/badroots"
EXTRA_OPTS="root_guid_file=$T/badroots" compare refused minhop -l 2 -k 8
check "refused: ibfm said why" grep -q 'ibfm: ERR P04 R01' "$T/refused-ibfm/opensm.log"
finish
