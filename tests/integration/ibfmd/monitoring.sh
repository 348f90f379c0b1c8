#!/bin/bash
# The monitoring pack (contrib/monitoring): ibfmd's /metrics on a routed
# ibsim fabric passes `promtool check metrics`, with a counter for every
# port read from the first sweep; the alert rules pass `promtool check
# rules` and their unit tests (series in, alerts out) pass; the Grafana
# dashboard is JSON and every metric it or the rules query is served.
. "$TESTLIB"

PACK=${TESTLIB%/tests/integration/lib.sh}/contrib/monitoring
PROMTOOL=$(command -v promtool) || die "promtool not found (install prometheus)"
# body: the reply without its head.
body() { sed '1,/^\r$/d' "$1"; }
# metric_names FILE: the ibfm_ metric names FILE's PromQL queries, an
# alternation such as ibfm_port_(a|b)_total spelt out.
metric_names() {
	python3 - "$1" <<'EOF'
import re, sys
text = open(sys.argv[1]).read().replace('\\"', '"')
names = set()
for m in re.finditer(r'ibfm_([a-z0-9_]*)\(([a-z0-9_|]+)\)([a-z0-9_]*)', text):
    for alt in m.group(2).split('|'):
        names.add('ibfm_' + m.group(1) + alt + m.group(3))
text = re.sub(r'ibfm_[a-z0-9_]*\([a-z0-9_|]+\)[a-z0-9_]*', '', text)
names.update(re.findall(r'\bibfm_[a-z0-9_]*[a-z0-9]', text))
print('\n'.join(sorted(names)))
EOF
}
# served FILE NAMES: every name in NAMES has a TYPE line in FILE.
served() {
	local n ok=0
	for n in $2; do
		grep -q "^# TYPE $n " "$1" || { echo "# not served: $n"; ok=1; }
	done
	return $ok
}

routed_fabric -l 2 -k 4
cp "$T/f.topo" "$T/expected.topo"
ibfmd_beside "expected $T/expected.topo" "light_interval 1" "metrics 127.0.0.1:0"
port=$(metrics_port "$T/ibfmd.log")

# (1) The first sweep: every port read has its counters, zero or not.
http_get "$port" /metrics >"$T/m1"
body "$T/m1" >"$T/metrics1.txt"
check "metrics after the first sweep: promtool check metrics passes" \
	"$PROMTOOL" check metrics <"$T/metrics1.txt"
