# shellcheck shell=bash
# builds.sh: sourced by the bench scripts that compare builds.
# split_builds ARGS...: the arguments before "--" into builds[], those
# after it into args[].
# shellcheck disable=SC2034
split_builds() {
	builds=()
	args=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		builds+=("$1")
		shift
	done
	[ "${1:-}" = -- ] && shift
	args=("$@")
}

# fabrics_from_args: one fabric's `ibfm topo gen` arguments in args[]
# replace the list in fabrics[]; a scratch directory in $dir, removed on
# exit.
# shellcheck disable=SC2034
fabrics_from_args() {
	[ ${#args[@]} -eq 0 ] || fabrics=("${args[*]}")
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
}
