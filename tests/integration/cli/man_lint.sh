#!/bin/bash
# The man pages are lint-clean (mandoc -Tlint: no style note, warning
# or error) and document the environment and the exit codes.
. "$TESTLIB"

command -v mandoc >/dev/null || die "mandoc not found (install mandoc)"
docs="$(dirname "$TESTLIB")/../../docs/man"
for page in "$docs"/*.8; do
	mandoc -Tlint "$page" >"$T/lint" 2>&1
	check "$(basename "$page"): mandoc -Tlint clean" test $? = 0 -a ! -s "$T/lint"
	check "$(basename "$page"): EXIT STATUS or its codes" grep -qE '^\.SH (EXIT STATUS|ENVIRONMENT)' "$page"
done
check "ibfm.8: ENVIRONMENT names IBFM_SOCKET" grep -q 'IBFM_SOCKET' "$docs/ibfm.8"
finish
