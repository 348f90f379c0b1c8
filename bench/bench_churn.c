// SPDX-License-Identifier: MIT
/*
 * bench_churn: how much a repair moves against what must move, per
 * element lost.
 *
 *   bench_churn [-s SEED] [-j THREADS] [-L] [-S] [-m EVERY] [-V]
 *               [-e ELEMENT]... TOPO
 *
 * Routes TOPO as the plugin does (LIDs in node order, or dealt out with
 * SEED as an SM's discovery scatters them), then, each time from that
 * same full route, repairs the loss of one element: every
 * switch-to-switch link (-L), every switch (-S; a switch drained or
 * lost is every link it has), or those named with -e: "NAME" a switch,
 * "NAME[PORT]" one link, NAME a node's description or record name.
 * -m EVERY takes every EVERY-th element of -L and -S only. -V checks
 * each repaired table as one VL needs it (no credit loop with switch
 * sources, no forwarding loop) and adds "loops L left U" to the line:
 * the credit and forwarding loops, and the pairs whose packets the
 * repaired tables drop beyond those a full route of the fabric less
 * the element drops. One line per element:
 *
 *   ELEMENT changed C must_move M ratio R sw_changed A sw_must B
 *           stored S blocks K full F ms T
 *
 * C the entries that differ after the repair, M those whose path
 * crossed the element (routing/checks/verify.h), R = C / M ("-" when M
 * is 0), A and B the same for switch LIDs alone (the detours' targets),
 * S the entries the repair stored (its delta: an entry changed twice
 * counts twice), K the blocks that differ, F 1 when the repair routed
 * in full (tables that needed the graph search), T its time in ms
 * (must_move's count included). Then a summary:
 * elements, the worst ratio and its element, how many exceed 2, and
 * with -V how many repairs had a loop or left pairs (unsafe).
 * Exit status: 0, 1 when some ratio exceeds 2 (or C > 0 with M = 0) or
 * some repair has a loop or leaves pairs, 2 on bad usage or input.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/checks/verify.h"
#include "routing/pass/route.h"
#include "routing/topo/topo.h"

struct churn {
	const struct ibfm_fabric *f; /* with LIDs: every repair's start */
	struct ibfm_route_opts o;
	uint32_t elements, over, unsafe;
	bool verify;
	double worst;
	char worst_name[96];
};

static void die(const char *what, const struct ibfm_err *err)
{
	fprintf(stderr, "bench_churn: %s: %s\n", what, err->msg);
	exit(2);
}

static const char *name_of(const struct ibfm_fabric *f, uint32_t n)
{
	const char *d = f->strs + f->nodes[n].desc;

	return *d ? d : f->strs + f->nodes[n].name;
}

/* Whether LID 'l' is a switch's (a detour's target). */
static bool switch_lid(const struct ibfm_fabric *f, uint32_t l)
{
	return l <= f->max_lid && f->lid_port[l] != IBFM_NONE &&
	       ibfm_node_is_switch(&f->nodes[f->ports[f->lid_port[l]].node]);
}

/* Entries of 'a' and 'b' that differ, switch LIDs alone when 'sw'. */
static uint64_t differ(const struct ibfm_fabric *f, const struct ibfm_lfts *a,
		       const struct ibfm_lfts *b, bool sw)
{
	uint64_t n = 0;
	uint32_t s, l;

	for (s = 0; s < a->nsw; s++)
		for (l = 0; l <= a->top_lid && l <= b->top_lid; l++)
			n += ibfm_lfts_row(a, s)[l] != ibfm_lfts_row(b, s)[l] &&
			     (!sw || switch_lid(f, l));
	return n;
}

/* Entries of 'old' to switch LIDs whose path crosses a port in 'lost'. */
static uint64_t must_sw(const struct ibfm_fabric *f,
			const struct ibfm_lfts *old, const bool *lost)
{
	struct ibfm_err err = { .msg = "out of memory" };
	struct ibfm_lfts t = { 0 };
	uint64_t n = 0;
	uint32_t s, l;

	if (ibfm_lfts_copy(&t, f, old, &err))
		die("copy", &err);
	for (s = 0; s < t.nsw; s++)
		for (l = 0; l <= t.top_lid; l++)
			if (!switch_lid(f, l))
				ibfm_lfts_row(&t, s)[l] = IBFM_LFT_NONE;
	if (ibfm_verify_must_move(f, &t, lost, &n))
		n = 0;
	ibfm_lfts_free(&t);
	return n;
}

