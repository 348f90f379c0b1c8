// SPDX-License-Identifier: MIT
/*
 * ibfmd's congestion control: jobs (a diff or an apply over the CC
 * targets of the last sweep) set up on the loop, run on the worker
 * (they need the MAD port and block on MADs), and answered through
 * cc-status. What each node ended in is kept: a node counts as
 * configured only after a job read its settings back equal to its
 * profile, so a failure is retried by the next automatic pass.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cc/cc.h"
#include "cc/ccpolicy.h"
#include "cc/ccport.h"
#include "mgmt/core/feature.h"
#include "mgmt/base/log.h"
#include "routing/model/rail.h"
#include "routing/state/snapshot.h"

#define MAX_FAILED_EVENTS 32

IBFMD_LOG_MODULE(cc);

/* What ibfmd last learnt of one CC target (by GUID and port). */
struct ibfmd_cc_known {
	uint64_t guid;
	uint8_t port;
	uint8_t state;	   /* enum ibfm_cc_state */
	bool key_rejected; /* with this cc_key */
};

/* Congestion control: the policy, the last or running job, what is known. */
struct ibfmd_cc {
	struct ibfm_ccpolicy policy;
	struct ibfm_ccpolicy next; /* reloaded while a job ran: taken after */
	struct ibfm_ccpolicy retired; /* replaced, named by the last results */
	bool has_next;
	/* A job: set up by the loop, the worker's while 'running'. */
	bool running, apply, automatic;
	uint64_t job;
	struct ibfm_cc_target *t;
	struct ibfm_cc_result *r;
	size_t n, done; /* 'done' under the feature's lock */
	struct ibfm_cc_opts opts;
	unsigned timeout_ms; /* per CC MAD on the fabric */
	time_t started;
	double elapsed_s;
	/* What the loop knows, sorted by GUID and port. */
	struct ibfmd_cc_known *known;
	size_t nknown;
	uint64_t sets; /* Set MADs sent, all jobs */
	int sharp_sl;  /* SHARP's SL as the last job read it, -1: none */
};

/* The feature's state. */
struct cc_state {
	const struct ibfmd_core *core;
	struct ibfmd_cc cc;
	struct ibfm_ccport *port; /* where the jobs' MADs go (cc/ccport.h) */
	pthread_mutex_t lock;	  /* cc.done, which the worker counts up */
	struct ibfmd_work work;	  /* the job, on the worker */
	char why[200];		  /* a refusal, for job_start's caller */
};

static int known_cmp(const void *a, const void *b)
{
	const struct ibfmd_cc_known *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return (int)x->port - (int)y->port;
}

static struct ibfmd_cc_known *known(const struct cc_state *d, uint64_t guid,
				    uint8_t port)
{
	struct ibfmd_cc_known key = { .guid = guid, .port = port };

	return d->cc.nknown ? bsearch(&key, d->cc.known, d->cc.nknown,
				      sizeof(key), known_cmp)
			    : NULL;
}

static bool configured(const struct ibfmd_cc_known *k)
{
	return k && (k->state == IBFM_CC_UNCHANGED || k->state == IBFM_CC_SET);
}

/* Whether an automatic pass should leave 't' alone. */
static bool settled(const struct cc_state *d, const struct ibfm_cc_target *t)
{
	const struct ibfmd_cc_known *k = known(d, t->guid, t->port);

	/* Unsupported nodes are probed again on demand only: a fabric of
	 * old HCAs would otherwise cost timeouts on every sweep. */
	return configured(k) ||
	       (k && (k->state == IBFM_CC_UNSUPPORTED || k->key_rejected));
}

