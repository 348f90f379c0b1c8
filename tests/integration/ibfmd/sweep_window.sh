#!/bin/bash
# ibfmd's sweeps with one MAD in flight and with many (mad_window):
# the same fabric on file, byte for byte (same nodes in the same order,
# same links, LIDs, states, widths and speeds), the same SMs, every
# linked port's counters read with the same error counters, and LFT
# reads (drain confirmation's) and light checks that agree. The window
# changes on SIGHUP, on the same MAD port.
. "$TESTLIB"

ask() { "$IBFM" --socket "$T/ibfmd.sock" "$@"; }
num() { sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p" "$1" | head -1; }

routed_fabric -l 3 -k 8 --rails 2
# Errors on a few ports, so the counters compared are not all zero.
n=0
for sw in $(sed -n 's/^Switch.*"\(S-[0-9a-f]*\)".*/\1/p' "$T/f.topo" | head -5); do
	n=$((n + 1))
	sim_cmd "PerformanceSet \"$sw\"[$n] PortCounters.SymbolErrorCounter=$((n + 2))"
	sim_cmd "PerformanceSet \"$sw\"[$((n + 1))] PortCounters.LinkDownedCounter=$n"
done

swept() { # swept WINDOW: a fresh sweep's file, status and error counters
	ibfmd_sweep_now
	cp "$T/fabric.topo" "$T/fabric.$1"
	cp "$T/s.json" "$T/s.$1"
	ask counters --top 1000 --json >"$T/c.$1"
	# The error counters: traffic counts grow with the MADs themselves.
	sed 's/.*"errors":\[//; s/\],"rising".*//; s/"delta":{[^}]*}//g
	     s/,"xmit_data":[0-9]*,"rcv_data":[0-9]*,"xmit_pkts":[0-9]*,"rcv_pkts":[0-9]*//g
	     s/"errors_per_s":[0-9.]*//g' "$T/c.$1" >"$T/e.$1"
	# The SMs without ActCount, which rises all the time.
	grep -o '"sms":\[[^]]*\]' "$T/s.json" | sed 's/"act_count":[0-9]*//g' \
		>"$T/sms.$1"
}

ibfmd_beside "mad_window 1" "counters on" "light_interval 1" \
	"fabric_file $T/fabric.topo"
swept 1
sed -i 's/^mad_window 1$/mad_window 64/' "$T/ibfmd.conf"
kill -HUP "$DPID"
sleep 1
swept 64
check "window 1 in status" grep -q '"mad_window":1,' "$T/s.1"
check "window 64 taken on SIGHUP" grep -q '"mad_window":64,' "$T/s.64"
check "MADs counted, none retried or lost" \
	test "$(num "$T/s.64" mads_sent)" -gt "$(num "$T/s.1" mads_sent)" -a \
	"$(num "$T/s.64" mad_retries)" = 0 -a "$(num "$T/s.64" mad_timeouts)" = 0
check "window 1: every node" \
	test "$(num "$T/s.1" nodes)" = "$(grep -c '^\(Ca\|Switch\)' "$T/f.topo")"
check "window 1 and 64: the same fabric file" cmp "$T/fabric.1" "$T/fabric.64"
check "... equal to the cabling" \
	"$IBFM" topo diff --expected "$T/f.topo" --topo "$T/fabric.64"
check "the SM found" grep -q '"guid"' "$T/sms.1"
check "window 1 and 64: the same SMs" cmp "$T/sms.1" "$T/sms.64"
for k in nodes links counter_ports; do
	check "window 1 and 64: the same $k" \
		test "$(num "$T/s.1" $k)" = "$(num "$T/s.64" $k)"
done
check "every linked port end's counters read" \
	test "$(num "$T/s.64" counter_ports)" = $((2 * $(num "$T/s.64" links)))
check "error counters listed" grep -q '"errors_total":3' "$T/e.1"
check "window 1 and 64: the same error counters" cmp "$T/e.1" "$T/e.64"
finish