/*
 * The credit loops (switch sources) and forwarding loops of the tables
 * of 'pass'; in '*left' the pairs they drop beyond those a full route
 * of the fabric as it is now drops (a switch lost cuts its CAs off).
 */
static uint64_t loops(const struct churn *c, const struct ibfm_route *pass,
		      uint64_t *left)
{
	const struct ibfm_verify_opts vo = { .switch_sources = true };
	struct ibfm_err err = { .msg = "out of memory" };
	struct ibfm_route *full;
	struct ibfm_loop_result lr;
	struct ibfm_reach_result rr, fr;

	if (ibfm_verify_credit_loops(pass->fabric, &pass->lfts, &vo, &lr,
				     &err) ||
	    ibfm_verify_reach(pass->fabric, &pass->lfts, &vo, &rr, &err) ||
	    ibfm_route_build(ibfm_fabric_clone(pass->fabric), NULL, &c->o,
			     &full, &err) ||
	    ibfm_verify_reach(full->fabric, &full->lfts, &vo, &fr, &err))
		die("verify", &err);
	ibfm_route_destroy(full);
	*left = rr.unreachable > fr.unreachable
			? rr.unreachable - fr.unreachable
			: 0;
	return lr.loops + rr.loops;
}

/*
 * Repairs the loss of the links at the ports 'ports' (one end each) of
 * a fresh full route and prints the element's line.
 */
static void lose(struct churn *c, const char *name, const uint32_t *ports,
		 unsigned n)
{
	struct ibfm_err err = { .msg = "out of memory" };
	struct ibfm_fabric *g = ibfm_fabric_clone(c->f);
	struct ibfm_route *pass;
	struct ibfm_lfts old = { 0 };
	bool *lost;
	uint64_t chg, sw_chg, sw_must, blocks, bad = 0, left = 0;
	double ratio;
	unsigned i;

	if (!g || ibfm_route_build(g, NULL, &c->o, &pass, &err) ||
	    ibfm_lfts_copy(&old, pass->fabric, &pass->lfts, &err))
		die("route", &err);
	lost = calloc(pass->fabric->nports + 1, sizeof(*lost));
	g = ibfm_fabric_clone(pass->fabric);
	if (!lost || !g)
		die("lose", &err);
	for (i = 0; i < n; i++) {
		if (g->ports[ports[i]].peer == IBFM_NONE)
			continue;
		lost[ports[i]] = lost[g->ports[ports[i]].peer] = true;
		ibfm_fabric_unlink(g, ports[i]);
	}
	sw_must = must_sw(pass->fabric, &old, lost);
	if (ibfm_route_update(&pass, g, NULL, &c->o, &err))
		die(name, &err);
	if (c->verify)
		bad = loops(c, pass, &left);
	blocks = ibfm_lfts_diff(&old, &pass->lfts, &chg);
	sw_chg = differ(pass->fabric, &old, &pass->lfts, true);
	ratio = pass->must_move ? (double)chg / (double)pass->must_move
		: chg		? 1e9
				: 0;
	printf("%s changed %" PRIu64 " must_move %" PRIu64, name, chg,
	       pass->must_move);
	if (pass->must_move)
		printf(" ratio %.2f", ratio);
	else
		printf(" ratio -");
	printf(" sw_changed %" PRIu64 " sw_must %" PRIu64 " stored %" PRIu64
	       " blocks %" PRIu64 " full %d ms %.1f",
	       sw_chg, sw_must, pass->delta.entries, blocks,
	       pass->delta.full ? 1 : 0, pass->route_ms);
	if (c->verify)
		printf(" loops %" PRIu64 " left %" PRIu64, bad, left);
	printf("\n");
	c->unsafe += bad || left;
	c->elements++;
	c->over += ratio > 2;
	if (ratio > c->worst || !c->worst_name[0]) {
		c->worst = ratio;
		snprintf(c->worst_name, sizeof(c->worst_name), "%s", name);
	}
	free(lost);
	ibfm_lfts_free(&old);
	ibfm_route_destroy(pass);
}

/* The switch-to-switch ports of node 'nd'; how many. */
static unsigned switch_ports(const struct ibfm_fabric *f, uint32_t nd,
			     uint32_t *ports, bool all)
{
	unsigned p, n = 0;

	for (p = 1; p <= f->nodes[nd].nports; p++) {
		uint32_t i = f->nodes[nd].port0 + p, q = f->ports[i].peer;

		if (q != IBFM_NONE &&
		    (all || ibfm_node_is_switch(&f->nodes[f->ports[q].node])))
			ports[n++] = i;
	}
	return n;
}