/* The rail number of each CA target when the policy asks for rails. */
static void pick_profiles(struct cc_state *d, struct ibfm_cc_target *t,
			  size_t n)
{
	const struct ibfm_fabric *f = d->core->view->fabric;
	struct ibfm_rails rails = { 0 };
	struct ibfm_err err;
	bool want_rails = false;

	for (size_t i = 0; i < d->cc.policy.nrules; i++)
		want_rails |= d->cc.policy.rules[i].kind == IBFM_CCPOLICY_RAIL;
	if (want_rails && ibfm_rail_detect(f, NULL, NULL, &rails, &err))
		IBFMD_WARN_RL("no rails: %s", err.msg);
	for (size_t i = 0; i < n; i++) {
		uint32_t rail = IBFM_CCPOLICY_NO_RAIL, node;

		node = ibfm_fabric_node_by_guid(f, t[i].guid);
		if (!t[i].sw && rails.nrails && node != IBFM_NONE) {
			uint32_t r = rails.port_rail[ibfm_fabric_port(
				f, node, t[i].port)];
			if (r != IBFM_RAIL_NONE)
				rail = rails.rail_value[r];
		}
		t[i].profile = ibfm_ccpolicy_pick(&d->cc.policy, t[i].sw,
						  t[i].guid, rail);
	}
	ibfm_rails_free(&rails);
}

/*
 * SHARP's SL (the plugin's sharp_sl, from its snapshot) is taken out of
 * every profile's CA map: end-point throttling must not slow the
 * aggregation traffic, whatever a profile says.
 */
static void keep_sharp_sl_out(struct cc_state *d)
{
	struct ibfm_snapshot snap = { .sharp_sl = -1 };
	int sl;

	if (d->core->conf->state_dir[0])
		ibfm_snapshot_read(d->core->conf->state.snapshot, &snap, NULL);
	sl = snap.sharp_sl;

	d->cc.sharp_sl = sl;
	if (sl < 0)
		return;
	for (size_t i = 0; i < d->cc.policy.nprofiles; i++) {
		struct ibfm_ccprofile *p = &d->cc.policy.profiles[i];

		if (!(p->ca.control_map >> sl & 1))
			continue;
		p->exclude_sls |= (uint16_t)(1U << sl);
		p->ca.control_map &= (uint16_t) ~(1U << sl);
		IBFMD_INFO_RL(
			"SL %d is SHARP's (the plugin's sharp_sl): off in "
			"profile %s",
			sl, p->name);
	}
}

/*
 * Starts a job over the last sweep's targets (with 'automatic', only
 * those not settled). 0; -EBUSY, -EAGAIN (no sweep, no targets),
 * -ENOMEM with 'why' set.
 */
static int job_start(struct cc_state *d, bool apply, bool automatic,
		     const char **why)
{
	struct ibfm_cc_target *t;
	struct ibfm_cc_result *r;
	long n;
	size_t k = 0;

	if (d->cc.running) {
		*why = "a congestion-control job is running";
		return -EBUSY;
	}
	/* Applied from beside the master only: one writer of CC. */
	if (apply && !ibfmd_statedir_beside_master(d->core->statedir, d->why,
						   sizeof(d->why))) {
		*why = d->why;
		return -EAGAIN;
	}
	if (!d->core->view->fabric) {
		*why = "no sweep yet";
		return -EAGAIN;
	}
	n = ibfm_cc_targets(d->core->view->fabric, &t);
	if (n < 0) {
		*why = "out of memory";
		return -ENOMEM;
	}
	for (long i = 0; i < n; i++)
		if (!automatic || !settled(d, &t[i]))
			t[k++] = t[i];
	r = k ? calloc(k, sizeof(*r)) : NULL;
	if (!k || !r) {
		free(t);
		free(r);
		*why = k ? "out of memory"
			 : "no node with a LID (is a subnet manager running?)";
		return k ? -ENOMEM : -EAGAIN;
	}
	keep_sharp_sl_out(d);
	pick_profiles(d, t, k);
	free(d->cc.t);
	free(d->cc.r);
	ibfm_ccpolicy_free(&d->cc.retired); /* no result names them now */
	d->cc.t = t;
	d->cc.r = r;
	d->cc.n = k;
	d->cc.done = 0;
	d->cc.apply = apply;
	d->cc.automatic = automatic;
	d->cc.timeout_ms = d->core->conf->cc_timeout_ms;
	d->cc.opts =
		(struct ibfm_cc_opts){ .cc_key = d->core->conf->cc_key,
				       .tries = d->core->conf->cc_tries,
				       .backoff_ms =
					       d->core->conf->cc_backoff_ms };
	d->cc.job++;
	d->cc.started = time(NULL);
	d->cc.running = true;
	ibfmd_work_submit(&d->work); /* the job is the worker's until done */
	return 0;
}

