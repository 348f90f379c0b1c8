#!/bin/bash
# Runs the whole test suite (unit and integration) and prints each test's
# own summary lines, then one closing line. Exit 0 only when all passed.
set -uo pipefail
cd "$(dirname "$0")/.."

status_before=
if git rev-parse --git-dir >/dev/null 2>&1; then
	status_before=${IBFM_GIT_BEFORE:-$(mktemp)}
	[ -n "${IBFM_GIT_BEFORE:-}" ] || git status --porcelain >"$status_before"
fi
make -j"$(nproc)" check >_check.out 2>&1
rc=$?
for log in $(find tests/unit tests/integration -name '*.log' | sort); do
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

# more PREFIX OUT CMD...: one more pass whose lines start with PREFIX
# and end with "PREFIX: N passed, M failed"; adds its counts.
more() {
	local prefix=$1 out=$2 prc n m
	shift 2
	"$@" >"$out" 2>&1
	prc=$?
	grep "^$prefix" "$out"
	[ "$prc" -eq 0 ] || { grep -v "^$prefix" "$out" | tail -40; rc=1; }
	n=$(sed -n "s/^$prefix: \([0-9]*\) passed, [0-9]* failed\$/\1/p" "$out")
	m=$(sed -n "s/^$prefix: [0-9]* passed, \([0-9]*\) failed\$/\1/p" "$out")
	pass=$((pass + ${n:-0}))
	fail=$((fail + ${m:-1}))
}

# Again under ASan and UBSan (IBFM_SANITIZE=0 skips; needs a git tree).
if [ "${IBFM_SANITIZE:-1}" = 1 ] && git rev-parse --git-dir >/dev/null 2>&1; then
	more sanitizers _sanitize.out scripts/test-sanitizers.sh
fi
# The daemon's tests (ibfmd.sh, cc.sh) with ibfmd under valgrind (IBFM_VALGRIND=0 skips).
if [ "${IBFM_VALGRIND:-1}" = 1 ]; then
	more valgrind _valgrind.out scripts/test-valgrind.sh
fi
# The parsers under libFuzzer, 10 s each (IBFM_FUZZ=0 skips).
if [ "${IBFM_FUZZ:-1}" = 1 ]; then
	more fuzz _fuzz.out env FUZZ_SECONDS="${FUZZ_SECONDS:-10}" scripts/fuzz.sh
fi
# tree CHECK CMD...: one check of the tree itself, counted.
tree() {
	local name=$1
	shift
	if "$@"; then
		echo "tree: ok - $name"
		pass=$((pass + 1))
	else
		echo "tree: not ok - $name"
		fail=$((fail + 1))
		rc=1
	fi
}
tree "no include goes up a floor, no include circle" scripts/check-includes.sh
# Building and testing leave git's view of the tree as it was (run.sh
# took it before the build; by hand, as this script started).
if [ -n "${status_before:-}" ]; then
	left=$(git status --porcelain | grep -vxF -f "$status_before")
	tree "the build and the tests left nothing git sees${left:+: $left}" test -z "$left"
	[ -n "${IBFM_GIT_BEFORE:-}" ] || rm -f "$status_before"
fi
echo "${pass} passed, ${fail} failed"
[ "$rc" -eq 0 ]
