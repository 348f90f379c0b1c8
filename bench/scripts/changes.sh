#!/bin/bash
# Changes at scale, end to end, as an operator and the fabric make them:
# real OpenSM with the plugin (fast path on) and ibfmd on ibsim, one
# generated fabric, one change after another on the fabric as the last
# left it (docs/BENCHMARKS.md, "Changes at scale"):
#   drain and undrain a spine, then a leaf's up-link, as the runbook has
#     it: `ibfm drain X --dry-run --json`, `ibfm drain X` (ibfmd's check,
#     the change, the read-back), `ibfm undrain X`; ms: a drain's from
#     its dry run's start to the live drain's exit (the dry run's own
#     apart), an undrain's its wall time (each exits once the switches
#     hold the new tables); then the spine drained again, `ibfm
#     rebalance` (its dry run, then the full route of the fabric as
#     drained), timed as a drain, and its undrain (kind "undrain,
#     rebalanced");
#   `ibfm job start` / `ibfm job end` of 64 servers spread over the
#     fabric (half the servers on a smaller one), timed the same way;
#   10 up-links lost (LOST=N: N), the first leaf's, the first spine's
#     and the rest seeded (SEED, default 1), then a whole spine: each an
#     Unlink on ibsim's console, ReLink-ed once OpenSM settled; ms: from
#     the Unlink to the last block the fast path read back
#     (fast-reroute.log) when it read back all it wrote, else to
#     OpenSM's "tables configured".
# Per change: blocks written (OpenSM's: the plugin's pass lines' "LFT
# blocks to send"; the fast path's: fast-reroute.log, else the pass
# lines' "the fast path wrote"), blocks read back equal (the command's
# own report, fast-reroute.log), entries changed (`ibfm routes diff` of
# the plugin's tables before and after), entries that must move
# (`ibfm drain X --dry-run --topo --lfts` offline on the tables before:
# must_move_entries, "-" where it gives none), with VERIFY=1 every
# switch's table read with ibroute and compared with the plugin's (slow:
# small fabrics). Then the median and the slowest of each kind.
# Usage: bench/scripts/changes.sh [-h] [GEN ARGS] (`ibfm topo gen`'s; default
# -l 3 -k 36). Takes flock /tmp/ibfm-heavy.lock itself (HEAVY_LOCK=0:
# not, for a small run). LIDS=plan: OpenSM starts with `ibfm topo lids`'s
# LID layout in its cache (docs/plugin.md). QUIET: seconds without a new line in OpenSM's
# log that mean it settled (default 1.5, 10 above 2,000 hosts). Exit 0
# when no row is marked ("(exit N)", "(OpenSM)", "(P15)"); else 1, the
# files kept.
set -u
case ${1:-} in
-h | --help)
	sed -n '2,/^set -u/ { /^set -u/d; s/^# \{0,1\}//; p }' "$0"
	exit 0
	;;
esac
. "$(dirname "$0")/osm-lib.sh"
heavy_lock "$@"
start=$(date +%s)
cd "$(dirname "$0")/../.." || exit 1
. scripts/tree-env.sh
. bench/scripts/osm-lib.sh
. bench/scripts/ibfmd-lib.sh

