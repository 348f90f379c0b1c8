#!/bin/bash
# ibfm topo slurm (#43): Slurm's topology.conf from the fabric, read by a
# real slurmctld (topology/tree) in this test's directory, on a free
# port, as root, with auth/none (no munge): `scontrol show topology`
# lists every leaf with the hosts ibfm put under it, and the levels
# above. A server's HCAs on several rail leaves are accepted (slurmctld
# warns, as documented). --check finds a host moved (exit 1, the host
# named) and agrees with the file written (exit 0); drained switches
# follow the drain list; and without --topo the fabric is ibfmd's last
# sweep, the same file as from the topology file.
. "$TESTLIB"

SLURMCTLD=$(command -v slurmctld) || die "slurmctld not found (install slurmctld)"
SCONTROL=$(command -v scontrol) || die "scontrol not found (install slurm-client)"

# topology DIR: `scontrol show topology` of the slurmctld on DIR.
topology() {
	SLURM_CONF="$1/slurm.conf" timeout 5 "$SCONTROL" show topology >"$1/show.txt" 2>"$1/show.err"
}

# ctld_show DIR NODES COUNT: slurmctld on DIR/slurm.conf naming the hosts
# NODES (a host list of COUNT, on 127.0.0.x), with DIR/topology.conf
# beside it; `scontrol show topology` into DIR/show.txt; then stopped
# by its PID. Bounded: timeout, and the test's cleanup kills it.
ctld_show() {
	local dir=$1 nodes=$2 n=$3 tpid pid i
	mkdir -p "$dir/state" "$dir/spool"
	cat >"$dir/slurm.conf" <<CONF
ClusterName=ibfmtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmUser=root
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmctldLogFile=$dir/slurmctld.log
SchedulerType=sched/builtin
TopologyPlugin=topology/tree
SelectType=select/cons_tres
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
NodeName=$nodes NodeAddr=127.0.0.[1-$n] CPUs=1 State=UNKNOWN
PartitionName=all Nodes=ALL Default=YES State=UP
CONF
	SLURM_CONF="$dir/slurm.conf" timeout 120 "$SLURMCTLD" -D -i \
		>"$dir/ctld.out" 2>&1 &
	tpid=$!
	PIDS="$PIDS $tpid"
	until_ok 300 "$tpid" slurmctld topology "$dir"
	pid=$(cat "$dir/slurmctld.pid" 2>/dev/null)
	[ -n "$pid" ] && PIDS="$PIDS $pid"
	kill "$tpid" 2>/dev/null
	for i in $(seq 100); do
		kill -0 "$tpid" 2>/dev/null || break
		sleep 0.1
	done
	! kill -0 "$tpid" 2>/dev/null || die "slurmctld did not stop"
}

# leaves_listed CONF SHOW: every leaf line of CONF is in SHOW, its hosts
# as slurmctld expanded and compressed them (Level=0).
leaves_listed() {
	local name nodes bad=0
	while read -r name nodes; do
		grep -qxF "SwitchName=$name Level=0 LinkSpeed=1 Nodes=$nodes" "$2" || {
			echo "# $name Nodes=$nodes not in scontrol's topology"
			bad=1
		}
	done < <(sed -n 's/^SwitchName=\([^ ]*\) Nodes=\(.*\)$/\1 \2/p' "$1")
	[ "$bad" = 0 ] && [ "$(grep -c '^SwitchName=[^ ]* Nodes=' "$1")" -gt 0 ]
}

# guid_of DESC: the switch GUID of "DESC" in $T/t3.topo.
guid_of() {
	grep -B1 "# \"$1\"" "$T/t3.topo" | sed -n 's/^switchguid=\(0x[0-9a-f]*\).*/\1/p'
}

check "topo slurm --help" bash -c "\"$IBFM\" topo slurm --help | grep -q '^Usage: ibfm topo slurm'"
check "-o and --check together: exit 2" bash -c \
	"\"$IBFM\" topo slurm -t x -o y --check z 2>/dev/null; test \$? -eq 2"

# A three-level fat tree: 128 hosts, 32 leaves, 32 spines, 16 cores.
"$IBFM" topo gen --levels 3 --radix 8 -o "$T/t3.topo" >/dev/null || die "gen"
mkdir -p "$T/t3"
"$IBFM" topo slurm --topo "$T/t3.topo" -o "$T/t3/topology.conf"
check "written: exit 0" test $? = 0
check "written: 32 leaves" test "$(grep -c '^SwitchName=leaf-[0-9]* Nodes=node\[' "$T/t3/topology.conf")" = 32
check "written: 48 switches above" test "$(grep -c '^SwitchName=[^ ]* Switches=' "$T/t3/topology.conf")" = 48
ctld_show "$T/t3" "node[001-128]" 128
check "slurmctld: every leaf with its hosts" leaves_listed "$T/t3/topology.conf" "$T/t3/show.txt"
check "slurmctld: 80 switches" test "$(grep -c '^SwitchName=' "$T/t3/show.txt")" = 80
check "slurmctld: cores on level 2, over all 128 hosts" \
	grep -qx 'SwitchName=core-01 Level=2 LinkSpeed=1 Nodes=node\[001-128\] Switches=spine-\[[0-9,-]*\]' "$T/t3/show.txt"
