#!/bin/bash
# The fabric page at scale (#43): ibfmd's / draws the fabric by its
# groups (pods of a 3-level tree) with a problems list, and /group/NAME
# drills down to one pod. On a 3-level radix-8 tree in ibsim (8 pods, 4
# core planes), one cable pulled (leaf-10[5]), one spine drained
# (spine-11) and errors on one port (leaf-12[2]), all in pod-3: the page
# names pod-3 in its block and each problem with its element, the
# drill-down for pod-3 names them, and headless Chromium renders both
# in a 1,400-pixel wide window.
. "$TESTLIB"

routed_fabric -l 3 -k 8
ibfmd_pages
id_of() { sed -n "s/^Switch.*\"\(S-[0-9a-f]*\)\".*# \"$1\".*/\1/p" "$T/f.topo"; }
guid_of() { id_of "$1" | sed "s/^S-/0x/"; }

http_get "$port" / >"$T/clean.http"
check "/: as cabled, no problem" grep -q '<h2>Problems: 0</h2>' "$T/clean.http"
check "/: 12 blocks (8 pods, 4 core planes)" \
	test "$(grep -o '<g class="group">' "$T/clean.http" | wc -l)" = 12

sim_cmd "Unlink \"$(id_of leaf-10)\"[5]"
echo "$(guid_of spine-11) # spine-11" >"$T/state/drain.list"
sim_cmd "PerformanceSet \"$(id_of leaf-12)\"[2] PortCounters.SymbolErrorCounter=9"
ibfmd_sweep_fresh
# PortXmitWait since the sweep before: set between two sweeps.
sim_cmd "PerformanceSet \"$(id_of leaf-12)\"[6] PortCounters.PortXmitWait=50000"
ibfmd_sweep_now

http_get "$port" / >"$T/index.http"
http_body "$T/index.http" >"$T/index.html"
check "/: an HTML page" grep -q '^Content-Type: text/html' "$T/index.http"
check "/: under 1 MB" test "$(stat -c %s "$T/index.html")" -lt 1048576
check "/: the SVG in it parses" python3 -c '
import re, sys, xml.etree.ElementTree as E
E.fromstring(re.search(r"<svg.*</svg>", open(sys.argv[1]).read(), re.S).group(0))' "$T/index.html"
check "/: pod-3's block says a cable is missing" python3 -c '
import re, sys
b = re.search(r"<title>pod-3 \(pod\).*?</g>", open(sys.argv[1]).read(), re.S).group(0)
assert "1 cable missing" in b and "1 sw, " in b and "errors 1: leaf-12[2]" in b, b' "$T/index.html"
check "/: the missing cable named, in pod-3" grep -q \
	'cable missing</td><td>leaf-10\[5\] &ndash; spine-[0-9]*\[[0-9]*\]</td><td><a href="/group/pod-3">' "$T/index.html"
check "/: the drained spine named, in pod-3" grep -q \
	'switch drained</td><td>spine-11</td><td><a href="/group/pod-3">' "$T/index.html"
check "/: the port with errors named, in pod-3" grep -q \
	'errors</td><td>leaf-12\[2\]: 9</td><td><a href="/group/pod-3">' "$T/index.html"
check "/: the hottest port named" grep -q 'PortXmitWait</td><td>leaf-12\[6\]: 50000<' "$T/index.html"
check "/: a link to each group" test "$(grep -o '<a href="/group/[a-z0-9-]*"><g class="group">' "$T/index.html" | wc -l)" = 12

http_get "$port" /group/pod-3 >"$T/pod.http"
http_body "$T/pod.http" >"$T/pod.html"
check "/group/pod-3: an HTML page" grep -q '^Content-Type: text/html' "$T/pod.http"
check "/group/pod-3: its 8 switches and the 16 cores they reach" \
	test "$(grep -o '<g class="switch">' "$T/pod.html" | wc -l)" = 24
check "/group/pod-3: the pulled cable's pair dashed red" grep -q 'leaf-10: 0 of 1 links' "$T/pod.html"
check "/group/pod-3: the drained spine" grep -q 'spine-11 (drained)' "$T/pod.html"
check "/group/pod-3: the missing cable listed" grep -q 'cable missing</td><td>leaf-10\[5\]' "$T/pod.html"
check "/group/pod-3: the port with errors listed" grep -q 'errors</td><td>leaf-12\[2\]: 9' "$T/pod.html"
check "/group/pod-3: only pod-3's problems" bash -c "! grep -q 'group/pod-[124-8]\">pod' '$T/pod.html'"
check "/group/pod-3: its links to the core planes" grep -q '<h2>Links to other groups</h2>' "$T/pod.html"
http_get "$port" /group/pod-3.svg >"$T/podsvg.http"
check "/group/pod-3.svg: SVG" grep -q '^Content-Type: image/svg+xml' "$T/podsvg.http"
http_get "$port" /group/pod-99 >"$T/none.http"
check "/group/pod-99: not found" grep -q '^HTTP/1.[01] 404' "$T/none.http"
http_get "$port" /fabric.svg >"$T/svg.http"
http_body "$T/svg.http" >"$T/fabric.svg"
check "/fabric.svg: the overview, 12 blocks, parses" python3 -c '
import sys, xml.etree.ElementTree as E
t = E.parse(sys.argv[1])
assert len(t.findall(".//{http://www.w3.org/2000/svg}rect")) >= 12' "$T/fabric.svg"

if command -v chromium >/dev/null; then
	screenshot "http://127.0.0.1:$port/" "$T/fabric-page.png" 1400 900
	check "Chromium renders /: a PNG 1400 pixels wide" png_width "$T/fabric-page.png" 1400
	screenshot "http://127.0.0.1:$port/group/pod-3" "$T/fabric-pod.png" 1400 700
	check "Chromium renders /group/pod-3: a PNG 1400 pixels wide" png_width "$T/fabric-pod.png" 1400
else
	check "chromium installed (debian-packages.txt)" false
fi
finish
