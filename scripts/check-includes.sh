#!/bin/bash
# Finds include circles among the project's own headers in the given
# folders (default: mgmt and cc): every `#include "DIR/x.h"` of a file
# there is an edge, and tsort(1) reports any loop. Prints the edges'
# count and "no include circle", or the files of each loop; exit 1 then.
#   scripts/check-includes.sh [DIR...]
set -uo pipefail
cd "$(dirname "$0")/.."
dirs=("${@:-mgmt cc}")
# shellcheck disable=SC2206
dirs=(${dirs[*]})
pattern=$(IFS='|'; echo "${dirs[*]}")
edges=$(for d in "${dirs[@]}"; do
	[ -d "$d" ] || continue
	for f in "$d"/*.[ch]; do
		sed -En "s,^#include \"(($pattern)/[^\"]*)\".*,$f \\1,p" "$f"
	done
done)
n=$(printf '%s\n' "$edges" | grep -c .)
if out=$(printf '%s\n' "$edges" | tsort 2>&1 >/dev/null) && [ -z "$out" ]; then
	echo "includes: $n edges in ${dirs[*]}, no include circle"
	exit 0
fi
echo "includes: circles:"
printf '%s\n' "$out" | sed 's/^tsort: /  /'
exit 1
