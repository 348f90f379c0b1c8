#!/bin/bash
# The daemon's integration tests (tests/integration/ibfmd/ibfmd.sh: sweeps,
# light checks, metrics, SIGHUP, garbage, floods, 500 connections,
# SIGTERM; cc.sh: congestion-control jobs beside OpenSM, on ibsim and on
# the CC node model, the latter with ibfmd's test build
# tests/ibfmd-ccmodel) with ibfmd under valgrind memcheck: any error or
# definite leak of ibfm's fails it; and the plugin's tests
# (plugin_opensm.sh; unhealthy_link.sh: a trapping link routed around,
# LID matrices filled with it) with OpenSM under memcheck, where only reports with
# a frame in the plugin or libibfm count (OpenSM's own two leaks at exit
# are not ours). Reports about libumad2sim itself are suppressed
# (tests/valgrind.supp says which and why). Prints
# "valgrind: N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind: not installed"; echo "valgrind: 0 passed, 1 failed"; exit 1; }
out=$PWD/_valgrind
rm -rf "$out" && mkdir -p "$out"
# The test build is made by make check; build it here too, alone.
make -s -C tests ibfmd-ccmodel >/dev/null || { echo "valgrind: 0 passed, 1 failed"; exit 1; }
for bin in mgmt/ibfmd tests/ibfmd-ccmodel; do
	cat >"$out/${bin##*/}" <<WRAP
#!/bin/bash
exec valgrind --quiet --error-exitcode=99 --leak-check=full \\
	--errors-for-leak-kinds=definite --suppressions=$PWD/tests/valgrind.supp \\
	--log-file=$out/vg.%p.log $PWD/$bin "\$@"
WRAP
	chmod +x "$out/${bin##*/}"
done
cat >"$out/opensm" <<WRAP
#!/bin/bash
exec valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite \\
	--num-callers=40 --suppressions=$PWD/tests/valgrind.supp \\
	--log-file=$out/vg.%p.log "$(command -v opensm || echo /usr/sbin/opensm)" "\$@"
WRAP
chmod +x "$out/opensm"
# Error records (between blank "==PID== " lines) with a frame of ours.
ours() {
	cat "$out"/vg.*.log 2>/dev/null | awk '/^==[0-9]+== $/ { if (r ~ /libibfm|ibfm_osm|routing\//) n++; r = ""; next }
		{ r = r $0 "\n" } END { if (r ~ /libibfm|ibfm_osm|routing\//) n++; print n + 0 }'
}
pass=0 fail=0
for t in ibfmd cc plugin_opensm unhealthy_link; do
	rm -f "$out"/vg.*.log
	osm=$(command -v opensm || echo /usr/sbin/opensm)
	[ "$t" != ibfmd ] && [ "$t" != cc ] && osm=$out/opensm
	env IBFM="$PWD/cli/ibfm" IBFMD="$out/ibfmd" IBFMD_CCMODEL="$out/ibfmd-ccmodel" \
		CTL_CLIENT="$PWD/tests/ctl_client" \
		TRAP_CLIENT="$PWD/tests/trap_client" \
		IBSIM="$(command -v ibsim || echo /usr/sbin/ibsim)" \
		UMAD2SIM=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so \
		OPENSM="$osm" IBNETDISCOVER="$(command -v ibnetdiscover || echo /usr/sbin/ibnetdiscover)" \
		IBROUTE="$(command -v ibroute || echo /usr/sbin/ibroute)" \
		IBTRACERT="$(command -v ibtracert || echo /usr/sbin/ibtracert)" \
		PLUGIN_DIR="$PWD/plugin/.libs" FIXTURES="$PWD/tests/fixtures" \
		TESTLIB="$PWD/tests/integration/lib.sh" \
		timeout 900 bash tests/integration/*/"$t.sh" >"$out/$t.log" 2>&1
	rc=$?
	if [ "$osm" = "$out/opensm" ]; then
		errors=$(ours)
	else
		errors=$(cat "$out"/vg.*.log 2>/dev/null | grep -c '^==[0-9]*== [A-Z]')
	fi
	if [ "$rc" -eq 0 ] && [ "$errors" -eq 0 ]; then
		echo "valgrind: $t.sh clean ($(grep -c '^ok' "$out/$t.log") checks)"
		pass=$((pass + 1))
		continue
	fi
	grep '^not ok' "$out/$t.log"
	cat "$out"/vg.*.log 2>/dev/null | head -60
	fail=$((fail + 1))
done
echo "valgrind: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
