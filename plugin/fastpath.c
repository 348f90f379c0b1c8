// SPDX-License-Identifier: MIT
/* The fast path (see plugin/fastpath.h and docs/fast-reroute.md). */
#include "plugin/fastpath_int.h"
#include "routing/base/clock.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "routing/state/fastlog.h"

#define ATTR_LFT 0x19
/* Traps of one loss (both ends, a whole switch's neighbours) come
 * within this of each other: one round takes them all. */
#define GATHER_MS 3

/* The deadline for a reply: every try of one SMP, and some slack. */
static int reply_wait_ms(const struct ibfm_fastpath *fp)
{
	return (int)((fp->c.retries + 1) * fp->c.timeout_ms) + 1000;
}

void ibfm_fastpath_note(struct ibfm_fastpath *fp, const char *kind,
			const char *json)
{
	struct ibfm_err err;
	int rc;

	if (!fp || !fp->c.note_file)
		return;
	pthread_mutex_lock(&fp->note_lock);
	rc = ibfm_fastlog_append(fp->c.note_file, kind, json, &err);
	pthread_mutex_unlock(&fp->note_lock);
	/* Never a symlink followed nor a FIFO waited on, under OpenSM's lock. */
	if (rc)
		ibfm_log(&fp->c.log, IBFM_LOG_ERR, "P21 %s: the event is lost",
			 err.msg);
}

/*
 * Sends 'n' requests through the helper, their replies into 'rep' (by
 * index: request ids are indexes). Stops sending when OpenSM's pass
 * cancels ('*sent' says how many went). 0, or -errno when the helper
 * failed (it is stopped; the next round starts another).
 */
int ibfm_fastpath_exchange(struct ibfm_fastpath *fp,
			   const struct ibfm_smpwire_req *req, size_t n,
			   struct ibfm_smpwire_reply *rep, size_t *sent,
			   double *last_ms)
{
	size_t out = 0, got = 0, ahead = 4 * (size_t)fp->c.window;
	struct ibfm_smpwire_reply r;
	int rc;

	*sent = 0;
	while (got < out || out < n) {
		while (out < n && out - got < ahead &&
		       !__atomic_load_n(&fp->cancel, __ATOMIC_ACQUIRE)) {
			rc = ibfm_smpwire_write(fp->helper.fd, &req[out],
						sizeof(req[out]));
			if (rc)
				goto fail;
			out++;
		}
		if (got == out)
			break; /* cancelled: nothing more in flight */
		rc = ibfm_smpwire_read(fp->helper.fd, &r, sizeof(r),
				       reply_wait_ms(fp));
		if (rc)
			goto fail;
		if (r.id >= n) {
			rc = -EPROTO;
			goto fail;
		}
		rep[r.id] = r;
		got++;
		if (last_ms)
			*last_ms = ibfm_clock_ms();
	}
	*sent = out;
	ibfm_smplink_ok(&fp->helper);
	return 0;
fail:
	*sent = out;
	ibfm_smplink_failed(&fp->helper);
	return rc;
}

/*
 * Under the route lock: the links a repair took out, out of the last
 * pass's fabric as found too, so that a planned change routes the
 * fabric as it now is.
 */
static void note_found_lost(struct ibfm_fastpath *fp,
			    const struct ibfm_fastround *rd)
{
	const struct ibfm_fabric *f = (*fp->c.route)->fabric;
	struct ibfm_fabric *found = fp->c.found ? *fp->c.found : NULL;
	size_t i;

	for (i = 0; found && i < rd->ndead; i++) {
		const struct ibfm_port *x = &f->ports[rd->dead[i]];
		uint32_t n =
			ibfm_fabric_node_by_guid(found, f->nodes[x->node].guid);
		uint32_t q;

		if (n == IBFM_NONE || x->num > found->nodes[n].nports)
			continue;
		q = found->nodes[n].port0 + x->num;
		if (found->ports[q].peer != IBFM_NONE)
			ibfm_fabric_unlink(found, q);
	}
}

/*
 * Step 3, under the route lock: the repair, the Set requests by routes
 * over the repaired fabric, the blocks remembered (from index
 * '*first'). 0 with no request when nothing is to be done.
 */
