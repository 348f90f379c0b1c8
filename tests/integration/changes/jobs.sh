#!/bin/bash
# The job registry live, with OpenSM, the plugin and ibfmd on ibsim: a
# job started on 4 servers (a Slurm host list, an --order) is written to
# state_dir/jobs.list in ring order, the plugin routes again, ibfmd
# confirms it on the switches, lists it and says so in its events; bad
# requests are refused with exit 3 and the list untouched, lists of
# 10,000 hosts among them (read whole, checked to the last); a job ended
# is gone; a running job is still listed after ibfmd restarts.
. "$TESTLIB"

json_num() { sed -n "s/.*\"$2\": *\([0-9.]*\).*/\1/p" "$1" | head -1; }
ask() { "$IBFM" --socket "$T/ibfmd.sock" "$@"; }
generation() { sed -n 's/^ *"generation": \([0-9]*\),$/\1/p' "$T/state/snapshot.json"; }

routed_fabric -l 2 -k 8
ibfmd_beside
gen0=$(generation)
cp "$T/state/lfts.dump" "$T/static.dump"

# 009->001, 001->005, 005->002, 002->009: d-mod-k sends 001->005 and
# 002->009 up one link of leaf 1 (destinations 4 and 8 mod 4 up-links).
ask job start 4711 --hosts 'node[001-002],node005,node009' \
	--order node009,node001,node005,node002 --timeout 60 --json >"$T/start.json"
check "job start: exit 0" test $? = 0
check "job start: confirmed on the switches" grep -q '"state": *"done"' "$T/start.json"
check "job start: the changed blocks are counted" grep -q '"blocks_changed": *[0-9]' "$T/start.json"
check "job start: and those verified" grep -q '"blocks_verified": *[0-9]' "$T/start.json"
check "jobs.list holds the job in ring order" grep -qx '4711 node009,node001,node005,node002 # started [0-9]*' "$T/state/jobs.list"
check "the plugin routed again (a new generation)" test "$(generation)" -gt "$gen0"
check "... as a reroute for the jobs list" grep -q 'jobs.list changed: rerouting' "$T/opensm.log"
check "job start: the generation it was confirmed on" test "$(json_num "$T/start.json" generation)" -gt "$gen0"
check "job start: blocks changed" test "$(json_num "$T/start.json" blocks_changed)" -gt 0
check "job start: all of them read back equal" test "$(json_num "$T/start.json" blocks_verified)" = "$(json_num "$T/start.json" blocks_changed)"
check "sharp.json: the job's SHARP tree, by its ID" grep -q '"jobs":\[{"id":1,"name":"4711","tree":[0-9]*,"root":{[^}]*},"hosts":4,' "$T/state/sharp.json"
check "the plugin logged its job routes" grep -q 'jobs: 1 running, 4 ring flows: 4 on links of their own' "$T/opensm.log"

# The switches' tables as ibroute reads them: the job's rings on links of
# their own; only the members' entries changed.
read_lfts "$T/state/lfts.dump" "$T/jobs.readback" "node002 mlx5_0" || die "ibroute failed"
"$IBFM" eval --topo "$T/f.topo" --lfts "$T/static.dump" --pattern jobs --jobs "$T/state/jobs.list" --json >"$T/static.eval"
check "static tables: two ring flows on one link" test "$(json_num "$T/static.eval" max_load)" = 2
"$IBFM" eval --topo "$T/f.topo" --lfts "$T/jobs.readback" --pattern jobs --jobs "$T/state/jobs.list" --json >"$T/jobs.eval"
check "on the switches: max load 1" test "$(json_num "$T/jobs.eval" max_load)" = 1
check "on the switches: ring speed 1" test "$(json_num "$T/jobs.eval" job_speed)" = 1
member_lids() {
	sed -n "s/^0x\([0-9a-f]*\) [0-9]* : (Channel Adapter.*'node00[1259] mlx5_0')/\1/p" "$T/jobs.readback" | sort -u
}
changed_lids() {
	diff <(lft_entries "$T/static.dump") <(lft_entries "$T/jobs.readback") |
		sed -n 's/^> [^ ]* 0x\([0-9a-f]*\) .*/\1/p' | sort -u
}
member_lids >"$T/member.lids"
changed_lids >"$T/changed.lids"
check "the members' LIDs are known" test "$(wc -l <"$T/member.lids")" = 4
check "some entries changed" test -s "$T/changed.lids"
check "only the members' entries changed" test -z "$(comm -23 "$T/changed.lids" "$T/member.lids")"

ask job list --json >"$T/list.json"
check "job list --json: the job, 4 members" grep -q '"id":"4711","members":4,' "$T/list.json"
check "job list --json: hosts in ring order" grep -q '"hosts":\["node009","node001","node005","node002"\]' "$T/list.json"
ask events --json >"$T/events.json"
check "a job-start event" grep -q '"kind":"job-start","ports":\["4711"\]' "$T/events.json"
check "the request is audited" grep -q '"job-start"' "$T/state/audit.log"

# Refused, with exit 3 and nothing changed.
cp "$T/state/jobs.list" "$T/list.before"
refused() {
	local what=$1 want=$2
	shift 2
	ask job "$@" >/dev/null 2>"$T/refused.err"
	local rc=$?
	check "$what: exit 3" test "$rc" = 3
	check "$what: says why" grep -q "$want" "$T/refused.err"
	check "$what: jobs.list unchanged" cmp -s "$T/list.before" "$T/state/jobs.list"
}
refused "an unknown host" 'unknown host "nod003"' start 9 --hosts node003,nod003
check "an unknown host: did you mean" grep -q 'did you mean "node003"' "$T/refused.err"
refused "a running job's ID" 'job 4711 is running already' start 4711 --hosts node020
refused "a host of a running job" 'in running job 4711' start 12 --hosts node020,node005
refused "an HCA of a running job's server" 'in running job 4711' start 12 --hosts 'node020,node001 mlx5_0'
refused "a host listed twice" 'listed twice' start 12 --hosts node020,node021,node020
refused "a bad ID" 'bad job ID' start 'a#b' --hosts node020
refused "an order that is not the hosts" 'not a permutation' start 12 --hosts node020,node021 --order node020,node022
refused "a bad host list" 'unbalanced brackets' start 12 --hosts 'node[020-021'
refused "ending a job that does not run" 'no running job 99' end 99

