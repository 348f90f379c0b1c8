# Sourced by the scripts that run from the source tree (the demo, the
# benchmarks): goes to the top of the tree, names the programs built
# there and the Debian tools they drive, then loads the test library
# (temp dir, ibsim, stop-by-PID cleanup).
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
export IBFM=$PWD/cli/ibfm IBFMD=$PWD/mgmt/ibfmd PLUGIN_DIR=$PWD/plugin/.libs
export SMP_HELPER=$PWD/plugin/ibfm-smp-helper
export IBSIM=${IBSIM:-$(command -v ibsim || echo /usr/sbin/ibsim)}
export OPENSM=${OPENSM:-$(command -v opensm || echo /usr/sbin/opensm)}
export UMAD2SIM=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
export IBNETDISCOVER=${IBNETDISCOVER:-$(command -v ibnetdiscover || echo /usr/sbin/ibnetdiscover)}
export IBTRACERT=${IBTRACERT:-$(command -v ibtracert || echo /usr/sbin/ibtracert)}
export IBROUTE=${IBROUTE:-$(command -v ibroute || echo /usr/sbin/ibroute)}
. tests/integration/lib.sh
