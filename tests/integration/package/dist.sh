#!/bin/bash
# The release tarball carries every file the docs link to (#22): in
# `make distdir`'s tree, every relative link of README.md and docs/*.md
# that names a file of the source tree names one there too. And every
# tracked file of contrib/, which the top Makefile.am lists one by one
# to install it (#43).
. "$TESTLIB"

src="$(cd "$(dirname "$TESTLIB")/../.." && pwd)"
build="$(cd "$(dirname "$IBFM")/.." && pwd)"
# distdir relative to the build tree (automake's subdirectories join it
# to "../"), then moved here.
rm -rf "$build/_dist_test"
make -s -C "$build" distdir distdir=_dist_test >"$T/distdir.log" 2>&1
check "make distdir: exit 0" test $? = 0
mv "$build/_dist_test" "$T/ibfm-dist"
: >"$T/missing"
n=0
for md in README.md $(cd "$src" && ls docs/*.md); do
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
for f in $(git -C "$src" ls-files contrib); do
	check "$f is in it" cmp -s "$src/$f" "$T/ibfm-dist/$f"
done
finish
