# Sourced by the ibfmd benchmarks (ibfmd-sweep.sh, ibfmd-mads.sh) after
# scripts/tree-env.sh: asking ibfmd ($T/ibfmd.sock) for its numbers, and
# timing its sweeps.

# num FILE KEY: a number of the JSON in FILE.
num() { sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p" "$1" | head -1; }
# ask: ibfmd's status into $T/s.json.
ask() { "$IBFM" --socket "$T/ibfmd.sock" status --json >"$T/s.json" 2>/dev/null; }
# more KEY N: whether the status number KEY is above N now.
more() { ask && [ "$(num "$T/s.json" "$1")" -gt "$2" ]; }
# median: the median of the numbers on stdin, one a line.
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# five_sweeps: asks ibfmd (pid DPID) for 5 full sweeps, waiting for a
# light check after each; their times in $T/sweeps, $T/counters and
# $T/lights (ms, one a line), the last status in $T/s.json.
five_sweeps() {
	local i n l
	: >"$T/sweeps"
	: >"$T/lights"
	: >"$T/counters"
	for i in 1 2 3 4 5; do
		ask
		n=$(num "$T/s.json" sweeps)
		l=$(num "$T/s.json" light_checks)
		"$IBFM" --socket "$T/ibfmd.sock" sweep >/dev/null
		until_ok 6000 "$DPID" ibfmd more sweeps "$n"
		num "$T/s.json" last_sweep_ms >>"$T/sweeps"
		num "$T/s.json" last_counters_ms >>"$T/counters"
		until_ok 6000 "$DPID" ibfmd more light_checks "$l"
		num "$T/s.json" last_light_check_ms >>"$T/lights"
		echo -n . >&2
	done
	echo >&2
}