[ $# -eq 0 ] && set -- -l 3 -k 36
gen=$*
[ "${LOST:-10}" -ge 2 ] || die "LOST=${LOST}: at least 2 (the first leaf's and spine's up-links)"
"$IBFM" topo gen "$@" -o "$T/f.topo" >/dev/null || die "gen $*"
nhosts=$(grep -c '^Ca' "$T/f.topo")
QUIET=${QUIET:-$([ "$nhosts" -gt 2000 ] && echo 10 || echo 1.5)}
PASS="ibfm: routed "
LOG=$T/opensm.log
SIM_WAIT=${SIM_WAIT:-6000} sim_start "$T/f.topo" -N 65536 -S 8192 -P 524288 -L 49152
sed -n 's/^Ca.*# "\([^ ]*\) .*"$/\1/p' "$T/f.topo" | uniq >"$T/servers"
nserv=$(wc -l <"$T/servers")

# jnum FILE KEY: a number of the JSON in FILE, or nothing.
jnum() { sed -n "s/.*\"$2\": *\([0-9.]*\).*/\1/p" "$1" | head -1; }
# jstr FILE KEY: a string of the JSON in FILE.
jstr() { sed -n "s/.*\"$2\": *\"\([^\"]*\)\".*/\1/p" "$1" | head -1; }
# sum: the numbers on stdin, added.
sum() { awk '{ s += $1 } END { print s + 0 }'; }
# tables: the plugin's last tables (binary when it wrote them).
tables() { [ -f "$T/state/lfts.bin" ] && echo "$T/state/lfts.bin" || echo "$T/state/lfts.dump"; }
# published: snapshot.json holds the plugin's last pass or a later
# generation (a change the fast path made is published without a pass).
published() {
	local g s
	g=$(grep "$PASS" "$LOG" | tail -1 | sed -n 's/.*; generation \([0-9]*\).*/\1/p')
	s=$(sed -n 's/^ *"generation": \([0-9]*\),$/\1/p' "$T/state/snapshot.json" 2>/dev/null)
	[ -n "$g" ] && [ -n "$s" ] && [ "$s" -ge "$g" ]
}
# calm: OpenSM settled and its last pass published.
calm() {
	settled "$T" "$QUIET"
	until_ok 600 "$OSM_PID" "the plugin's snapshot" published
}

# OpenSM on the first host, ibfmd on the second, as ibfmd_beside has it.
# LIDS=plan: OpenSM starts with `ibfm topo lids`'s layout in its cache.
osm_conf "$T/opensm.conf" "$T/state" ibfm
[ "${LIDS:-}" = plan ] && { "$IBFM" topo lids --topo "$T/f.topo" -o "$T/guid2lid" || die "topo lids"; }
OSM_HOST="$(sed -n 1p "$T/servers") mlx5_0" OSM_WAIT=6000 osm_start "$T/opensm.conf"
printf '%s\n' "socket $T/ibfmd.sock" "state_dir $T/state" "sweep_interval 3600" \
	"light_interval 0" "metrics off" >"$T/ibfmd.conf"
ibfmd_start "$(sed -n 2p "$T/servers") mlx5_0"
until_ok 6000 "$DPID" ibfmd ibfmd_swept 1
calm
total=$(grep "$PASS" "$LOG" | tail -1 | sed -n 's/.*LFT blocks to send: [0-9]* of \([0-9]*\);.*/\1/p')

switch_links "$T/f.topo" >"$T/links"
# The spine drained: the third (or the first); the leaf link drained:
# the first leaf's first up-link.
spines=$(awk 'index($3, "spine-") == 1 { print $3 }' "$T/links" | sort -u)
dspine=$(echo "$spines" | sed -n 3p)
[ -n "$dspine" ] || dspine=$(echo "$spines" | sed -n 1p)
read -r _ port desc _ <<<"$(up_link "$T/links" first 1 leaf- spine-)"
dlink="${desc}[$port]"
# The links lost: up-links (leaf to spine, spine to core) as
# "id port desc"; the first spine's is its last link on a 2-level tree.
first_spine=$(up_link "$T/links" first 1 spine- core-)
[ -n "$first_spine" ] || first_spine=$(up_link "$T/links" first '$' spine- leaf-)
{
	up_link "$T/links" first 1 leaf- spine-
	echo "$first_spine"
} >"$T/lost"
# Neither end of those two cables again; then the rest seeded.
awk '{ print $1 ":" $2; print $5 ":" $6 }' "$T/lost" >"$T/taken"
awk '(index($3, "leaf-") == 1 && index($4, "spine-") == 1) || (index($3, "spine-") == 1 && index($4, "core-") == 1)' "$T/links" |
	awk 'NR == FNR { t[$1]; next } !(($1 ":" $2) in t) && !(($5 ":" $6) in t)' "$T/taken" - |
	shuf -n $((${LOST:-10} - 2)) --random-source=<(yes "ibfm-changes-${SEED:-1}") >>"$T/lost"
# The whole spine: the last but one.
whole=$(awk 'index($3, "spine-") == 1 { print $1, $3 }' "$T/links" | sort -u -k2 | tail -2 | head -1)
# The job: N servers spread evenly, N = 64 or half of them, in a seeded
# ring order (neighbours in the list are rarely on one leaf).
njob=$((nserv / 2 < 64 ? nserv / 2 : 64))
awk -v n="$nserv" -v k="$njob" 'BEGIN { for (i = 0; i < k; i++) w[int(i * n / k) + 1] } NR in w' \
	"$T/servers" | shuf --random-source=<(yes "ibfm-job-${SEED:-1}") | paste -sd, >"$T/job.hosts"
# VERIFY: hosts to read tables from (first, middle and last server).
rhosts="$(sed -n "1p; $(((nserv + 1) / 2))p; \$p" "$T/servers" | tr '\n' ' ')"

# mark: where the logs and tables are before a change.
mark() {
	np=$(count "$LOG" "$PASS")
	nc=$(count "$LOG" "tables configured on all switches")
	nf=$(cat "$T/state/fast-reroute.log" 2>/dev/null | wc -l)
	cp "$(tables)" "$T/before.lfts"
}
# must_move ELEMENT: entries whose path crosses ELEMENT on the tables
# before (offline), or "-". The ring pattern: the load is not wanted.
must_move() {
	"$IBFM" drain "$1" --dry-run --topo "$T/f.topo" --lfts "$T/before.lfts" \
		--pattern ring --json >"$T/dry.json" 2>>"$T/dry.err"
	local v rc=$?
	[ "$rc" -le 1 ] || echo "# $1: the dry run failed (exit $rc): $(tail -1 "$T/dry.err")" >&2
	v=$(jnum "$T/dry.json" must_move_entries)
	echo "${v:--}"
}
# written: "BLOCKS BY" for the change since mark: the blocks OpenSM's
# passes sent and those the fast path wrote, and who wrote them.
written() {
	local sent fast by
	grep "$PASS" "$LOG" | tail -n +$((np + 1)) >"$T/passes"
	sent=$(sed -n 's/.*LFT blocks to send: \([0-9]*\) of.*/\1/p' "$T/passes" | sum)
	# Repairs and planned changes (drains, jobs) alike.
	fast_new "$T/state/fast-reroute.log" "$nf" "$T/new" 'fast-reroute\|fast-change'
	# Blocks of a switch cut off (a whole spine's own) go nowhere.
	fast=$(($(fast_sum "$T/new" blocks) - $(fast_sum "$T/new" cut_off)))
	[ "$fast" -gt 0 ] ||
		fast=$(sed -n 's/.*LFT blocks the fast path wrote: \([0-9]*\).*/\1/p' "$T/passes" | sum)
	by=OpenSM
	[ "$fast" = 0 ] || { [ "$sent" = 0 ] && by="fast path" || by="both"; }
	[ "$((sent + fast))" -gt 0 ] || by=-
	echo "$((sent + fast)) $by"
}
# changed: entries changed from the tables before to the plugin's now.
changed() {
	"$IBFM" routes diff "$T/before.lfts" "$(tables)" --topo "$T/f.topo" --json >"$T/diff.json" 2>/dev/null
	jnum "$T/diff.json" changed_entries
}
# switches: with VERIFY=1, whether every switch ibroute reached holds the
# plugin's tables: "equal (N switches)" or "N entries differ"; else "-".
switches() {
	if [ "${VERIFY:-0}" != 1 ] || [ ! -f "$T/state/lfts.dump" ]; then
		echo -
		return
	fi
	# shellcheck disable=SC2086
	read_lfts_any "$T/state/lfts.dump" "$T/read" $rhosts
	lft_entries "$T/read" >"$T/read.e"
	awk 'NR == FNR { g[$1]; next } $1 in g' "$T/read.e" <(lft_entries "$T/state/lfts.dump") >"$T/dump.e"
	local n
	n=$(diff "$T/read.e" "$T/dump.e" | grep -c '^[<>]')
	[ "$n" = 0 ] && echo "equal ($(cut -d' ' -f1 "$T/read.e" | sort -u | wc -l) switches)" ||
		echo "$n entries differ"
}
# row KIND WHAT MS READ MUST: the row of the change since mark (READ:
# blocks read back equal, or "-"). When OpenSM's pass sent some of the
# fast path's blocks otherwise (P15), the time is not the read-back's:
# "(P15)" and RC=1.
row() {
	local w by e ratio ms=$3
	read -r w by <<<"$(written)"
	if tail -n +$((nf + 1)) "$T/state/fast-reroute.log" 2>/dev/null | grep -q '"kind":"fast-reroute-differs"'; then
		echo "# $2: OpenSM's pass routed blocks of the fast path's otherwise (P15)" >&2
		ms="$ms (P15)"
		RC=1
	fi
	e=$(changed)
	ratio=-
	[ "$5" = - ] || [ "$5" = 0 ] || [ -z "$e" ] || ratio=$(awk -v a="$e" -v b="$5" 'BEGIN { printf "%.2f", a / b }')
	echo "| $1 | $2 | $ms | $dry | $w | $by | $4 | ${e:--} | $5 | $ratio | $(switches) |"
	echo "$1|$ms" >>"$T/kinds"
}

# operate KIND WHAT MUST CMD...: an operator's command, timed to its
# exit from its start (or from 'since'); its JSON in $T/out.json.
operate() {
	local kind=$1 what=$2 must=$3 t0=$since ms rc rb bad state
	shift 3
	[ -n "$t0" ] || t0=$(date +%s%3N)
	"$@" --json >"$T/out.json" 2>"$T/out.err"
	rc=$?
	ms=$(($(date +%s%3N) - t0))
	calm
	state=$(jstr "$T/out.json" state)
	case $kind in
	job*) rb=$(jnum "$T/out.json" blocks_verified) ;;
	*)
		rb=$(jnum "$T/out.json" blocks)
		bad=$(($(jnum "$T/out.json" mismatched) + $(jnum "$T/out.json" unread) + 0))
		[ -z "$rb" ] || rb=$((rb - bad))
		;;
	esac
	# Else ibfmd's line ("drain X: done after N s, B blocks").
	[ -n "$rb" ] || rb=$(tail -1 <(grep ': done after [0-9]* s, [0-9]* blocks' "$T/ibfmd.log") |
		sed 's/.*: done after [0-9]* s, \([0-9]*\) blocks.*/\1/')
	if [ "$rc" != 0 ] || [ "$state" != "done" ]; then
		echo "# $kind $what: exit $rc, ${state:-no state}: $(head -c 300 "$T/out.err")" >&2
		ms="$ms (exit $rc)"
		RC=1
	fi
	row "$kind" "$what" "$ms" "${rb:--}" "$must"
}

