#!/bin/bash
# The daemon's integration test (tests/integration/ibfmd.sh: sweeps,
# light checks, metrics, SIGHUP, garbage, floods, 500 connections,
# SIGTERM) with ibfmd under valgrind memcheck: any error or definite
# leak of ibfm's fails it. Reports about libumad2sim itself are
# suppressed (tests/valgrind.supp says which and why). Prints
# "valgrind: N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind: not installed"; echo "valgrind: 0 passed, 1 failed"; exit 1; }
out=$PWD/_valgrind
rm -rf "$out" && mkdir -p "$out"
cat >"$out/ibfmd" <<WRAP
#!/bin/bash
exec valgrind --quiet --error-exitcode=99 --leak-check=full \\
	--errors-for-leak-kinds=definite --suppressions=$PWD/tests/valgrind.supp \\
	--log-file=$out/vg.%p.log $PWD/mgmt/ibfmd "\$@"
WRAP
chmod +x "$out/ibfmd"
env IBFM="$PWD/cli/ibfm" IBFMD="$out/ibfmd" CTL_CLIENT="$PWD/tests/ctl_client" \
	IBSIM="$(command -v ibsim || echo /usr/sbin/ibsim)" \
	UMAD2SIM=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so \
	TESTLIB="$PWD/tests/integration/lib.sh" \
	timeout 900 bash tests/integration/ibfmd.sh >"$out/test.log" 2>&1
rc=$?
errors=$(cat "$out"/vg.*.log 2>/dev/null | grep -c '^==[0-9]*== [A-Z]')
if [ "$rc" -eq 0 ] && [ "$errors" -eq 0 ]; then
	echo "valgrind: ibfmd.sh clean ($(grep -c '^ok' "$out/test.log") checks)"
	echo "valgrind: 1 passed, 0 failed"
	exit 0
fi
grep '^not ok' "$out/test.log"
cat "$out"/vg.*.log 2>/dev/null | head -60
echo "valgrind: 0 passed, 1 failed"
exit 1
