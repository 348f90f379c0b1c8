#!/bin/bash
# mgmt/mad/madwin.c on ibsim, through tests/madwin_client: a breadth-first
# walk by directed route finds the same nodes and links with one MAD in
# flight as with many (and every node of the fabric), and requests to a
# LID nobody has end in -ETIMEDOUT after exactly 1 + retries tries each.
. "$TESTLIB"

[ -x "${MADWIN_CLIENT:-}" ] || die "madwin_client not built"

"$IBFM" topo gen -l 3 -k 8 --rails 2 -o "$T/f.topo" >/dev/null || die "gen"
sim_start "$T/f.topo"
host=$(sed -n 's/^Ca.*# "\(.*\)"$/\1/p' "$T/f.topo" | head -1)
nodes=$(grep -c '^\(Ca\|Switch\)' "$T/f.topo")

walk() { # walk WINDOW: the walk's lines, sorted, in $T/walk.WINDOW
	SIM_HOST="$host" sim_client "$MADWIN_CLIENT" -w "$1" walk \
		>"$T/walk.$1" 2>"$T/walk.$1.err" &&
		sort -o "$T/walk.$1" "$T/walk.$1"
}
check "walk with window 1" walk 1
check "walk with window 32" walk 32
check "window 32 reported" grep -q '^window 32 ' "$T/walk.32.err"
check "every node found ($nodes)" \
	test "$(grep -c '^node ' "$T/walk.1")" -eq "$nodes"
check "links found" test "$(grep -c '^link ' "$T/walk.1")" -gt "$nodes"
check "same nodes and links, window 1 and 32" cmp "$T/walk.1" "$T/walk.32"
check "no retries on a healthy fabric" grep -q ' retried 0$' "$T/walk.32.err"

# 5 requests, window 2, 2 retries: 15 tries, 5 time-outs.
SIM_HOST="$host" sim_client "$MADWIN_CLIENT" -w 2 -t 100 -r 2 lost 4000 5 \
	>"$T/lost" 2>/dev/null
check "lost LID: -ETIMEDOUT, 3 tries each" \
	grep -q '^rc -110 sent 15 timedout 5 ' "$T/lost"
finish
