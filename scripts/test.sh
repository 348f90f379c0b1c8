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
echo "${pass} passed, $((${fail:-0} + ${err:-0})) failed"
[ "$rc" -eq 0 ]
