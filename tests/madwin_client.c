// SPDX-License-Identifier: MIT
/*
 * Drives mgmt/mad/madwin.c on a real port (ibsim through umad2sim) for
 * integration/ibfmd/madwin.sh:
 *
 *   madwin_client [-w WINDOW] [-t MS] [-r RETRIES] walk
 *	walks the subnet breadth first by directed route, one level of
 *	NodeInfo and then PortInfo batches at a time, and prints one line
 *	per node ("node GUID TYPE NPORTS") and per link end ("link GUID
 *	PORT GUID PORT"), unsorted, then the window's counters on stderr;
 *   madwin_client [-w WINDOW] [-t MS] [-r RETRIES] lost LID N
 *	sends N PMA ClassPortInfo Gets to LID (which nothing answers) and
 *	prints "rc RC sent S timedout T ms MS".
 * Exit 0, or 1 when the port cannot be opened or a batch went wrong.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/mad.h>

#include "mgmt/mad/madwin.h"
#include "routing/base/clock.h"

struct node {
	uint64_t guid;
	uint8_t path[IBFM_MADWIN_HOPS], hops, nports, type, local;
};

struct walk {
	struct ibfm_madwin *w;
	struct node *v;
	size_t n, cap;
};

static uint64_t guid_of(const uint8_t *ni)
{
	return mad_get_field64((void *)ni, 0, IB_NODE_GUID_F);
}

static long find(const struct walk *k, uint64_t guid)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		if (k->v[i].guid == guid)
			return (long)i;
	return -1;
}

/* Adds the node NodeInfo 'ni' names, reached by 'r'; its index. */
static long add(struct walk *k, const uint8_t *ni,
		const struct ibfm_madwin_req *r)
{
	struct node *n;

	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 64;
		n = realloc(k->v, k->cap * sizeof(*n));
		if (!n)
			return -1;
		k->v = n;
	}
	n = &k->v[k->n];
	n->guid = guid_of(ni);
	n->type = (uint8_t)mad_get_field((void *)ni, 0, IB_NODE_TYPE_F);
	n->nports = (uint8_t)mad_get_field((void *)ni, 0, IB_NODE_NPORTS_F);
	n->local = (uint8_t)mad_get_field((void *)ni, 0, IB_NODE_LOCAL_PORT_F);
	n->hops = r->hops;
	memcpy(n->path, r->path, r->hops);
	printf("node 0x%016llx %u %u\n", (unsigned long long)n->guid, n->type,
	       n->nports);
	return (long)k->n++;
}

/* The ports of node 'i' to look behind: a switch's all, the local
 * port of the node the walk starts from (a CA), no other CA's. */
static unsigned first_port(const struct walk *k, size_t i)
{
	return k->v[i].type == 2 ? 1 : i ? 1 : k->v[i].local;
}

static unsigned last_port(const struct walk *k, size_t i)
{
	return k->v[i].type == 2 ? k->v[i].nports : i ? 0 : k->v[i].local;
}

/* PortInfo of the ports of the nodes [from, to) to look behind: those
 * whose link is up, as NodeInfo requests one hop further, in 'next'. */
static size_t level(struct walk *k, size_t from, size_t to,
		    struct ibfm_madwin_req **next)
{
	struct ibfm_madwin_req *pi = NULL, *ni;
	size_t i, n = 0, m = 0;
	unsigned p;

	for (i = from; i < to; i++)
		n += last_port(k, i) + 1 - first_port(k, i);
	pi = calloc(n ? n : 1, sizeof(*pi));
	ni = calloc(n ? n : 1, sizeof(*ni));
	if (!pi || !ni)
		exit(1);
	n = 0;
	for (i = from; i < to; i++)
		for (p = first_port(k, i); p <= last_port(k, i); p++) {
			ibfm_madwin_smp_dr(&pi[n], k->v[i].path, k->v[i].hops,
					   IB_MAD_METHOD_GET, IB_ATTR_PORT_INFO,
					   p);
			pi[n++].tag = i << 8 | p;
		}
	ibfm_madwin_batch(k->w, pi, n);
	for (i = 0; i < n; i++) {
		const struct node *s = &k->v[pi[i].tag >> 8];
		uint8_t path[IBFM_MADWIN_HOPS];

		if (pi[i].rc || pi[i].status ||
		    s->hops + 1 >= IBFM_MADWIN_HOPS ||
		    mad_get_field(pi[i].data, 0, IB_PORT_PHYS_STATE_F) != 5)
			continue;
		memcpy(path, s->path, s->hops);
		path[s->hops] = (uint8_t)(pi[i].tag & 0xff);
		ibfm_madwin_smp_dr(&ni[m], path, s->hops + 1u,
				   IB_MAD_METHOD_GET, IB_ATTR_NODE_INFO, 0);
		ni[m++].tag = pi[i].tag;
	}
	free(pi);
	*next = ni;
	return m;
}

