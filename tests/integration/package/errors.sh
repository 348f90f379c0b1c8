#!/bin/bash
# The error ids' registry (docs/errors.tsv) holds each id once; every id
# a C string of the source carries is registered, for the folder that
# carries it (an id means one thing everywhere); every registered id is
# used; and the docs' tables are what the registry makes of them.
. "$TESTLIB"

src="$(cd "$(dirname "$TESTLIB")/../.." && pwd)"
command -v gcc >/dev/null || die "gcc not found"
bash "$src/scripts/errors.sh" check >"$T/check" 2>&1
check "scripts/errors.sh check: the registry, the source and the docs agree" test $? = 0
sed 's/^/# /' "$T/check"
bash "$src/scripts/errors.sh" table R >"$T/r"
check "the table of R lists R01 to R03" grep -qE '^\| R03 \| warning \|' "$T/r"
finish
