#!/bin/bash
# Rail-aware vs plain fat-tree routing vs OpenSM's ftree and updn on the
# same rail-optimized fabrics (OpenSM runs on ibsim), as a markdown
# table of max / mean link load per pattern. Used for docs/rails.md.
set -u
. "$(dirname "$0")/../../scripts/tree-env.sh"

patterns="shift rail-ring rail-shift rail-alltoall xrail-alltoall"
num() { sed -n "s/^ *\"$2\": \([0-9.]*\),\{0,1\}$/\1/p" "$1" | head -1; }

# row NAME TOPO [eval args]: one table row of max/mean per pattern.
row() {
	local name=$1 topo=$2 p line="| $1 |"
	shift 2
	for p in $patterns; do
		# Exit 1: some flows unrouted; the loads are there all the same.
		"$IBFM" eval --topo "$topo" --pattern $p --json "$@" >"$T/e.json" 2>/dev/null
		[ $? -le 1 ] || { line="$line - |"; continue; }
		line="$line $(num "$T/e.json" max_load) / $(printf %.2f "$(num "$T/e.json" mean_load)") |"
	done
	echo "$line"
}

opensm_dump() { # opensm_dump ENGINE: LFT dump of one OpenSM sweep
	local dir="$T/$1.$RANDOM"
	mkdir -p "$dir"
	(cd "$dir" && SIM_HOST="node001 mlx5_0" OSM_CACHE_DIR="$dir" OSM_TMP_DIR="$dir" \
		LD_PRELOAD="$UMAD2SIM" timeout 300 "$OPENSM" -o -R "$1" -D 0x43 \
		-f "$dir/opensm.log" >/dev/null 2>&1)
	echo "$dir/opensm-lfts.dump"
}

for fabric in "-l 2 -k 16 --rails 4 --hosts 128" \
	      "-l 3 -k 16 --rails 4 --hosts 256" \
	      "-l 2 -k 32 --rails 8 --hosts 512" \
	      "-l 3 -k 16 --rails 4 --hosts 256 --remove-links 5 --seed 2"; do
	"$IBFM" topo gen $fabric -o "$T/f.topo" || exit 1
	echo
	echo "\`ibfm topo gen $fabric\`"
	echo
	echo "| routes | $(echo $patterns | sed 's/ / | /g') |"
	echo "| --- |$(for p in $patterns; do printf ' --- |'; done)"
	row "ibfm rail-aware" "$T/f.topo"
	row "ibfm plain (--no-rails)" "$T/f.topo" --no-rails
	sim_start "$T/f.topo"
	for engine in ftree updn; do
		dump=$(opensm_dump $engine)
		if [ -s "$dump" ]; then
			row "OpenSM $engine" "$T/f.topo" --lfts "$dump"
		else
			echo "| OpenSM $engine | (no LFT dump: engine failed) |"
		fi
	done
	sim_cmd Quit
	exec 3>&-
	wait "$SIM_PID" 2>/dev/null
	rm -f "$T/console"
done
