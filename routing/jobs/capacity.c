// SPDX-License-Identifier: MIT
#include "routing/jobs/capacity.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/checks/verify.h"

#define MAX_HOPS 64

int ibfm_capacity_demand(const struct ibfm_capacity_job *j, unsigned nodes,
			 struct ibfm_capacity_demand *d, struct ibfm_err *err)
{
	unsigned g = j->gpus_per_node ? j->gpus_per_node : 8;
	unsigned h = j->hcas_per_node ? j->hcas_per_node : 1;
	unsigned tp = j->tp ? j->tp : 1, pp = j->pp ? j->pp : 1;

	memset(d, 0, sizeof(*d));
	if (!(j->params > 0) || !(j->bytes > 0) || !(j->step_s > 0))
		return ibfm_err_set(
			err, -EINVAL,
			"a job needs parameters, bytes per parameter and a step time above 0");
	if (!nodes)
		return ibfm_err_set(err, -EINVAL, "the job has no nodes");
	if (tp > g || g % tp)
		return ibfm_err_set(
			err, -EINVAL,
			"tensor-parallel size %u must divide the %u GPUs of a node (TP stays inside the NVLink domain)",
			tp, g);
	d->nodes = nodes;
	d->gpus = nodes * g;
	if (d->gpus % (tp * pp))
		return ibfm_err_set(
			err, -EINVAL,
			"%u GPUs do not split into TP %u x PP %u groups",
			d->gpus, tp, pp);
	d->dp = d->gpus / (tp * pp);
	if (j->dp && j->dp != d->dp)
		return ibfm_err_set(
			err, -EINVAL,
			"DP %u x TP %u x PP %u is not the %u GPUs of %u nodes (DP would be %u)",
			j->dp, tp, pp, d->gpus, nodes, d->dp);
	d->rule_gbs = 2 * j->params * j->bytes / j->step_s / 1e9;
	d->node_bytes = (double)(g / tp) * j->params * j->bytes / pp;
	if (d->dp > 1) {
		d->ring_bytes = 2.0 * (d->dp - 1) / d->dp * d->node_bytes;
		d->ring_gbs = d->ring_bytes / j->step_s / 1e9;
		d->ring_gbs_hca = d->ring_gbs / h;
		d->sharp_gbs = d->node_bytes / j->step_s / 1e9;
	}
	return 0;
}

/* Rings: per rail, the job's ports of that rail in node order. */
struct rings {
	unsigned n;
	uint32_t *port[IBFM_RAIL_MAX];
	uint32_t size[IBFM_RAIL_MAX];
};

static void rings_free(struct rings *r)
{
	unsigned i;

	for (i = 0; i < r->n; i++)
		free(r->port[i]);
}

static int rings_build(const struct ibfm_rails *rails, const uint32_t *first,
		       const uint32_t *ports, unsigned nodes, struct rings *r)
{
	bool by_rail = rails && rails->nrails >= 2;
	uint32_t total = first[nodes], i;
	unsigned x;

	memset(r, 0, sizeof(*r));
	r->n = by_rail ? rails->nrails : 1;
	for (x = 0; x < r->n; x++) {
		r->port[x] = malloc((total + 1) * sizeof(**r->port));
		if (!r->port[x])
			return -ENOMEM;
	}
	for (i = 0; i < total; i++) {
		unsigned rail = by_rail ? rails->port_rail[ports[i]] : 0;

		if (rail == IBFM_RAIL_NONE)
			continue;
		r->port[rail][r->size[rail]++] = ports[i];
	}
	return 0;
}

static double rate(const struct ibfm_fabric *f, uint32_t p)
{
	return ibfm_link_gbps(f->ports[p].width, f->ports[p].speed);
}

/* Adds one ring's flows to 'load'; counts the ones the LFTs drop. */
static void ring_loads(const struct ibfm_fabric *f, const struct ibfm_lfts *t,
		       const uint32_t *ring, uint32_t n, uint32_t *load,
		       uint64_t *unrouted)
{
	uint32_t path[MAX_HOPS], i;
	int k, h;

	for (i = 0; n > 1 && i < n; i++) {
		k = ibfm_verify_path(f, t, ring[i],
				     f->ports[ring[(i + 1) % n]].lid, path,
				     MAX_HOPS);
		if (k < 0) {
			(*unrouted)++;
			continue;
		}
		for (h = 0; h < k; h++)
			load[path[h]]++;
	}
}

/* The slowest flow of a ring, Gb/s: a link of k flows gives each rate / k. */
static double ring_speed(const struct ibfm_fabric *f, const struct ibfm_lfts *t,
			 const uint32_t *ring, uint32_t n, const uint32_t *load)
{
	uint32_t path[MAX_HOPS], i;
	double slowest = 0;
	int k, h;

	for (i = 0; n > 1 && i < n; i++) {
		double flow = 0;

		k = ibfm_verify_path(f, t, ring[i],
				     f->ports[ring[(i + 1) % n]].lid, path,
				     MAX_HOPS);
		for (h = 0; h < k; h++) {
			double bw = rate(f, path[h]) / load[path[h]];

			if (!h || bw < flow)
				flow = bw;
		}
		if (k > 0 && (!slowest || flow < slowest))
			slowest = flow;
	}
	return slowest;
}

/* The links whose share is the worst, and the next worst share. */
static void find_worst(const struct ibfm_fabric *f, const uint32_t *load,
		       struct ibfm_capacity_supply *s)
{
	double worst = 0, next = 0, max_rate = 0;
	uint32_t p;

