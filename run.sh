#!/bin/bash
# ibfm's two entry points (see README.md):
#   ./run.sh demo   install what is missing, build, run the demo on ibsim
#   ./run.sh test   install what is missing, build, run every test
set -euo pipefail
cd "$(dirname "$0")"

case "${1:-}" in
demo)
	scripts/setup.sh
	exec scripts/demo.sh
	;;
test)
	# What git sees before the build: the tests check that building and
	# testing add nothing to it (every output ignored, none tracked).
	IBFM_GIT_BEFORE=$(mktemp)
	git status --porcelain >"$IBFM_GIT_BEFORE" 2>/dev/null || true
	export IBFM_GIT_BEFORE
	scripts/setup.sh
	exec scripts/test.sh
	;;
*)
	echo "usage: ./run.sh demo|test" >&2
	exit 2
	;;
esac
