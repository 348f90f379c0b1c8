#!/bin/bash
# ibfmd's /metrics streamed (mgmt/net/metrics.h): on a routed ibsim fabric
# whose port families are ~4 MB of text, an HTTP/1.1 GET comes chunked
# and whole (promtool parses it; each port family has one series per
# port read), HTTP/1.0 gets the same body ended by the close, HEAD the
# head alone; a slow client during which a sweep is taken in gets the
# sweep its scrape began on, whole, and never a mix; clients that close
# mid-reply and eight at once cost nothing; ibfmd stops mid-reply; gzip
# when the client takes it.
. "$TESTLIB"

GET="python3 ${TESTLIB%/lib.sh}/http_get.py"
PROMTOOL=$(command -v promtool) || die "promtool not found (install prometheus)"
# port_counts FILE: "FAMILY SERIES" for each ibfm_port_ family of FILE.
port_counts() {
	awk '/^# TYPE ibfm_port_/ { f = $3; n[f] = 0; order[++k] = f }
	     /^ibfm_port_/ { sub(/\{.*/, "", $1); n[$1]++ }
	     END { for (i = 1; i <= k; i++) print order[i], n[order[i]] }' "$1"
}
# all_ports FILE N: 18 port families in FILE, N series each.
all_ports() {
	[ "$(port_counts "$1" | wc -l)" = 18 ] &&
		port_counts "$1" | awk -v n="$2" '$2 != n { bad = 1 } END { exit bad }'
}
# same_state A B: A and B the same text but for the seconds since the
# plugin's last routing pass, which the clock moves.
same_state() {
	cmp -s <(grep -v '^ibfm_routing_generation_age_seconds ' "$1") \
		<(grep -v '^ibfm_routing_generation_age_seconds ' "$2")
}

routed_fabric -l 3 -k 12
ibfmd_beside "metrics 127.0.0.1:0"
port=$(metrics_port "$T/ibfmd.log")
url="http://127.0.0.1:$port/metrics"

# (1) HTTP/1.1, as Prometheus asks: chunked, whole.
curl -sS --http1.1 -D "$T/c.head" -o "$T/c.txt" "$url"
check "curl: HTTP/1.1 200" grep -q '^HTTP/1.1 200 OK' "$T/c.head"
check "curl: Transfer-Encoding: chunked" grep -qi '^Transfer-Encoding: chunked' "$T/c.head"
check "curl: no Content-Length" bash -c "! grep -qi '^Content-Length' '$T/c.head'"
check "curl: promtool check metrics passes" "$PROMTOOL" check metrics <"$T/c.txt"
ports=$(sed -n 's/^ibfm_pma_ports_read \([0-9]*\)$/\1/p' "$T/c.txt")
size=$(wc -c <"$T/c.txt")
echo "# $ports ports read, $size bytes"
check "over 1 MB of port families (more than a part)" test "$size" -gt 1048576
check "18 port families, $ports series each" all_ports "$T/c.txt" "$ports"
check "the families after the ports too" grep -qx '# TYPE ibfm_sm_master_changes_total counter' "$T/c.txt"
chunks=$($GET "$port" /metrics "$T/r") || chunks=
check "raw: chunks that end with the last one ($chunks)" test "${chunks#chunks }" -gt 3
check "raw: the same text as curl's" same_state "$T/r" "$T/c.txt"

# (1b) gzip, which Prometheus asks for: compressed as it streams, the
# same text; not when the client refuses it (q=0).
curl -sS --http1.1 -H 'Accept-Encoding: gzip' -D "$T/z.head" -o "$T/z.gz" "$url"
check "gzip: Content-Encoding: gzip" grep -qi '^Content-Encoding: gzip' "$T/z.head"
check "gzip: chunked (streamed)" grep -qi '^Transfer-Encoding: chunked' "$T/z.head"
check "gzip: one whole gzip stream" gzip -t "$T/z.gz"
gzip -dc "$T/z.gz" >"$T/z.txt" 2>/dev/null
check "gzip: the same text as plain" same_state "$T/z.txt" "$T/c.txt"
zsize=$(wc -c <"$T/z.gz")
check "gzip: under a fifth of the text ($zsize of $size bytes)" test $((zsize * 5)) -lt "$size"
curl -sS --http1.1 -H 'Accept-Encoding: gzip;q=0, br' -D "$T/q0.head" -o "$T/q0.txt" "$url"
check "gzip;q=0: plain text" bash -c "! grep -qi '^Content-Encoding' '$T/q0.head' && cmp -s <(grep -v '^ibfm_routing_generation_age_seconds ' '$T/q0.txt') <(grep -v '^ibfm_routing_generation_age_seconds ' '$T/c.txt')"

# (2) HTTP/1.0: no chunks, the close ends it; HEAD: the head alone.
$GET "$port" /metrics "$T/h10" --http10 >/dev/null
check "HTTP/1.0: neither chunked nor a length" \
	bash -c "! grep -qi '^\(Transfer-Encoding\|Content-Length\)' '$T/h10.head'"
check "HTTP/1.0: the same text" same_state "$T/h10" "$T/c.txt"
$GET "$port" /metrics "$T/head" --head >/dev/null
check "HEAD: chunked, as GET" grep -qi '^Transfer-Encoding: chunked' "$T/head.head"
check "HEAD: no body" test ! -s "$T/head"

# (3) A slow client, and a sweep taken in while its reply is held back:
# the reply is the sweep it began on, whole. leaf-01[3]'s symbol errors
# rise to 7 in between.
leaf=$(sed -n 's/^Switch.*"\(S-[0-9a-f]*\)"\t\t# "leaf-01".*/\1/p' "$T/f.topo")
series="{guid=\"0x${leaf#S-}\",port=\"3\",node=\"leaf-01\"}"
sweeps=$(sed -n 's/^ibfm_sweeps_total \([0-9]*\)$/\1/p' "$T/c.txt")
$GET "$port" /metrics "$T/slow" --pause 65536 "$T/slow.mark" "$T/slow.go" >"$T/slow.out" &
SLOW=$!
until_ok 100 "$SLOW" "the slow client" test -s "$T/slow.mark"
# What ibfmd has made of the reply is at most what the client read, the
# sockets' queues and one part queued in ibfmd.
queued=$(ss -tnH state established "( sport = :$port or dport = :$port )" |
	awk '{ s += $1 + $2 } END { print s }')
made=$(($(cat "$T/slow.mark") + queued + 2 * 262144))
echo "# the slow client: $(cat "$T/slow.mark") bytes read, $queued queued in the sockets"
sim_cmd "PerformanceSet \"$leaf\"[3] PortCounters.SymbolErrorCounter=7"
ibfmd_sweep_now
check "the sweep was taken in while the reply was $made bytes at most" \
	test "$made" -lt "$size"
touch "$T/slow.go"
wait "$SLOW"
rc=$?
check "slow: whole ($(cat "$T/slow.out"))" test "$rc" = 0
check "slow: promtool check metrics passes" "$PROMTOOL" check metrics <"$T/slow"
check "slow: the sweep it began on" grep -qx "ibfm_sweeps_total $sweeps" "$T/slow"
check "slow: leaf-01[3] as it was, in every family" \
	bash -c "grep -qx 'ibfm_port_symbol_errors_total$series 0' '$T/slow' &&
		 grep -qx 'ibfm_port_errors_total$series 0' '$T/slow'"
check "slow: 18 port families, $ports series each" all_ports "$T/slow" "$ports"
check "slow: the same text as before the sweep" same_state "$T/slow" "$T/c.txt"
curl -sS --http1.1 -o "$T/new.txt" "$url"
check "a scrape after: the new sweep, leaf-01[3] at 7" \
	bash -c "grep -qx 'ibfm_port_symbol_errors_total$series 7' '$T/new.txt' &&
		 grep -qx 'ibfm_port_errors_total$series 7' '$T/new.txt' &&
		 grep -qx 'ibfm_sweeps_total $((sweeps + 1))' '$T/new.txt'"

# (4) Clients that close mid-reply, and eight at once.
for i in 1 2 3 4; do
	$GET "$port" /metrics "$T/gone$i" --close-after $((i * 100000)) >/dev/null
done
for i in 1 2 3 4 5 6 7 8; do
	curl -sS --http1.1 -o "$T/many$i.txt" "$url" &
	eval "MANY$i=\$!"
done
ok=0
for i in 1 2 3 4 5 6 7 8; do
	eval "wait \$MANY$i" && same_state "$T/many$i.txt" "$T/new.txt" && ok=$((ok + 1))
done
check "eight at once: each whole, the same" test "$ok" = 8
check "ibfmd answers after" ibfmd_swept 2

# (5) ibfmd stops mid-reply: at once, and cleanly.
rm -f "$T/slow.mark" "$T/slow.go"
$GET "$port" /metrics "$T/cut" --pause 65536 "$T/slow.mark" "$T/slow.go" >"$T/cut.out" &
SLOW=$!
until_ok 100 "$SLOW" "the slow client" test -s "$T/slow.mark"
kill "$DPID"
stopped() { ! kill -0 "$DPID" 2>/dev/null; }
until_ok 100 "$SLOW" "the slow client" stopped
wait "$DPID"
rc=$?
check "ibfmd stopped mid-reply: exit 0" test "$rc" = 0
touch "$T/slow.go"
wait "$SLOW"
rc=$?
check "the cut reply is not taken for whole ($(cat "$T/cut.out"))" test "$rc" = 1

finish
