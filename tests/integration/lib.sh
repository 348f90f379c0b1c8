# Sourced by every integration test. Each test runs in its own temporary
# directory with its own ibsim instance, and stops only the processes it
# started, by PID. The caller (make check) bounds each test in time.
set -u

T=$(mktemp -d "${TMPDIR:-/tmp}/ibfm-test.XXXXXX")
PIDS=""
CHECKS=0
FAILS=0
export IBSIM_SOCKNAME="ibfm$$"

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

# sim_start NETFILE: starts ibsim on NETFILE with a console on FIFO fd 3.
sim_start() {
	local net=$1 i
	[ -x "${IBSIM:-}" ] || die "ibsim not found (install ibsim-utils)"
	mkfifo "$T/console"
	(cd "$T" && exec "$IBSIM" -s "$net" <"$T/console" >"$T/ibsim.log" 2>&1) &
	SIM_PID=$!
	PIDS="$PIDS $SIM_PID"
	exec 3>"$T/console"
	for i in $(seq 300); do
		grep -q "Network simulator ready" "$T/ibsim.log" 2>/dev/null && return 0
		kill -0 "$SIM_PID" 2>/dev/null || die "ibsim exited: $(tail -3 "$T/ibsim.log")"
		sleep 0.1
	done
	die "ibsim not ready after 30 s"
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
