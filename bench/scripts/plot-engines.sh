#!/bin/bash
# Plots bench/scripts/compare-engines.sh output (markdown, as pasted into
# docs/engines.md): routing time against hosts per engine on full
# trees, and shift max load per engine and fabric. Needs gnuplot
# (Debian: gnuplot-nox; listed in bench/packages.txt).
# Usage: bench/scripts/plot-engines.sh [MARKDOWN] [OUTDIR]
set -eu
cd "$(dirname "$0")/../.."
md=${1:-docs/engines.md}
out=${2:-docs/images}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One line per (fabric, engine): fabric, hosts, engine, used, ms, shift
# max ("-" when not dumped). A later table of the same fabric and engine
# replaces an earlier one (the file keeps older runs for the record).
awk -F'|' '
	/^`ibfm topo gen / { split($0, a, "`"); fabric = a[2]; sub(/^ibfm topo gen /, "", fabric)
	                     hosts = $0; sub(/ hosts.*/, "", hosts); sub(/.* /, "", hosts); next }
	fabric && /^\| (ibfm|ftree|updn|minhop|dfsssp) \|/ {
		e = $2; u = $3; ms = $4; s = $7; gsub(/ /, "", e); gsub(/ /, "", u); gsub(/ /, "", ms)
		split(s, m, "/"); gsub(/ /, "", m[1]); if (m[1] == "") m[1] = "-"
		if (ms != "-" && ms != "") { k = fabric SUBSEP e; if (!(k in row)) order[++n] = k
			row[k] = sprintf("%s\t%s\t%s\t%s\t%s\t%s", fabric, hosts, e, u, ms, m[1]) }
	}
	END { for (i = 1; i <= n; i++) print row[order[i]] }' "$md" | sort -u >"$tmp/all.tsv"

# Time against size: full trees only (no removed links, no rails).
for e in ibfm ftree updn minhop dfsssp; do
	awk -F'\t' -v e="$e" '$3 == e && $1 !~ /remove|rails/ { print $2, $5 }' "$tmp/all.tsv" | sort -n >"$tmp/time.$e"
done
gnuplot <<GP
set terminal pngcairo size 800,500 noenhanced
set output "$out/engines-time.png"
set title "Routing time in OpenSM (same log bracket for every engine), full fat trees"
set xlabel "hosts"
set ylabel "ms (log)"
set logscale y
set key left top
set grid
plot for [e in "ibfm ftree updn minhop dfsssp"] "$tmp/time.".e using 1:2 with linespoints title e
GP

# Shift max load: one cluster per fabric, one bar per engine.
# A fallback (OpenSM used another engine) is left out: NaN.
echo "fabric ibfm ftree updn minhop dfsssp" >"$tmp/load.dat"
awk -F'\t' '$6 != "-" { f[$1] = 1; if ($3 == $4) v[$1, $3] = $6 }
	END { for (x in f) { printf "\"%s\"", x
	                     n = split("ibfm ftree updn minhop dfsssp", es, " ")
	                     for (i = 1; i <= n; i++) printf " %s", ((x, es[i]) in v) ? v[x, es[i]] : "NaN"
	                     printf "\n" } }' "$tmp/all.tsv" | sort >>"$tmp/load.dat"
gnuplot <<GP
set terminal pngcairo size 900,500 noenhanced
set output "$out/engines-load.png"
set title "Shift permutations: max flows on one link (1 is ideal; no bar: the engine refused and OpenSM fell back)"
set yrange [0:*]
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel "max link load"
set xtics rotate by -20 font ",8"
set key left top
set grid ytics
plot for [i=2:6] "$tmp/load.dat" using i:xtic(1) title columnheader(i)
GP
echo "wrote $out/engines-time.png $out/engines-load.png"