/* The worker's part of a job: every target, through the CC port. */
static void job_run(struct ibfm_madport *port, void *arg)
{
	struct cc_state *d = arg;
	struct ibfm_cc_transport tr;
	uint16_t sm_lid = ibfm_ccport_begin(d->port, port, d->cc.t, d->cc.n,
					    d->cc.timeout_ms, &tr);

	for (size_t i = 0; i < d->cc.n; i++) {
		struct ibfm_cc_result *r = &d->cc.r[i];

		if (sm_lid && d->cc.t[i].lid == sm_lid) {
			r->state = IBFM_CC_UNSUPPORTED;
			snprintf(r->reason, sizeof(r->reason),
				 "not probed: the subnet manager's port on "
				 "ibsim (docs/cc.md)");
		} else if (tr.ctx) {
			ibfm_cc_run(&tr, &d->cc.t[i], &d->cc.opts, d->cc.apply,
				    r);
		} else {
			r->state = IBFM_CC_FAILED;
			snprintf(r->reason, sizeof(r->reason), "no MAD port");
		}
		pthread_mutex_lock(&d->lock);
		d->cc.done = i + 1;
		pthread_mutex_unlock(&d->lock);
	}
}

/* Takes the job's results into what is known. */
static void learn(struct cc_state *d)
{
	size_t add = 0;
	struct ibfmd_cc_known *v =
		realloc(d->cc.known, (d->cc.nknown + d->cc.n) * sizeof(*v));

	if (!v)
		return; /* nothing learnt: the next pass asks again */
	d->cc.known = v;
	for (size_t i = 0; i < d->cc.n; i++) {
		const struct ibfm_cc_target *t = &d->cc.t[i];
		const struct ibfm_cc_result *r = &d->cc.r[i];
		struct ibfmd_cc_known *k = known(d, t->guid, t->port);

		d->cc.sets += r->sets;
		if (!k)
			k = &v[d->cc.nknown + add++];
		*k = (struct ibfmd_cc_known){ t->guid, t->port,
					      (uint8_t)r->state,
					      r->key_rejected };
	}
	d->cc.nknown += add;
	qsort(d->cc.known, d->cc.nknown, sizeof(*v), known_cmp);
}

#define NSTATES (IBFM_CC_UNSUPPORTED + 1)

/* The last job's results by state. */
static void tally_results(const struct cc_state *d, unsigned *count)
{
	memset(count, 0, NSTATES * sizeof(*count));
	for (size_t i = 0; i < d->cc.n; i++)
		count[d->cc.r[i].state]++;
}

/* What is known of the nodes, by state. */
static void tally_known(const struct cc_state *d, unsigned *count)
{
	memset(count, 0, NSTATES * sizeof(*count));
	for (size_t i = 0; i < d->cc.nknown; i++)
		count[d->cc.known[i].state]++;
}

static void counts_json(struct ibfm_json *j, const unsigned *count)
{
	ibfm_json_obj_begin(j, "counts");
	for (unsigned s = 0; s < NSTATES; s++)
		ibfm_json_uint(j, ibfm_cc_state_name(s), count[s]);
	ibfm_json_obj_end(j);
}

