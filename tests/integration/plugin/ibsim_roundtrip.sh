#!/bin/bash
# Generated fabrics load in a real ibsim, a real ibnetdiscover reads them
# back through libumad2sim, and ibfm parses that into the same fabric:
# same node and port GUIDs, same links on the same port numbers.
# Then a cable pulled on ibsim's console shows up as exactly that link.
. "$TESTLIB"

[ -x "${IBNETDISCOVER:-}" ] || die "ibnetdiscover not found (install infiniband-diags)"

roundtrip() { # roundtrip NAME GEN-ARGS...
	local name=$1
	shift
	"$IBFM" topo gen "$@" -o "$T/$name.topo" || die "gen $name"
	sim_start "$T/$name.topo"
	SIM_HOST="node001 mlx5_0" sim_client "$IBNETDISCOVER" >"$T/$name.disc" 2>"$T/$name.disc.err"
	check "$name: ibnetdiscover ran" test -s "$T/$name.disc"
	check "$name: same fabric after ibsim + ibnetdiscover" \
		"$IBFM" topo diff --expected "$T/$name.topo" --topo "$T/$name.disc"
	"$IBFM" topo show --topo "$T/$name.topo" --json | grep -v '"file"' >"$T/$name.a.json"
	"$IBFM" topo show --topo "$T/$name.disc" --json | grep -v '"file"' >"$T/$name.b.json"
	check "$name: same summary" cmp -s "$T/$name.a.json" "$T/$name.b.json"
}

stop_sim() {
	sim_cmd Quit
	exec 3>&-
	wait "$SIM_PID" 2>/dev/null
	rm -f "$T/console"
}

roundtrip two-level -l 2 -k 16
stop_sim
roundtrip three-level-rails -l 3 -k 8 --rails 2
stop_sim
roundtrip degraded -l 2 -k 24 --remove-links 5 --remove-switches 1 --seed 3
stop_sim
roundtrip full-648 -l 2 -k 36

# Pull leaf-01's first up-link on the simulator: the diff names it.
leaf=$(sed -n 's/^Switch\t36 "\([^"]*\)"\t\t# "leaf-01".*/\1/p' "$T/full-648.topo")
sim_cmd "Unlink \"$leaf\"[19]"
SIM_HOST="node001 mlx5_0" sim_client "$IBNETDISCOVER" >"$T/pulled.disc" 2>/dev/null
"$IBFM" topo diff --expected "$T/full-648.topo" --topo "$T/pulled.disc" >"$T/pulled.diff"
rc=$?
check "pulled cable: diff exits 1" test $rc -eq 1
check "pulled cable: one link-missing at leaf-01[19] - spine-01[1]" bash -c \
	"grep -q '^1 difference$' '$T/pulled.diff' && grep -q '^link-missing *\"leaf-01\"\[19\] (0x[0-9a-f]*) - \"spine-01\"\[1\]' '$T/pulled.diff'"
stop_sim

finish
