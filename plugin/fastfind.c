// SPDX-License-Identifier: MIT
/*
 * The fast path's steps 1-2 (see plugin/fastpath.h): which ports the
 * traps are about are Down, asked by PortInfo through the helper.
 */
#include "plugin/fastpath_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define ATTR_PORT_INFO 0x15
#define PORT_STATE_DOWN 1

/* One PortInfo question: which switch and port it is about. */
struct ask {
	uint32_t port; /* the port asked about (index) */
	uint16_t lid;  /* its switch's */
};

/*
 * Under the route lock: PortInfo requests for the ports 'ports' (a
 * switch's, by a directed route to it avoiding 'avoid'). Returns how
 * many (0 when none can be asked).
 */
static size_t ask_about(struct ibfm_fastpath *fp, const uint32_t *ports,
			size_t nports, const bool *avoid,
			struct ibfm_smpwire_req **reqp, struct ask **asksp)
{
	const struct ibfm_fabric *f = (*fp->c.route)->fabric;
	uint32_t sm = ibfm_fabric_port_by_guid(f, fp->sm_guid), *via = NULL;
	struct ibfm_smpwire_req *req = calloc(nports + 1, sizeof(*req));
	struct ask *asks = calloc(nports + 1, sizeof(*asks));
	size_t n = 0, k;

	if (!req || !asks || sm == IBFM_NONE ||
	    ibfm_fastplan_paths(f, f->ports[sm].node, avoid, &via))
		nports = 0;
	for (k = 0; k < nports; k++) {
		const struct ibfm_port *x = &f->ports[ports[k]];
		const struct ibfm_node *node = &f->nodes[x->node];
		int hops = ibfm_fastplan_path_to(f, via, x->node, req[n].path);

		if (!ibfm_node_is_switch(node) || hops < 1)
			continue;
		req[n].id = (uint32_t)n;
		req[n].method = IBFM_SMPWIRE_GET;
		req[n].hops = (uint8_t)hops;
		req[n].attr = ATTR_PORT_INFO;
		req[n].mod = x->num;
		asks[n].port = ports[k];
		asks[n].lid = f->ports[node->port0].lid;
		n++;
	}
	free(via);
	*reqp = req;
	*asksp = asks;
	return n;
}

/*
 * Under the route lock: PortInfo requests for every linked port of the
 * switches whose LIDs trapped, by directed routes avoiding 'avoid'.
 * Returns how many (0 when none can be asked).
 */
static size_t ask_ports(struct ibfm_fastpath *fp, const uint16_t *lids,
			unsigned nlids, const bool *avoid,
			struct ibfm_smpwire_req **reqp, struct ask **asksp)
{
	const struct ibfm_fabric *f = (*fp->c.route)->fabric;
	uint32_t *ports = calloc((size_t)nlids * 256 + 1, sizeof(*ports));
	size_t n = 0, m;
	unsigned k, i;

	for (k = 0; ports && k < nlids; k++) {
		uint32_t p = ibfm_fabric_port_by_lid(f, lids[k]);
		const struct ibfm_node *x;

		if (p == IBFM_NONE)
			continue;
		x = &f->nodes[f->ports[p].node];
		for (i = 1; ibfm_node_is_switch(x) && i <= x->nports; i++)
			if (f->ports[x->port0 + i].peer != IBFM_NONE)
				ports[n++] = x->port0 + i;
	}
	m = ask_about(fp, ports, n, avoid, reqp, asksp);
	free(ports);
	return m;
}

static bool has_lid(const uint16_t *lids, unsigned n, uint16_t lid)
{
	unsigned i;

	for (i = 0; i < n && lids[i] != lid; i++)
		;
	return i < n;
}

/* Removes duplicate LIDs (both ends, repeated traps). */
static unsigned unique_lids(uint16_t *lids, unsigned n)
{
	unsigned i, m = 0;

	for (i = 0; i < n; i++)
		if (!has_lid(lids, m, lids[i]))
			lids[m++] = lids[i];
	return m;
}

/*
 * Under the route lock: marks in 'avoid' the link by which the route
 * from the SM enters each switch of 'lids' (which may be the dead one).
 */