	for (p = 0; p < f->nports; p++) {
		double bw;

		if (!load[p])
			continue;
		bw = rate(f, p) / load[p];
		if (!worst || bw < worst)
			worst = bw;
		if (rate(f, p) > max_rate)
			max_rate = rate(f, p);
	}
	for (p = 0; p < f->nports; p++) {
		double bw;

		if (!load[p])
			continue;
		bw = rate(f, p) / load[p];
		if (bw > worst * 1.0000001 && (!next || bw < next))
			next = bw;
		/* A link is a bottleneck when it has the worst share and it
		 * gives less than its rate: it is slower or shared. */
		if (bw <= worst * 1.0000001 &&
		    s->nworst < IBFM_CAPACITY_WORST &&
		    (load[p] > 1 || rate(f, p) < max_rate)) {
			s->worst[s->nworst] = p;
			s->worst_load[s->nworst] = load[p];
			s->worst_rate[s->nworst++] = rate(f, p);
		}
	}
	s->next_flow_gbps = next ? next : worst;
}

/* SHARP: one job tree per ring, each edge once each way. */
static int sharp_speed(const struct ibfm_fabric *f,
		       const struct ibfm_sharp *trees, const struct rings *r,
		       uint32_t *load, double *gbps)
{
	uint32_t *usage = calloc(f->nnodes + 1, sizeof(*usage)), i, a;
	struct ibfm_sharp_job jobs[IBFM_RAIL_MAX];
	unsigned x, njobs = 0;
	double slowest = 0;
	int rc = 0;

	if (!usage)
		return -ENOMEM;
	memset(load, 0, f->nports * sizeof(*load));
	for (x = 0; x < r->n && !rc; x++) {
		if (r->size[x] < 2)
			continue;
		if (ibfm_sharp_carve(trees, r->port[x], r->size[x], UINT32_MAX,
				     usage, &jobs[njobs], NULL)) {
			rc = -ENOENT; /* no tree joins these hosts */
			break;
		}
		for (i = 0; i < r->size[x]; i++) {
			load[r->port[x][i]]++;
			load[f->ports[r->port[x][i]].peer]++;
		}
		for (i = 0; i < jobs[njobs].nans; i++) {
			const struct ibfm_sharp_an *an =
				&trees->ans[jobs[njobs].ans[i]];

			if (jobs[njobs].ans[i] == jobs[njobs].root)
				continue;
			load[f->nodes[an->node].port0 + an->up_port]++;
			load[f->nodes[trees->ans[an->parent].node].port0 +
			     an->down_port]++;
		}
		njobs++;
	}
	for (x = 0; !rc && x < njobs; x++)
		for (i = 0; i < jobs[x].nans; i++) {
			const struct ibfm_sharp_an *an =
				&trees->ans[jobs[x].ans[i]];
			uint32_t up, down;
			double bw;

			if (jobs[x].ans[i] == jobs[x].root)
				continue;
			up = f->nodes[an->node].port0 + an->up_port;
			down = f->nodes[trees->ans[an->parent].node].port0 +
			       an->down_port;
			bw = rate(f, up) / load[up];
			if (rate(f, down) / load[down] < bw)
				bw = rate(f, down) / load[down];
			if (!slowest || bw < slowest)
				slowest = bw;
		}
	for (x = 0; !rc && x < r->n; x++)
		for (i = 0; i < r->size[x]; i++) {
			a = r->port[x][i];
			if (!slowest || rate(f, a) / load[a] < slowest)
				slowest = rate(f, a) / load[a];
		}
	for (x = 0; x < njobs; x++)
		ibfm_sharp_release(&jobs[x], trees, usage);
	free(usage);
	*gbps = slowest;
	return rc;
}

int ibfm_capacity_supply(const struct ibfm_fabric *f, const struct ibfm_lfts *t,
			 const struct ibfm_rails *rails,
			 const struct ibfm_sharp *trees,
			 const uint32_t *node_first, const uint32_t *node_port,
			 unsigned nodes, const struct ibfm_capacity_demand *d,
			 struct ibfm_capacity_supply *s, struct ibfm_err *err)
{
	uint32_t *load = calloc(f->nports + 1, sizeof(*load));
	unsigned hcas = nodes ? (node_first[nodes] + nodes - 1) / nodes : 1;
	struct rings r;
	unsigned x;
	int rc;

	memset(s, 0, sizeof(*s));
	rc = load ? rings_build(rails, node_first, node_port, nodes, &r)
		  : -ENOMEM;
	if (rc) {
		free(load);
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	}
	s->rails = r.n;
	for (x = 0; x < r.n; x++)
		ring_loads(f, t, r.port[x], r.size[x], load, &s->unrouted);
	for (x = 0; x < r.n; x++) {
		s->rail_gbps[x] = ring_speed(f, t, r.port[x], r.size[x], load);
		if (r.size[x] > 1 &&
		    (!s->flow_gbps || s->rail_gbps[x] < s->flow_gbps))
			s->flow_gbps = s->rail_gbps[x];
	}
	find_worst(f, load, s);
	/* Each HCA carries its share; the slowest ring sets the pace. */
	s->node_gbps = s->flow_gbps * hcas;
	if (s->node_gbps > 0)
		s->ring_s = d->ring_bytes / (s->node_gbps * 1e9 / 8);
	if (trees &&
	    sharp_speed(f, trees, &r, load, &s->sharp_node_gbps) == 0 &&
	    s->sharp_node_gbps > 0) {
		s->sharp_node_gbps *= hcas;
		s->sharp_s = (d->dp > 1 ? d->node_bytes : 0) /
			     (s->sharp_node_gbps * 1e9 / 8);
	}
	rings_free(&r);
	free(load);
	return 0;
}
