# Sourced by every integration test. Each test runs in its own temporary
# directory with its own ibsim instance, and stops only the processes it
# started, by PID. The caller (make check) bounds each test in time.
set -u

T=$(mktemp -d "${TMPDIR:-/tmp}/ibfm-test.XXXXXX")
PIDS=""
CHECKS=0
FAILS=0
export IBSIM_SOCKNAME="ibfm$$"
# No node name map unless a test gives one: not the system's
# /etc/rdma/ib-node-name-map, which would rename what tests look for.
export IBFM_NODE_NAME_MAP=

cleanup() {
	local p i
	exec 3>&- 2>/dev/null || true
	for p in $PIDS; do
		kill "$p" 2>/dev/null || true
	done
	for p in $PIDS; do
		for i in $(seq 50); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$p" 2>/dev/null || true
	done
	if [ "$FAILS" -eq 0 ] && [ -z "${KEEP:-}" ]; then
		rm -rf "$T"
	else
		echo "# files kept in $T"
	fi
}
trap cleanup EXIT

# check NAME CMD...: runs CMD, counts it, prints a TAP-like line.
check() {
	local name=$1
	shift
	CHECKS=$((CHECKS + 1))
	if "$@"; then
		echo "ok $CHECKS - $name"
	else
		FAILS=$((FAILS + 1))
		echo "not ok $CHECKS - $name"
	fi
}

# finish: the closing line, and the exit status make check reads.
finish() {
	echo "$((CHECKS - FAILS)) passed, $FAILS failed"
	[ "$FAILS" -eq 0 ]
}

die() {
	echo "not ok - $*"
	FAILS=$((FAILS + 1))
	finish
	exit 1
}

# until TENTHS PID WHAT CMD...: polls CMD every 0.1 s until it succeeds;
# dies when PID exits first or TENTHS pass.
until_ok() {
	local tenths=$1 pid=$2 what=$3 i
	shift 3
	for i in $(seq "$tenths"); do
		"$@" 2>/dev/null && return 0
		kill -0 "$pid" 2>/dev/null || die "$what exited"
		sleep 0.1
	done
	die "$what not ready after $((tenths / 10)) s"
}

# sim_start NETFILE [IBSIM OPTIONS]: starts ibsim on NETFILE with a
# console on FIFO fd 3 (options such as -N/-S/-P raise its size limits).
# It waits SIM_WAIT tenths of a second (default 300) for ibsim to read it.
sim_start() {
	local net=$1
	shift
	[ -x "${IBSIM:-}" ] || die "ibsim not found (install ibsim-utils)"
	mkfifo "$T/console"
	(cd "$T" && exec "$IBSIM" -s "$@" "$net" <"$T/console" >"$T/ibsim.log" 2>&1) &
	SIM_PID=$!
	PIDS="$PIDS $SIM_PID"
	exec 3>"$T/console"
	until_ok "${SIM_WAIT:-300}" "$SIM_PID" ibsim grep -q "Network simulator ready" "$T/ibsim.log"
}

# sim_cmd LINE: a command on ibsim's console.
sim_cmd() {
	echo "$*" >&3
	sleep 0.3
}

# sim_client CMD...: runs a libibumad program against this test's ibsim,
# attached to the host named by SIM_HOST, from the temp dir (umad2sim
# writes sys-<pid>/ there). Bounded: a lost client hangs forever.
sim_client() {
	(cd "$T" && LD_PRELOAD="$UMAD2SIM" timeout 120 "$@")
}

# osm_conf FILE STATE_DIR ENGINES: an opensm.conf that loads the plugin
# (its fast path's SMP helper from the build tree; PLUGIN_OPTS may say
# fast_reroute=off).
osm_conf() {
	cat >"$1" <<CONF
event_plugin_name ibfm_osm
event_plugin_options state_dir=$2${SMP_HELPER:+ fast_reroute_helper=$SMP_HELPER}${PLUGIN_OPTS:+ $PLUGIN_OPTS}
routing_engine $3
force_log_flush TRUE
CONF
}

# osm_start CONF [args]: OpenSM in the background on this test's ibsim,
# attached to node001 (or OSM_HOST), plugin from the build tree; waits
# for OSM_UP in its log (default SUBNET UP; a standby never says it), at
# most OSM_WAIT tenths of a second (default 1200).
# Its log, cache and output go to OSM_DIR (default $T): a second
# OpenSM needs a directory of its own.
osm_start() {
	local conf=$1 dir=${OSM_DIR:-$T}
	shift
	[ -x "${OPENSM:-}" ] || die "opensm not found (install opensm)"
	(cd "$T" && SIM_HOST="${OSM_HOST:-node001 mlx5_0}" OSM_CACHE_DIR="$dir" OSM_TMP_DIR="$dir" \
		LD_LIBRARY_PATH="$PLUGIN_DIR" LD_PRELOAD="$UMAD2SIM" \
		exec "$OPENSM" -F "$conf" -d2 -f "$dir/opensm.log" "$@" >"$dir/opensm.out" 2>&1) &
	OSM_PID=$!
	PIDS="$PIDS $OSM_PID"
	until_ok "${OSM_WAIT:-1200}" "$OSM_PID" OpenSM grep -q "${OSM_UP:-SUBNET UP}" "$dir/opensm.log"
}