# checked KIND MUST WORDS...: the runbook's two steps timed as one: the
# dry run (`ibfm WORDS --dry-run --json`, on ibfmd's fabric and the
# plugin's tables), its own time in 'dry', then the live `ibfm WORDS`.
checked() {
	local kind=$1 must=$2 rc
	shift 2
	since=$(date +%s%3N)
	"${ctl[@]}" "$@" --dry-run --json >"$T/dryrun.json" 2>"$T/dryrun.err"
	rc=$?
	dry=$(($(date +%s%3N) - since))
	if [ "$rc" != 0 ]; then
		echo "# ibfm $* --dry-run: exit $rc: $(head -c 300 "$T/dryrun.err")" >&2
		dry="$dry (exit $rc)"
		RC=1
	fi
	operate "$kind" "ibfm $*" "$must" "${ctl[@]}" "$@" --timeout 900
	since=
	dry=-
}

drain_steps() { checked drain "$(must_move "$1")" drain "$1"; }

# The dry run's loads, now and after: the balance a change leaves.
loads() {
	echo "# $1: all-to-all max $(jnum "$T/dryrun.json" all2all_max_load_before) -> $(jnum "$T/dryrun.json" all2all_max_load), shift $(jstr "$T/dryrun.json" max_load_text)" >&2
}

