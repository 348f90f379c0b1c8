// SPDX-License-Identifier: MIT
/*
 * Planned changes on the fast path (plugin/fastpath.h,
 * ibfm_fastpath_change): a drain, an undrain, a job started or ended
 * written by the plugin itself, like a failure, so that OpenSM's heavy
 * sweep is off the operator's critical path.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/fastpath_int.h"
#include "routing/base/clock.h"

static const char *lists_name(unsigned changes)
{
	switch (changes) {
	case IBFM_FASTPATH_DRAINS:
		return "drain list";
	case IBFM_FASTPATH_JOBS:
		return "jobs list";
	default:
		return "drain and jobs lists";
	}
}

/*
 * Under the route lock: the pass with the lists as they are now on the
 * last pass's fabric, and the Set requests of the blocks it changed,
 * by routes over the fabric as found (a drained switch's own blocks
 * still reach it). NULL, or why the fast path cannot.
 */
static const char *plan(struct ibfm_fastpath *fp, struct ibfm_fastround *rd,
			struct ibfm_smpwire_req **req, size_t *n, size_t *first,
			struct ibfm_err *err)
{
	struct ibfm_route_opts o = *fp->c.opts;
	const struct ibfm_fabric *found = *fp->c.found;

	if (!*fp->c.route || !found)
		return "no pass to change yet";
	o.sharp = NULL; /* the publisher builds the trees */
	if (fp->c.reload)
		fp->c.reload(fp->c.ctx);
	if (fp->c.changing)
		fp->c.changing(fp->c.ctx);
	fp->gen++;
	if (ibfm_fastplan_change(fp->c.route, found,
				 fp->c.found_sick ? *fp->c.found_sick : NULL,
				 &o, &rd->plan, err))
		return err->msg;
	if (!rd->plan.nblocks) {
		rd->result = "nothing-changed";
		return NULL;
	}
	if (ibfm_fastpath_requests(fp, rd, found, req, n, first))
		return rd->result && !strcmp(rd->result, "no-route")
			       ? "no directed route from the SM's port"
			       : "out of memory";
	return NULL;
}

/* The log line and the event of a planned change ('why': not made). */
static void tell(struct ibfm_fastpath *fp, const struct ibfm_fastround *rd,
		 unsigned changes, const char *why)
{
	char json[900], must[24] = "-";
	size_t len;

	if (rd->plan.must_move_known)
		snprintf(must, sizeof(must), "%" PRIu64, rd->plan.must_move);
	ibfm_fastpath_round_json(rd, json, sizeof(json));
	len = strlen(json);
	snprintf(json + len, sizeof(json) - len,
		 ",\"lists\":\"%s\",\"full\":%s,\"why\":\"%s\"",
		 lists_name(changes), rd->plan.full ? "true" : "false",
		 why ? why : "");
	if (why)
		ibfm_log(&fp->c.log, IBFM_LOG_WARN,
			 "P22 fast-change %s: not on the fast path (%s): "
			 "OpenSM's heavy sweep routes it",
			 lists_name(changes), why);
	else
		ibfm_log(&fp->c.log, IBFM_LOG_INFO,
			 "fast-change %s %s: %zu LFT blocks (%" PRIu64
			 " entries, %s must move) by a %s in %.1f ms; %zu "
			 "acknowledged %.1f ms after the change, %zu read "
			 "back equal (%zu not) at %.1f ms",
			 lists_name(changes), rd->result, rd->plan.nblocks,
			 rd->plan.entries, must,
			 rd->plan.full ? "full route" : "repair",
			 rd->plan.route_ms, rd->acked, rd->acked_ms,
			 rd->verified, rd->mismatched, rd->verified_ms);
	ibfm_fastpath_note(fp, "fast-change", json);
}

/*
 * The change made whole: published, unless a pass came meanwhile (it
 * published the same tables). Not whole, once the route holds it: the
 * route is not what the switches hold until the pass it asks for.
 */
static void published(struct ibfm_fastpath *fp, const struct ibfm_fastround *rd,
		      const char *why, bool planned, uint64_t gen)
{
	pthread_mutex_lock(fp->c.lock);
	if (why && planned)
		__atomic_store_n(&fp->model_ok, 0, __ATOMIC_RELEASE);
	else if (!why && fp->c.changed && fp->gen == gen)
		fp->c.changed(fp->c.ctx, &rd->plan);
	pthread_mutex_unlock(fp->c.lock);
}

void ibfm_fastpath_change_round(struct ibfm_fastpath *fp, unsigned changes,
				double seen)
{
	struct ibfm_fastround rd = { .trap = seen, .result = "not-made" };
	struct ibfm_smpwire_req *req = NULL;
	size_t first = 0, n = 0;
	const char *why = NULL;
	struct ibfm_err err;
	uint64_t gen = 0;
	bool planned = false; /* the route holds the change */

	if (ibfm_fastpath_stopping(fp))
		return; /* OpenSM stops: nothing more, not even a sweep */
	if (!fp->c.found)
		why = "planned changes are OpenSM's";
	else if (!__atomic_load_n(&fp->master, __ATOMIC_ACQUIRE))
		why = "not master";
	else if (!__atomic_load_n(&fp->model_ok, __ATOMIC_ACQUIRE))
		why = "the fabric changed since the last pass";
	else if (!ibfm_fastpath_helper_ready(fp))
		why = "the SMP helper does not run";
	if (!why) {
		/* A pass that cancelled the last round's sending is over. */
		__atomic_store_n(&fp->cancel, 0, __ATOMIC_RELEASE);
		pthread_mutex_lock(fp->c.lock);
		why = plan(fp, &rd, &req, &n, &first, &err);
		planned = rd.plan.nblocks || !why;
		gen = fp->gen;
		pthread_mutex_unlock(fp->c.lock);
	}
	rd.planned_ms = ibfm_clock_ms() - seen;
	if (!why && req)
		ibfm_fastpath_send(fp, req, n, first, &rd);
	if (!why && rd.cut_off)
		why = "a switch no directed route reaches";
	else if (!why && rd.plan.nblocks && strcmp(rd.result, "done"))
		why = "not every block was read back";
	published(fp, &rd, why, planned, gen);
	tell(fp, &rd, changes, why);
	/* Multicast follows the drains by OpenSM's LID matrices. */
	if (fp->c.resweep && !ibfm_fastpath_stopping(fp) &&
	    (why || (changes & IBFM_FASTPATH_DRAINS)))
		fp->c.resweep(fp->c.ctx, why ? "the change"
					     : "multicast, after the drain");
	free(req);
	ibfm_fastplan_free(&rd.plan);
}
