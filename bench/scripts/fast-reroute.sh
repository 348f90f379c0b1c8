#!/bin/bash
# The fast path (docs/fast-reroute.md) against the plugin alone and
# OpenSM's ftree, in one run, on one ibsim fabric: five failures one after another (two leaf
# up-links, two spine up-links, a whole spine), the same for each
# configuration, each on ibsim's console while OpenSM runs as it would
# (sweep_on_trap, the default). Per failure:
#   fast path: Unlink -> the last changed block acknowledged, and read
#     back equal (the plugin reads every block it wrote back with a
#     SubnGet; fast-reroute.log's wall-clock stamps);
#   OpenSM (every configuration): Unlink -> "tables configured on all
#     switches" of its pass (its blocks sent), and -> SUBNET UP.
# Prints a markdown table, and the medians of the five.
# Usage: bench/scripts/fast-reroute.sh [GEN ARGS] (default: -l 3 -k 36, 11,664
# hosts). Heavy: run it under flock /tmp/ibfm-heavy.lock. CONFIGS picks
# (default "fast ibfm ftree").
set -u
cd "$(dirname "$0")/../.."
. scripts/tree-env.sh
. bench/scripts/osm-lib.sh

[ $# -eq 0 ] && set -- -l 3 -k 36
gen=$*
configs=${CONFIGS:-fast ibfm ftree}
"$IBFM" topo gen "$@" -o "$T/f.topo" >/dev/null || die "gen $*"
SIM_WAIT=${SIM_WAIT:-6000} sim_start "$T/f.topo" -N 65536 -S 8192 -P 524288 -L 49152
host=$(sed -n 's/^Ca.*# "\(.*\)"$/\1/p' "$T/f.topo" | head -1)

switch_links "$T/f.topo" >"$T/links"
set -- "$(up_link "$T/links" first 1 leaf- spine-)" "$(up_link "$T/links" mid 3 leaf- spine-)" \
	"$(up_link "$T/links" first 1 spine- core-)" "$(up_link "$T/links" mid 2 spine- core-)"
[ -n "$3" ] || die "no spine-to-core link: give a 3-level tree"
# The whole spine: the last but one (neither of the two above).
whole=$(awk 'index($3, "spine-") == 1 { print $1, $3 }' "$T/links" | sort -u -k2 | tail -2 | head -1)
fails=()
names=()
for l in "$@"; do
	read -r id port desc _ <<<"$l"
	fails+=("Unlink \"$id\"[$port]")
	names+=("$desc[$port] up-link")
done
fails+=("Unlink \"${whole%% *}\"")
names+=("${whole#* } (whole switch)")

echo
echo "\`ibfm topo gen $gen\`: $(grep -c '^Switch' "$T/f.topo") switches, $(grep -c '^Ca' "$T/f.topo") hosts; ms from the Unlink"
echo
echo "| configuration | failure | fast path: blocks | acknowledged | read back equal | OpenSM: tables configured | SUBNET UP | blocks OpenSM sent |"
echo "|---|---|---|---|---|---|---|---|"
for c in $configs; do
	d="$T/$c"
	mkdir -p "$d"
	case $c in
	fast) PLUGIN_OPTS="fast_reroute_helper=$SMP_HELPER" osm_conf "$d/opensm.conf" "$d/state" ibfm ;;
	ibfm) PLUGIN_OPTS="fast_reroute=off" osm_conf "$d/opensm.conf" "$d/state" ibfm ;;
	*) printf 'routing_engine %s\nforce_log_flush TRUE\n' "$c" >"$d/opensm.conf" ;;
	esac
	OSM_DIR="$d" OSM_HOST="$host" OSM_WAIT=6000 osm_start "$d/opensm.conf"
	settled "$d"
	for i in "${!fails[@]}"; do
		nc=$(count "$d/opensm.log" "tables configured on all switches")
		nu=$(count "$d/opensm.log" "SUBNET UP")
		nf=$(cat "$d/state/fast-reroute.log" 2>/dev/null | wc -l)
		t0=$(date +%s%3N)
		echo "${fails[$i]}" >&3
		# OpenSM's pass after it (at most 10 min), then no other.
		until_ok 6000 "$OSM_PID" "OpenSM's pass" passed "$d/opensm.log" "$nc"
		settled "$d"
		tc=$(stamp "$d/opensm.log" "tables configured on all switches" $((nc + 1)))
		tu=$(stamp "$d/opensm.log" "SUBNET UP" $((nu + 1)))
		sent=$(grep 'ibfm: routed' "$d/opensm.log" | tail -1 | sed -n 's/.*LFT blocks to send: \([0-9]*\) of.*/\1/p')
		[ "$c" = ftree ] && sent=-
		blocks=- acked=- verified=-
		if [ "$c" = fast ]; then
			fast_new "$d/state/fast-reroute.log" "$nf" "$d/new"
			# Every round of this failure: blocks summed; times: the last.
			# Blocks of a switch cut off (the whole spine's own) go nowhere.
			blocks=$(($(fast_sum "$d/new" blocks) - $(fast_sum "$d/new" cut_off)))
			ok=$(fast_sum "$d/new" verified)
			ta=$(fast_last "$d/new" acked_at)
			tv=$(fast_last "$d/new" verified_at)
			acked=$([ -n "$ta" ] && [ "$ta" -gt 0 ] && echo $((ta - t0)) || echo -)
			verified=$([ -n "$tv" ] && [ "$tv" -gt 0 ] && [ "$ok" = "$blocks" ] && echo $((tv - t0)) || echo "- ($ok of $blocks)")
		fi
		echo "| $c | ${names[$i]} | $blocks | $acked | $verified | $([ -n "$tc" ] && echo $((tc - t0)) || echo -) | $([ -n "$tu" ] && echo $((tu - t0)) || echo -) | ${sent:--} |" | tee -a "$T/rows"
	done
	grep -h "P15\|P16\|P17\|P18" "$d/opensm.log" | cut -c1-200 | sed "s/^/# $c: /" >&2
	osm_stop
	for l in "$@"; do
		read -r id port _ <<<"$l"
		echo "ReLink \"$id\"[$port]" >&3
	done
	echo "ReLink \"${whole%% *}\"" >&3
	sleep 2
done
echo
echo "Medians of the five (ms from the Unlink):"
echo
echo "| configuration | fast path: read back equal | OpenSM: tables configured | SUBNET UP |"
echo "|---|---|---|---|"
for c in $configs; do
	med() { awk -F'|' -v c=" $c " -v k="$1" '$2 == c { v = $k; gsub(/ /, "", v); if (v ~ /^[0-9]+$/) print v }' "$T/rows" |
		sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)]; else print "-" }'; }
	echo "| $c | $(med 6) | $(med 7) | $(med 8) |"
done
