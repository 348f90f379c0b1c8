// SPDX-License-Identifier: MIT
#include "routing/gen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#define SW_GUID_BASE 0x0002c90200000000ULL
#define CA_GUID_BASE 0x0002c90300000000ULL

static unsigned div_up(unsigned a, unsigned b)
{
	return (a + b - 1) / b;
}

int ibfm_gen_shape(const struct ibfm_gen_params *p, struct ibfm_gen_shape *s,
		   struct ibfm_err *err)
{
	unsigned k = p->radix, rails = p->rails ? p->rails : 1;
	unsigned max_leaves, leaves_per_pod = k / 2;

	if (p->levels != 2 && p->levels != 3)
		return ibfm_err_set(err, -EINVAL,
				    "--levels %u: expected 2 or 3", p->levels);
	if (k < 4 || k > IBFM_MAX_PORTS || k % 2)
		return ibfm_err_set(
			err, -EINVAL,
			"--radix %u: expected an even number from 4 to %d", k,
			IBFM_MAX_PORTS);
	s->down = p->down ? p->down : k / 2;
	if (s->down >= k)
		return ibfm_err_set(
			err, -EINVAL,
			"%u host ports per leaf leave no up-port on a radix-%u switch",
			s->down, k);
	s->up = k - s->down;
	if (p->levels == 3 && s->up > leaves_per_pod)
		return ibfm_err_set(
			err, -EINVAL,
			"%u up-ports per leaf: a 3-level tree of radix %u has at most %u spines per pod",
			s->up, k, leaves_per_pod);
	if (rails > s->down * 64)
		return ibfm_err_set(err, -EINVAL, "--rails %u: too many",
				    rails);
	max_leaves = p->levels == 2 ? k : k * leaves_per_pod;
	/* Leaves come in groups of 'rails' (one SU), so round down. */
	s->max_hosts = max_leaves / rails * rails * s->down;
	s->hosts = p->hosts ? p->hosts : s->max_hosts;
	if (s->hosts % rails)
		return ibfm_err_set(
			err, -EINVAL,
			"--hosts %u is not a multiple of --rails %u (hosts count HCAs)",
			s->hosts, rails);
	if (s->hosts > s->max_hosts)
		return ibfm_err_set(
			err, -EINVAL,
			"--hosts %u: a %u-level radix-%u tree with %u host ports per leaf%s holds at most %u",
			s->hosts, p->levels, k, s->down,
			rails > 1 ? " and these rails" : "", s->max_hosts);
	s->servers = s->hosts / rails;
	s->leaves = div_up(s->servers, s->down) * rails;
	if (p->levels == 2) {
		s->pods = 1;
		s->spines = s->up;
		s->cores = 0;
	} else {
		s->pods = div_up(s->leaves, leaves_per_pod);
		s->spines = s->pods * s->up;
		s->cores = s->up * (k / 2);
	}
	return 0;
}

/* splitmix64: a small, seedable, well-mixed generator. */
static uint64_t rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Shuffles the first 'take' of 'n' items into a uniform random sample. */
static void sample(uint32_t *items, uint32_t n, uint32_t take, uint64_t *rng)
{
	uint32_t i;

	for (i = 0; i < take && i < n; i++) {
		uint32_t j = i + (uint32_t)(rng_next(rng) % (n - i));
		uint32_t t = items[i];

		items[i] = items[j];
		items[j] = t;
	}
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
	uint8_t width, speed;
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

/* Links port 'pa' of logical switch 'a' to port 'pb' of node 'nb'. */
static int link_sw(struct gen *g, uint32_t a, unsigned pa, uint32_t b,
		   unsigned pb)
{
	uint32_t na = g->sw[a], nb = g->sw[b];

	if (na == IBFM_NONE || nb == IBFM_NONE)
		return 0;
	return ibfm_fabric_link(g->f, ibfm_fabric_port(g->f, na, pa),
				ibfm_fabric_port(g->f, nb, pb), g->width,
				g->speed);
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
				g->speed);
			if (rc)
				return rc;
		}
	}
	return 0;
}

static int add_uplinks(struct gen *g)
{
	const struct ibfm_gen_shape *s = &g->s;
	unsigned half = g->p->radix / 2;
	uint32_t l, j, i, sp, pod;
	int rc = 0;

	if (g->p->levels == 2) {
		for (l = 0; l < s->leaves; l++)
			for (j = 0; j < s->up && !rc; j++)
				rc = link_sw(g, l, s->down + j + 1,
					     s->leaves + j, l + 1);
		return rc;
	}
	for (l = 0; l < s->leaves; l++) {
		pod = l / half;
		for (j = 0; j < s->up && !rc; j++)
			rc = link_sw(g, l, s->down + j + 1,
				     s->leaves + pod * s->up + j, l % half + 1);
	}
	for (sp = 0; sp < s->spines; sp++) {
		pod = sp / s->up;
		j = sp % s->up;
		for (i = 0; i < half && !rc; i++)
			rc = link_sw(g, s->leaves + sp, half + i + 1,
				     s->leaves + s->spines + j * half + i,
				     pod + 1);
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
	sample(links, n, take, rng);
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
	sample(cand, above, g->p->remove_switches, rng);
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
