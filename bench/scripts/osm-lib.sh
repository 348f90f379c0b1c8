# shellcheck shell=bash
# Sourced by the benchmarks that run real OpenSM with the plugin on
# ibsim (fast-reroute.sh, changes.sh): the heavy lock, the fabric's
# switch links, OpenSM's log read for stamps and passes, and the fast
# path's log summed. Everything but heavy_lock needs scripts/tree-env.sh
# ($T) first.

# heavy_lock ARGS...: runs this script again under flock
# /tmp/ibfm-heavy.lock (one heavy benchmark on the machine at a time),
# unless it holds the lock already or a caller of it does (flock ...
# this script: locking twice would wait for ever), or HEAVY_LOCK=0 says
# the run is small (a smoke test). Call it first.
heavy_lock() {
	local lock=/tmp/ibfm-heavy.lock p=$PPID
	[ -z "${IBFM_HEAVY_HELD:-}" ] && [ "${HEAVY_LOCK:-1}" != 0 ] || return 0
	while [ "${p:-1}" -gt 1 ]; do
		tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q "flock.*$lock" && return 0
		p=$(ps -o ppid= -p "$p" | tr -d ' ')
	done
	flock -n "$lock" true || echo "# waiting for $lock (another heavy benchmark runs)" >&2
	# -o: the benchmark's daemons do not inherit the lock.
	IBFM_HEAVY_HELD=1 exec flock -o "$lock" bash "$(readlink -f "$0")" "$@"
}

# switch_links TOPO: "id port desc peer-desc peer-id peer-port" of every
# switch-to-switch port of the topology file.
switch_links() {
	awk '/^Switch/ { id = $3; gsub(/"/, "", id); d = $0; sub(/.*# "/, "", d); sub(/".*/, "", d) }
	     /^\[[0-9]+\].*"S-/ { p = $1; gsub(/[][]/, "", p); r = $0; sub(/.*# "/, "", r); sub(/".*/, "", r)
				   split($2, q, "\""); pp = q[3]; gsub(/[][]/, "", pp)
				   print id, p, d, r, q[2], pp }' "$1"
}

# up_link LINKS WHICH K FROM TO: of the links in file LINKS
# (switch_links), the Kth from the first (WHICH=first) or the middle
# (mid) switch named FROM* to one named TO*, as "id port desc peer".
up_link() {
	local ids n
	awk -v f="$4" -v t="$5" 'index($3, f) == 1 && index($4, t) == 1' "$1" >"$T/sel"
	ids=$(awk '{ print $1 }' "$T/sel" | uniq)
	n=$(echo "$ids" | wc -l)
	[ "$2" = first ] && n=1 || n=$((n / 2 + 1))
	grep "^$(echo "$ids" | sed -n "${n}p") " "$T/sel" | sed -n "${3}p"
}

# stamp LOG PATTERN N: the epoch ms of the Nth line of LOG matching
# PATTERN (OpenSM's local-time stamps), or nothing.
stamp() {
	local l
	l=$(grep -- "$2" "$1" | sed -n "${3}p")
	[ -n "$l" ] || return 0
	set -- $l
	echo "$(date -d "$1 $2 $3" +%s) $4" | awk '{ printf "%.0f\n", $1 * 1000 + $2 / 1000 }'
}
count() { grep -c -- "$2" "$1"; }
# quiet LOG S: until LOG has not grown for S seconds (tenths allowed; at
# most 10 min).
quiet() {
	local s=-1 n=0 i now want
	want=$(awk -v s="$2" 'BEGIN { printf "%d", s * 10 }')
	for i in $(seq 6000); do
		now=$(stat -c %s "$1")
		[ "$now" = "$s" ] && n=$((n + 1)) || n=0
		s=$now
		[ "$n" -ge "$want" ] && return 0
		sleep 0.1
	done
}
# passed LOG N: OpenSM's log has more than N "tables configured" lines.
passed() { [ "$(count "$1" "tables configured on all switches")" -gt "$2" ]; }
# settled DIR [S]: OpenSM (log DIR/opensm.log) up and its routing done:
# no new pass for S seconds (default 10).
settled() {
	local n
	while :; do
		n=$(count "$1/opensm.log" "tables configured on all switches")
		quiet "$1/opensm.log" "${2:-10}"
		[ "$(count "$1/opensm.log" "tables configured on all switches")" = "$n" ] && return
	done
}

# fast_new LOG N OUT [KINDS]: the fast path's lines of KINDS (a grep
# alternation; default its repairs, fast-reroute) in LOG after its first
# N lines, into OUT.
fast_new() {
	tail -n +$(($2 + 1)) "$1" 2>/dev/null | grep "\"kind\":\"\(${4:-fast-reroute}\)\"" >"$3"
}
# fast_sum FILE KEY: KEY summed over FILE's lines (JSON numbers).
fast_sum() {
	sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p" "$1" | awk '{ s += $1 } END { print s + 0 }'
}
# fast_last FILE KEY: the largest KEY of FILE's lines, or nothing.
fast_last() {
	sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p" "$1" | sort -n | tail -1
}