check "slurmctld: no host without a switch" bash -c "! grep -a 'lack access' '$T/t3/slurmctld.log'"

check "--check: the file written agrees (exit 0)" \
	"$IBFM" topo slurm --topo "$T/t3.topo" --check "$T/t3/topology.conf"
# node005 moved from leaf-02 to leaf-01.
sed -e 's/^SwitchName=leaf-01 Nodes=node\[001-004\]$/SwitchName=leaf-01 Nodes=node[001-005]/' \
	-e 's/^SwitchName=leaf-02 Nodes=node\[005-008\]$/SwitchName=leaf-02 Nodes=node[006-008]/' \
	"$T/t3/topology.conf" >"$T/moved.conf"
"$IBFM" topo slurm --topo "$T/t3.topo" --check "$T/moved.conf" >"$T/moved.txt"
check "--check: a host moved, exit 1" test $? = 1
check "--check: the host named, with both leaves" \
	grep -qxF 'host-moved      node005: under leaf-01 in the file (line 4), under leaf-02 in the fabric' "$T/moved.txt"
check "--check: one finding" grep -qx '1 finding: .* disagrees with the fabric' "$T/moved.txt"
"$IBFM" topo slurm --topo "$T/t3.topo" --check "$T/moved.conf" --json >"$T/moved.json"
check "--check --json: the finding" grep -q '"kind": "host-moved"' "$T/moved.json"
printf 'SwitchName=a Nodes=n[1-\n' >"$T/bad.conf"
check "--check: a bad file, exit 3 with FILE:LINE" bash -c \
	"\"$IBFM\" topo slurm --topo '$T/t3.topo' --check '$T/bad.conf' 2>'$T/err'; test \$? -eq 3 && grep -q 'bad.conf:1: W05' '$T/err'"

# Drains: a spine left out, a leaf kept and marked.
printf '%s\n%s\n' "$(guid_of spine-01)" "$(guid_of leaf-01)" >"$T/drains"
"$IBFM" topo slurm --topo "$T/t3.topo" --drain-list "$T/drains" >"$T/drained.conf"
check "drained spine left out" bash -c "! grep -q '^SwitchName=spine-01 ' '$T/drained.conf' && grep -q '^# spine-01: drained' '$T/drained.conf'"
check "drained leaf kept, marked" bash -c "grep -q '^SwitchName=leaf-01 Nodes=node\[001-004\]' '$T/drained.conf' && grep -q '^# leaf-01: drained' '$T/drained.conf'"
"$IBFM" topo slurm --topo "$T/t3.topo" --drain-list "$T/drains" --check "$T/t3/topology.conf" >"$T/dcheck.txt"
check "--check with drains: the drained spine named" \
	grep -q '^switch-unknown  spine-01: .*drained in ibfm, left out$' "$T/dcheck.txt"

# Rails: 32 servers, each with an HCA on each of 8 leaves.
"$IBFM" topo gen --preset superpod-h100 --units 1 -o "$T/sp.topo" >/dev/null || die "gen superpod"
mkdir -p "$T/sp"
"$IBFM" topo slurm --topo "$T/sp.topo" -o "$T/sp/topology.conf"
check "rails: each server under all 8 leaves" \
	test "$(grep -c '^SwitchName=leaf-r[0-7]-01 Nodes=node\[001-032\]$' "$T/sp/topology.conf")" = 8
ctld_show "$T/sp" "node[001-032]" 32
check "rails: slurmctld takes them" leaves_listed "$T/sp/topology.conf" "$T/sp/show.txt"
check "rails: slurmctld warns of hosts on several leaves" \
	grep -qa 'Multiple leaf switches contain nodes' "$T/sp/slurmctld.log"

# From ibfmd's last sweep: the same file as from the topology file.
"$IBFM" topo gen --levels 2 --radix 4 -o "$T/f.topo" >/dev/null || die "gen small"
sim_start "$T/f.topo"
cat >"$T/ibfmd.conf" <<CONF
socket $T/ibfmd.sock
state_dir $T/state
sweep_interval 3600
light_interval 0
metrics off
CONF
ibfmd_start "node001 mlx5_0"
until_ok 300 "$DPID" ibfmd ibfmd_swept 1
"$IBFM" --socket "$T/ibfmd.sock" topo slurm >"$T/swept.conf"
check "from ibfmd: exit 0" test $? = 0
"$IBFM" topo slurm --topo "$T/f.topo" >"$T/file.conf"
check "from ibfmd: the same switches and hosts as from the file" \
	diff <(grep -v '^#' "$T/swept.conf") <(grep -v '^#' "$T/file.conf")
check "from ibfmd: --check agrees" \
	"$IBFM" --socket "$T/ibfmd.sock" topo slurm --check "$T/file.conf"

finish