# lose KIND WHAT ELEMENT UNLINK: a failure on ibsim's console, timed to
# the fast path's read-back, then put back.
lose() {
	local kind=$1 what=$2 must t0 tv ms ok w
	must=$(must_move "$3")
	t0=$(date +%s%3N)
	echo "Unlink $4" >&3
	until_ok 6000 "$OSM_PID" "OpenSM's pass" passed "$LOG" "$nc"
	calm
	fast_new "$T/state/fast-reroute.log" "$nf" "$T/new"
	ok=$(fast_sum "$T/new" verified)
	w=$(($(fast_sum "$T/new" blocks) - $(fast_sum "$T/new" cut_off)))
	tv=$(fast_last "$T/new" verified_at)
	if [ "$w" -gt 0 ] && [ "$ok" = "$w" ] && [ -n "$tv" ]; then
		ms=$((tv - t0))
	else
		ms="$(($(stamp "$LOG" "tables configured on all switches" $((nc + 1))) - t0)) (OpenSM)"
		echo "# $what: the fast path read back $ok of $w blocks" >&2
		RC=1
	fi
	row "$kind" "$what" "$ms" "$ok" "$must"
	nc=$(count "$LOG" "tables configured on all switches")
	echo "ReLink $4" >&3
	until_ok 6000 "$OSM_PID" "OpenSM's pass" passed "$LOG" "$nc"
	calm
}

