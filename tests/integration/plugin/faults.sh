#!/bin/bash
# Fault injection with OpenSM, the plugin and ibfmd on ibsim: a seeded
# sequence of uplink failures and recoveries, and a spine removed and
# restored. After every step: the plugin published a new generation,
# ibfmd's events name the change (found by its light check alone), the
# switches' own tables (read with ibroute) reach every CA from every CA
# over the fabric as it now is, with no credit loop, and nothing crashed.
# SEED=N picks another sequence. The plugin's fast path is on (its
# default) and races OpenSM's own pass at each cut (which wins on so
# small a fabric varies): every check holds either way, and OpenSM's
# pass never routes a block the fast path wrote otherwise (no P15);
# FAST_REROUTE=off runs the same steps with OpenSM's passes alone.
. "$TESTLIB"
[ "${FAST_REROUTE:-on}" = off ] && export PLUGIN_OPTS="fast_reroute=off"
fast_first=0

SEED=${SEED:-7}
RANDOM=$SEED
echo "# seed $SEED"
ask() { "$IBFM" --socket "$T/ibfmd.sock" "$@"; }
gen() { sed -n 's/^ *"generation": \([0-9]*\),$/\1/p' "$T/state/snapshot.json"; }
nevents() { ask events --json | grep -o '"seq":' | wc -l; }

routed_fabric -l 2 -k 8
cat >"$T/ibfmd.conf" <<CONF
socket $T/ibfmd.sock
state_dir $T/state
sweep_interval 3600
light_interval 1
metrics off
CONF
ibfmd_start "node002 mlx5_0"
until_ok 300 "$DPID" ibfmd ibfmd_swept 1

# settle: until the plugin has published nothing new for 2 s (at most 30 s).
settle() {
	local g=-1 quiet=0 i=0
	while [ "$quiet" -lt 20 ] && [ $((i += 1)) -le 300 ]; do
		[ "$(gen)" = "$g" ] && quiet=$((quiet + 1)) || quiet=0
		g=$(gen)
		sleep 0.1
	done
}

id_of() { sed -n "s/^Switch.*\"\\(S-[0-9a-f]*\\)\"\\t\\t# \"$1\".*/\\1/p" "$T/f.topo"; }
down=""   # uplinks cut now, as "leaf-NN:PORT"

# step WHAT SIM-COMMAND... EXPECTED-EVENT-KIND: one fault or repair, then
# every check. The event must name WHO (a node description).
step() {
	local what=$1 kind=$2 who=$3 g0 e0
	shift 3
	g0=$(gen)
	e0=$(nevents)
	for c in "$@"; do sim_cmd "$c"; done
	check "$what: the plugin rerouted" wait_generation "$T/state" $((g0 + 1))
	event() { ask events --json --since "$e0" | grep -q "\"kind\":\"$kind\".*\\\\\"$who\\\\\""; }
	until_ok 150 "$DPID" ibfmd event
	check "$what: ibfmd's event names $who ($kind)" event
	# Once OpenSM is done (a restored spine is 8 traps, 8 reroutes): the
	# switches' tables over the fabric as ibfmd sweeps it now.
	settle
	ibfmd_sweep_now
	cp "$T/state/lfts.dump" "$T/dump.now"
	read_lfts_any "$T/dump.now" "$T/readback" node001 node017 node032
	check "$what: ibroute read every switch OpenSM routes" \
		test "$(grep -c '^Unicast lids' "$T/readback")" = "$(grep -c '^Unicast lids' "$T/dump.now")"
	"$IBFM" check --topo "$T/fabric.topo" --lfts "$T/readback" --ca-sources-only --json >"$T/check.json"
	check "$what: every CA reaches every CA on the switches' tables" grep -q '"unreachable_ca_pairs": 0,' "$T/check.json"
	check "$what: no credit loop" grep -q '"credit_loops": 0' "$T/check.json"
	check "$what: OpenSM, ibfmd and ibsim still up" kill -0 "$OSM_PID" "$DPID" "$SIM_PID"
}

cut() {
	local leaf port
	while :; do
		leaf=leaf-0$((RANDOM % 8 + 1))
		port=$((RANDOM % 4 + 5))
		case " $down " in *" $leaf:$port "*) continue ;; esac
		break
	done
	down="$down $leaf:$port"
	local f0
	f0=$(nfast)
	step "cut $leaf[$port]" link-missing "$leaf" "Unlink \"$(id_of "$leaf")\"[$port]"
	[ "$(nfast)" -gt "${f0:-0}" ] && fast_first=$((fast_first + 1))
}

mend() {
	local l=${down# }
	l=${l%% *}
	down=${down/ $l/}
	step "mend ${l%:*}[${l#*:}]" link-extra "${l%:*}" "ReLink \"$(id_of "${l%:*}")\"[${l#*:}]"
}

cut
cut
mend
cut
mend
mend
spine=spine-0$((RANDOM % 4 + 1))
relinks=()
for p in 1 2 3 4 5 6 7 8; do relinks+=("ReLink \"$(id_of "$spine")\"[$p]"); done
step "remove $spine" node-missing "$spine" "Unlink \"$(id_of "$spine")\""
step "restore $spine" node-extra "$spine" "${relinks[@]}"
if [ "${FAST_REROUTE:-on}" != off ]; then
	echo "# the fast path repaired $fast_first of 3 cuts before OpenSM's pass"
	check "OpenSM's passes never routed a block the fast path wrote otherwise (no P15)" \
		sh -c "! grep -q 'ERR P15' '$T/opensm.log'"
fi
finish