static void job_events(struct cc_state *d, const unsigned *count)
{
	struct ibfmd_event e = { .severity = count[IBFM_CC_FAILED] ? "warning"
								   : "info",
				 .kind = "cc-apply" };
	unsigned failed = 0;

	snprintf(e.ports[0], sizeof(e.ports[0]), "%s job %" PRIu64,
		 d->cc.automatic ? "automatic" : "requested", d->cc.job);
	snprintf(e.detail, sizeof(e.detail),
		 "%u set, %u unchanged, %u failed, %u unsupported",
		 count[IBFM_CC_SET], count[IBFM_CC_UNCHANGED],
		 count[IBFM_CC_FAILED], count[IBFM_CC_UNSUPPORTED]);
	ibfmd_events_add(d->core->events, &e);
	for (size_t i = 0; i < d->cc.n && failed < MAX_FAILED_EVENTS; i++) {
		const struct ibfm_cc_result *r = &d->cc.r[i];

		if (r->state != IBFM_CC_FAILED)
			continue;
		failed++;
		e = (struct ibfmd_event){ .severity = "warning",
					  .kind = "cc-failed" };
		snprintf(e.ports[0], sizeof(e.ports[0]),
			 "%.60s[%u] (0x%016" PRIx64 ")", d->cc.t[i].name,
			 d->cc.t[i].port, d->cc.t[i].guid);
		snprintf(e.detail, sizeof(e.detail), "%.110s", r->reason);
		ibfmd_events_add(d->core->events, &e);
	}
}

/* Takes the reloaded policy in; the old one's profiles go. */
static void take_next(struct cc_state *d)
{
	/* The last job's results still name its profiles (cc-status). */
	ibfm_ccpolicy_free(&d->cc.retired);
	d->cc.retired = d->cc.policy;
	d->cc.policy = d->cc.next;
	memset(&d->cc.next, 0, sizeof(d->cc.next));
	d->cc.has_next = false;
	free(d->cc.known);
	d->cc.known = NULL;
	d->cc.nknown = 0;
	IBFMD_INFO("profile %s, %zu policy rules; every node is compared "
		   "again",
		   d->cc.policy.profiles[0].name, d->cc.policy.nrules);
}

static void job_done(void *arg)
{
	struct cc_state *d = arg;
	unsigned count[NSTATES];

	d->cc.running = false;
	d->cc.elapsed_s = difftime(time(NULL), d->cc.started);
	tally_results(d, count);
	learn(d);
	if (d->cc.has_next)
		take_next(d);
	IBFMD_INFO("%s job %" PRIu64 ": %zu nodes, %u set, %u unchanged, "
		   "%u pending, %u failed, %u unsupported",
		   d->cc.apply ? "apply" : "diff", d->cc.job, d->cc.n,
		   count[IBFM_CC_SET], count[IBFM_CC_UNCHANGED],
		   count[IBFM_CC_PENDING], count[IBFM_CC_FAILED],
		   count[IBFM_CC_UNSUPPORTED]);
	if (d->cc.apply)
		job_events(d, count);
}

/* After a sweep: with cc_auto, applies to nodes not configured yet. */
static void after_sweep(void *state)
{
	struct cc_state *d = state;
	const char *why;

	if (d->core->conf->cc_auto)
		job_start(d, true, true, &why); /* nothing new: no job */
}

static void start_cmd(struct cc_state *d, struct ibfm_json *j, bool apply)
{
	const char *why = NULL;
	int rc = job_start(d, apply, false, &why);

	if (rc) {
		ibfm_ctl_error(j, NULL, "%s", why);
		ibfm_json_bool(j, "busy", rc == -EBUSY);
		return;
	}
	ibfm_json_uint(j, "job", d->cc.job);
	ibfm_json_str(j, "state", "running");
	ibfm_json_uint(j, "total", d->cc.n);
}

static void cmd_diff(void *ctx, const struct ibfm_req *req, struct ibfm_json *j)
{
	(void)req;
	start_cmd(ctx, j, false);
}