RC=0
since=
dry=-
ctl=("$IBFM" --socket "$T/ibfmd.sock")
echo
echo "\`ibfm topo gen $gen\`: $(grep -c '^Switch' "$T/f.topo") switches, $nhosts hosts, ${total:-?} LFT blocks; ms to every changed block read back"
echo
echo "| kind | change | ms | dry run ms | blocks written | by | read back equal | entries changed | must move | changed / must move | switches (ibroute) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
mark
drain_steps "$dspine"
loads "drain $dspine"
mark
operate undrain "ibfm undrain $dspine" - "${ctl[@]}" undrain "$dspine" --timeout 900
mark
drain_steps "$dlink"
mark
operate undrain "ibfm undrain $dlink" - "${ctl[@]}" undrain "$dlink" --timeout 900
# A drain that lasts, rebalanced (a full route of the fabric as
# drained), then undrained: set apart, as its undrain is a full route
# from a full route.
mark
drain_steps "$dspine"
mark
checked rebalance - rebalance
loads "rebalance, $dspine drained"
mark
operate "undrain, rebalanced" "ibfm undrain $dspine" - "${ctl[@]}" undrain "$dspine" --timeout 900
mark
operate "job start" "ibfm job start ($njob servers)" - "${ctl[@]}" job start bench --hosts "$(cat "$T/job.hosts")" --timeout 900
mark
operate "job end" "ibfm job end ($njob servers)" - "${ctl[@]}" job end bench --timeout 900
# The list on fd 4: nothing a change runs reads it.
while read -r id port desc peer _ <&4; do
	mark
	lose "link lost" "${desc}[$port] (to $peer)" "${desc}[$port]" "\"$id\"[$port]"
done 4<"$T/lost"
mark
lose "switch lost" "${whole#* } (whole switch)" "${whole#* }" "\"${whole%% *}\""

echo
echo "Per kind, ms:"
echo
echo "| kind | changes | median | slowest | flagged (not in the figures) |"
echo "|---|---|---|---|---|"
for k in drain undrain rebalance "undrain, rebalanced" "job start" "job end" "link lost" "switch lost"; do
	awk -F'|' -v k="$k" '$1 == k { print $2 }' "$T/kinds" >"$T/all"
	grep -x '[0-9]*' "$T/all" | sort -n >"$T/ms"
	med=$(median <"$T/ms")
	slow=$(tail -1 "$T/ms")
	echo "| $k | $(wc -l <"$T/all") | ${med:--} | ${slow:--} | $(grep -vcx '[0-9]*' "$T/all") |"
done
echo
echo "$(($(date +%s) - start)) s in all."
grep -h "ERR P" "$LOG" | cut -c1-200 | sed 's/^/# OpenSM: /' >&2
# A change that did not end done: its files are kept.
FAILS=$RC
exit "$RC"
