#!/bin/bash
# The release tarball carries every file the docs link to (#22): in
# `make distdir`'s tree, every relative link of README.md and docs/*.md
# that names a file of the source tree names one there too.
. "$TESTLIB"

src="$(cd "$(dirname "$TESTLIB")/../.." && pwd)"
build="$(cd "$(dirname "$IBFM")/.." && pwd)"
make -s -C "$build" distdir distdir="$T/ibfm-dist" >"$T/distdir.log" 2>&1
check "make distdir: exit 0" test $? = 0
: >"$T/missing"
n=0
for md in README.md docs/*.md; do
	[ -f "$src/$md" ] || continue
	dir=$(dirname "$md")
	for link in $(grep -o '\](\([^)#: ]*\))' "$src/$md" | sed 's/^](\(.*\))$/\1/' | sort -u); do
		[ -e "$src/$dir/$link" ] || continue # not a file link
		n=$((n + 1))
		[ -e "$T/ibfm-dist/$dir/$link" ] || echo "$md: $link" >>"$T/missing"
	done
done
check "the docs link to files ($n links checked)" test "$n" -gt 20
check "every linked file is in the tarball" test ! -s "$T/missing"
[ -s "$T/missing" ] && sed 's/^/missing: /' "$T/missing"
check "the README is in it" test -s "$T/ibfm-dist/README.md"
finish