static int plan_round(struct ibfm_fastpath *fp, uint64_t gen,
		      struct ibfm_fastround *rd, struct ibfm_smpwire_req **reqp,
		      size_t *n, size_t *first)
{
	struct ibfm_route_opts o = *fp->c.opts;
	struct ibfm_err err;

	*reqp = NULL;
	*n = 0;
	if (!*fp->c.route || fp->gen != gen) {
		rd->result = "overtaken"; /* OpenSM's pass came first */
		return 0;
	}
	o.sharp = NULL; /* OpenSM's pass builds the trees */
	if (fp->c.changing)
		fp->c.changing(fp->c.ctx);
	if (ibfm_fastplan_repair(fp->c.route, rd->dead, rd->ndead, &o,
				 &rd->plan, &err)) {
		ibfm_log(&fp->c.log, IBFM_LOG_ERR,
			 "P16 fast path: no repair (%s): OpenSM's pass repairs",
			 err.msg);
		rd->result = "no-repair";
		fp->gen++;
		return 0;
	}
	fp->gen++;
	note_found_lost(fp, rd);
	if (!rd->plan.nblocks) {
		rd->result = "nothing-lost";
		return 0;
	}
	return ibfm_fastpath_requests(fp, rd, (*fp->c.route)->fabric, reqp, n,
				      first);
}

int ibfm_fastpath_requests(struct ibfm_fastpath *fp, struct ibfm_fastround *rd,
			   const struct ibfm_fabric *wire,
			   struct ibfm_smpwire_req **reqp, size_t *n,
			   size_t *first)
{
	const struct ibfm_fabric *f = (*fp->c.route)->fabric;
	uint32_t sm = ibfm_fabric_port_by_guid(wire, fp->sm_guid), *via = NULL;
	struct ibfm_smpwire_req *req;
	size_t i;

	req = calloc(rd->plan.nblocks, sizeof(*req));
	if (!req || sm == IBFM_NONE ||
	    ibfm_fastplan_paths(wire, wire->ports[sm].node, NULL, &via)) {
		free(req);
		rd->result = "no-route";
		return -ENOMEM;
	}
	ibfm_fastpath_compact(fp);
	*first = fp->nw;
	for (i = 0; i < rd->plan.nblocks; i++) {
		const struct ibfm_fastplan_block *b = &rd->plan.blocks[i];
		struct ibfm_smpwire_req *q = &req[*n];
		uint32_t at = wire == f ? b->node
					: ibfm_fabric_node_by_guid(
						  wire, f->nodes[b->node].guid);
		int hops = at == IBFM_NONE ? -1
					   : ibfm_fastplan_path_to(wire, via,
								   at, q->path);

		/* A switch cut off (a whole switch lost): nothing to send,
		 * nor a way to send it. */
		if (hops < 1) {
			rd->cut_off++;
			continue;
		}
		q->id = (uint32_t)*n;
		q->method = IBFM_SMPWIRE_SET;
		q->hops = (uint8_t)hops;
		q->attr = ATTR_LFT;
		q->mod = b->block;
		memcpy(q->data, b->ports, 64);
		if (ibfm_fastpath_remember(fp, f->nodes[b->node].guid, b)) {
			free(via);
			free(req);
			return -ENOMEM;
		}
		(*n)++;
	}
	free(via);
	fp->inflight = true;
	*reqp = req;
	return 0;
}

/* Step 4's second half: every acknowledged block read back. */
static void verify(struct ibfm_fastpath *fp, struct ibfm_smpwire_req *req,
		   const struct ibfm_smpwire_reply *ack, size_t n,
		   struct ibfm_fastround *rd)
{
	struct ibfm_smpwire_reply *rep = calloc(n + 1, sizeof(*rep));
	size_t i, m = 0, sent;
	double last = 0;

	if (!rep)
		return;
	for (i = 0; i < n; i++) {
		if (ack[i].status || !req[i].hops)
			continue;
		req[m] = req[i];
		req[m].id = (uint32_t)m;
		req[m].method = IBFM_SMPWIRE_GET;
		m++;
	}
	if (!ibfm_fastpath_exchange(fp, req, m, rep, &sent, &last)) {
		for (i = 0; i < sent; i++) {
			if (rep[i].status)
				continue;
			if (memcmp(rep[i].data, req[i].data, 64))
				rd->mismatched++;
			else
				rd->verified++;
		}
	}
	if (last > 0)
		rd->verified_ms = last - rd->trap;
	free(rep);
}