static void cmd_apply(void *ctx, const struct ibfm_req *req,
		      struct ibfm_json *j)
{
	(void)req;
	start_cmd(ctx, j, true);
}

static void guid_str(struct ibfm_json *j, const char *key, uint64_t guid)
{
	char text[24];

	snprintf(text, sizeof(text), "0x%016" PRIx64, guid);
	ibfm_json_str(j, key, text);
}

static void node_json(struct ibfm_json *j, const struct ibfm_cc_target *t,
		      const struct ibfm_cc_result *r)
{
	ibfm_json_obj_begin(j, NULL);
	guid_str(j, "guid", t->guid);
	ibfm_json_str(j, "name", t->name);
	ibfm_json_uint(j, "port", t->port);
	ibfm_json_str(j, "type", t->sw ? "switch" : "ca");
	ibfm_json_uint(j, "lid", t->lid);
	ibfm_json_str(j, "profile", t->profile->name);
	ibfm_json_str(j, "result", ibfm_cc_state_name(r->state));
	ibfm_json_str(j, "reason", r->reason);
	ibfm_json_uint(j, "changes_total", r->nchanges);
	ibfm_json_arr_begin(j, "changes");
	for (unsigned k = 0; k < r->nchanges && k < IBFM_CC_MAX_CHANGES; k++) {
		const struct ibfm_cc_change *c = &r->changes[k];

		ibfm_json_obj_begin(j, NULL);
		ibfm_json_str(j, "attribute", ibfm_ccwire_attr_name(c->attr));
		ibfm_json_str(j, "field", c->field);
		ibfm_json_str(j, "have", c->have);
		ibfm_json_str(j, "want", c->want);
		ibfm_json_obj_end(j);
	}
	ibfm_json_arr_end(j);
	ibfm_json_uint(j, "gets", r->gets);
	ibfm_json_uint(j, "sets", r->sets);
	ibfm_json_uint(j, "timeouts", r->timeouts);
	ibfm_json_obj_end(j);
}

/* The running job's progress, or the last job's results. */
static void cmd_status(void *ctx, const struct ibfm_req *req,
		       struct ibfm_json *j)
{
	struct cc_state *d = ctx;
	unsigned count[NSTATES], sets = 0;
	size_t done;

	(void)req;
	pthread_mutex_lock(&d->lock);
	done = d->cc.done;
	pthread_mutex_unlock(&d->lock);
	ibfm_json_uint(j, "job", d->cc.job);
	ibfm_json_str(j, "kind", d->cc.apply ? "apply" : "diff");
	ibfm_json_bool(j, "automatic", d->cc.automatic);
	ibfm_json_str(j, "state",
		      !d->cc.job      ? "none"
		      : d->cc.running ? "running"
				      : "done");
	ibfm_json_uint(j, "done", done);
	ibfm_json_uint(j, "total", d->cc.n);
	ibfm_json_double(j, "elapsed_s",
			 d->cc.running ? difftime(time(NULL), d->cc.started)
				       : d->cc.elapsed_s);
	if (d->cc.running || !d->cc.job)
		return;
	tally_results(d, count);
	for (size_t i = 0; i < d->cc.n; i++)
		sets += d->cc.r[i].sets;
	ibfm_json_uint(j, "sets_sent", sets);
	counts_json(j, count);
	ibfm_json_arr_begin(j, "nodes");
	for (size_t i = 0; i < d->cc.n; i++)
		node_json(j, &d->cc.t[i], &d->cc.r[i]);
	ibfm_json_arr_end(j);
}

