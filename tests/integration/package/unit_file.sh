#!/bin/bash
# The systemd unit (docs/install/ibfmd.service.in, as make install writes it) is
# hardened as #22 asks:
# systemd-analyze's exposure at most 3 (ProtectSystem=strict, the MAD
# devices only, no new privileges, a system-call filter...), its man
# pages in Documentation=, no Wants=opensm.service (that would start a
# subnet manager on every ibfmd host), and a condition on the umad ABI.
. "$TESTLIB"

unit="$T/ibfmd.service"
command -v systemd-analyze >/dev/null || die "systemd-analyze not found (install systemd)"
sed -e 's|@sbindir@|/usr/sbin|' -e 's|@sysconfdir@|/etc|' \
	"$(dirname "$TESTLIB")/../../docs/install/ibfmd.service.in" >"$unit"
check "the unit runs /usr/sbin/ibfmd with /etc/ibfm/ibfmd.conf" \
	grep -q '^ExecStart=/usr/sbin/ibfmd --config /etc/ibfm/ibfmd.conf --foreground' "$unit"
# --threshold counts in tenths of the printed level (252: 30 is 3.0).
systemd-analyze security --offline=true --threshold=30 "$T/ibfmd.service" >"$T/sec.txt" 2>&1
check "systemd-analyze security: exposure at most 3" test $? = 0
check "... as it prints it" grep -qE 'Overall exposure level for ibfmd.service: ([0-2]\.[0-9]|3\.0) ' "$T/sec.txt"
check "Documentation= names ibfmd(8)" grep -q '^Documentation=man:ibfmd(8)' "$unit"
check "no Wants=opensm.service" bash -c "! grep -q '^Wants=.*opensm' '$unit'"
check "ConditionPathExists= the umad ABI" grep -q '^ConditionPathExists=/sys/class/infiniband_mad/abi_version' "$unit"
check "the MAD devices only" grep -q '^DeviceAllow=char-infiniband_mad rw' "$unit"
finish