/* Step 4: the blocks sent, acknowledged, read back. */
void ibfm_fastpath_send(struct ibfm_fastpath *fp, struct ibfm_smpwire_req *req,
			size_t n, size_t first, struct ibfm_fastround *rd)
{
	size_t i;
	struct ibfm_smpwire_reply *ack = calloc(n + 1, sizeof(*ack));
	double last = 0;

	if (ack) {
		for (i = 0; i < n; i++)
			ack[i].status = -ECANCELED;
		ibfm_fastpath_exchange(fp, req, n, ack, &rd->sent, &last);
	}
	pthread_mutex_lock(fp->c.lock);
	for (i = 0; ack && i < n; i++)
		if (!ack[i].status && !memcmp(ack[i].data, req[i].data, 64)) {
			fp->w[first + i].acked = true;
			rd->acked++;
		}
	pthread_mutex_unlock(fp->c.lock);
	if (last > 0)
		rd->acked_ms = last - rd->trap;
	if (ack && rd->acked && !__atomic_load_n(&fp->cancel, __ATOMIC_ACQUIRE))
		verify(fp, req, ack, n, rd);
	pthread_mutex_lock(fp->c.lock);
	fp->inflight = false;
	pthread_cond_broadcast(&fp->idle);
	pthread_mutex_unlock(fp->c.lock);
	rd->result = rd->acked == n && rd->verified == rd->acked ? "done"
		     : __atomic_load_n(&fp->cancel, __ATOMIC_ACQUIRE)
			     ? "cancelled"
			     : "incomplete";
	free(ack);
}

/* Wall-clock ms of the monotonic ms 't' (0 stays 0), for benchmarks. */
static long long wall_ms(double t)
{
	struct timespec ts;

	if (t <= 0)
		return 0;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)(ts.tv_sec * 1e3 + ts.tv_nsec / 1e6 -
			   ibfm_clock_ms() + t);
}

void ibfm_fastpath_round_json(const struct ibfm_fastround *rd, char *buf,
			      size_t len)
{
	int n;

	n = snprintf(
		buf, len,
		"\"result\":\"%s\",\"switches\":%u,\"silent\":%u,"
		"\"links\":%u,\"blocks\":%zu,\"cut_off\":%zu,"
		"\"entries\":%" PRIu64
		",\"sent\":%zu,\"acked\":%zu,\"verified\":%zu,"
		"\"mismatched\":%zu,\"route_ms\":%.1f,\"found_ms\":%.1f,"
		"\"planned_ms\":%.1f,\"acked_ms\":%.1f,\"verified_ms\":%.1f",
		rd->result, rd->switches, rd->silent, rd->plan.lost,
		rd->plan.nblocks, rd->cut_off, rd->plan.entries, rd->sent,
		rd->acked, rd->verified, rd->mismatched, rd->plan.route_ms,
		rd->found_ms, rd->planned_ms, rd->acked_ms, rd->verified_ms);
	if (n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, ",\"must_move\":%lld",
			      rd->plan.must_move_known
				      ? (long long)rd->plan.must_move
				      : -1LL);
	if (n > 0 && (size_t)n < len)
		snprintf(
			buf + n, len - (size_t)n,
			",\"trap_at\":%lld,\"acked_at\":%lld,"
			"\"verified_at\":%lld",
			wall_ms(rd->trap),
			wall_ms(rd->acked_ms > 0 ? rd->trap + rd->acked_ms : 0),
			wall_ms(rd->verified_ms > 0 ? rd->trap + rd->verified_ms
						    : 0));
}

/* Step 5: the log line and the event. */
static void tell(struct ibfm_fastpath *fp, const struct ibfm_fastround *rd)
{
	char json[700];

	ibfm_fastpath_round_json(rd, json, sizeof(json));
	ibfm_log(
		&fp->c.log,
		strcmp(rd->result, "done") && rd->plan.nblocks ? IBFM_LOG_ERR
							       : IBFM_LOG_INFO,
		"%sfast-reroute %s: %u switches trapped (%u silent), %u links "
		"lost, %zu LFT blocks (%" PRIu64 " entries, %" PRIu64
		" must move) repaired in %.1f ms; %zu "
		"acknowledged %.1f ms after the trap, %zu read back equal (%zu "
		"not) at %.1f ms",
		strcmp(rd->result, "done") && rd->plan.nblocks ? "P17 " : "",
		rd->result, rd->switches, rd->silent, rd->plan.lost,
		rd->plan.nblocks, rd->plan.entries, rd->plan.must_move,
		rd->plan.route_ms, rd->acked, rd->acked_ms, rd->verified,
		rd->mismatched, rd->verified_ms);
	ibfm_fastpath_note(fp, "fast-reroute", json);
}