static void profile_json(struct ibfm_json *j, const struct ibfm_ccprofile *p)
{
	ibfm_json_obj_begin(j, NULL);
	ibfm_json_str(j, "name", p->name);
	ibfm_json_obj_begin(j, "switch");
	ibfm_json_uint(j, "control_map", p->sw.control_map);
	ibfm_json_uint(j, "threshold", p->sw.threshold);
	ibfm_json_uint(j, "packet_size", p->sw.packet_size);
	ibfm_json_uint(j, "marking_rate", p->sw.marking_rate);
	ibfm_json_uint(j, "cs_threshold", p->sw.cs_threshold);
	ibfm_json_uint(j, "cs_return_delay", p->sw.cs_return_delay);
	ibfm_json_obj_end(j);
	ibfm_json_obj_begin(j, "ca");
	ibfm_json_uint(j, "port_control", p->ca.port_control);
	ibfm_json_uint(j, "control_map", p->ca.control_map);
	ibfm_json_uint(j, "exclude_sls", p->exclude_sls);
	/* Per SL in the file format; SL 0 stands for the common case. */
	ibfm_json_uint(j, "ccti_timer", p->ca.sl[0].ccti_timer);
	ibfm_json_uint(j, "ccti_increase", p->ca.sl[0].ccti_increase);
	ibfm_json_uint(j, "trigger_threshold", p->ca.sl[0].trigger_threshold);
	ibfm_json_uint(j, "ccti_min", p->ca.sl[0].ccti_min);
	ibfm_json_obj_end(j);
	ibfm_json_obj_begin(j, "cct");
	ibfm_json_uint(j, "entries", p->cct_n);
	ibfm_json_uint(j, "limit", p->cct_limit);
	ibfm_json_obj_end(j);
	ibfm_json_obj_end(j);
}

/* The profiles in effect and what is known of every node. */
static void cmd_show(void *ctx, const struct ibfm_req *req, struct ibfm_json *j)
{
	struct cc_state *d = ctx;
	unsigned count[NSTATES];

	(void)req;
	ibfm_json_str(j, "profile", d->cc.policy.profiles[0].name);
	ibfm_json_str(j, "policy", d->core->conf->cc_policy);
	ibfm_json_uint(j, "rules", d->cc.policy.nrules);
	ibfm_json_bool(j, "auto", d->core->conf->cc_auto);
	ibfm_json_bool(j, "cc_key_set", d->core->conf->cc_key != 0);
	ibfm_json_int(j, "sharp_sl", d->cc.sharp_sl);
	ibfm_json_bool(j, "model", !strcmp(ibfm_ccport_name(d->port), "model"));
	ibfm_json_uint(j, "sets_sent", d->cc.sets);
	ibfm_json_arr_begin(j, "profiles");
	for (size_t i = 0; i < d->cc.policy.nprofiles; i++)
		profile_json(j, &d->cc.policy.profiles[i]);
	ibfm_json_arr_end(j);
	ibfm_json_arr_begin(j, "nodes");
	for (size_t i = 0; i < d->cc.nknown; i++) {
		const struct ibfmd_cc_known *k = &d->cc.known[i];
		uint32_t n = d->core->view->fabric
				     ? ibfm_fabric_node_by_guid(
					       d->core->view->fabric, k->guid)
				     : IBFM_NONE;

		ibfm_json_obj_begin(j, NULL);
		guid_str(j, "guid", k->guid);
		ibfm_json_str(
			j, "name",
			n == IBFM_NONE
				? ""
				: ibfm_fabric_str(
					  d->core->view->fabric,
					  d->core->view->fabric->nodes[n].desc));
		ibfm_json_uint(j, "port", k->port);
		ibfm_json_str(j, "state", ibfm_cc_state_name(k->state));
		ibfm_json_bool(j, "configured", configured(k));
		ibfm_json_obj_end(j);
	}
	ibfm_json_arr_end(j);
	tally_known(d, count);
	counts_json(j, count);
}

/*
 * SIGHUP: the new cc_profile and cc_policy (kept out when bad), taken
 * now or when the running job ends; what was known is forgotten, so
 * the next pass compares every node with the new profiles.
 */
