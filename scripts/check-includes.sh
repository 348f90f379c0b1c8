#!/bin/bash
# Checks the project's own includes against its floors
# (docs/architecture.md): a file may include headers of its own folder
# and of folders on lower floors, never of a folder on its own floor or
# above; and no include circle among the headers (tsort(1)). A floor
# N.M is room M of floor N: a folder in a room sees the lower rooms of
# its own house (the same first folder: cli/daemon sees cli/util) and
# the floors below N, never another house of floor N. Prints the
# count of edges and "no include going up, no include circle", or each
# offending include and circle; exit 1 then.
#   scripts/check-includes.sh
set -uo pipefail
cd "$(dirname "$0")/.."

# The floors, lowest first: each folder sees only those below it.
declare -A floor=(
	[routing/base]=0.1
	[routing/io]=0.2
	[routing/model]=1
	[routing/checks]=2 [routing/engine]=2 [routing/sharp]=2
	[routing/state]=3
	[routing/topo]=4 [routing/jobs]=4
	[routing/pass]=5
	[ctl]=6
	[mgmt/mad]=7
	[mgmt/base]=8
	[mgmt/net]=9
	[mgmt/ha]=10
	[mgmt/core]=11
	[mgmt/features]=12 [cc]=12
	[mgmt]=13 [plugin]=13
	[cli/util]=13.1
	[cli/offline]=13.2 [cli/daemon]=13.2
	[cli]=13.3
)

# Whether folder $1 may include a header of folder $2 (another folder).
sees() {
	local a=${floor[$1]} b=${floor[$2]}

	[ "${b%%.*}" -lt "${a%%.*}" ] && return 0
	[ "${b%%.*}" -eq "${a%%.*}" ] && [[ $a == *.* && $b == *.* ]] &&
		[ "${1%%/*}" = "${2%%/*}" ] && [ "${b#*.}" -lt "${a#*.}" ]
}

bad=0
edges=""
for dir in "${!floor[@]}"; do
	for f in "$dir"/*.[ch]; do
		[ -f "$f" ] || continue
		while read -r inc; do
			to=${inc%/*}
			[ -n "${floor[$to]+x}" ] || { echo "includes: $f: $inc is in no floor"; bad=1; continue; }
			edges+="$f $inc"$'\n'
			if [ "$to" != "$dir" ] && ! sees "$dir" "$to"; then
				echo "includes: $f includes $inc: floor ${floor[$to]} from floor ${floor[$dir]}"
				bad=1
			fi
		done < <(sed -En 's,^#include "([a-z]+/[^"]*\.h)".*,\1,p' "$f")
	done
done
# Every folder with sources has a floor.
for dir in $(git ls-files '*.c' '*.h' | grep -vE '^(tests|bench)/' | xargs -n1 dirname | sort -u); do
	[ -n "${floor[$dir]+x}" ] || { echo "includes: folder $dir has no floor"; bad=1; }
done
n=$(printf '%s' "$edges" | grep -c .)
if ! out=$(printf '%s' "$edges" | tsort 2>&1 >/dev/null) || [ -n "$out" ]; then
	echo "includes: circles:"
	printf '%s\n' "$out" | sed 's/^tsort: /  /'
	bad=1
fi
[ "$bad" -eq 0 ] || exit 1
echo "includes: $n edges in ${#floor[@]} folders, no include going up, no include circle"
