#!/bin/bash
# The Debian package (#22 "Install like real software"): built from the
# tracked files with dpkg-buildpackage -us -uc -b, it holds ibfm, ibfmd,
# the plugin where OpenSM's dlopen() finds it (no .la), the man pages,
# the completion, /etc/ibfm/ibfmd.conf as a conffile, the unit and
# OpenSM's lines, an ldconfig trigger, and contrib/ under /usr/share/ibfm
# (#43: the monitoring pack, whose rules pass promtool's checks and
# tests there; the Slurm prolog/epilog, executable; OpenSM's drop-in).
# Its files, unpacked, do the demo's core: OpenSM on ibsim loads the
# package's plugin and routes, the package's ibfm checks the routes, its
# ibfmd sweeps.
. "$TESTLIB"

src="$(cd "$(dirname "$TESTLIB")/../.." && pwd)"
command -v dpkg-buildpackage >/dev/null || die "dpkg-buildpackage not found (install dpkg-dev, debhelper)"
git -C "$src" rev-parse --git-dir >/dev/null 2>&1 || die "$src: not a git tree (the package is built from the tracked files)"
mkdir "$T/ibfm-0.1.0"
(cd "$src" && git ls-files -z | xargs -0 tar -c) | tar -x -C "$T/ibfm-0.1.0"
(cd "$T/ibfm-0.1.0" && dpkg-buildpackage -us -uc -b -j2) >"$T/build.log" 2>&1
check "dpkg-buildpackage -us -uc -b: exit 0" test $? = 0
deb=$(ls "$T"/ibfm_0.1.0_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || { tail -30 "$T/build.log"; die "no .deb built"; }
dpkg-deb -x "$deb" "$T/root"
dpkg-deb -e "$deb" "$T/control"
r="$T/root"
for f in usr/bin/ibfm usr/sbin/ibfmd usr/share/man/man8/ibfm.8.gz \
	usr/share/man/man8/ibfmd.8.gz usr/share/bash-completion/completions/ibfm \
	etc/ibfm/ibfmd.conf usr/lib/systemd/system/ibfmd.service \
	usr/share/doc/ibfm/examples/opensm-ibfm.conf; do
	check "the package holds /$f" test -s "$r/$f"
done
plugin=$(find "$r" -name libibfm_osm.so | head -1)
check "the plugin in the multiarch library directory" \
	test "${plugin#"$r"}" = "/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/libibfm_osm.so"
check "no libtool archive" test -z "$(find "$r" -name '*.la')"
check "ibfmd.conf is a conffile" grep -qx /etc/ibfm/ibfmd.conf "$T/control/conffiles"
check "an ldconfig trigger" grep -q '^activate-noawait ldconfig' "$T/control/triggers"
check "the unit runs /usr/sbin/ibfmd with /etc/ibfm/ibfmd.conf" \
	grep -q '^ExecStart=/usr/sbin/ibfmd --config /etc/ibfm/ibfmd.conf' "$r/usr/lib/systemd/system/ibfmd.service"
check "ibfm --plugin-path names the packaged plugin" test "$("$r/usr/bin/ibfm" --plugin-path)" = "${plugin#"$r"}"

# contrib/, where docs/operators.md says: every tracked file of it, as
# it is in the tree (a file added there and not to Makefile.am fails).
n=0
for f in $(git -C "$src" ls-files contrib); do
	n=$((n + 1))
	check "the package holds /usr/share/ibfm/${f#contrib/}, $f" \
		cmp -s "$src/$f" "$r/usr/share/ibfm/${f#contrib/}"
done
check "contrib/: at least its 7 files (monitoring 4, slurm 2, opensm 1)" test "$n" -ge 7
for f in slurm/prolog.sh slurm/epilog.sh; do
	check "the Slurm script /usr/share/ibfm/$f is executable" test -x "$r/usr/share/ibfm/$f"
done
if PROMTOOL=$(command -v promtool); then
	check "promtool check rules: the packaged rules" \
		"$PROMTOOL" check rules "$r/usr/share/ibfm/monitoring/ibfm.rules.yml"
	check "promtool test rules: the packaged tests, beside the packaged rules" \
		"$PROMTOOL" test rules "$r/usr/share/ibfm/monitoring/ibfm.rules.test.yml"
else
	echo "# SKIP: promtool not installed (prometheus, debian-packages.txt): the packaged rules not checked"
fi

# The package's files at work.
IBFM="$r/usr/bin/ibfm"
IBFMD="$r/usr/sbin/ibfmd"
PLUGIN_DIR=$(dirname "$plugin")
routed_fabric -l 2 -k 8
check "OpenSM routed with the package's plugin" grep -q 'ibfm: routed 12 switches' "$T/opensm.log"
"$IBFM" check --topo "$T/f.topo" --lfts "$T/state/lfts.dump" >"$T/check.txt"
check "the package's ibfm checks the routes: exit 0" test $? = 0
ibfmd_beside
check "the package's ibfmd sweeps" ibfmd_swept 1
finish