static void every_link(struct churn *c, unsigned every)
{
	const struct ibfm_fabric *f = c->f;
	uint32_t nd, ports[IBFM_MAX_PORTS], k = 0;
	char name[96];
	unsigned i, n;

	for (nd = 0; nd < f->nnodes; nd++) {
		if (!ibfm_node_is_switch(&f->nodes[nd]))
			continue;
		n = switch_ports(f, nd, ports, false);
		for (i = 0; i < n; i++) {
			/* Each link once: from its end of lower port index. */
			if (f->ports[ports[i]].peer < ports[i] || k++ % every)
				continue;
			snprintf(name, sizeof(name), "%s[%u]", name_of(f, nd),
				 f->ports[ports[i]].num);
			lose(c, name, &ports[i], 1);
		}
	}
}

static void every_switch(struct churn *c, unsigned every)
{
	const struct ibfm_fabric *f = c->f;
	uint32_t nd, ports[IBFM_MAX_PORTS], k = 0;

	for (nd = 0; nd < f->nnodes; nd++)
		if (ibfm_node_is_switch(&f->nodes[nd]) && !(k++ % every))
			lose(c, name_of(f, nd), ports,
			     switch_ports(f, nd, ports, true));
}

/* "NAME" (a switch, every link) or "NAME[PORT]" (one link). */
static void named(struct churn *c, const char *spec)
{
	const struct ibfm_fabric *f = c->f;
	uint32_t ports[IBFM_MAX_PORTS], nd;
	char node[96];
	unsigned port = 0;
	const char *br = strchr(spec, '[');
	size_t len = br ? (size_t)(br - spec) : strlen(spec);

	if (len >= sizeof(node) ||
	    (br && (sscanf(br, "[%u]", &port) != 1 || !port))) {
		fprintf(stderr,
			"bench_churn: -e %s: expected NAME or NAME[PORT]\n",
			spec);
		exit(2);
	}
	memcpy(node, spec, len);
	node[len] = 0;
	nd = ibfm_fabric_node_by_desc(f, node);
	if (nd == IBFM_NONE)
		nd = ibfm_fabric_node_by_name(f, node);
	if (nd == IBFM_NONE || (port && port > f->nodes[nd].nports)) {
		fprintf(stderr, "bench_churn: -e %s: no such node or port\n",
			spec);
		exit(2);
	}
	if (!port) {
		lose(c, spec, ports, switch_ports(f, nd, ports, true));
		return;
	}
	ports[0] = f->nodes[nd].port0 + port;
	lose(c, spec, ports, 1);
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_churn [-s SEED] [-j THREADS] [-L] [-S] "
			"[-m EVERY] [-V] [-e ELEMENT]... TOPO\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct churn c = { .o = { .threads = 1, .count_moves = true } };
	struct ibfm_err err = { .msg = "out of memory" };
	struct ibfm_fabric *f;
	unsigned long long seed = 0;
	const char *elem[64];
	unsigned every = 1, nelem = 0, k;
	bool links = false, switches = false;
	int opt;

	while ((opt = getopt(argc, argv, "s:j:LSm:Ve:h")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'j':
			c.o.threads = (unsigned)atoi(optarg);
			break;
		case 'L':
			links = true;
			break;
		case 'S':
			switches = true;
			break;
		case 'm':
			every = (unsigned)atoi(optarg);
			break;
		case 'V':
			c.verify = true;
			break;
		case 'e':
			if (nelem == sizeof(elem) / sizeof(*elem))
				usage();
			elem[nelem++] = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1 || !every)
		usage();
	if (ibfm_topo_read(argv[optind], &f, &err) ||
	    ibfm_fabric_assign_lids(f, 0, &err) ||
	    (seed && ibfm_fabric_shuffle_lids(f, seed, &err)))
		die(argv[optind], &err);
	c.f = f;
	/* The named elements in the order given, then the sweeps. */
	for (k = 0; k < nelem; k++)
		named(&c, elem[k]);
	if (links)
		every_link(&c, every);
	if (switches)
		every_switch(&c, every);
	printf("summary elements %" PRIu32
	       " worst %s ratio %.2f over2 %" PRIu32,
	       c.elements, c.worst_name[0] ? c.worst_name : "-", c.worst,
	       c.over);
	if (c.verify)
		printf(" unsafe %" PRIu32, c.unsafe);
	printf("\n");
	ibfm_fabric_destroy(f);
	return c.over || c.unsafe ? 1 : 0;
}