read_ports=$(sed -n 's/^ibfm_pma_ports_read \([0-9]*\)$/\1/p' "$T/metrics1.txt")
check "32 ports read (both ends of 16 links)" test "$read_ports" = 32
for f in symbol_errors link_downed xmit_wait xmit_data_bytes rcv_pkts; do
	check "ibfm_port_${f}_total: one series per port read, from the first sweep" \
		test "$(grep -c "^ibfm_port_${f}_total{" "$T/metrics1.txt")" = "$read_ports"
done
check "the port counters are counters" grep -qx '# TYPE ibfm_port_symbol_errors_total counter' "$T/metrics1.txt"
check "ibfm_peer_up is declared without peers" grep -qx '# TYPE ibfm_peer_up gauge' "$T/metrics1.txt"
check "no ibfm_peer_up series without peers" bash -c "! grep -q '^ibfm_peer_up{' '$T/metrics1.txt'"

# (2) Errors, waiting and a master SM: still clean, and as counted.
leaf=$(sed -n 's/^Switch.*"\(S-[0-9a-f]*\)"\t\t# "leaf-01".*/\1/p' "$T/f.topo")
sim_cmd "PerformanceSet \"$leaf\"[3] PortCounters.SymbolErrorCounter=9"
sim_cmd "PerformanceSet \"$leaf\"[3] PortCounters.PortXmitWait=4000"
ibfmd_sweep_now
http_get "$port" /metrics >"$T/m2"
body "$T/m2" >"$T/metrics.txt"
check "metrics with errors and an SM: promtool check metrics passes" \
	"$PROMTOOL" check metrics <"$T/metrics.txt"
check "the symbol errors of leaf-01[3]" \
	grep -qx "ibfm_port_symbol_errors_total{guid=\"0x${leaf#S-}\",port=\"3\",node=\"leaf-01\"} 9" "$T/metrics.txt"
check "its PortXmitWait" \
	grep -qx "ibfm_port_xmit_wait_total{guid=\"0x${leaf#S-}\",port=\"3\",node=\"leaf-01\"} 4000" "$T/metrics.txt"
check "data in bytes: a multiple of 4 (the PMA counts words)" \
	bash -c "grep '^ibfm_port_xmit_data_bytes_total{' '$T/metrics.txt' | awk '\$2 % 4 { exit 1 }'"
check "the master SM" grep -q '^ibfm_sm_info{.*state="master"} 1$' "$T/metrics.txt"
# The check is not toothless: the old name trips it.
printf '# HELP ibfm_counter_ports ports\n# TYPE ibfm_counter_ports gauge\nibfm_counter_ports 3\n' >"$T/bad.txt"
check "promtool check metrics refuses a gauge named counter" \
	bash -c "! '$PROMTOOL' check metrics <'$T/bad.txt' >/dev/null 2>&1"

# (3) The rules: valid, and they fire (ibfm.rules.test.yml).
check "promtool check rules ibfm.rules.yml" "$PROMTOOL" check rules "$PACK/ibfm.rules.yml"
check "promtool test rules: the alerts fire as the tests say" \
	"$PROMTOOL" test rules "$PACK/ibfm.rules.test.yml"
check "every rule has a severity, a summary and a description" python3 - "$PACK/ibfm.rules.yml" <<'EOF'
import re, sys
rules = re.split(r'\n      - alert: ', open(sys.argv[1]).read())[1:]
bad = [r.split('\n')[0] for r in rules
       if not all(k in r for k in ('severity:', 'summary:', 'description:'))]
print('\n'.join('# missing annotations: ' + b for b in bad))
sys.exit(1 if bad or not rules else 0)
EOF
metric_names "$PACK/ibfm.rules.yml" >"$T/rule-metrics"
check "the rules query $(wc -l <"$T/rule-metrics") metrics" test "$(wc -l <"$T/rule-metrics")" -ge 15
check "every metric the rules query is served" served "$T/metrics.txt" "$(cat "$T/rule-metrics")"

# (4) The dashboard.
check "grafana-ibfm.json is JSON" bash -c "python3 -m json.tool '$PACK/grafana-ibfm.json' >/dev/null"
metric_names "$PACK/grafana-ibfm.json" >"$T/dash-metrics"
check "the dashboard queries $(wc -l <"$T/dash-metrics") metrics" test "$(wc -l <"$T/dash-metrics")" -ge 20
check "every metric the dashboard queries is served" served "$T/metrics.txt" "$(cat "$T/dash-metrics")"
metric_names "$PACK/consoles/ibfm.html" >"$T/console-metrics"
check "the console queries every metric the dashboard does" \
	bash -c "! comm -23 '$T/dash-metrics' '$T/console-metrics' | sed 's/^/# not in the console: /' | grep ."

# (5) Prometheus itself, scraping this ibfmd with the rules loaded and
# the console served: its alerts page lists our four rule groups, an
# alert firing and others pending after errors, a flapping link and a
# pulled cable; the console renders values. Screenshots of both, for
# docs/operators.md (IBFM_UPDATE_IMAGES=1 puts them in docs/images).
PROMETHEUS=$(command -v prometheus)
if [ -z "$PROMETHEUS" ] || ! command -v chromium >/dev/null; then
	echo "# SKIP (5): prometheus or chromium not installed (debian-packages.txt): no Prometheus pages, no screenshots"
	finish
	exit
fi
pport=$(free_port)
mkdir -p "$T/prom/libs"
cp "$PACK/ibfm.rules.yml" "$T/prom/"
printf '%s\n' "global: { scrape_interval: 1s, evaluation_interval: 1s }" \
	"rule_files: [ ibfm.rules.yml ]" \
	"scrape_configs:" \
	"  - job_name: ibfmd" \
	"    static_configs: [ { targets: [ \"127.0.0.1:$port\" ] } ]" >"$T/prom/prometheus.yml"
(cd "$T/prom" && exec "$PROMETHEUS" --config.file=prometheus.yml --storage.tsdb.path=data \
	--web.listen-address="127.0.0.1:$pport" --web.console.templates="$PACK/consoles" \
	--web.console.libraries=libs >prometheus.log 2>&1) &
PROM_PID=$!
PIDS="$PIDS $PROM_PID"
# prom_query PROMQL: the values of an instant query, one a line.
prom_query() {
	python3 -c '
import json, sys, urllib.parse, urllib.request
u = "http://127.0.0.1:%s/api/v1/query?query=%s" % (sys.argv[1], urllib.parse.quote(sys.argv[2]))
for r in json.load(urllib.request.urlopen(u, timeout=5))["data"]["result"]:
    print(r["value"][1])' "$pport" "$1"
}
# prom_page PATH FILE: the page's body in FILE; whether it was a 200.
prom_page() {
	http_get "$pport" "$1" >"$2.http" && body "$2.http" >"$2" && grep -q '^HTTP/1.[01] 200' "$2.http"
}
scraped() { [ "$(prom_query 'up{job="ibfmd"}')" = 1 ]; }
firing() { [ "$(prom_query 'ALERTS{alertname="IbfmLinkFlapping",alertstate="firing"}')" = 1 ]; }
until_ok 300 "$PROM_PID" prometheus scraped
# A link that flaps while errors rise on it, and a cable pulled.
spine=$(sed -n 's/^Switch.*"\(S-[0-9a-f]*\)"\t\t# "spine-02".*/\1/p' "$T/f.topo")
sim_cmd "PerformanceSet \"$leaf\"[3] PortCounters.SymbolErrorCounter=60"
sim_cmd "PerformanceSet \"$leaf\"[3] PortCounters.LinkDownedCounter=1"
sim_cmd "Unlink \"$spine\"[4]"
ibfmd_sweep_fresh
until_ok 300 "$PROM_PID" prometheus firing
check "Prometheus: the flapping link's alert fires" firing
check "Prometheus: ibfm_expected_differences scraped, 1" test "$(prom_query 'ibfm_expected_differences')" = 1

prom_page /classic/alerts "$T/alerts.html"
check "alerts page: HTTP 200" test $? = 0
for g in ibfm-daemon ibfm-fabric ibfm-routing ibfm-sm; do
	check "alerts page: the rule group $g" grep -q "ibfm.rules.yml &gt; $g\|ibfm.rules.yml > $g" "$T/alerts.html"
done
nalerts=$(grep -c '^      - alert: ' "$PACK/ibfm.rules.yml")
check "alerts page: all $nalerts alerts" test "$(grep -c '<b>Ibfm[A-Za-z]*</b>' "$T/alerts.html")" = "$nalerts"
check "alerts page: IbfmLinkFlapping firing" bash -c "grep -A1 'alert-danger alert_header' '$T/alerts.html' | grep -q '<b>IbfmLinkFlapping</b>'"
check "alerts page: IbfmExpectedTopologyDiffers and IbfmPortErrorsRising pending" bash -c \
	"grep -A1 'alert-warning alert_header' '$T/alerts.html' | grep -q '<b>IbfmExpectedTopologyDiffers</b>' &&
	 grep -A1 'alert-warning alert_header' '$T/alerts.html' | grep -q '<b>IbfmPortErrorsRising</b>'"
check "Prometheus evaluated every rule without an error" bash -c "! grep 'Evaluating rule failed' '$T/prom/prometheus.log'"
screenshot "http://127.0.0.1:$pport/classic/alerts" "$T/prometheus-alerts.png" 1100 900
check "alerts page: a screenshot, 1100 pixels wide" png_width "$T/prometheus-alerts.png" 1100
keep_image "$T/prometheus-alerts.png"

prom_page /consoles/ibfm.html "$T/console.html"
check "console: HTTP 200" test $? = 0
links=$(sed -n 's/^ibfm_fabric_links \([0-9]*\)$/\1/p' "$T/metrics.txt")
check "console: the links, one fewer than the $links served before the pull" \
	grep -q "<td class=\"num ibfm-links\">$((links - 1))</td>" "$T/console.html"
check "console: the fabric reached" grep -q 'class="good">yes' "$T/console.html"
check "console: the difference from the expected topology" grep -q 'class="num bad">1 (ibfm diff)' "$T/console.html"
check "console: leaf-01 port 3 first among the port errors and the links that went down" python3 -c '
import re, sys
html = open(sys.argv[1]).read()
for title in ("Port errors /s (top 10)", "Links that went down (last 24 h)"):
    table = html.split("<h3>%s</h3>" % title)[1].split("</table>")[0]
    rows = re.findall(r"<tr><td>(.*?)</td><td>(.*?)</td><td class=\"num\">(.*?)</td></tr>", table)
    assert rows and rows[0][:2] == ("leaf-01", "3") and rows[0][2][0] in "123456789", (title, rows)
' "$T/console.html"
check "console: the master SM" grep -q '<td>master</td>' "$T/console.html"
check "console: no template error" bash -c "! grep -q 'error executing template\|template: ' '$T/console.html.http'"
screenshot "http://127.0.0.1:$pport/consoles/ibfm.html" "$T/prometheus-console.png" 1100 1300
check "console: a screenshot, 1100 pixels wide" png_width "$T/prometheus-console.png" 1100
keep_image "$T/prometheus-console.png"
finish