static void avoid_last_links(struct ibfm_fastpath *fp, const uint16_t *lids,
			     unsigned n, bool *avoid)
{
	const struct ibfm_fabric *f = (*fp->c.route)->fabric;
	uint32_t sm = ibfm_fabric_port_by_guid(f, fp->sm_guid), *via = NULL;
	unsigned k;

	if (sm == IBFM_NONE ||
	    ibfm_fastplan_paths(f, f->ports[sm].node, avoid, &via))
		return;
	for (k = 0; k < n; k++) {
		uint32_t p = ibfm_fabric_port_by_lid(f, lids[k]);

		if (p != IBFM_NONE && via[f->ports[p].node] != IBFM_NONE)
			avoid[via[f->ports[p].node]] = true;
	}
	free(via);
}

/*
 * Sends the PortInfo questions 'req' (about 'asks', 'm' of them): a
 * port found Down goes to rd->dead (grown for it), the LID of a switch
 * that does not answer to 'silent' (once).
 */
static int ask_sort(struct ibfm_fastpath *fp,
		    const struct ibfm_smpwire_req *req, const struct ask *asks,
		    size_t m, struct ibfm_fastround *rd, uint16_t *silent,
		    unsigned *nsilent)
{
	struct ibfm_smpwire_reply *rep;
	size_t k, sent;
	void *dead;
	int rc;

	if (!m)
		return 0;
	dead = realloc(rd->dead, (rd->ndead + m + 1) * sizeof(*rd->dead));
	if (dead)
		rd->dead = dead;
	rep = dead ? calloc(m, sizeof(*rep)) : NULL;
	if (!rep)
		return -ENOMEM;
	rc = ibfm_fastpath_exchange(fp, req, m, rep, &sent, NULL);
	rd->asked += m;
	for (k = 0; !rc && k < m; k++) {
		if (rep[k].status == -ETIMEDOUT) {
			if (!has_lid(silent, *nsilent, asks[k].lid))
				silent[(*nsilent)++] = asks[k].lid;
		} else if (!rep[k].status &&
			   (rep[k].data[32] & 0x0f) == PORT_STATE_DOWN) {
			rd->dead[rd->ndead++] = asks[k].port;
		}
	}
	free(rep);
	return rc;
}

/*
 * Appends to 'ports' (at 'n') the ports facing the switch at the far
 * end of dead port 'd' when that switch did not answer (its LID is not
 * in 'answered'), but those of switches that answered (asked already);
 * marks its ports in 'avoid' (the routes asking must not cross it).
 * Returns the new count.
 */
static size_t facing(const struct ibfm_fabric *f, uint32_t d,
		     const uint16_t *answered, unsigned nans, bool *seen,
		     bool *avoid, uint32_t *ports, size_t n)
{
	uint32_t q = f->ports[d].peer, j;
	const struct ibfm_node *p;

	if (q == IBFM_NONE || seen[f->ports[q].node])
		return n;
	seen[f->ports[q].node] = true;
	p = &f->nodes[f->ports[q].node];
	if (!ibfm_node_is_switch(p) ||
	    has_lid(answered, nans, f->ports[p->port0].lid))
		return n;
	for (j = 1; j <= p->nports; j++) {
		uint32_t r = f->ports[p->port0 + j].peer;
		const struct ibfm_node *x;

		avoid[p->port0 + j] = true;
		if (r == IBFM_NONE || r == d)
			continue;
		x = &f->nodes[f->ports[r].node];
		if (ibfm_node_is_switch(x) &&
		    !has_lid(answered, nans, f->ports[x->port0].lid))
			ports[n++] = r;
	}
	return n;
}

/*
 * Step 2b: a switch lost whole is told of by its neighbours' traps
 * only, and a neighbour whose route to the SM went through it sends
 * none (ibsim and switches send traps by LID). The neighbours of each
 * switch at the far end of a dead port that did not answer itself are
 * asked about the port that faces it.
 */
