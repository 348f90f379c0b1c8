// SPDX-License-Identifier: MIT
#include "routing/topo/gen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/base/rng.h"

#define SW_GUID_BASE 0x0002c90200000000ULL
#define CA_GUID_BASE 0x0002c90300000000ULL

static unsigned div_up(unsigned a, unsigned b)
{
	return (a + b - 1) / b;
}

/* Leaf-to-spine links per pair: from --spines or --parallel. */
static int shape_leaf_spine(const struct ibfm_gen_params *p,
			    struct ibfm_gen_shape *t, struct ibfm_err *err)
{
	unsigned par = p->parallel ? p->parallel : 1;

	if (p->spines && p->parallel)
		return ibfm_err_set(
			err, -EINVAL,
			"--spines %u and --parallel %u: give one (--parallel N means U/N spines)",
			p->spines, p->parallel);
	if (p->spines > t->up)
		return ibfm_err_set(
			err, -EINVAL,
			"--spines %u: more spines than the %u up-ports of a leaf",
			p->spines, t->up);
	if (p->spines) {
		t->pod_spines = p->spines;
		t->parallel = t->up / p->spines;
		t->spread = t->up % p->spines;
		return 0;
	}
	if (t->up % par)
		return ibfm_err_set(
			err, -EINVAL,
			"--parallel %u does not divide the %u up-ports of a leaf",
			par, t->up);
	t->pod_spines = t->up / par;
	t->parallel = par;
	return 0;
}

/*
 * Spine-to-core links per pair and the leaves the tree can hold: a
 * spine has radix ports toward the leaves at 2 levels, half of them at 3.
 */
static int shape_above(const struct ibfm_gen_params *p,
		       struct ibfm_gen_shape *t, unsigned *max_leaves,
		       struct ibfm_err *err)
{
	unsigned k = p->radix, half = k / 2, q;

	if (p->levels == 2) {
		if (p->core_parallel)
			return ibfm_err_set(
				err, -EINVAL,
				"--core-parallel %u: a 2-level tree has no cores",
				p->core_parallel);
		t->pod_leaves = t->pod_spines * k / t->up;
		*max_leaves = t->pod_leaves;
		return 0;
	}
	q = p->core_parallel ? p->core_parallel : p->parallel ? p->parallel : 1;
	if (half % q)
		return ibfm_err_set(
			err, -EINVAL,
			"--%s %u does not divide the %u up-ports of a spine",
			p->core_parallel ? "core-parallel" : "parallel", q,
			half);
	t->core_parallel = q;
	t->pod_leaves = t->pod_spines * half / t->up;
	/* A core has q ports per pod. */
	*max_leaves = k / q * t->pod_leaves;
	return 0;
}

int ibfm_gen_shape(const struct ibfm_gen_params *p, struct ibfm_gen_shape *s,
		   struct ibfm_err *err)
{
	unsigned k = p->radix, rails = p->rails ? p->rails : 1;
	struct ibfm_gen_shape t = { 0 };
	unsigned max_leaves = 0;
	int rc;

