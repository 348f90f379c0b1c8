// SPDX-License-Identifier: MIT
/*
 * bench_page: the fabric page (routing/topo/page.h) of a generated fat
 * tree, as ibfmd makes it per request: one cable unplugged, one spine
 * drained, errors and PortXmitWait on a port, judged against the tree
 * as cabled, with the groups found once (as ibfmd finds them per sweep).
 *
 *   bench_page [-l L] [-k K] [-n HOSTS] [-r RUNS]
 *
 * Prints one table row: hosts, switches, groups, the median time and
 * the size of the overview page (HTML), of the first pod's drill-down
 * (HTML), and the time of finding the groups.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench/bench.h"
#include "routing/topo/page.h"

/* Errors on port 'ctx', PortXmitWait on the one after it. */
static bool counters(void *ctx, uint32_t q, uint64_t *errors, uint64_t *wait)
{
	*errors = q == *(uint32_t *)ctx ? 7 : 0;
	*wait = q == *(uint32_t *)ctx + 1 ? 50000 : 0;
	return true;
}

/* The page 'o' asks for: its median time of 'runs' (ms), its size. */
static double time_page(const struct ibfm_fabric *f,
			const struct ibfm_page_opts *o, int runs, size_t *size)
{
	struct ibfm_page_stats st;
	struct ibfm_err err;
	double ms[16];
	int r;

	for (r = 0; r < runs; r++) {
		char *buf = NULL;
		double t0 = ibfm_clock_ms();
		FILE *m = open_memstream(&buf, size);

		if (!m || ibfm_page_write(f, o, m, &st, &err) || fclose(m)) {
			fprintf(stderr, "bench_page: %s\n", err.msg);
			exit(1);
		}
		ms[r] = ibfm_clock_ms() - t0;
		free(buf);
	}
	return bench_median(ms, runs);
}

/* The first switch port of a leaf's up-ports, and a spine, of 'f'. */
static void degrade(struct ibfm_fabric *f, const struct ibfm_groups *g,
		    struct ibfm_drain *d, uint32_t *err_port)
{
	struct ibfm_drain_entry e = { 0 };
	uint32_t n, q, leaf = IBFM_NONE, spine = IBFM_NONE;

	for (n = 0; n < f->nnodes; n++) {
		if (g->rank[n] == 1 && leaf == IBFM_NONE)
			leaf = n;
		if (g->rank[n] == 2 && spine == IBFM_NONE)
			spine = n;
	}
	for (q = f->nodes[leaf].port0 + 1; q < f->nports; q++)
		if (f->ports[q].peer != IBFM_NONE &&
		    g->rank[f->ports[f->ports[q].peer].node] == 2) {
			ibfm_fabric_unlink(f, q);
			break;
		}
	*err_port = f->nodes[leaf].port0 + 1;
	e.guid = f->nodes[spine].guid;
	ibfm_drain_add(d, &e);
}

int main(int argc, char **argv)
{
	struct bench_args a;
	struct ibfm_fabric *cabled = NULL, *f;
	struct ibfm_drain drains = { 0 };
	struct ibfm_groups g;
	struct ibfm_err err;
	uint32_t err_port;
	size_t o_size, d_size;
	double t0, g_ms, o_ms, d_ms;

	bench_parse(argc, argv, "bench_page", &a);
	if (ibfm_gen_build(&a.gen, &cabled, &err) ||
	    !(f = ibfm_fabric_clone(cabled))) {
		fprintf(stderr, "bench_page: could not build the fabric\n");
		return 1;
	}
	t0 = ibfm_clock_ms();
	if (ibfm_groups_find(cabled, NULL, &g, &err)) {
		fprintf(stderr, "bench_page: %s\n", err.msg);
		return 1;
	}
	g_ms = ibfm_clock_ms() - t0;
	degrade(f, &g, &drains, &err_port);
	struct ibfm_page_opts o = { .expected = cabled,
				    .drains = &drains,
				    .groups = &g,
				    .counters = counters,
				    .counters_ctx = &err_port,
				    .href = "/group/%s",
				    .format = IBFM_PAGE_HTML };
	o_ms = time_page(f, &o, a.runs, &o_size);
	o.group = g.v[0].name;
	d_ms = time_page(f, &o, a.runs, &d_size);
	printf("| %u | %u | %u | %.1f | %zu | %.1f | %zu | %.1f |\n", f->ncas,
	       f->nswitches, g.n, o_ms, o_size, d_ms, d_size, g_ms);
	ibfm_groups_free(&g);
	ibfm_drain_free(&drains);
	ibfm_fabric_destroy(f);
	ibfm_fabric_destroy(cabled);
	return 0;
}
