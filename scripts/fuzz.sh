#!/bin/bash
# Fuzzes the parsers that read what others write (topology files, LFT
# dumps, the drain list, ibfmd's configuration and control requests, the
# control socket's framing and /metrics' request heads on streams cut at
# arbitrary points, the CLI's reader of ibfmd's replies,
# congestion-control profiles and policies, the CC model's faults) with
# libFuzzer, ASan and UBSan, for FUZZ_SECONDS each (default 15), starting from tests/fuzz/corpus/NAME.
# What a run finds stays in _fuzz/ (a crash input as _fuzz/crash-*);
# add an interesting input to the corpus by hand. Usage:
#   scripts/fuzz.sh [NAME...]     (default: all)
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${FUZZ_SECONDS:-15}
out=_fuzz
CC=${FUZZ_CC:-clang}
command -v "$CC" >/dev/null || { echo "fuzz: $CC not found (install clang and libclang-rt-14-dev)"; echo "fuzz: 0 passed, 1 failed"; exit 1; }
mkdir -p "$out"
flags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I. -Itests/fuzz -D_GNU_SOURCE"
routing=$(ls routing/*/*.c)
declare -A srcs=(
	[topo]="$routing"
	[lfts]="$routing"
	[drain]="$routing"
	[ctl]="$(ls ctl/*.c) $routing"
	[frame]="$(ls ctl/*.c) $routing"
	[http]="mgmt/net/httpreq.c"
	[conf]="mgmt/base/conf.c mgmt/base/lines.c mgmt/base/log.c routing/base/err.c routing/state/statedir.c"
	[jsonview]="cli/util/jsonview.c routing/io/jsonstr.c routing/io/json.c"
	[ccp]="cc/ccprofile.c mgmt/base/lines.c routing/base/err.c"
	[ccpol]="cc/ccpolicy.c cc/ccprofile.c cc/ccmodel.c cc/ccwire.c mgmt/base/lines.c routing/base/err.c"
)
names=${*:-topo lfts drain ctl frame http conf jsonview ccp ccpol}
pass=0 fail=0
for n in $names; do
	bin=$out/fuzz_$n
	# shellcheck disable=SC2086
	if ! $CC $flags tests/fuzz/fuzz_$n.c ${srcs[$n]} -lm -o "$bin" 2>"$out/$n.build"; then
		cat "$out/$n.build"
		echo "fuzz $n: does not build"
		fail=$((fail + 1))
		continue
	fi
	rm -rf "$out/$n.corpus" && mkdir -p "$out/$n.corpus"
	if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$out/$n-" "$out/$n.corpus" "tests/fuzz/corpus/$n" \
		>"$out/$n.log" 2>&1; then
		echo "fuzz $n: $(grep -o '#[0-9]*.*DONE\|Done [0-9]* runs in [0-9]* second(s)' "$out/$n.log" | tail -1), no crash"
		pass=$((pass + 1))
	else
		grep -A30 'ERROR\|runtime error\|deadly signal' "$out/$n.log" | head -40
		echo "fuzz $n: crashed; the input is in $(ls "$out/$n"-* 2>/dev/null | head -1)"
		fail=$((fail + 1))
	fi
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