	if (p->levels != 2 && p->levels != 3)
		return ibfm_err_set(err, -EINVAL,
				    "--levels %u: expected 2 or 3", p->levels);
	if (k < 4 || k > IBFM_MAX_PORTS || k % 2)
		return ibfm_err_set(
			err, -EINVAL,
			"--radix %u: expected an even number from 4 to %d", k,
			IBFM_MAX_PORTS);
	t.down = p->down ? p->down : k / 2;
	if (t.down >= k)
		return ibfm_err_set(
			err, -EINVAL,
			"%u host ports per leaf leave no up-port on a radix-%u switch",
			t.down, k);
	t.up = k - t.down;
	if (p->levels == 3 && t.up > k / 2)
		return ibfm_err_set(
			err, -EINVAL,
			"%u up-ports per leaf: a 3-level tree of radix %u has at most %u spines per pod",
			t.up, k, k / 2);
	if (rails > t.down * 64)
		return ibfm_err_set(err, -EINVAL, "--rails %u: too many",
				    rails);
	rc = shape_leaf_spine(p, &t, err);
	if (!rc)
		rc = shape_above(p, &t, &max_leaves, err);
	if (rc)
		return rc;
	/* Leaves come in groups of 'rails' (one SU), so round down. */
	t.max_hosts = max_leaves / rails * rails * t.down;
	t.hosts = p->hosts ? p->hosts : t.max_hosts;
	if (t.hosts % rails)
		return ibfm_err_set(
			err, -EINVAL,
			"--hosts %u is not a multiple of --rails %u (hosts count HCAs)",
			t.hosts, rails);
	if (t.hosts > t.max_hosts)
		return ibfm_err_set(
			err, -EINVAL,
			"--hosts %u: a %u-level radix-%u tree with %u host ports per leaf%s holds at most %u",
			t.hosts, p->levels, k, t.down,
			rails > 1 || t.parallel > 1 || t.spread
				? " and this wiring"
				: "",
			t.max_hosts);
	t.servers = t.hosts / rails;
	t.leaves = div_up(t.servers, t.down) * rails;
	if (p->old_leaves > t.leaves)
		return ibfm_err_set(
			err, -EINVAL,
			"--old-leaves %u: the fabric has only %u leaves",
			p->old_leaves, t.leaves);
	if (p->levels == 2) {
		t.pods = 1;
		t.spines = t.pod_spines;
	} else {
		t.pods = div_up(t.leaves, t.pod_leaves);
		t.spines = t.pods * t.pod_spines;
		t.cores = t.pod_spines * (k / 2 / t.core_parallel);
	}
	*s = t;
	return 0;
}

static unsigned digits(unsigned n)
{
	unsigned d = 1;

	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d < 2 ? 2 : d;
}

struct gen {
	const struct ibfm_gen_params *p;
	struct ibfm_gen_shape s;
	struct ibfm_fabric *f;
	uint32_t *sw; /* logical switch -> node, IBFM_NONE if removed */
	uint32_t nsw; /* leaves, then spines, then cores */
	uint8_t width, speed, old_speed;
	struct ibfm_err *err;
};

static int add_switch(struct gen *g, uint32_t logical, const char *desc)
{
	struct ibfm_node_info info = {
		.type = IBFM_NODE_SWITCH,
		.nports = g->p->radix,
		.guid = SW_GUID_BASE + logical + 1,
		.desc = desc,
	};
	int rc;

	if (g->sw[logical] == IBFM_NONE - 1) {
		g->sw[logical] = IBFM_NONE; /* chosen for removal */
		return 0;
	}
	rc = ibfm_fabric_add_node(g->f, &info, &g->sw[logical], g->err);
	if (!rc)
		g->f->nodes[g->sw[logical]].esp0 = 1;
	return rc;
}

static int add_switches(struct gen *g)
{
	const struct ibfm_gen_shape *s = &g->s;
	unsigned rails = g->p->rails ? g->p->rails : 1;
	char desc[64];
	uint32_t i;
	int rc = 0;

	for (i = 0; i < s->leaves && !rc; i++) {
		if (rails > 1)
			snprintf(desc, sizeof(desc), "leaf-r%u-%0*u", i % rails,
				 digits(s->leaves / rails), i / rails + 1);
		else
			snprintf(desc, sizeof(desc), "leaf-%0*u",
				 digits(s->leaves), i + 1);
		rc = add_switch(g, i, desc);
	}
	for (i = 0; i < s->spines && !rc; i++) {
		snprintf(desc, sizeof(desc), "spine-%0*u", digits(s->spines),
			 i + 1);
		rc = add_switch(g, s->leaves + i, desc);
	}
	for (i = 0; i < s->cores && !rc; i++) {
		snprintf(desc, sizeof(desc), "core-%0*u", digits(s->cores),
			 i + 1);
		rc = add_switch(g, s->leaves + s->spines + i, desc);
	}
	return rc;
}

/* The speed of logical switch 'sw': old leaves are of the older kind. */
static uint8_t sw_speed(const struct gen *g, uint32_t sw)
{
	return sw < g->p->old_leaves ? g->old_speed : g->speed;
}

/*
 * Links port 'pa' of logical switch 'a' to port 'pb' of logical switch
 * 'b', at the slower speed of the two, as a link trains.
 */
