#!/bin/bash
# ibfm against OpenSM's own engines, in one run: real OpenSM on ibsim,
# once per engine (ibfm through the plugin, ftree, updn, minhop, dfsssp,
# nue), on the same generated fabric. Per engine: the engine OpenSM says
# configured the tables (a fallback shows), its routing time from
# OpenSM's own log (the same bracket for every engine: the "STARTING
# SWITCH TABLE CONFIG" line to "... tables configured on all switches"),
# and the LFTs it dumped (log flag 0x40) checked with ibfm check
# (unreachable pairs to CA LIDs and to switch LIDs from CAs and
# switches; credit loops with switch sources, and with CA sources only)
# and evaluated with ibfm eval (max / mean link load of each pattern,
# effective bisection bandwidth).
# Usage: bench/scripts/compare-engines.sh [GEN ARGS]; with none, the zoo
# (tests/zoo.list) and its degraded fabrics, as in docs/engines.md.
# Prints markdown. ENGINES and PATTERNS pick (the
# all-to-all evaluation takes minutes per engine past 16,000 hosts);
# each engine's dump is removed once evaluated (GBs on large trees);
# OSM_TIMEOUT (default 900 s) bounds each OpenSM run. An engine
# "ibfm:OPTS" is ibfm with OPTS added to the plugin's options (e.g.
# ibfm:lid_matrices=opensm). DUMP=0 leaves out the dump and what reads
# it (routing time only: for fabrics whose text dump is tens of GB).
# JOBS=J adds the rings of J jobs on seeded random servers (ibfm eval
# --pattern jobs --random-jobs J --seed 1): max load / ring speed on the
# engine's tables, and with ibfm's job-aware routes over them.
# An engine "ibfm-base[:OPTS]" is ibfm with the plugin of another build
# (BASE_PLUGIN_DIR=path/to/plugin/.libs, e.g. of a worktree of main):
# before and after in one run.
# KEEP_DUMPS=DIR keeps the fabric (DIR/f.topo) and each engine's LFT dump
# (DIR/ENGINE.dump) for a closer look (ibfm eval --lfts, ibfm path).
# OSM_ARGS adds options to every OpenSM run (e.g. "--maxsmps 64": how
# many SMPs OpenSM keeps on the wire, 4 by default; its LFT blocks go
# out that many at a time; 64 changed nothing at 45,056 hosts); OSM_ENV
# sets variables in its environment (e.g. the glibc tunables of
# docs/plugin.md, "Large subnets: OpenSM's allocator":
# "GLIBC_TUNABLES=glibc.malloc.hugetlb=1:glibc.malloc.top_pad=67108864").
# Unset, OpenSM runs as Debian starts it, for every engine alike.
set -u
cd "$(dirname "$0")/../.."
engines=${ENGINES:-ibfm ftree updn minhop dfsssp nue}
if [ $# -eq 0 ]; then
	grep -v '^#' tests/zoo.list | while read -r _ args; do
		bench/scripts/compare-engines.sh $args
	done
	for f in "-l 2 -k 36" "-l 3 -k 16"; do
		for r in 1 5 13 65; do
			bench/scripts/compare-engines.sh $f --remove-links $r --seed 1
		done
		bench/scripts/compare-engines.sh $f --remove-switches 1 --seed 1
	done
	exit 0
fi
. scripts/tree-env.sh

num() { sed -n "s/^ *\"$2\": \([0-9.]*\),\{0,1\}$/\1/p" "$1" | head -1; }
# log_ms LOG: ms from the switch-table box to the "configured" line.
log_ms() {
	awk '$3 ~ /^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]$/ { split($3, t, ":"); now = t[1] * 3600 + t[2] * 60 + t[3] + $4 / 1e6 }
	     /STARTING SWITCH TABLE CONFIG/ { s = now }
	     /tables configured on all switches/ && s { printf "%.1f\n", (now - s) * 1000; exit }' "$1"
}

"$IBFM" topo gen "$@" -o "$T/f.topo" >/dev/null || die "gen $*"
rails=$("$IBFM" topo show --topo "$T/f.topo" --json | sed -n 's/^ *"rails": \([0-9]*\),$/\1/p')
patterns=${PATTERNS:-shift ring all2all}
[ "${rails:-0}" -gt 0 ] && patterns="$patterns rail-ring rail-shift"
flags=0x47
[ "${DUMP:-1}" = 0 ] && flags=0x07 patterns=""
SIM_WAIT=${SIM_WAIT:-6000} sim_start "$T/f.topo" -N 65536 -S 8192 -P 524288 -L 49152
host=$(sed -n 's/^Ca.*# "\(.*\)"$/\1/p' "$T/f.topo" | head -1)
echo
echo "\`ibfm topo gen $*\`: $(grep -c '^Switch' "$T/f.topo") switches, $(grep -c '^Ca' "$T/f.topo") hosts"
echo
printf "| engine | used | route ms | unreachable CA pairs | credit loops |"
for p in $patterns; do printf " %s max / mean |" "$p"; done
printf " EBB | unreachable switch-LID pairs | credit loops, CA sources only |"
[ -n "${JOBS:-}" ] && printf " %s jobs: load / speed | job-aware |" "$JOBS"
echo
printf "|---|---|---|---|---|"
for p in $patterns; do printf -- "---|"; done
printf -- "---|---|---|"
[ -n "${JOBS:-}" ] && printf -- "---|---|"
echo
n=0
for e in $engines; do
	# A directory per run: an engine may be listed twice (before and after).
	n=$((n + 1))
	d="$T/$n-${e//[^a-z0-9]/_}"
	mkdir -p "$d"
	conf=() name=${e%%:*} plugins=$PLUGIN_DIR
	if [ "$name" = ibfm-base ]; then
		name=ibfm plugins=${BASE_PLUGIN_DIR:?ibfm-base needs BASE_PLUGIN_DIR}
	fi
	if [ "$name" = ibfm ]; then
		opts=${e#"${e%%:*}"}
		PLUGIN_OPTS=${opts#:} osm_conf "$d/opensm.conf" "$d/state" "ibfm"
		conf=(-F "$d/opensm.conf")
	fi
	(cd "$d" && SIM_HOST="$host" OSM_CACHE_DIR="$d" OSM_TMP_DIR="$d" \
		LD_LIBRARY_PATH="$plugins" LD_PRELOAD="$UMAD2SIM" env ${OSM_ENV:-} timeout "${OSM_TIMEOUT:-900}" \
		"$OPENSM" "${conf[@]}" ${OSM_ARGS:-} -o -R "$name" -D $flags -f "$d/opensm.log" >/dev/null 2>&1)
	used=$(sed -n 's/.* \([a-z0-9]*\) tables configured on all switches/\1/p' "$d/opensm.log" | tail -1)
	# Where the time went, on stderr: the bracket, the hop matrices, the plugin.
	grep -E "STARTING SWITCH TABLE|Min Hop Table Assignment|ibfm: (LID matrices|routed|P19)|tables configured on" \
		"$d/opensm.log" | sed "s/^/# $e: /" | cut -c1-600 >&2
	if [ "$flags" = 0x07 ]; then
		echo "| $e | ${used:-none} | $(log_ms "$d/opensm.log") | (not dumped) | - |"
		continue
	elif [ ! -s "$d/opensm-lfts.dump" ]; then
		echo "| $e | ${used:-none} | - | (no LFT dump) |"
		continue
	fi
	# Switch sources (the default) and CA sources only.
	"$IBFM" check --topo "$T/f.topo" --lfts "$d/opensm-lfts.dump" --json >"$d/check.json" 2>/dev/null
	"$IBFM" check --topo "$T/f.topo" --lfts "$d/opensm-lfts.dump" --ca-sources-only \
		--json >"$d/checkca.json" 2>/dev/null
	printf "| %s | %s | %s | %s | %s |" "$e" "${used:-?}" "$(log_ms "$d/opensm.log")" \
		"$(num "$d/check.json" unreachable_ca_pairs)" "$(num "$d/check.json" credit_loops)"
	for p in $patterns; do
		# Exit 1: some flows unrouted; the loads are there all the same.
		"$IBFM" eval --topo "$T/f.topo" --lfts "$d/opensm-lfts.dump" --pattern "$p" --json >"$d/e.json" 2>/dev/null
		if [ $? -le 1 ]; then
			printf " %s / %.2f |" "$(num "$d/e.json" max_load)" "$(num "$d/e.json" mean_load)"
		else
			printf " - |"
		fi
	done
	erc=2
	[ -n "$patterns" ] && { "$IBFM" eval --topo "$T/f.topo" --lfts "$d/opensm-lfts.dump" \
		--pattern bisection --seed 1 --json >"$d/e.json" 2>/dev/null; erc=$?; }
	if [ "$erc" -le 1 ]; then
		printf " %.3f |" "$(num "$d/e.json" ebb)"
	else
		printf " - |"
	fi
	all=$(num "$d/check.json" unreachable_pairs)
	ca=$(num "$d/check.json" unreachable_ca_pairs)
	[ -n "$all" ] && [ -n "$ca" ] && all=$((all - ca)) || all=-
	printf " %s | %s |" "$all" "$(num "$d/checkca.json" credit_loops)"
	if [ -n "${JOBS:-}" ]; then
		"$IBFM" eval --topo "$T/f.topo" --lfts "$d/opensm-lfts.dump" --pattern jobs \
			--random-jobs "$JOBS" --seed 1 --json >"$d/j.json" 2>/dev/null
		# The engine's own figures come first, job_aware's after.
		printf " %s / %.2f | %s / %.2f |" \
			"$(sed -n 's/^  "max_load": \([0-9]*\),$/\1/p' "$d/j.json")" \
			"$(sed -n 's/^  "job_speed": \([0-9.]*\),$/\1/p' "$d/j.json")" \
			"$(sed -n 's/^    "max_load": \([0-9]*\),$/\1/p' "$d/j.json")" \
			"$(sed -n 's/^    "job_speed": \([0-9.]*\),$/\1/p' "$d/j.json")"
	fi
	echo
	[ -n "${KEEP_DUMPS:-}" ] && [ -s "$d/opensm-lfts.dump" ] && mkdir -p "$KEEP_DUMPS" &&
		cp "$T/f.topo" "$KEEP_DUMPS/f.topo" &&
		cp "$d/opensm-lfts.dump" "$KEEP_DUMPS/${e//[^A-Za-z0-9_.:=-]/_}.dump"
	rm -f "$d/opensm-lfts.dump" "$d/opensm-lid-matrix.dump"
	echo -n "$e " >&2
done
echo >&2
