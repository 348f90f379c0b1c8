#!/bin/bash
# Drains fail closed (hardening): a drained spine stays drained when the
# drain list turns to garbage, across an OpenSM restart (the plugin
# routes with the last good list kept beside it), and when a directory
# or a FIFO takes its place (an error, not an empty list or a hang
# under OpenSM's lock).
. "$TESTLIB"

# Entries of the leaves (GUIDs ...01 to ...08) out of port 5: in a
# 2-level radix-8 tree, each leaf's link to spine-01.
to_spine01() {
	lft_entries "$T/state/lfts.dump" |
		awk '$1 ~ /0000000[1-8]$/ && $3 == "005"' | wc -l
}
generation() {
	sed -n 's/^ *"generation": \([0-9]*\),$/\1/p' "$T/state/snapshot.json"
}

routed_fabric -l 2 -k 8
check "before the drain, leaves route over spine-01" test "$(to_spine01)" -gt 0

echo "0x0002c90200000009 # spine-01" >"$T/state/drain.list"
wait_generation "$T/state" 2 || die "no reroute after the drain"
check "drained: no leaf routes over spine-01" test "$(to_spine01)" = 0
check "the last good list is kept on disk" grep -q '^0x0002c90200000009' "$T/state/drain.list.good"

# Garbage, then OpenSM restarts: the plugin has nothing in memory.
osm_stop
echo "spine-01" >"$T/state/drain.list"
g=$(generation)
osm_start "$T/opensm.conf"
wait_generation "$T/state" $((g + 1)) || die "no pass after the restart"
check "restart with a garbage list: spine-01 stays drained" test "$(to_spine01)" = 0
check "restart: the plugin said it routes with the last good list" \
	grep -q 'ERR P09 .*drain.list:1: X02 .*routing with the last good drain list (1 elements)' "$T/opensm.log"

# A directory in its place: X04, still drained. Swapped while OpenSM
# is stopped: a file cannot be replaced by a directory or a FIFO at
# once, and a plugin that saw no list in between would rightly route
# with none (and keep that as the last good list).
osm_stop
g=$(generation)
rm -f "$T/state/drain.list"
mkdir "$T/state/drain.list"
osm_start "$T/opensm.conf"
wait_generation "$T/state" $((g + 1)) || die "no pass after the list became a directory"
check "a directory in place of the list: spine-01 stays drained" test "$(to_spine01)" = 0
check "a directory: X04 said" grep -q 'drain.list: X04 not a regular file' "$T/opensm.log"

# A FIFO in its place: the pass does not block on it.
osm_stop
g=$(generation)
rmdir "$T/state/drain.list"
mkfifo "$T/state/drain.list"
osm_start "$T/opensm.conf"
wait_generation "$T/state" $((g + 1)) || die "the pass hung on a FIFO"
check "a FIFO in place of the list: spine-01 stays drained" test "$(to_spine01)" = 0
check "OpenSM is still running" kill -0 "$OSM_PID"

# Undrained for real: an empty list routes over spine-01 again.
g=$(generation)
rm -f "$T/state/drain.list"
echo "# nothing drained" >"$T/state/drain.list"
wait_generation "$T/state" $((g + 1)) || die "no pass after the undrain"
check "undrained: leaves route over spine-01 again" test "$(to_spine01)" -gt 0
osm_stop
finish
