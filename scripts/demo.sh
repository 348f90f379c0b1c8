#!/bin/bash
# The demo on a simulated fabric: a generated 648-host fat tree in ibsim,
# OpenSM routing it, and ibfm checking that what ibnetdiscover finds is
# what was meant to be cabled, before and after a cable is pulled.
# (OpenSM routes with its own ftree engine until the ibfm plugin lands.)
set -u
cd "$(dirname "$0")/.."
export IBFM=$PWD/cli/ibfm
export IBSIM=${IBSIM:-$(command -v ibsim || echo /usr/sbin/ibsim)}
export UMAD2SIM=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
OPENSM=${OPENSM:-$(command -v opensm || echo /usr/sbin/opensm)}
IBNETDISCOVER=${IBNETDISCOVER:-$(command -v ibnetdiscover || echo /usr/sbin/ibnetdiscover)}
IBTRACERT=${IBTRACERT:-$(command -v ibtracert || echo /usr/sbin/ibtracert)}
. tests/integration/lib.sh

step() { echo "[$1/6] $2" >&2; }
export SIM_HOST="node001 mlx5_0"

step 1 "generating a 2-level radix-36 fat tree (648 hosts)"
"$IBFM" topo gen --levels 2 --radix 36 -o "$T/fabric.topo" || exit 1
"$IBFM" topo show --topo "$T/fabric.topo"

step 2 "starting ibsim on it"
sim_start "$T/fabric.topo"

step 3 "running OpenSM once (engine ftree) until SUBNET UP"
start=$(date +%s.%N)
(cd "$T" && OSM_CACHE_DIR="$T" OSM_TMP_DIR="$T" LD_PRELOAD="$UMAD2SIM" \
	timeout 300 "$OPENSM" -o -R ftree -d2 -f "$T/opensm.log" >"$T/opensm.out" 2>&1)
end=$(date +%s.%N)
grep -q "SUBNET UP" "$T/opensm.log" || die "OpenSM did not reach SUBNET UP (see $T/opensm.log)"
awk -v s="$start" -v e="$end" -v errs="$(grep -c ' ERR ' "$T/opensm.log")" \
	'BEGIN { printf "OpenSM: SUBNET UP in %.1f s, %d ERR lines in its log\n", e - s, errs }'

step 4 "discovering with ibnetdiscover and comparing with the expected file"
sim_client "$IBNETDISCOVER" >"$T/found.topo" 2>/dev/null
"$IBFM" topo diff --expected "$T/fabric.topo" --topo "$T/found.topo"

step 5 "tracing a path with ibtracert"
# The LID on the port line after a CA's record header, as ibnetdiscover prints it.
lid_of() { awk -v d="# \"$1\"" 'index($0, d) && /^Ca/ { getline; sub(/.*# lid /, ""); print $1; exit }' "$T/found.topo"; }
src=$(lid_of "node001 mlx5_0")
dst=$(lid_of "node648 mlx5_0")
echo "node001 (lid $src) -> node648 (lid $dst):"
sim_client "$IBTRACERT" "$src" "$dst" 2>/dev/null

step 6 "pulling leaf-01's cable on port 19 and discovering again"
leaf=$(sed -n 's/^Switch\t36 "\([^"]*\)"\t\t# "leaf-01".*/\1/p' "$T/fabric.topo")
sim_cmd "Unlink \"$leaf\"[19]"
sim_client "$IBNETDISCOVER" >"$T/found2.topo" 2>/dev/null
"$IBFM" topo diff --expected "$T/fabric.topo" --topo "$T/found2.topo"
sim_cmd Quit
exit 0