static void reload(void *state)
{
	struct cc_state *d = state;
	struct ibfm_err err;

	if (d->cc.has_next)
		ibfm_ccpolicy_free(&d->cc.next);
	d->cc.has_next = false;
	if (ibfm_ccpolicy_load(d->core->conf->cc_profile,
			       d->core->conf->cc_policy, &d->cc.next, &err)) {
		IBFMD_WARN("SIGHUP: %s; the profiles in use stay", err.msg);
		return;
	}
	d->cc.has_next = true;
	if (!d->cc.running)
		take_next(d);
	else
		IBFMD_INFO("SIGHUP: new profiles taken when job %" PRIu64
			   " ends",
			   d->cc.job);
}

/* The CC families of /metrics. */
static void metrics(void *state, struct ibfmd_metrics_reply *r)
{
	const struct cc_state *d = state;
	struct evbuffer *b = ibfmd_metrics_text(r);
	unsigned count[NSTATES];

	tally_known(d, count);
	evbuffer_add_printf(b, "# HELP ibfm_cc_nodes CC targets by what the "
			       "last job found\n# TYPE ibfm_cc_nodes gauge\n");
	for (unsigned s = 0; s < NSTATES; s++)
		evbuffer_add_printf(b, "ibfm_cc_nodes{state=\"%s\"} %u\n",
				    ibfm_cc_state_name(s), count[s]);
	evbuffer_add_printf(b,
			    "# HELP ibfm_cc_jobs_total CC diff and apply jobs "
			    "started\n# TYPE ibfm_cc_jobs_total counter\n"
			    "ibfm_cc_jobs_total %" PRIu64 "\n"
			    "# HELP ibfm_cc_sets_total CC Set MADs sent\n"
			    "# TYPE ibfm_cc_sets_total counter\n"
			    "ibfm_cc_sets_total %" PRIu64 "\n",
			    d->cc.job, d->cc.sets);
}

/* Their arguments and help: ctl/commands.c. */
static const struct ibfm_ctl_handler cmds[] = {
	{ "cc-diff", cmd_diff },
	{ "cc-apply", cmd_apply },
	{ "cc-status", cmd_status },
	{ "cc-show", cmd_show },
};

/*
 * Loads cc_profile and cc_policy (0, or -EINVAL logged with FILE:LINE)
 * and registers cc-diff, cc-apply, cc-status and cc-show.
 */
static int init(const struct ibfmd_core *core, void **state)
{
	struct cc_state *d = calloc(1, sizeof(*d));
	struct ibfm_err err;

	*state = d;
	if (!d)
		return -ENOMEM;
	d->core = core;
	d->cc.sharp_sl = -1;
	pthread_mutex_init(&d->lock, NULL);
	if (ibfm_ccpolicy_load(d->core->conf->cc_profile,
			       d->core->conf->cc_policy, &d->cc.policy, &err)) {
		IBFMD_ERR("%s: %s", d->core->conf_path, err.msg);
		return -EINVAL;
	}
	if (ibfm_ccport_open(&d->port, &err)) {
		IBFMD_ERR("%s", err.msg);
		return -EINVAL;
	}
	if (ibfmd_work_init(&d->work, core->worker, job_run, job_done, d))
		return -ENOMEM;
	return 0;
}

static void cc_free(void *state)
{
	struct cc_state *d = state;

	if (!d)
		return;
	ibfmd_work_fini(&d->work);
	pthread_mutex_destroy(&d->lock);
	ibfm_ccpolicy_free(&d->cc.policy);
	ibfm_ccpolicy_free(&d->cc.next);
	ibfm_ccpolicy_free(&d->cc.retired);
	ibfm_ccport_close(d->port);
	free(d->cc.t);
	free(d->cc.r);
	free(d->cc.known);
	free(d);
}

const struct ibfmd_feature ibfmd_feature_cc = {
	.name = "cc",
	.cmds = cmds,
	.ncmds = sizeof(cmds) / sizeof(*cmds),
	.init = init,
	.after_sweep = after_sweep,
	.metrics = metrics,
	.reload = reload,
	.free = cc_free,
};
