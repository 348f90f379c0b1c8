#!/bin/bash
# The error ids' registry (docs/errors.tsv): the docs' tables made from
# it, and the checks that keep it, the source and the docs in agreement.
#
#   scripts/errors.sh table SEL...  prints the table of SEL (letters such
#                                   as T, or ids such as P11), in order
#   scripts/errors.sh docs          rewrites every table of docs/*.md
#                                   between its markers:
#                                     <!-- errors: SEL... -->
#                                     <!-- end of errors -->
#   scripts/errors.sh check         exit 1, saying why, when an id is
#                                   registered twice or malformed, when
#                                   a C string under routing/ plugin/
#                                   mgmt/ cli/ ctl/ cc/ carries an id
#                                   that is not registered or outside
#                                   the folders registered for it (an
#                                   id means one thing), when a
#                                   registered id is used nowhere, or
#                                   when the docs' tables differ from
#                                   what the registry makes
#
# Run from anywhere: it works on the source tree it belongs to.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
reg="$top/docs/errors.tsv"
folders="routing plugin mgmt cli ctl cc"

# The registry's rows, without comments and the header.
rows() {
	grep -v '^#' "$reg" | tail -n +2
}

# table SEL...: the Markdown table of the selected ids.
table() {
	rows | awk -F'\t' -v sel="$*" '
		{ id[NR] = $1; sev[NR] = $2; mean[NR] = $5; ex[NR] = $6; n = NR }
		END {
			k = split(sel, s, " ")
			for (j = 1; j <= k; j++)
				for (i = 1; i <= n; i++)
					if (id[i] == s[j] || substr(id[i], 1, 1) == s[j])
						pick[++m] = i
			for (j = 1; j <= m; j++)
				if (ex[pick[j]] != "")
					withex = 1
			if (withex) {
				print "| id | severity | meaning | example |"
				print "| --- | --- | --- | --- |"
			} else {
				print "| id | severity | meaning |"
				print "| --- | --- | --- |"
			}
			for (j = 1; j <= m; j++) {
				i = pick[j]
				line = "| " id[i] " | " sev[i] " | " mean[i] " |"
				if (withex)
					line = line " " ex[i] " |"
				print line
			}
		}'
}

# regen FILE: FILE with its tables made afresh, on stdout.
regen() {
	local line skip=0
	while IFS= read -r line; do
		if [[ $line =~ ^'<!-- errors: '(.*)' -->'$ ]]; then
			printf '%s\n' "$line"
			table "${BASH_REMATCH[1]}"
			skip=1
		elif [ "$line" = '<!-- end of errors -->' ]; then
			printf '%s\n' "$line"
			skip=0
		elif [ $skip = 0 ]; then
			printf '%s\n' "$line"
		fi
	done <"$1"
}

docs() {
	local md tmp
	for md in "$top"/docs/*.md; do
		grep -q '^<!-- errors: ' "$md" || continue
		tmp=$(mktemp)
		regen "$md" >"$tmp" && cat "$tmp" >"$md"
		rm -f "$tmp"
	done
}

# "FOLDER ID" for every id in a C string literal (comments stripped by
# the preprocessor, macros left alone), then "- ID" for every id-like
# word anywhere in the files, comments included.
uses() {
	local f
	# shellcheck disable=SC2086 # the folders' names, one word each
	(cd "$top" && find $folders -name '*.[ch]' | sort) | while read -r f; do
		gcc -fpreprocessed -dD -E -P "$top/$f" 2>/dev/null |
			grep -oE '"([^"\\]|\\.)*"' |
			grep -oE '\b[A-Z][0-9]{2}\b' | sed "s|^|$(dirname "$f") |"
		grep -ohE '\b[A-Z][0-9]{2}\b' "$top/$f" | sed 's|^|- |'
	done | sort -u
}

check() {
	local bad=0 md want
	rows | awk -F'\t' '
		$1 !~ /^[A-Z][0-9][0-9]$/ { print "malformed id: " $0; bad = 1 }
		$2 !~ /^(error|warning|note)$/ { print $1 ": severity is error, warning or note"; bad = 1 }
		NF < 5 || $5 == "" { print $1 ": no meaning"; bad = 1 }
		seen[$1]++ { print $1 ": registered twice"; bad = 1 }
		END { exit bad }' || bad=1
	rows | while IFS=$'\t' read -r id _ page _; do
		[ -f "$top/docs/$page" ] || echo "$id: no page docs/$page"
		grep -qE "^\| $id \|" "$top/docs/$page" ||
			echo "$id: not in a table of docs/$page"
	done | grep . && bad=1
	uses | awk -F'\t' '
		FNR == NR { src[$1] = "," $4 ","; letter[substr($1, 1, 1)]; next }
		{ split($0, u, " ") }
		# A word anywhere: an unknown id of a registered letter.
		u[1] == "-" {
			if (!(u[2] in src) && (substr(u[2], 1, 1) in letter))
				print u[2] ": mentioned, not registered"
			next
		}
		!(u[2] in src) { print u[2] ": used in " u[1] ", not registered"; next }
		index(src[u[2]], "," u[1] ",") == 0 {
			print u[2] ": used in " u[1] ", registered for " \
				substr(src[u[2]], 2, length(src[u[2]]) - 2) \
				" (one id, one meaning: give it a new id)"
		}
		{ used[u[2] " " u[1]] }
		END {
			for (id in src) {
				n = split(substr(src[id], 2, length(src[id]) - 2), f, ",")
				for (i = 1; i <= n; i++)
					if (!((id " " f[i]) in used))
						print id ": registered for " f[i] ", used nowhere there"
			}
		}' <(rows) <(uses) | sort | grep . && bad=1
	for md in "$top"/docs/*.md; do
		grep -q '^<!-- errors: ' "$md" || continue
		want=$(regen "$md")
		if [ "$want" != "$(cat "$md")" ]; then
			echo "docs/${md##*/}: its tables differ from the registry (run scripts/errors.sh docs):"
			diff <(cat "$md") <(printf '%s\n' "$want") | head -20
			bad=1
		fi
	done
	return $bad
}

case "${1:-}" in
table)
	shift
	table "$*"
	;;
docs) docs ;;
check) check ;;
*)
	echo "usage: $0 table SEL... | docs | check" >&2
	exit 2
	;;
esac