static int ask_neighbours(struct ibfm_fastpath *fp, const uint16_t *answered,
			  unsigned nans, uint64_t gen,
			  struct ibfm_fastround *rd)
{
	struct ibfm_smpwire_req *req = NULL;
	struct ask *asks = NULL;
	uint32_t *ports = NULL;
	bool *seen = NULL, *avoid = NULL;
	uint16_t *silent = NULL;
	unsigned nsilent = 0;
	size_t m = 0;
	int rc;

	pthread_mutex_lock(fp->c.lock);
	if (*fp->c.route && fp->gen == gen) {
		const struct ibfm_fabric *f = (*fp->c.route)->fabric;
		size_t i, n = 0;

		ports = calloc((size_t)f->nports + 1, sizeof(*ports));
		avoid = calloc((size_t)f->nports + 1, sizeof(*avoid));
		seen = calloc((size_t)f->nnodes + 1, sizeof(*seen));
		for (i = 0; ports && avoid && seen && i < rd->ndead; i++) {
			avoid[rd->dead[i]] = true;
			n = facing(f, rd->dead[i], answered, nans, seen, avoid,
				   ports, n);
		}
		if (avoid)
			m = ask_about(fp, ports, n, avoid, &req, &asks);
	}
	pthread_mutex_unlock(fp->c.lock);
	silent = calloc(m + 1, sizeof(*silent));
	rc = silent ? ask_sort(fp, req, asks, m, rd, silent, &nsilent)
		    : -ENOMEM;
	/* A neighbour that does not answer may hide a lost link: the
	 * round is not whole (planned changes wait for OpenSM's pass). */
	rd->silent += nsilent;
	free(silent);
	free(ports);
	free(avoid);
	free(seen);
	free(req);
	free(asks);
	return rc;
}

/*
 * Steps 1-2: the dead ports of the switches that trapped. A switch
 * that does not answer is asked again by routes avoiding the last link
 * of its route, then left to OpenSM; the links of a switch lost whole
 * are found from its neighbours.
 */
int ibfm_fastpath_find_dead(struct ibfm_fastpath *fp, uint16_t *lids,
			    unsigned n, uint64_t *gen,
			    struct ibfm_fastround *rd)
{
	uint16_t *answered;
	unsigned nans = 0, k;
	bool *avoid = NULL;
	int attempt, rc;

	n = unique_lids(lids, n);
	rd->dead = calloc(1, sizeof(*rd->dead));
	answered = malloc(((size_t)n + 1) * sizeof(*answered));
	rc = rd->dead && answered ? 0 : -ENOMEM;
	rd->switches = n;
	if (answered)
		memcpy(answered, lids, n * sizeof(*lids));
	for (attempt = 0; attempt < 2 && n && !rc; attempt++) {
		struct ibfm_smpwire_req *req = NULL;
		struct ask *asks = NULL;
		unsigned silent = 0;
		size_t m = 0;

		pthread_mutex_lock(fp->c.lock);
		if (*fp->c.route && (!attempt || fp->gen == *gen)) {
			*gen = fp->gen;
			if (!avoid)
				avoid = calloc((*fp->c.route)->fabric->nports,
					       sizeof(*avoid));
			if (avoid)
				m = ask_ports(fp, lids, n, avoid, &req, &asks);
		}
		pthread_mutex_unlock(fp->c.lock);
		rc = ask_sort(fp, req, asks, m, rd, lids, &silent);
		if (silent && !rc) {
			pthread_mutex_lock(fp->c.lock);
			if (*fp->c.route && fp->gen == *gen)
				avoid_last_links(fp, lids, silent, avoid);
			pthread_mutex_unlock(fp->c.lock);
		}
		rd->silent = silent;
		n = silent;
		free(req);
		free(asks);
	}
	/* The switches that trapped and answered: all their ports known. */
	for (k = 0; !rc && k < rd->switches; k++)
		if (!has_lid(lids, rd->silent, answered[k]))
			answered[nans++] = answered[k];
	/* The links found stand even when this fails; the round is not
	 * whole then (counted silent: OpenSM's pass finds the rest). */
	if (!rc && rd->ndead && ask_neighbours(fp, answered, nans, *gen, rd))
		rd->silent++;
	free(answered);
	free(avoid);
	return rc;
}
