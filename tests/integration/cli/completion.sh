#!/bin/bash
# Bash completion (docs/install/ibfm.bash-completion): commands, a subcommand's
# own options ("ibfm topo gen --<TAB>"), and for drain, undrain and path
# the node names ibfmd's last sweep found.
. "$TESTLIB"

# complete WORD...: what _ibfm offers for the last word.
complete_words() {
	COMP_WORDS=("$IBFM" "$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_ibfm
	printf '%s\n' "${COMPREPLY[@]}"
}
# shellcheck source=/dev/null
. "$(dirname "$TESTLIB")/../../docs/install/ibfm.bash-completion"

check "the completion defines _ibfm" declare -F _ibfm
complete_words dr >"$T/c1"
check "ibfm dr<TAB>: drain" grep -qx drain "$T/c1"
complete_words topo gen --le >"$T/c2"
check "ibfm topo gen --le<TAB>: --levels (gen's own option)" grep -qx -- --levels "$T/c2"
complete_words topo gen --pre >"$T/c3"
check "ibfm topo gen --pre<TAB>: --preset" grep -qx -- --preset "$T/c3"
complete_words topo gen --preset sup >"$T/c4"
check "--preset sup<TAB>: superpod-h100" grep -qx superpod-h100 "$T/c4"

routed_fabric -l 2 -k 8
ibfmd_beside "fabric_file $T/swept.topo"
export IBFM_SOCKET="$T/ibfmd.sock"
complete_words drain spi >"$T/c5"
check "ibfm drain spi<TAB>: the four spines" test "$(grep -c '^spine-0[1-4]$' "$T/c5")" = 4
complete_words path node01 >"$T/c6"
check "ibfm path node01<TAB>: servers by name" grep -qx node013 "$T/c6"
check "... no HCA suffix" bash -c "! grep -q mlx5 '$T/c6'"
finish
