#!/bin/bash
# The fabric picture ibfmd serves (#22): on its metrics listener, / shows
# /fabric.svg, the last sweep drawn against the expected cabling, with
# the drain list. A spine-leaf cable pulled on ibsim is a dashed red
# pair, a drained spine purple. In a real browser (headless Chromium),
# the page renders: a screenshot of it is taken.
. "$TESTLIB"

routed_fabric -l 2 -k 8
ibfmd_beside "expected $T/f.topo" "metrics 127.0.0.1:0"
port=$(metrics_port "$T/ibfmd.log")
check "ibfmd serves metrics" test -n "$port"
body() { sed '1,/^\r$/d' "$1"; }

http_get "$port" / >"$T/index.http"
check "/: an HTML page" grep -q '^Content-Type: text/html' "$T/index.http"
check "/: it shows the picture" grep -q '<img src="/fabric.svg"' "$T/index.http"
http_get "$port" /fabric.svg >"$T/whole.http"
check "/fabric.svg: SVG" grep -q '^Content-Type: image/svg+xml' "$T/whole.http"
body "$T/whole.http" >"$T/whole.svg"
check "/fabric.svg: it parses" python3 -c "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])" "$T/whole.svg"
check "/fabric.svg: 12 switches, 32 pairs, all as cabled" \
	test "$(grep -c '<g class="switch">' "$T/whole.svg")/$(grep -c '<g class="link">' "$T/whole.svg")/$(grep -c '#d62728" stroke-width' "$T/whole.svg")" = 12/32/0

# A spine-leaf cable pulled, a spine drained.
leaf=$(sed -n 's/^Switch.*"\(S-[0-9a-f]*\)".*# "leaf-03".*/\1/p' "$T/f.topo")
sim_cmd "Unlink \"$leaf\"[5]"
echo "0x0002c9020000000b # spine-03" >"$T/state/drain.list"
ibfmd_sweep_fresh
http_get "$port" /fabric.svg >"$T/after.http"
body "$T/after.http" >"$T/after.svg"
check "after: the pulled cable's pair dashed red" \
	test "$(grep -c 'stroke="#d62728" stroke-width="1.6" stroke-dasharray' "$T/after.svg")" = 1
check "after: its tooltip says 0 of 1 links" grep -q 'leaf-03: 0 of 1 links\|- leaf-03: 0 of 1' "$T/after.svg"
check "after: the drained spine's box purple" grep -q 'spine-03 (drained)' "$T/after.svg"

if command -v chromium >/dev/null; then
	timeout 120 chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
		--window-size=1100,760 --screenshot="$T/fabric.png" "http://127.0.0.1:$port/" \
		>"$T/chromium.log" 2>&1
	check "Chromium renders the page: a screenshot" test -s "$T/fabric.png"
	check "... a PNG 1100 pixels wide" python3 -c '
import struct, sys
d = open(sys.argv[1], "rb").read(24)
assert d[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">I", d[16:20])[0] == 1100' "$T/fabric.png"
	[ -n "${IBFM_SCREENSHOTS:-}" ] && cp "$T/fabric.png" "$IBFM_SCREENSHOTS/fabric.png"
else
	check "chromium installed (debian-packages.txt)" false
fi
finish