static int link_sw(struct gen *g, uint32_t a, unsigned pa, uint32_t b,
		   unsigned pb)
{
	uint32_t na = g->sw[a], nb = g->sw[b];
	uint8_t sa = sw_speed(g, a), sb = sw_speed(g, b);

	if (na == IBFM_NONE || nb == IBFM_NONE)
		return 0;
	return ibfm_fabric_link(g->f, ibfm_fabric_port(g->f, na, pa),
				ibfm_fabric_port(g->f, nb, pb), g->width,
				sa < sb ? sa : sb);
}

static int add_hosts(struct gen *g)
{
	const struct ibfm_gen_shape *s = &g->s;
	unsigned rails = g->p->rails ? g->p->rails : 1;
	unsigned dig = digits(s->servers) < 3 ? 3 : digits(s->servers);
	char desc[64];
	uint32_t srv, r, node;
	int rc;

	for (srv = 0; srv < s->servers; srv++) {
		for (r = 0; r < rails; r++) {
			uint32_t j = srv * rails + r;
			uint32_t leaf = (srv / s->down) * rails + r;
			struct ibfm_node_info info = {
				.type = IBFM_NODE_CA,
				.nports = 1,
				.guid = CA_GUID_BASE + 2 * (uint64_t)(j + 1),
				.desc = desc,
			};

			snprintf(desc, sizeof(desc), "node%0*u mlx5_%u", dig,
				 srv + 1, r);
			rc = ibfm_fabric_add_node(g->f, &info, &node, g->err);
			if (rc)
				return rc;
			rc = ibfm_fabric_link(
				g->f,
				ibfm_fabric_port(g->f, g->sw[leaf],
						 srv % s->down + 1),
				ibfm_fabric_port(g->f, node, 1), g->width,
				sw_speed(g, leaf));
			if (rc)
				return rc;
		}
	}
	return 0;
}

/*
 * One tier of cabling: 'nlo' switches below (logical lo0 + i * lo_step),
 * each with 'up' up-ports from port lo_port, to 'nhi' switches above
 * (logical hi0 + j), whose ports toward them start at hi_port.
 */
struct tier {
	uint32_t lo0, lo_step, nlo;
	unsigned lo_port, up;
	uint32_t hi0;
	unsigned nhi, hi_port;
};

/*
 * Cables a tier as gen.h says: up / nhi links per pair, grouped, and
 * the up % nhi left-over up-ports of switch i to the switches from
 * i * (up % nhi) on, round the tier. Each switch above takes its ports
 * in turn, so links of removed switches keep their port numbers.
 */
static int cable(struct gen *g, const struct tier *t)
{
	unsigned next[IBFM_MAX_PORTS], per = t->up / t->nhi;
	unsigned extra = t->up % t->nhi, j, m, n;
	uint32_t i;
	int rc = 0;

	for (j = 0; j < t->nhi; j++)
		next[j] = t->hi_port;
	for (i = 0; i < t->nlo && !rc; i++) {
		unsigned first = (unsigned)((uint64_t)i * extra % t->nhi);
		unsigned port = t->lo_port;

		for (j = 0; j < t->nhi && !rc; j++) {
			n = per + ((j + t->nhi - first) % t->nhi < extra);
			for (m = 0; m < n && !rc; m++)
				rc = link_sw(g, t->lo0 + i * t->lo_step, port++,
					     t->hi0 + j, next[j]++);
		}
	}
	return rc;
}

static int add_uplinks(struct gen *g)
{
	const struct ibfm_gen_shape *s = &g->s;
	unsigned half = g->p->radix / 2, pod, j;
	struct tier t = {
		.lo_step = 1,
		.lo_port = s->down + 1,
		.up = s->up,
		.nhi = s->pod_spines,
		.hi_port = 1,
	};
	int rc = 0;

	for (pod = 0; pod < s->pods && !rc; pod++) {
		t.lo0 = pod * s->pod_leaves;
		t.nlo = s->leaves - t.lo0 < s->pod_leaves ? s->leaves - t.lo0
							  : s->pod_leaves;
		t.hi0 = s->leaves + pod * s->pod_spines;
		rc = cable(g, &t);
	}
	/* Spine j of every pod goes to the j-th group of cores. */
	t = (struct tier){
		.lo_step = s->pod_spines,
		.nlo = s->pods,
		.lo_port = half + 1,
		.up = half,
		.nhi = half / (s->core_parallel ? s->core_parallel : 1),
		.hi_port = 1,
	};
	for (j = 0; j < s->pod_spines && s->cores && !rc; j++) {
		t.lo0 = s->leaves + j;
		t.hi0 = s->leaves + s->spines + j * t.nhi;
		rc = cable(g, &t);
	}
	return rc;
}