# A job of 10,000 servers: its request carries the list whole (a line
# may be 1 MiB; before, a string argument was cut at 16 KiB, ~1,100 such
# names). This fabric has 32 servers, and every host must be one of them,
# so the lists are its HCAs over and over (of servers no job holds): ibfmd checks all 10,000 in
# order and names the first it cannot take, the last. 150 KB is more than
# one argument may be (128 KiB): --hosts-file.
big_list() { # N LAST: N-1 HCAs of servers 13 to 32 (no job runs there), then LAST
	awk -v n="$1" -v last="$2" 'BEGIN {
		for (i = 1; i < n; i++) printf "node%03d mlx5_0\n", (i - 1) % 20 + 13
		print last }'
}
big_list 10000 gpu-node-10000 >"$T/big.list"
check "10,000 hosts: a list of $(wc -c <"$T/big.list") bytes" test "$(wc -c <"$T/big.list")" -gt 140000
refused "10,000 hosts, the last unknown" 'unknown host "gpu-node-10000"' start big --hosts-file "$T/big.list"
big_list 10000 'node013 mlx5_0' >"$T/big.list"
refused "10,000 known hosts, some twice" 'listed twice' start big --hosts-file "$T/big.list"
tr '\n' , <"$T/big.list" | sed 's/ mlx5_0//g; s/node013,$/gpu-node-10000/' >"$T/big.args"
ask call job-start id=big "hosts=$(cat "$T/big.args")" >/dev/null 2>"$T/refused.err"
check "ibfm call with 10,000 hosts: answered by ibfmd (exit 3)" test $? = 3
check "... naming the last host" grep -q 'unknown host "gpu-node-10000"' "$T/refused.err"
awk 'BEGIN { for (i = 0; i < 60000; i++) print "node001 mlx5_0-a-long-name" }' >"$T/huge.list"
ask job start huge --hosts-file "$T/huge.list" >/dev/null 2>"$T/refused.err"
check "a list over 1 MiB: refused by the CLI (exit 2)" test $? = 2
check "... saying the limit" grep -q 'longer than a request line may be (1048576 bytes)' "$T/refused.err"

# A second job, started and ended; its blocks confirmed each time.
ask job start 4712 --hosts 'node[010-012]' --timeout 60 >"$T/start2.txt"
check "a second job: exit 0" test $? = 0
check "a second job: the text report" grep -q '^job start 4712: done' "$T/start2.txt"
check "both jobs listed" test "$(grep -vc '^#' "$T/state/jobs.list")" = 2
ask job end 4712 --timeout 60 --json >"$T/end2.json"
check "job end: exit 0" test $? = 0
check "job end: confirmed" grep -q '"state": *"done"' "$T/end2.json"
check "job end: gone from jobs.list" bash -c "! grep -q '^4712 ' '$T/state/jobs.list'"
ask events --json >"$T/events.json"
check "a job-end event" grep -q '"kind":"job-end","ports":\["4712"\]' "$T/events.json"

# The Slurm scripts: the job's host list as Slurm gives it; failing open.
slurm() {
	IBFM="$IBFM" IBFM_SOCKET="$1" SLURM_JOB_ID=77 SLURM_JOB_NODELIST='node[030-031]' \
		bash "$SLURM_DIR/$2.sh" 2>>"$T/slurm.err"
}
SLURM_DIR=$(dirname "$TESTLIB")/../../contrib/slurm
slurm "$T/ibfmd.sock" prolog
check "the prolog: exit 0" test $? = 0
check "the prolog registered job 77" grep -q '^77 node030,node031 ' "$T/state/jobs.list"
slurm "$T/ibfmd.sock" epilog
check "the epilog: exit 0" test $? = 0
check "the epilog ended it" bash -c "! grep -q '^77 ' '$T/state/jobs.list'"
slurm "$T/nowhere.sock" prolog
check "the prolog without ibfmd: still exit 0 (fails open)" test $? = 0
check "the prolog without ibfmd: jobs.list unchanged" cmp -s "$T/list.before" "$T/state/jobs.list"

# The registry survives a restart of ibfmd.
kill "$DPID"
wait "$DPID" 2>/dev/null
ibfmd_start "node002 mlx5_0"
until_ok 300 "$DPID" ibfmd ibfmd_swept 1
check "after a restart: ibfmd read the registry" grep -q 'jobs.list: 1 running jobs' "$T/ibfmd.log"
ask job list >"$T/list.txt"
check "after a restart: the running job is listed" grep -q '^4711  *4  *[0-9-]* [0-9:]* *node009,node001,node005,node002$' "$T/list.txt"
ask job end 4711 --timeout 60 >/dev/null
check "ending it: exit 0" test $? = 0
ask job list --json >"$T/list.json"
check "no job listed" grep -q '"jobs":\[\]' "$T/list.json"
read_lfts "$T/state/lfts.dump" "$T/end.readback" "node002 mlx5_0" || die "ibroute failed"
check "no job left: the switches hold the static tables again" \
	cmp -s <(lft_entries "$T/static.dump") <(lft_entries "$T/end.readback")
check "ibfmd still up" kill -0 "$DPID"
finish