osm_stop() {
	kill "$OSM_PID" 2>/dev/null
	wait "$OSM_PID" 2>/dev/null
}

# nfast: how many repairs the fast path logged in $T/state so far.
nfast() { cat "$T/state/fast-reroute.log" 2>/dev/null | grep -c '"kind":"fast-reroute"'; }
# more_fast N: until the fast path logged more than N repairs (5 s).
more_fast() {
	local i
	for i in $(seq 50); do
		[ "$(nfast)" -gt "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# wait_generation DIR N: until DIR/snapshot.json has generation >= N.
wait_generation() {
	local i g
	for i in $(seq 600); do
		g=$(sed -n 's/^ *"generation": \([0-9]*\),$/\1/p' "$1/snapshot.json" 2>/dev/null)
		[ -n "$g" ] && [ "$g" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# read_lfts DUMP OUT HOST: every switch's LFT as the switches hold it,
# read with ibroute from HOST (switch LIDs from the plugin's dump).
read_lfts() {
	local lid
	: >"$2"
	for lid in $(sed -n 's/^Unicast lids .* of switch Lid \([0-9]*\) guid.*/\1/p' "$1"); do
		SIM_HOST="$3" sim_client "$IBROUTE" "$lid" >>"$2" 2>/dev/null || return 1
	done
}

# read_lfts_any DUMP OUT HOST...: every switch's table (switch LIDs from
# DUMP), read with ibroute from the first of the HOSTs ("mlx5_0" of each)
# that has a route to the switch's LID (switch LIDs are routed up/down
# only: a leaf that lost its link to a spine has no route to the spine's).
read_lfts_any() {
	local dump=$1 out=$2 lid h
	shift 2
	: >"$out"
	for lid in $(sed -n 's/^Unicast lids .* of switch Lid \([0-9]*\) guid.*/\1/p' "$dump"); do
		: >"$T/one"
		for h in "$@"; do
			SIM_HOST="$h mlx5_0" sim_client "$IBROUTE" "$lid" >"$T/one" 2>/dev/null && break
		done
		cat "$T/one" >>"$out"
	done
}

# lft_entries FILE: "guid lid port" lines of a dump or of ibroute output
# (both print entries as "0x%04x %03u").
lft_entries() {
	awk '/^Unicast lids/ { for (i = 1; i <= NF; i++) if ($i == "guid") g = $(i + 1); next }
	     /^0x[0-9a-fA-F]+ [0-9]+ / { printf "%s %s %s\n", g, tolower($1), $2 }' "$1" | sort
}

# metrics_port LOG: the port ibfmd logged for its metrics listener.
metrics_port() {
	sed -n 's|.*metrics on http://127.0.0.1:\([0-9]*\)/metrics|\1|p' "$1"
}

# http_get PORT PATH: the HTTP reply from 127.0.0.1:PORT.
http_get() {
	exec 5<>"/dev/tcp/127.0.0.1/$1" || return 1
	printf 'GET %s HTTP/1.0\r\n\r\n' "$2" >&5
	timeout 10 cat <&5
	exec 5<&-
}

# http_body REPLY: the body of an HTTP reply file.
http_body() { sed '1,/^\r$/d' "$1"; }

# ibfmd_pages [LINE...]: ibfmd_beside with the expected fabric
# ($T/f.topo) and a metrics listener on a free port ($port), checked.
ibfmd_pages() {
	ibfmd_beside "expected $T/f.topo" "metrics 127.0.0.1:0" "$@"
	port=$(metrics_port "$T/ibfmd.log")
	check "ibfmd serves metrics" test -n "$port"
}

# screenshot URL PNG WIDTH HEIGHT: the page at URL in headless Chromium,
# as a PNG of WIDTH x HEIGHT (bounded: 30 s).
screenshot() {
	timeout 30 chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
		--window-size="$3,$4" --screenshot="$2" "$1" >>"$T/chromium.log" 2>&1
}

# png_width PNG WIDTH: whether PNG is a PNG image WIDTH pixels wide.
png_width() {
	python3 -c '
import struct, sys
d = open(sys.argv[1], "rb").read(24)
assert d[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">I", d[16:20])[0] == int(sys.argv[2])' "$1" "$2"
}

# keep_image PNG: a screenshot for the docs. Copied into docs/images/
# when IBFM_UPDATE_IMAGES=1 (the docs show what the tests saw), and into
# $IBFM_SCREENSHOTS when set; otherwise it stays in the test's directory.
keep_image() {
	if [ "${IBFM_UPDATE_IMAGES:-}" = 1 ]; then
		cp "$1" "${TESTLIB%/tests/integration/lib.sh}/docs/images/" &&
			echo "# updated docs/images/${1##*/}"
	fi
	if [ -n "${IBFM_SCREENSHOTS:-}" ]; then
		cp "$1" "$IBFM_SCREENSHOTS/"
	fi
	return 0
}

# ibfmd_start HOST: ibfmd with $T/ibfmd.conf in the background (DPID),
# attached to HOST, logging to $T/ibfmd.log.
ibfmd_start() {
	(cd "$T" && SIM_HOST="$1" LD_PRELOAD="$UMAD2SIM" \
		exec "$IBFMD" --config "$T/ibfmd.conf" --foreground >"$T/ibfmd.log" 2>&1) &
	DPID=$!
	PIDS="$PIDS $DPID"
}

# ibfmd_beside [LINE...]: ibfmd on node002 beside this test's OpenSM
# ($T/state): no timed sweeps or light checks, no metrics, then LINEs of
# ibfmd.conf (a later key wins); waits for its first sweep.
ibfmd_beside() {
	printf '%s\n' "socket $T/ibfmd.sock" "state_dir $T/state" \
		"sweep_interval 3600" "light_interval 0" "metrics off" "$@" \
		>"$T/ibfmd.conf"
	ibfmd_start "node002 mlx5_0"
	until_ok 300 "$DPID" ibfmd ibfmd_swept 1
}

# free_port: a TCP port on 127.0.0.1 free now.
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# peer_start NAME HOST PEER_PORT LISTEN_PORT KEY [LINE...]: ibfmd NAME
# (socket $T/NAME.sock, state $T/stateNAME, log $T/NAME.log) on ibsim's
# HOST, peer of the ibfmd at PEER_PORT, with more ibfmd.conf LINEs; its
# PID in PID_NAME.
peer_start() {
	local name=$1 host=$2 peer=$3 listen=$4 key=$5
	shift 5
	printf '%s\n' "socket $T/$name.sock" "state_dir $T/state$name" \
		"sweep_interval 3600" "light_interval 0" "metrics off" \
		"peer 127.0.0.1:$peer" "peer_listen 127.0.0.1:$listen" \
		"peer_key $key" "$@" >"$T/$name.conf"
	(cd "$T" && SIM_HOST="$host" LD_PRELOAD="$UMAD2SIM" \
		exec "$IBFMD" --config "$T/$name.conf" --foreground >>"$T/$name.log" 2>&1) &
	eval "PID_$name=$!"
	PIDS="$PIDS $!"
}

# peer_pair HOST_A HOST_B [LINE...]: a shared key ($T/key) and two
# ibfmds, A on HOST_A and B on HOST_B, peers of each other on free ports
# ($PA, $PB), with LINEs in both configurations; waits until both swept.
peer_pair() {
	local a=$1 b=$2
	shift 2
	head -c 48 /dev/urandom | base64 >"$T/key"
	chmod 600 "$T/key"
	PA=$(free_port)
	PB=$(free_port)
	peer_start A "$a" "$PB" "$PA" "$T/key" "$@"
	peer_start B "$b" "$PA" "$PB" "$T/key" "$@"
	until_ok 300 "$PID_A" ibfmd-A peer_swept A
	until_ok 300 "$PID_B" ibfmd-B peer_swept B
}

# peer_swept NAME: ibfmd NAME has swept (its status in $T/NAME.s.json).
peer_swept() {
	"$IBFM" --socket "$T/$1.sock" status --json >"$T/$1.s.json" 2>/dev/null &&
		grep -q '"sweeps":[1-9]' "$T/$1.s.json"
}

# ibfmd_swept N: whether ibfmd ($T/ibfmd.sock) has done N full sweeps;
# its status is left in $T/s.json.
ibfmd_swept() {
	"$IBFM" --socket "$T/ibfmd.sock" status --json >"$T/s.json" 2>/dev/null &&
		[ "$(sed -n 's/.*"sweeps":\([0-9]*\).*/\1/p' "$T/s.json")" -ge "$1" ]
}

# ibfmd_sweep_now: asks for a sweep and waits for one that started after.
ibfmd_sweep_now() {
	ibfmd_swept 0 || die "ibfmd not answering"
	local n=$(($(sed -n 's/.*"sweeps":\([0-9]*\).*/\1/p' "$T/s.json") + 1))
	"$IBFM" --socket "$T/ibfmd.sock" sweep >/dev/null
	until_ok 300 "$DPID" ibfmd ibfmd_swept "$n"
}

# ibfmd_sweep_fresh: a sweep that surely began after a change made on
# ibsim: the one ibfmd_sweep_now waits for may have been running already
# (a light check starts one as soon as it sees the change begin).
ibfmd_sweep_fresh() {
	ibfmd_sweep_now
	ibfmd_sweep_now
}

# routed_fabric GEN-ARGS...: a generated fabric ($T/f.topo) in ibsim,
# routed by OpenSM with the plugin (state in $T/state, generation 1).
routed_fabric() {
	"$IBFM" topo gen "$@" -o "$T/f.topo" >/dev/null || die "gen $*"
	sim_start "$T/f.topo"
	osm_conf "$T/opensm.conf" "$T/state" "ibfm"
	osm_start "$T/opensm.conf"
	wait_generation "$T/state" 1 || die "no plugin snapshot"
}
