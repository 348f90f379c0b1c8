#!/bin/bash
# Runs the whole test suite (unit and integration) and prints each test's
# own summary lines, then one closing line. Exit 0 only when all passed.
set -uo pipefail
cd "$(dirname "$0")/.."

make -j"$(nproc)" check >_check.out 2>&1
rc=$?
for log in tests/unit/*.log tests/integration/*.log; do
	[ -f "$log" ] || continue
	echo "== ${log%.log}"
	# cmocka's own summary lines, or the integration tests' checks.
	grep -E '^\[ *(PASSED|FAILED|  ERROR) *\]|^(ok|not ok) |passed, [0-9]+ failed$|FAILED TEST' "$log" || true
done
grep -E '^(PASS|FAIL|ERROR|XPASS):' _check.out || true
pass=$(sed -n 's/^# PASS: *//p' tests/test-suite.log 2>/dev/null | head -1)
fail=$(sed -n 's/^# FAIL: *//p' tests/test-suite.log 2>/dev/null | head -1)
err=$(sed -n 's/^# ERROR: *//p' tests/test-suite.log 2>/dev/null | head -1)
if [ -z "$pass" ]; then
	tail -30 _check.out
	echo "0 passed, 1 failed"
	exit 1
fi
fail=$((${fail:-0} + ${err:-0}))

# Again under ASan and UBSan (IBFM_SANITIZE=0 skips; needs a git tree).
if [ "${IBFM_SANITIZE:-1}" = 1 ] && git rev-parse --git-dir >/dev/null 2>&1; then
	scripts/test-sanitizers.sh >_sanitize.out 2>&1
	src=$?
	grep '^sanitizers: ' _sanitize.out
	[ "$src" -eq 0 ] || { grep -v '^sanitizers: ' _sanitize.out | tail -40; rc=1; }
	spass=$(sed -n 's/^sanitizers: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' _sanitize.out)
	sfail=$(sed -n 's/^sanitizers: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' _sanitize.out)
	pass=$((pass + ${spass:-0}))
	fail=$((fail + ${sfail:-1}))
fi

# The parsers under libFuzzer, 10 s each (IBFM_FUZZ=0 skips).
if [ "${IBFM_FUZZ:-1}" = 1 ]; then
	FUZZ_SECONDS=${FUZZ_SECONDS:-10} scripts/fuzz.sh >_fuzz.out 2>&1
	frc=$?
	grep '^fuzz ' _fuzz.out
	[ "$frc" -eq 0 ] || { grep -v '^fuzz ' _fuzz.out | tail -40; rc=1; }
	fpass=$(sed -n 's/^fuzz: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' _fuzz.out)
	ffail=$(sed -n 's/^fuzz: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' _fuzz.out)
	pass=$((pass + ${fpass:-0}))
	fail=$((fail + ${ffail:-1}))
fi
echo "${pass} passed, ${fail} failed"
[ "$rc" -eq 0 ]