static int remove_links(struct gen *g, uint64_t *rng)
{
	struct ibfm_fabric *f = g->f;
	uint32_t *links, n = 0, take, p;

	if (g->p->remove_links <= 0)
		return 0;
	links = malloc((size_t)f->nports * sizeof(*links));
	if (!links)
		return ibfm_err_set(g->err, -ENOMEM, "out of memory");
	for (p = 0; p < f->nports; p++) {
		uint32_t q = f->ports[p].peer;

		if (q != IBFM_NONE && q > p &&
		    ibfm_node_is_switch(&f->nodes[f->ports[p].node]) &&
		    ibfm_node_is_switch(&f->nodes[f->ports[q].node]))
			links[n++] = p;
	}
	take = (uint32_t)(g->p->remove_links * n / 100.0 + 0.5);
	ibfm_rng_sample(links, n, take, rng);
	for (p = 0; p < take; p++)
		ibfm_fabric_unlink(f, links[p]);
	free(links);
	return 0;
}

/* Marks the switches to remove (IBFM_NONE - 1) before they are built. */
static int choose_removed(struct gen *g, uint64_t *rng)
{
	uint32_t above = g->nsw - g->s.leaves, *cand, i;

	if (!g->p->remove_switches)
		return 0;
	if (g->p->remove_switches > above)
		return ibfm_err_set(
			g->err, -EINVAL,
			"--remove-switches %u: the fabric has only %u switches above the leaves",
			g->p->remove_switches, above);
	cand = malloc(above * sizeof(*cand));
	if (!cand)
		return ibfm_err_set(g->err, -ENOMEM, "out of memory");
	for (i = 0; i < above; i++)
		cand[i] = g->s.leaves + i;
	ibfm_rng_sample(cand, above, g->p->remove_switches, rng);
	for (i = 0; i < g->p->remove_switches; i++)
		g->sw[cand[i]] = IBFM_NONE - 1;
	free(cand);
	return 0;
}

int ibfm_gen_build(const struct ibfm_gen_params *p, struct ibfm_fabric **out,
		   struct ibfm_err *err)
{
	struct gen g = { .p = p, .err = err };
	uint64_t rng = p->seed;
	uint32_t i;
	int rc;

	if (p->remove_links < 0 || p->remove_links > 100)
		return ibfm_err_set(
			err, -EINVAL,
			"--remove-links %g: expected a percentage from 0 to 100",
			p->remove_links);
	rc = ibfm_gen_shape(p, &g.s, err);
	if (rc)
		return rc;
	g.width = p->width ? p->width : 4;
	g.speed = p->speed ? p->speed : IBFM_SPEED_HDR;
	g.old_speed = p->old_speed ? p->old_speed : IBFM_SPEED_EDR;
	g.nsw = g.s.leaves + g.s.spines + g.s.cores;
	g.sw = malloc(g.nsw * sizeof(*g.sw));
	g.f = ibfm_fabric_create();
	if (!g.sw || !g.f ||
	    ibfm_fabric_reserve(g.f, g.nsw + g.s.hosts,
				g.nsw * (p->radix + 1) + 2 * g.s.hosts)) {
		rc = ibfm_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < g.nsw; i++)
		g.sw[i] = 0;
	rc = choose_removed(&g, &rng);
	if (!rc)
		rc = add_switches(&g);
	if (!rc)
		rc = add_hosts(&g);
	if (!rc)
		rc = add_uplinks(&g);
	if (!rc)
		rc = remove_links(&g, &rng);
	if (!rc)
		rc = ibfm_fabric_finish(g.f, err);
	if (!rc) {
		*out = g.f;
		g.f = NULL;
	}
out:
	ibfm_fabric_destroy(g.f);
	free(g.sw);
	return rc;
}

/*
 * DGX SuperPOD scalable units: 32 servers x 8 HCAs, one rail per HCA,
 * 8 rail leaves of 64 ports, 32 down and 32 up. Links are written 4xHDR
 * (the generator's default speed), not the NDR they run at, because
 * ibsim 0.10 brings NDR links up as SDR; --speed NDR says NDR.
 */
