#!/bin/bash
# ibfmd's MADs in flight on ibsim, before and after, in one run: one
# generated fabric in one ibsim (with OpenSM and the plugin when SM=1,
# so counters are read), then, one after the other on it, the ibfmd of
# another build (BASE=path/to/ibfmd, e.g. a worktree of main) and this
# tree's ibfmd with each window in WINDOWS (default "1 16 64"): 5 full
# sweeps and 5 light checks each (medians of last_sweep_ms,
# last_counters_ms, last_light_check_ms), its peak RSS (VmHWM) and the
# MADs it sent (with METRICS=1, after one GET /metrics by curl, whose
# size and time are given too, the body kept in $T/metrics-NAME-WINDOW
# with KEEP=1); with HEAP=FILE, this tree's ibfmd once more (default
# window) under heaptrack, whose peak heap by allocation site goes to
# FILE.txt; last, ibnetdiscover on the same ibsim, IBND times (default
# 5; median wall time). Usage: bench/scripts/ibfmd-mads.sh [GEN ARGS] (default
# -l 3 -k 36). Run it pinned (taskset -c 1) under
# flock /tmp/ibfm-heavy.lock; SIM_CPU=N pins ibsim to CPU N instead (the
# fabric beside the daemon rather than on its core). Used for
# docs/BENCHMARKS.md.
set -u
cd "$(dirname "$0")/../.."
. scripts/tree-env.sh
. bench/scripts/ibfmd-lib.sh
[ $# -gt 0 ] || set -- -l 3 -k 36
now_ms() { date +%s%3N; }

"$IBFM" topo gen "$@" -o "$T/f.topo" >/dev/null || die "gen $*"
if [ -n "${SIM_CPU:-}" ]; then
	printf '#!/bin/sh\nexec taskset -c %s %s "$@"\n' "$SIM_CPU" "$IBSIM" >"$T/ibsim"
	chmod +x "$T/ibsim"
	IBSIM=$T/ibsim
fi
sim_start "$T/f.topo" -N 65536 -S 8192 -P 524288 -L 49152
hosts=$(sed -n 's/^Ca.*# "\(.*\)"$/\1/p' "$T/f.topo" | head -3)
host=$(echo "$hosts" | sed -n 1p)
if [ "${SM:-0}" = 1 ]; then
	osm_conf "$T/opensm.conf" "$T/state" "ibfm"
	OSM_HOST=$(echo "$hosts" | sed -n 2p) osm_start "$T/opensm.conf"
fi

# run NAME IBFMD [WINDOW [WRAPPER...]]: one ibfmd's row.
run() {
	local name=$1 bin=$2 window=${3:-} pid
	shift 3
	{
		echo "socket $T/ibfmd.sock"
		echo "sweep_interval 3600"
		echo "light_interval 1"
		[ "${METRICS:-0}" = 1 ] && echo "metrics 127.0.0.1:0" ||
			echo "metrics off"
		[ "${SM:-0}" = 1 ] && echo "counters on" || echo "counters off"
		[ -z "$window" ] || echo "mad_window $window"
	} >"$T/ibfmd.conf"
	(cd "$T" && SIM_HOST="$host" LD_PRELOAD="$UMAD2SIM" \
		exec "$@" "$bin" --config "$T/ibfmd.conf" --foreground >"$T/ibfmd.log" 2>&1) &
	DPID=$!
	PIDS="$PIDS $DPID"
	until_ok 6000 "$DPID" ibfmd more sweeps 0
	# Under a wrapper, the daemon is the wrapper's child.
	pid=$(pgrep -f -x "$bin --config $T/ibfmd.conf --foreground" | tail -1)
	PIDS="$PIDS $pid"
	five_sweeps
	scrape=-
	if [ "${METRICS:-0}" = 1 ]; then
		# HTTP/1.1, as Prometheus asks: a streamed reply comes chunked.
		out="$T/metrics-${name%% *}-${window:-1}"
		secs=$(curl -sS --http1.1 -o "$out" -w '%{time_total}' \
			"http://127.0.0.1:$(metrics_port "$T/ibfmd.log")/metrics") ||
			secs="$secs (curl failed: $?)"
		scrape=$(awk "BEGIN { printf \"%.1f\", $(wc -c <"$out") / 1048576 }")
		echo "$name, window ${window:-1}: GET /metrics $secs s" >>"$T/scrapes"
	fi
	hwm=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$pid/status")
	printf "| %s | %s | %s | %.0f | %.0f | %.0f | %s | %s | %.1f | %s |\n" \
		"$name" "${window:-1}" "$(num "$T/s.json" nodes)" \
		"$(median <"$T/sweeps")" "$(median <"$T/lights")" \
		"$(median <"$T/counters")" "$(num "$T/s.json" counter_ports)" \
		"$(num "$T/s.json" mad_retries)" "$(awk "BEGIN { print $hwm / 1024 }")" \
		"$scrape"
	kill "$pid"
	wait "$DPID" 2>/dev/null
}

echo "fabric: $* ($(grep -c '^\(Ca\|Switch\)' "$T/f.topo") nodes), SM=${SM:-0}${SIM_CPU:+, ibsim on CPU $SIM_CPU}"
echo
echo "| ibfmd | window | nodes | sweep ms | light check ms | counters ms | ports read | retries | peak RSS MB | /metrics MB |"
echo "|---|---|---|---|---|---|---|---|---|---|"
[ -z "${BASE:-}" ] || run "before ($(basename "$(dirname "$(dirname "$BASE")")"))" "$BASE" ""
for w in ${WINDOWS:-1 16 64}; do
	run after "$IBFMD" "$w"
done
if [ -n "${HEAP:-}" ]; then
	run "after, heaptrack" "$IBFMD" "${HEAP_WINDOW:-16}" heaptrack -o "$HEAP"
	heaptrack_print -f "$HEAP.zst" --print-peaks 1 --print-allocators 0 \
		--print-temporary 0 --print-leaks 0 -n 40 >"$HEAP.txt" 2>&1
	grep '^peak' "$HEAP.txt"
fi
: >"$T/ibnd"
for i in $(seq "${IBND:-5}"); do
	t0=$(now_ms)
	SIM_HOST="$host" sim_client "$IBNETDISCOVER" >"$T/ibnd.out" 2>/dev/null ||
		echo "ibnetdiscover failed" >&2
	echo $(($(now_ms) - t0)) >>"$T/ibnd"
done
[ ! -f "$T/scrapes" ] || { echo; cat "$T/scrapes"; }
echo
echo "ibnetdiscover on the same ibsim: $(median <"$T/ibnd") ms (median of ${IBND:-5}), $(grep -c '^\(Ca\|Switch\)' "$T/ibnd.out") nodes"
