#!/bin/bash
# ibfm links (#22): every port as iblinkinfo prints it, through ibfmd.
# On a routed fabric every cabled port is Active/LinkUp and --down and
# --degraded find nothing (exit 0); a host cable pulled on ibsim takes
# the HCA out of the sweep, and its leaf port shows Down with the HCA it
# was cabled to (exit 1). --node-name-map renames nodes in the output,
# and a bad map line is refused with FILE:LINE (exit 3).
. "$TESTLIB"

ask() { "$IBFM" --socket "$T/ibfmd.sock" "$@"; }
# lines FILE: the port lines of `ibfm links` output.
lines() { grep -c ')==>' "$1"; }

routed_fabric -l 2 -k 4
cat >"$T/ibfmd.conf" <<CONF
socket $T/ibfmd.sock
state_dir $T/state
sweep_interval 3600
light_interval 1
CONF
ibfmd_start "node001 mlx5_0"
until_ok 300 "$DPID" ibfmd ibfmd_swept 1

ask links >"$T/links.txt"
check "links: exit 0" test $? = 0
nlinks=$(sed -n 's/.*"links":\([0-9]*\).*/\1/p' "$T/s.json")
check "links: a line for each end of the $nlinks links" \
	test "$(grep -c ')==> *[0-9]* *[0-9]*\[  \] "[^"]' "$T/links.txt")" = $((2 * nlinks))
check "links: every cabled port Active/LinkUp" \
	test "$(grep ')==> *[0-9]* *[0-9]*\[  \] "[^"]' "$T/links.txt" | grep -vc 'Active/  LinkUp')" = 0
check "links: a block per switch, as iblinkinfo" \
	grep -qE '^Switch: 0x[0-9a-f]{16} leaf-01:$' "$T/links.txt"
check "links: a block per CA" grep -qE '^CA: 0x[0-9a-f]{16} node004 mlx5_0:$' "$T/links.txt"
check "links: iblinkinfo's link column" \
	grep -qE '^ +[0-9]+ +[0-9]+\[  \] ==\( +4X +[0-9.]+ Gbps Active/  LinkUp\)==> +[0-9]+ +1\[  \] "node004 mlx5_0" \( \)$' "$T/links.txt"
ask links --down >"$T/down0.txt"
check "links --down: exit 0, nothing down" test $? = 0 -a ! -s "$T/down0.txt"
ask links --degraded >"$T/deg0.txt"
check "links --degraded: exit 0, nothing degraded" test $? = 0 -a ! -s "$T/deg0.txt"
ask links --json >"$T/links.json"
check "links --json: no port down or degraded" \
	grep -qE '"down": 0,|"down":0,' "$T/links.json"

# Pull node004's cable at its leaf.
leaf_line=$(grep -n '"node004 mlx5_0"' "$T/links.txt" | grep -v '^[0-9]*:CA:' | head -1)
leaf_port=$(echo "${leaf_line#*:}" | awk '{ print $2 }' | sed 's/\[.*//')
leaf_name=$(head -n "${leaf_line%%:*}" "$T/links.txt" | sed -n 's/^Switch: 0x[0-9a-f]* \(.*\):$/\1/p' | tail -1)
leaf_guid=$(sed -n "s/^Switch: \(0x[0-9a-f]*\) $leaf_name:\$/\1/p" "$T/links.txt")
hca_guid=$(sed -n 's/^CA: \(0x[0-9a-f]*\) node004 mlx5_0:$/\1/p' "$T/links.txt")
leaf_id=$(sed -n "s/^Switch.*\"\\(S-[0-9a-f]*\\)\"\\t\\t# \"$leaf_name\".*/\\1/p" "$T/f.topo")
[ -n "$leaf_port" ] && [ -n "$leaf_id" ] && [ -n "$hca_guid" ] || die "node004's leaf port not found"
sim_cmd "Unlink \"$leaf_id\"[$leaf_port]"
ibfmd_sweep_fresh

ask links --down >"$T/down1.txt"
check "links --down after the pull: exit 1" test $? = 1
check "links --down: one port" test "$(lines "$T/down1.txt")" = 1
check "links --down: under $leaf_name" grep -qx "Switch: $leaf_guid $leaf_name:" "$T/down1.txt"
check "links --down: port $leaf_port Down, named for the HCA it was cabled to" \
	grep -qE "^ +[0-9]+ +$leaf_port\\[  \\] ==\\( +Down/ *[A-Za-z]+\\)==> +\\[  \\] \"\" \\( was \"node004 mlx5_0\"\\[1\\] ${hca_guid} \\(sweep\\)\\)$" "$T/down1.txt"
ask links >"$T/links1.txt"
check "links: node004 is gone from the sweep" bash -c "! grep -q '^CA: .* node004 mlx5_0:' '$T/links1.txt'"
ask links --down --json >"$T/down1.json"
check "links --down --json: down 1" grep -q '"down": 1,' "$T/down1.json"

# Names from a node name map replace descriptions, --json too.
cat >"$T/names.map" <<MAP
# infiniband-diags' node name map
$leaf_guid "rack7-leaf"
$hca_guid "gpu-node-4"   # the HCA that was pulled
MAP
ask links --down --node-name-map "$T/names.map" >"$T/down2.txt"
check "--node-name-map: the leaf's name" grep -qx "Switch: $leaf_guid rack7-leaf:" "$T/down2.txt"
check "--node-name-map: the lost peer's name" grep -q 'was "gpu-node-4"\[1\]' "$T/down2.txt"
ask links --down --json --node-name-map "$T/names.map" >"$T/down2.json"
check "--node-name-map: in --json too" grep -q '"name": "rack7-leaf"' "$T/down2.json"
printf '%s "ok"\n0xzz "bad"\n' "$leaf_guid" >"$T/bad.map"
ask links --node-name-map "$T/bad.map" >/dev/null 2>"$T/bad.err"
check "a bad map line: exit 3" test $? = 3
check "a bad map line: FILE:LINE and N01" grep -q "bad.map:2: N01 " "$T/bad.err"
ask path "node001 mlx5_0" "node003 mlx5_0" --node-name-map "$T/names.map" >"$T/path.txt" 2>"$T/path.err"
check "path --node-name-map through ibfmd: exit 0" test $? = 0
check "path --node-name-map: the leaf's name" grep -q '"rack7-leaf"$' "$T/path.txt"

sim_cmd "ReLink \"$leaf_id\"[$leaf_port]"
ibfmd_sweep_fresh
ask links --down >"$T/down3.txt"
check "links --down after ReLink: exit 0, nothing" test $? = 0 -a ! -s "$T/down3.txt"
finish