static void fill_su(unsigned levels, unsigned units, struct ibfm_gen_params *p)
{
	p->levels = levels;
	p->radix = 64;
	p->rails = 8;
	p->down = 32;
	p->hosts = units * 32 * 8;
}

/* H100: 4 spines per SU; each leaf reaches all 4U spines, 32/(4U) each. */
static int fill_superpod_h100(unsigned units, struct ibfm_gen_params *p,
			      struct ibfm_err *err)
{
	(void)err;
	fill_su(2, units, p);
	p->spines = 4 * units;
	return 0;
}

/*
 * B200 3-tier: 8 spines per SU, each leaf 4 links to each spine of its
 * SU; spine j of every SU goes to core group j, U/2 cores with 64/U
 * links from each spine (the RA's 16, 32 and 64 SU layouts: 64, 128 and
 * 256 cores), so every core port is used.
 */
static int fill_b200_3tier(unsigned units, struct ibfm_gen_params *p,
			   struct ibfm_err *err)
{
	if (units & (units - 1))
		return ibfm_err_set(
			err, -EINVAL,
			"--units %u: b200-3tier takes a power of two (64/U spine-core links per pair)",
			units);
	fill_su(3, units, p);
	p->parallel = 4;
	p->core_parallel = 64 / units;
	return 0;
}

/* 36-port switches, 24 hosts and 12 up-ports per leaf, 12 spines. */
static int fill_oversub_2to1(unsigned units, struct ibfm_gen_params *p,
			     struct ibfm_err *err)
{
	(void)err;
	p->levels = 2;
	p->radix = 36;
	p->down = 24;
	p->hosts = units * 24;
	return 0;
}

/*
 * A 36-port EDR tree grown with HDR: the first half of the leaves and
 * their hosts are EDR, so their host links and all their spine links
 * run at EDR; the rest and the spines are HDR.
 */
static int fill_mixed_edr_hdr(unsigned units, struct ibfm_gen_params *p,
			      struct ibfm_err *err)
{
	(void)err;
	p->levels = 2;
	p->radix = 36;
	p->hosts = units * 18;
	p->old_leaves = units / 2;
	p->old_speed = IBFM_SPEED_EDR;
	return 0;
}

const struct ibfm_gen_preset ibfm_gen_presets[] = {
	{ "superpod-h100",
	  "DGX SuperPOD H100: per SU 8 rail leaves, 4 spines (PGFT)",
	  "SUs of 32 servers x 8 HCAs", 1, 8, 4, fill_superpod_h100 },
	{ "b200-3tier",
	  "B200-style 3 tiers: per SU 8 rail leaves, 8 spines; 4U cores",
	  "SUs of 32 servers x 8 HCAs, a power of two", 2, 16, 2,
	  fill_b200_3tier },
	{ "oversub-2to1", "2:1 leaves: radix 36, 24 hosts + 12 up-ports",
	  "leaves of 24 hosts", 1, 36, 8, fill_oversub_2to1 },
	{ "mixed-edr-hdr",
	  "EDR tree grown with HDR: first half of the leaves EDR",
	  "leaves of 18 hosts", 2, 36, 8, fill_mixed_edr_hdr },
	{ 0 },
};

int ibfm_gen_preset(const char *name, unsigned units, struct ibfm_gen_params *p,
		    struct ibfm_err *err)
{
	const struct ibfm_gen_preset *pr;
	struct ibfm_gen_params q = *p;
	int rc;

	for (pr = ibfm_gen_presets; pr->name; pr++)
		if (!strcmp(pr->name, name))
			break;
	if (!pr->name)
		return ibfm_err_set(
			err, -EINVAL,
			"--preset %s: unknown (ibfm topo gen --help lists them)",
			name);
	if (!units)
		units = pr->default_units;
	if (units < pr->min_units || units > pr->max_units)
		return ibfm_err_set(
			err, -EINVAL, "--units %u: %s takes %u to %u %s", units,
			name, pr->min_units, pr->max_units, pr->unit);
	q.levels = q.radix = q.hosts = q.rails = q.down = 0;
	q.parallel = q.core_parallel = q.spines = q.old_leaves = 0;
	q.old_speed = 0;
	rc = pr->fill(units, &q, err);
	if (!rc)
		*p = q;
	return rc;
}