/* Breadth first: a level's NodeInfo in one batch, then its switches'
 * PortInfo in another. */
static int walk(struct walk *k)
{
	struct ibfm_madwin_req self, *ni;
	size_t from = 0;

	ibfm_madwin_smp_dr(&self, NULL, 0, IB_MAD_METHOD_GET, IB_ATTR_NODE_INFO,
			   0);
	if (ibfm_madwin_batch(k->w, &self, 1) != 1 ||
	    add(k, self.data, &self) < 0)
		return -EIO;
	while (from < k->n) {
		size_t to = k->n, i, n = level(k, from, to, &ni);

		ibfm_madwin_batch(k->w, ni, n);
		for (i = 0; i < n; i++) {
			const struct node *s = &k->v[ni[i].tag >> 8];
			long m;

			if (ni[i].rc || ni[i].status)
				continue;
			m = find(k, guid_of(ni[i].data));
			if (m < 0 && k->v[0].guid != guid_of(ni[i].data))
				m = add(k, ni[i].data, &ni[i]);
			if (m < 0)
				continue;
			printf("link 0x%016llx %u 0x%016llx %u\n",
			       (unsigned long long)s->guid,
			       (unsigned)(ni[i].tag & 0xff),
			       (unsigned long long)k->v[m].guid,
			       mad_get_field(ni[i].data, 0,
					     IB_NODE_LOCAL_PORT_F));
		}
		free(ni);
		from = to;
	}
	return 0;
}

/* N requests to a LID nobody has. */
static int lost(struct ibfm_madwin *w, unsigned lid, unsigned n)
{
	struct ibfm_madwin_req *v = calloc(n ? n : 1, sizeof(*v));
	struct ibfm_madwin_stats st;
	long long t0 = ibfm_clock_whole_ms();
	unsigned i;
	int rc = 0;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		ibfm_madwin_pma(&v[i], (uint16_t)lid, CLASS_PORT_INFO, 0);
	ibfm_madwin_batch(w, v, n);
	for (i = 0; i < n; i++)
		if (v[i].rc != -ETIMEDOUT)
			rc = v[i].rc;
	ibfm_madwin_stats(w, &st);
	printf("rc %d sent %llu timedout %llu ms %llu\n", n ? v[0].rc : 0,
	       (unsigned long long)st.sent, (unsigned long long)st.timedout,
	       (unsigned long long)(ibfm_clock_whole_ms() - t0));
	free(v);
	return rc;
}

int main(int argc, char **argv)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS,
			  IB_PERFORMANCE_CLASS };
	struct ibfm_madwin_opts o = { 0 };
	struct ibfm_madwin_port port;
	struct ibfm_madwin_stats st;
	struct walk k = { 0 };
	struct ibmad_port *mp;
	int c, rc;

	while ((c = getopt(argc, argv, "w:t:r:")) != -1) {
		switch (c) {
		case 'w':
			o.window = (unsigned)atoi(optarg);
			break;
		case 't':
			o.timeout_ms = (unsigned)atoi(optarg);
			break;
		case 'r':
			o.retries = (unsigned)atoi(optarg);
			o.no_retries = !o.retries;
			break;
		default:
			return 2;
		}
	}
	if (optind >= argc)
		return 2;
	madrpc_show_errors(0);
	mp = mad_rpc_open_port(NULL, 0, classes, 3);
	if (!mp)
		return 1;
	ibfm_madwin_port_of(mp, &port);
	if (ibfm_madwin_create(&port, &o, &k.w))
		return 1;
	if (!strcmp(argv[optind], "lost") && optind + 2 < argc)
		rc = lost(k.w, (unsigned)atoi(argv[optind + 1]),
			  (unsigned)atoi(argv[optind + 2]));
	else
		rc = walk(&k);
	ibfm_madwin_stats(k.w, &st);
	fprintf(stderr, "window %u sent %llu answered %llu retried %llu\n",
		ibfm_madwin_window(k.w), (unsigned long long)st.sent,
		(unsigned long long)st.answered,
		(unsigned long long)st.retried);
	ibfm_madwin_destroy(k.w);
	free(k.v);
	mad_rpc_close_port(mp);
	return rc ? 1 : 0;
}