bool ibfm_fastpath_stopping(struct ibfm_fastpath *fp)
{
	bool stop;

	pthread_mutex_lock(&fp->qlock);
	stop = fp->stop;
	pthread_mutex_unlock(&fp->qlock);
	return stop;
}

/* Makes sure the helper runs on the SM's port; false when it cannot. */
bool ibfm_fastpath_helper_ready(struct ibfm_fastpath *fp)
{
	struct ibfm_smpwire_conf conf = { .magic = IBFM_SMPWIRE_MAGIC,
					  .window = fp->c.window,
					  .timeout_ms = fp->c.timeout_ms,
					  .retries = fp->c.retries };

	pthread_mutex_lock(fp->c.lock);
	conf.port_guid = fp->sm_guid;
	conf.mkey = fp->mkey;
	pthread_mutex_unlock(fp->c.lock);
	return conf.port_guid && !ibfm_smplink_ready(&fp->helper, &conf);
}

/* One round: the traps queued, handled. */
static void round_run(struct ibfm_fastpath *fp, uint16_t *lids, unsigned n,
		      double trap)
{
	struct ibfm_smpwire_req *req = NULL;
	struct ibfm_fastround rd = { .trap = trap, .result = "nothing-lost" };
	uint64_t gen = 0;
	size_t first = 0, nreq = 0;

	/* The switches hold another engine's tables: OpenSM's to repair. */
	if (!__atomic_load_n(&fp->route_ok, __ATOMIC_ACQUIRE) ||
	    ibfm_fastpath_stopping(fp) || !ibfm_fastpath_helper_ready(fp))
		return;
	/* A pass that cancelled the last round's sending is over. */
	__atomic_store_n(&fp->cancel, 0, __ATOMIC_RELEASE);
	if (ibfm_fastpath_find_dead(fp, lids, n, &gen, &rd)) {
		free(rd.dead);
		return;
	}
	rd.found_ms = ibfm_clock_ms() - trap;
	if (rd.ndead) {
		pthread_mutex_lock(fp->c.lock);
		if (plan_round(fp, gen, &rd, &req, &nreq, &first))
			rd.result = "no-memory";
		pthread_mutex_unlock(fp->c.lock);
		rd.planned_ms = ibfm_clock_ms() - trap;
		if (req)
			ibfm_fastpath_send(fp, req, nreq, first, &rd);
	}
	if (rd.ndead || rd.silent)
		tell(fp, &rd);
	/* Everything the traps said is in the route: planned changes may
	 * go on the fast path again. Overtaken by a pass that may have
	 * swept before the loss: not until OpenSM's next. */
	if (!strcmp(rd.result, "done") && !rd.silent)
		__atomic_store_n(&fp->model_ok, 1, __ATOMIC_RELEASE);
	else if (rd.ndead && !strcmp(rd.result, "overtaken"))
		__atomic_store_n(&fp->model_ok, 0, __ATOMIC_RELEASE);
	free(req);
	free(rd.dead);
	ibfm_fastplan_free(&rd.plan);
}

static void *run(void *arg)
{
	struct ibfm_fastpath *fp = arg;
	uint16_t lids[IBFM_FASTPATH_MAX_TRAPS];
	sigset_t pipe;

	/* Writes to the helper say MSG_NOSIGNAL; should one ever not,
	 * SIGPIPE waits here, blocked, instead of ending OpenSM. */
	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe, NULL);

	pthread_mutex_lock(&fp->qlock);
	while (!fp->stop) {
		unsigned n, changes;
		double trap, seen;

		if (!fp->nlids && !fp->changes) {
			pthread_cond_wait(&fp->qcond, &fp->qlock);
			continue;
		}
		/* Let the other traps of the same loss come. */
		pthread_mutex_unlock(&fp->qlock);
		usleep(GATHER_MS * 1000);
		pthread_mutex_lock(&fp->qlock);
		n = fp->nlids;
		memcpy(lids, fp->lids, n * sizeof(*lids));
		trap = fp->first_trap;
		fp->nlids = 0;
		/* Losses first: a planned change routes the fabric as is. */
		changes = n ? 0 : fp->changes;
		seen = fp->first_change;
		if (!n)
			fp->changes = 0;
		pthread_mutex_unlock(&fp->qlock);
		if (n && __atomic_load_n(&fp->master, __ATOMIC_ACQUIRE))
			round_run(fp, lids, n, trap);
		if (changes)
			ibfm_fastpath_change_round(fp, changes, seen);
		pthread_mutex_lock(&fp->qlock);
	}
	pthread_mutex_unlock(&fp->qlock);
	return NULL;
}

