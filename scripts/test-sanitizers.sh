#!/bin/bash
# The unit tests and the tests that run ibfm and ibfmd without OpenSM,
# once more in a second build tree configured --enable-sanitizers (ASan
# and UBSan; any report fails the test). The plugin is left out: it
# loads into OpenSM, which is not built with the sanitizers' runtime.
# Prints the same closing line as scripts/test.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
src=$PWD
dir=$src/_sanitize

rm -rf "$dir" && mkdir -p "$dir" || exit 1
# The tracked sources (an in-tree build would clash with a VPATH one).
git ls-files -z | xargs -0 tar -c | tar -x -C "$dir" || exit 1
cd "$dir"
echo "== sanitizers: building in $dir" >&2
(./autogen.sh && ./configure -q --enable-sanitizers && make -j"$(nproc)") \
	>build.out 2>&1 || { tail -30 build.out; echo "0 passed, 1 failed"; exit 1; }

# umad2sim's read() copies past its own buffer: not ours to report. It
# is also preloaded after the sanitizer runtime.
printf 'interceptor_via_lib:libumad2sim.so\n' >asan.supp
export ASAN_OPTIONS="verify_asan_link_order=0:suppressions=$dir/asan.supp:detect_leaks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
tests=$(cd tests && find unit -name 'test_*.c' | sort | sed 's/\.c$//' | tr '\n' ' ')
tests="$tests integration/cli/cli_topo.sh integration/changes/drain_cli.sh integration/ibfmd/ibfmd.sh integration/ibfmd/cc.sh"
make check TESTS="$tests" >check.out 2>&1
rc=$?
grep -E '^(PASS|FAIL|ERROR):' check.out | sed 's/^/sanitizers: /'
pass=$(sed -n 's/^# PASS: *//p' tests/test-suite.log | head -1)
fail=$(sed -n 's/^# FAIL: *//p' tests/test-suite.log | head -1)
err=$(sed -n 's/^# ERROR: *//p' tests/test-suite.log | head -1)
[ "$rc" -eq 0 ] || grep -h -B2 -A20 'ERROR: AddressSanitizer\|runtime error\|LeakSanitizer' \
	$(find tests -name '*.log') /tmp/ibfm-test.*/*.log 2>/dev/null | head -60
echo "sanitizers: ${pass:-0} passed, $((${fail:-1} + ${err:-0})) failed"
[ "$rc" -eq 0 ]
