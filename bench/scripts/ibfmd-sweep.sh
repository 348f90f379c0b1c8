#!/bin/bash
# ibfmd at scale on ibsim: full-sweep and light-check times (median of
# 5 each), the daemon's CPU time and peak RSS, per generated fabric.
# Usage: bench/scripts/ibfmd-sweep.sh [GEN ARGS]; with none, a fixed series of
# fabrics up to the largest this ibsim takes. With SM=1, OpenSM (with
# the plugin) assigns LIDs first, so the sweeps read PMA counters too
# (their time is reported apart). Used for docs/BENCHMARKS.md.
set -u
cd "$(dirname "$0")/../.."
if [ $# -eq 0 ]; then
	echo "| fabric | nodes | links | sweep ms | light check ms | counters ms | ports read | CPU s | peak RSS MB |"
	echo "|---|---|---|---|---|---|---|---|---|"
	for f in "-l 2 -k 16" "-l 2 -k 36" "-l 3 -k 16" "-l 3 -k 24" \
		 "-l 3 -k 32" "-l 3 -k 36" "-l 3 -k 40" "-l 3 -k 48"; do
		bench/scripts/ibfmd-sweep.sh $f || echo "| $f | failed: see above | | | | | | | |"
	done
	exit 0
fi
. scripts/tree-env.sh
. bench/scripts/ibfmd-lib.sh

"$IBFM" topo gen "$@" -o "$T/f.topo" >/dev/null || die "gen $*"
cat >"$T/ibfmd.conf" <<CONF
socket $T/ibfmd.sock
sweep_interval 3600
light_interval 1
metrics off
CONF
sim_start "$T/f.topo" -N 65536 -S 8192 -P 524288
# ibfmd on the first host, OpenSM on the second.
host=$(sed -n 's/^Ca.*# "\(.*\)"$/\1/p' "$T/f.topo" | head -1)
if [ "${SM:-0}" = 1 ]; then
	osm_conf "$T/opensm.conf" "$T/state" "ibfm"
	OSM_HOST=$(sed -n 's/^Ca.*# "\(.*\)"$/\1/p' "$T/f.topo" | sed -n 2p) \
		osm_start "$T/opensm.conf"
fi
ibfmd_start "$host"
until_ok 6000 "$DPID" ibfmd more sweeps 0
five_sweeps
read -r utime stime < <(cut -d' ' -f14,15 "/proc/$DPID/stat")
hwm=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$DPID/status")
printf "| %s | %s | %s | %.0f | %.0f | %.0f | %s | %.2f | %.1f |\n" "$*" \
	"$(num "$T/s.json" nodes)" "$(num "$T/s.json" links)" \
	"$(median <"$T/sweeps")" "$(median <"$T/lights")" \
	"$(median <"$T/counters")" "$(num "$T/s.json" counter_ports)" \
	"$(awk "BEGIN { print ($utime + $stime) / $(getconf CLK_TCK) }")" \
	"$(awk "BEGIN { print $hwm / 1024 }")"