int ibfm_fastpath_start(const struct ibfm_fastpath_conf *c,
			struct ibfm_fastpath **out)
{
	struct ibfm_fastpath *fp = calloc(1, sizeof(*fp));
	char why[512];
	int rc;

	if (!fp)
		return -ENOMEM;
	fp->c = *c;
	fp->helper.path = c->helper;
	fp->helper.log = c->log;
	/* Said at load, not first at a trap; each start checks again (a
	 * helper not installed is P18 at the first trap, as before). */
	if (ibfm_smplink_check(c->helper, why, sizeof(why)) == -EPERM) {
		ibfm_log(&c->log, IBFM_LOG_ERR,
			 "P20 fast path: %s: the helper will not be started",
			 why);
		fp->helper.told = true;
	}
	pthread_mutex_init(&fp->qlock, NULL);
	pthread_mutex_init(&fp->note_lock, NULL);
	pthread_cond_init(&fp->qcond, NULL);
	pthread_cond_init(&fp->idle, NULL);
	rc = pthread_create(&fp->thread, NULL, run, fp);
	if (rc) {
		free(fp);
		return -rc;
	}
	*out = fp;
	return 0;
}

void ibfm_fastpath_stop(struct ibfm_fastpath *fp)
{
	if (!fp)
		return;
	pthread_mutex_lock(&fp->qlock);
	fp->stop = true;
	pthread_cond_signal(&fp->qcond);
	pthread_mutex_unlock(&fp->qlock);
	__atomic_store_n(&fp->cancel, 1, __ATOMIC_RELEASE);
	pthread_join(fp->thread, NULL);
	ibfm_smplink_stop(&fp->helper);
	free(fp->w);
	free(fp);
}

void ibfm_fastpath_master(struct ibfm_fastpath *fp, bool master)
{
	if (fp)
		__atomic_store_n(&fp->master, master, __ATOMIC_RELEASE);
}

void ibfm_fastpath_trap(struct ibfm_fastpath *fp, uint16_t lid, bool master)
{
	if (!fp)
		return;
	ibfm_fastpath_master(fp, master);
	if (!master)
		return; /* a standby routed nothing: nothing to repair */
	__atomic_store_n(&fp->model_ok, 0, __ATOMIC_RELEASE);
	pthread_mutex_lock(&fp->qlock);
	if (!fp->nlids)
		fp->first_trap = ibfm_clock_ms();
	if (fp->nlids < IBFM_FASTPATH_MAX_TRAPS)
		fp->lids[fp->nlids++] = lid;
	pthread_cond_signal(&fp->qcond);
	pthread_mutex_unlock(&fp->qlock);
}

void ibfm_fastpath_set_sm(struct ibfm_fastpath *fp, uint64_t port_guid,
			  uint64_t mkey)
{
	if (!fp)
		return;
	fp->sm_guid = port_guid;
	fp->mkey = mkey;
	fp->gen++; /* a pass changed the route */
	__atomic_store_n(&fp->model_ok, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&fp->route_ok, 1, __ATOMIC_RELEASE);
}

void ibfm_fastpath_change(struct ibfm_fastpath *fp, unsigned what)
{
	pthread_mutex_lock(&fp->qlock);
	if (!fp->changes)
		fp->first_change = ibfm_clock_ms();
	fp->changes |= what;
	pthread_cond_signal(&fp->qcond);
	pthread_mutex_unlock(&fp->qlock);
}

void ibfm_fastpath_invalidate(struct ibfm_fastpath *fp)
{
	if (!fp)
		return;
	__atomic_store_n(&fp->route_ok, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&fp->model_ok, 0, __ATOMIC_RELEASE);
	fp->gen++; /* a round in flight is overtaken */
}

void ibfm_fastpath_quiesce(struct ibfm_fastpath *fp)
{
	struct timespec until;
	int ms;

	if (!fp || !fp->inflight)
		return;
	__atomic_store_n(&fp->cancel, 1, __ATOMIC_RELEASE);
	ms = reply_wait_ms(fp) * 2;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	while (fp->inflight && pthread_cond_timedwait(&fp->idle, fp->c.lock,
						      &until) != ETIMEDOUT)
		;
}
