#!/bin/bash
# Slurm prolog (PrologSlurmctld=, runs on the controller once per job):
# registers the job with ibfmd so that OpenSM routes its rings on links
# of their own (ibfm job start, docs/runbooks.md "Jobs"). Fails open: a
# failed or slow ibfm call is logged and the job starts anyway, routed
# as any other traffic.
#   IBFM        the ibfm binary (default: ibfm on PATH)
#   IBFM_SOCKET ibfmd's control socket (default: ibfm's, /run/ibfm/ibfmd.sock)
#   IBFM_WAIT   seconds to wait for the switches (default 30)
IBFM=${IBFM:-ibfm}
# To syslog (slurmctld's stderr when there is no logger).
say() { logger -t ibfm-prolog "$*" 2>/dev/null || echo "ibfm-prolog: $*" >&2; }
args=(--timeout "${IBFM_WAIT:-30}")
[ -n "${IBFM_SOCKET:-}" ] && args+=(--socket "$IBFM_SOCKET")
if [ -z "${SLURM_JOB_ID:-}" ] || [ -z "${SLURM_JOB_NODELIST:-}" ]; then
	say "no SLURM_JOB_ID or SLURM_JOB_NODELIST: nothing registered"
	exit 0
fi
out=$("$IBFM" job start "$SLURM_JOB_ID" --hosts "$SLURM_JOB_NODELIST" "${args[@]}" 2>&1)
rc=$?
if [ "$rc" != 0 ]; then
	say "job $SLURM_JOB_ID: ibfm job start failed (exit $rc), the job runs with the static routes: $out"
fi
exit 0
