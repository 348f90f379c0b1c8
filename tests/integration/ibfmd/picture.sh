#!/bin/bash
# The fabric picture ibfmd serves (#22): on its metrics listener, / shows
# /fabric.svg, the last sweep drawn against the expected cabling, with
# the drain list. A spine-leaf cable pulled on ibsim is a dashed red
# pair, a drained spine purple. With node_name_map, nodes are drawn and
# named in events by the map. In a real browser (headless Chromium),
# the page renders: a screenshot of it is taken.
. "$TESTLIB"

routed_fabric -l 2 -k 8
ibfmd_pages

http_get "$port" / >"$T/index.http"
check "/: an HTML page" grep -q '^Content-Type: text/html' "$T/index.http"
check "/: it shows the whole picture (one group)" grep -q '<g class="switch">' "$T/index.http"
http_get "$port" /fabric.svg >"$T/whole.http"
check "/fabric.svg: SVG" grep -q '^Content-Type: image/svg+xml' "$T/whole.http"
http_body "$T/whole.http" >"$T/whole.svg"
check "/fabric.svg: it parses" python3 -c "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])" "$T/whole.svg"
check "/fabric.svg: 12 switches, 32 pairs, all as cabled" \
	test "$(grep -c '<g class="switch">' "$T/whole.svg")/$(grep -c '<g class="link">' "$T/whole.svg")/$(grep -c '#d62728" stroke-width' "$T/whole.svg")" = 12/32/0

# A spine-leaf cable pulled, a spine drained.
leaf=$(sed -n 's/^Switch.*"\(S-[0-9a-f]*\)".*# "leaf-03".*/\1/p' "$T/f.topo")
sim_cmd "Unlink \"$leaf\"[5]"
echo "0x0002c9020000000b # spine-03" >"$T/state/drain.list"
ibfmd_sweep_fresh
http_get "$port" /fabric.svg >"$T/after.http"
http_body "$T/after.http" >"$T/after.svg"
check "after: the pulled cable's pair dashed red" \
	test "$(grep -c 'stroke="#d62728" stroke-width="1.6" stroke-dasharray' "$T/after.svg")" = 1
check "after: its tooltip says 0 of 1 links" grep -q 'leaf-03: 0 of 1 links\|- leaf-03: 0 of 1' "$T/after.svg"
check "after: the drained spine's box purple" grep -q 'spine-03 (drained)' "$T/after.svg"

if command -v chromium >/dev/null; then
	screenshot "http://127.0.0.1:$port/" "$T/fabric.png" 1100 760
	check "Chromium renders the page: a screenshot" test -s "$T/fabric.png"
	check "... a PNG 1100 pixels wide" png_width "$T/fabric.png" 1100
	keep_image "$T/fabric.png"
else
	check "chromium installed (debian-packages.txt)" false
fi

# node_name_map (#22): ibfmd draws nodes by the map's names on its page
# and /fabric.svg, and writes them in its events; SIGHUP takes it in. A
# map that does not read is refused at SIGHUP (the one held stays) and
# stops ibfmd at start, with FILE:LINE.
printf '0x0002c90200000003 "rack3-leaf"\n0x0002c9020000000b "row1-spine3"   # spine-03\n' >"$T/names.map"
echo "node_name_map $T/names.map" >>"$T/ibfmd.conf"
kill -HUP "$DPID"
until_ok 50 "$DPID" ibfmd grep -q 'SIGHUP: .* reloaded' "$T/ibfmd.log"
http_get "$port" /fabric.svg >"$T/named.http"
http_body "$T/named.http" >"$T/named.svg"
check "node_name_map: the SVG parses" python3 -c "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])" "$T/named.svg"
check "node_name_map: the leaf by its name, its pulled cable" grep -q 'rack3-leaf: 0 of 1 links\|- rack3-leaf: 0 of 1' "$T/named.svg"
check "node_name_map: the drained spine by its name" grep -q 'row1-spine3 (drained)' "$T/named.svg"
check "node_name_map: their descriptions gone from the picture" bash -c "! grep -q 'leaf-03\|spine-03' '$T/named.svg'"
check "node_name_map: other nodes keep their descriptions" grep -q 'leaf-01' "$T/named.svg"
sim_cmd "ReLink \"$leaf\"[5]"
ibfmd_sweep_fresh
"$IBFM" --socket "$T/ibfmd.sock" events --json >"$T/events.json"
check "node_name_map: the mended cable's event names the leaf by the map" \
	python3 -c 'import json, sys; assert any(e["kind"] == "link-extra" and "\"rack3-leaf\"[5] (0x0002c90200000003)" in e["ports"] for e in json.load(open(sys.argv[1])))' "$T/events.json"
"$IBFM" --socket "$T/ibfmd.sock" events >"$T/events.txt"
check "node_name_map: and so does ibfm events, without a map of its own" grep -q 'link-extra .*"rack3-leaf"\[5\]' "$T/events.txt"
printf '0x10 "a"\nnot a line\n' >"$T/bad.map"
echo "node_name_map $T/bad.map" >>"$T/ibfmd.conf"
kill -HUP "$DPID"
until_ok 50 "$DPID" ibfmd grep -q 'bad.map:2: N01' "$T/ibfmd.log"
check "node_name_map: a bad map at SIGHUP is logged with FILE:LINE" grep -q 'node_name_map: .*bad.map:2: N01' "$T/ibfmd.log"
http_get "$port" /fabric.svg >"$T/named2.http"
check "node_name_map: ... and the map held stays" grep -q 'row1-spine3 (drained)' "$T/named2.http"
printf 'socket %s\nnode_name_map %s\n' "$T/bad/d.sock" "$T/bad.map" >"$T/badmap.conf"
timeout 20 "$IBFMD" --config "$T/badmap.conf" --foreground >"$T/badmap.log" 2>&1
check "node_name_map: a bad map stops ibfmd at start (exit 1)" test $? = 1
check "node_name_map: ... saying FILE:LINE" grep -q 'bad.map:2: N01' "$T/badmap.log"
finish
