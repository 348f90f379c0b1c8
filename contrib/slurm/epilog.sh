#!/bin/bash
# Slurm epilog (EpilogSlurmctld=, runs on the controller once per job):
# ends the job's registration with ibfmd (ibfm job end, docs/runbooks.md
# "Jobs"), giving its links back to the static routes. Fails open: a
# failed call is logged, the epilog still succeeds (ibfm job list shows
# what is left over; ibfm job end ID removes it by hand).
#   IBFM, IBFM_SOCKET, IBFM_WAIT as for prolog.sh
IBFM=${IBFM:-ibfm}
# To syslog (slurmctld's stderr when there is no logger).
say() { logger -t ibfm-epilog "$*" 2>/dev/null || echo "ibfm-epilog: $*" >&2; }
args=(--timeout "${IBFM_WAIT:-30}")
[ -n "${IBFM_SOCKET:-}" ] && args+=(--socket "$IBFM_SOCKET")
if [ -z "${SLURM_JOB_ID:-}" ]; then
	say "no SLURM_JOB_ID: nothing ended"
	exit 0
fi
out=$("$IBFM" job end "$SLURM_JOB_ID" "${args[@]}" 2>&1)
rc=$?
if [ "$rc" != 0 ]; then
	say "job $SLURM_JOB_ID: ibfm job end failed (exit $rc): $out"
fi
exit 0
