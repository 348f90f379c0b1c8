// SPDX-License-Identifier: MIT
#include "routing/sharp/sharp.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "routing/base/grow.h"
#include "routing/io/json.h"
#include "routing/model/rank.h"

struct builder {
	const struct ibfm_fabric *f;
	const struct ibfm_lfts *t;
	const struct ibfm_sharp_opts *o;
	struct ibfm_sharp *s;
	size_t cap;
	uint8_t *rank;
	unsigned levels;
	uint32_t *desc;	      /* per node: == tree + 1 when below its root */
	uint32_t *an_of;      /* per node: AN index in the current tree */
	uint32_t *an_tree;    /* per node: == tree + 1 when an_of is valid */
	uint32_t *link_edges; /* per port: tree edges on the link it starts */
	uint32_t *queue, *cur, *next;
	uint32_t *adj0;	 /* per node: start of its switch links in adj */
	uint32_t *adj;	 /* port indexes of switch-switch links, by node,
				 * parents (rank + 1) first */
	uint32_t *nup;	 /* per node: how many of them go up */
	uint16_t *hosts; /* per (node, rail + 1): tree hosts on it */
	unsigned nrails;
};

/* Whether the LFT of switch 'a' sends traffic for switch 'b' straight to it. */
static bool lft_direct(const struct builder *b, uint32_t a, uint32_t bnode,
		       uint8_t *port)
{
	const struct ibfm_fabric *f = b->f;
	uint32_t sw = b->t->node_sw[a],
		 lid = f->ports[f->nodes[bnode].port0].lid;
	uint32_t q;
	uint8_t e;

	if (sw == IBFM_NONE || !lid || lid > b->t->top_lid)
		return false;
	e = ibfm_lfts_row(b->t, sw)[lid];
	if (!e || e > f->nodes[a].nports)
		return false;
	q = f->ports[f->nodes[a].port0 + e].peer;
	if (q == IBFM_NONE || f->ports[q].node != bnode)
		return false;
	*port = e;
	return true;
}

/*
 * Marks the switches below 'root' (going only down) for tree 'id' and
 * leaves them in queue[0 .. return).
 */
static uint32_t mark_below(struct builder *b, uint32_t root, uint32_t id)
{
	const struct ibfm_fabric *f = b->f;
	uint32_t head = 0, tail = 0, i;

	b->desc[root] = id + 1;
	b->queue[tail++] = root;
	while (head < tail) {
		uint32_t n = b->queue[head++];

		for (i = b->adj0[n] + b->nup[n]; i < b->adj0[n + 1]; i++) {
			uint32_t m = f->ports[f->ports[b->adj[i]].peer].node;

			if (b->desc[m] == id + 1)
				continue;
			b->desc[m] = id + 1;
			b->queue[tail++] = m;
		}
	}
	return tail;
}

/* Counts each switch's compute hosts, in all and per rail, once. */
static void count_hosts(struct builder *b)
{
	const struct ibfm_fabric *f = b->f;
	uint32_t n;
	unsigned p;

	for (n = 0; n < f->nnodes; n++) {
		const struct ibfm_node *nd = &f->nodes[n];

		if (!ibfm_node_is_switch(nd))
			continue;
		for (p = 1; p <= nd->nports; p++) {
			uint32_t q = f->ports[nd->port0 + p].peer;
			size_t row = (size_t)n * (b->nrails + 1);

			if (q == IBFM_NONE ||
			    ibfm_node_is_switch(&f->nodes[f->ports[q].node]))
				continue;
			b->hosts[row]++;
			if (b->nrails &&
			    b->o->rails->port_rail[q] != IBFM_RAIL_NONE)
				b->hosts[row + 1 + b->o->rails->port_rail[q]]++;
		}
	}
}

/* Tree hosts on switch 'n': compute CAs, of 'rail' when it has one. */
static uint32_t hosts_on(const struct builder *b, uint32_t n, uint16_t rail)
{
	return b->hosts[(size_t)n * (b->nrails + 1) +
			(rail == IBFM_RAIL_NONE ? 0 : 1 + rail)];
}

/* Lists each switch's links to switches one rank up, then one rank down. */
static int build_adjacency(struct builder *b)
{
	const struct ibfm_fabric *f = b->f;
	uint32_t n, k = 0;
	unsigned p, pass;

	b->adj0 = calloc(f->nnodes + 2, sizeof(*b->adj0));
	b->nup = calloc(f->nnodes + 1, sizeof(*b->nup));
	b->adj = malloc((f->nports + 1) * sizeof(*b->adj));
	if (!b->adj0 || !b->nup || !b->adj)
		return -ENOMEM;
	for (n = 0; n < f->nnodes; n++) {
		const struct ibfm_node *nd = &f->nodes[n];

		b->adj0[n] = k;
		if (!ibfm_node_is_switch(nd))
			continue;
		for (pass = 0; pass < 2; pass++)
			for (p = 1; p <= nd->nports; p++) {
				uint32_t q = f->ports[nd->port0 + p].peer, m;

				if (q == IBFM_NONE)
					continue;
				m = f->ports[q].node;
				if (!ibfm_node_is_switch(&f->nodes[m]) ||
				    b->rank[m] != (pass ? b->rank[n] - 1
							: b->rank[n] + 1))
					continue;
				b->adj[k++] = nd->port0 + p;
				b->nup[n] += !pass;
			}
	}
	b->adj0[f->nnodes] = k;
	return 0;
}

static uint32_t add_an(struct builder *b, uint32_t tree, uint32_t node,
		       uint8_t level, uint16_t children)
{
	struct ibfm_sharp *s = b->s;
	struct ibfm_sharp_an *an;

	if (ibfm_grow((void **)&s->ans, &b->cap, s->nans + 1, sizeof(*s->ans)))
		return IBFM_NONE;
	an = &s->ans[s->nans];
	memset(an, 0, sizeof(*an));
	an->node = node;
	an->parent = IBFM_NONE;
	an->level = level;
	an->children = children;
	b->an_of[node] = s->nans;
	b->an_tree[node] = tree + 1;
	return s->nans++;
}

/*
 * The parent of AN 'c' one rank up, below the root: in the tree with
 * room first, then the least used up-link, then port order.
 */
static uint32_t choose_parent(struct builder *b, uint32_t tree, uint32_t c,
			      uint8_t *up, uint8_t *down)
{
	const struct ibfm_fabric *f = b->f;
	const struct ibfm_node *nd = &f->nodes[c];
	uint32_t best = IBFM_NONE, best_score = UINT32_MAX, i;

	for (i = b->adj0[c]; i < b->adj0[c] + b->nup[c]; i++) {
		uint32_t m = f->ports[f->ports[b->adj[i]].peer].node, score;
		unsigned p = f->ports[b->adj[i]].num;
		uint8_t pu, pd;
		bool member;

		if (b->desc[m] != tree + 1 || !lft_direct(b, c, m, &pu) ||
		    !lft_direct(b, m, c, &pd) || pu != p)
			continue;
		member = b->an_tree[m] == tree + 1;
		if (member && b->o->radix &&
		    b->s->ans[b->an_of[m]].children >= b->o->radix)
			continue;
		/* Members first; then the least loaded link. */
		score = (member ? 0 : 1U << 31) + b->link_edges[nd->port0 + p];
		if (score < best_score) {
			best_score = score;
			best = m;
			*up = pu;
			*down = pd;
		}
	}
	return best;
}

static int build_tree(struct builder *b, uint32_t tree, uint32_t root,
		      uint16_t rail)
{
	struct ibfm_sharp *s = b->s;
	struct ibfm_sharp_tree *tr = &s->trees[tree];
	uint32_t n, ncur = 0, i, level, nbelow;

	tr->id = tree;
	tr->root = root;
	tr->rail = rail;
	tr->depth = b->rank[root];
	tr->first = s->nans;
	nbelow = mark_below(b, root, tree);
	/* The queue holds the switches below the root, in walk order (a
	 * function of the fabric alone: the trees stay deterministic). */
	for (i = 0; i < nbelow; i++) {
		uint32_t h;

		n = b->queue[i];
		if (b->rank[n] != 1)
			continue;
		h = hosts_on(b, n, rail);
		if (!h)
			continue;
		tr->hosts += h;
		if (add_an(b, tree, n, 1, (uint16_t)h) == IBFM_NONE)
			return -ENOMEM;
		b->cur[ncur++] = n;
	}
	for (level = 1; level < tr->depth; level++) {
		uint32_t nnext = 0;

		for (i = 0; i < ncur; i++) {
			uint32_t c = b->cur[i], me = b->an_of[c], pa;
			uint8_t up, down;
			uint32_t parent = choose_parent(b, tree, c, &up, &down);

			if (parent == IBFM_NONE) {
				s->uncovered++;
				continue;
			}
			if (b->an_tree[parent] != tree + 1) {
				if (add_an(b, tree, parent,
					   (uint8_t)(level + 1),
					   0) == IBFM_NONE)
					return -ENOMEM;
				b->next[nnext++] = parent;
			}
			pa = b->an_of[parent];
			s->ans[me].parent = pa;
			s->ans[me].up_port = up;
			s->ans[me].down_port = down;
			s->ans[pa].children++;
			b->link_edges[b->f->nodes[c].port0 + up]++;
		}
		memcpy(b->cur, b->next, nnext * sizeof(*b->cur));
		ncur = nnext;
	}
	tr->nans = s->nans - tr->first;
	if (b->o->max_depth && tr->depth > b->o->max_depth)
		s->depth_violations++;
	return 0;
}

static int builder_init(struct builder *b, const struct ibfm_fabric *f)
{
	b->rank = malloc(f->nnodes + 1);
	b->desc = calloc(f->nnodes + 1, sizeof(*b->desc));
	b->an_of = calloc(f->nnodes + 1, sizeof(*b->an_of));
	b->an_tree = calloc(f->nnodes + 1, sizeof(*b->an_tree));
	b->link_edges = calloc(f->nports + 1, sizeof(*b->link_edges));
	b->queue = malloc((f->nnodes + 1) * sizeof(*b->queue));
	b->nrails = b->o->rails && b->o->rails->nrails >= 2
			    ? b->o->rails->nrails
			    : 0;
	b->hosts = calloc((size_t)(f->nnodes + 1) * (b->nrails + 1),
			  sizeof(*b->hosts));
	b->cur = malloc((f->nnodes + 1) * sizeof(*b->cur));
	b->next = malloc((f->nnodes + 1) * sizeof(*b->next));
	if (!b->rank || !b->desc || !b->an_of || !b->an_tree ||
	    !b->link_edges || !b->queue || !b->cur || !b->next || !b->hosts ||
	    ibfm_rank_detect(f, b->rank, &b->levels) || build_adjacency(b))
		return -ENOMEM;
	count_hosts(b);
	return 0;
}

static void builder_free(struct builder *b)
{
	free(b->rank);
	free(b->desc);
	free(b->an_of);
	free(b->an_tree);
	free(b->link_edges);
	free(b->queue);
	free(b->cur);
	free(b->next);
	free(b->adj0);
	free(b->adj);
	free(b->nup);
	free(b->hosts);
}

static int build_all(struct builder *b)
{
	const struct ibfm_fabric *f = b->f;
	struct ibfm_sharp *s = b->s;
	unsigned nrails = b->o->rails && b->o->rails->nrails >= 2
				  ? b->o->rails->nrails
				  : 0;
	uint32_t n, nroots = 0, i,
		    *roots = malloc((f->nnodes + 1) * sizeof(*roots));
	int rc = 0;

	if (!roots)
		return -ENOMEM;
	for (n = 0; n < f->nnodes; n++)
		if (ibfm_node_is_switch(&f->nodes[n]) &&
		    b->rank[n] == b->levels)
			roots[nroots++] = n;
	s->ntrees = b->o->trees && b->o->trees < nroots ? b->o->trees : nroots;
	s->trees = calloc(s->ntrees + 1, sizeof(*s->trees));
	if (!s->trees)
		rc = -ENOMEM;
	/* Roots spread evenly over the top switches. */
	for (i = 0; !rc && i < s->ntrees; i++)
		rc = build_tree(b, i, roots[(uint64_t)i * nroots / s->ntrees],
				nrails ? (uint16_t)(i % nrails)
				       : IBFM_RAIL_NONE);
	free(roots);
	return rc;
}

int ibfm_sharp_build(const struct ibfm_fabric *f, const struct ibfm_lfts *t,
		     const struct ibfm_sharp_opts *o, struct ibfm_sharp **out,
		     struct ibfm_err *err)
{
	struct builder b = { .f = f, .t = t, .o = o };
	uint32_t i, p;
	int rc;

	b.s = calloc(1, sizeof(*b.s));
	if (!b.s)
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	b.s->f = f;
	rc = builder_init(&b, f);
	if (!rc && !b.levels)
		rc = ibfm_err_set(err, -EINVAL,
				  "S01 no leaf switch: nothing to aggregate");
	else if (!rc)
		rc = build_all(&b);
	if (rc == -ENOMEM)
		ibfm_err_set(err, rc, "out of memory");
	if (!rc) {
		b.s->path_violations = ibfm_sharp_check_lfts(b.s, t);
		for (i = 0; i < b.s->nans; i++)
			if (o->radix && b.s->ans[i].children > o->radix)
				b.s->radix_violations++;
		for (p = 0; p < f->nports; p++)
			if (b.link_edges[p] > b.s->max_link_edges)
				b.s->max_link_edges = b.link_edges[p];
	}
	builder_free(&b);
	if (rc) {
		ibfm_sharp_destroy(b.s);
		return rc;
	}
	*out = b.s;
	return 0;
}

void ibfm_sharp_destroy(struct ibfm_sharp *s)
{
	if (!s)
		return;
	free(s->trees);
	free(s->ans);
	free(s);
}

uint32_t ibfm_sharp_violations(const struct ibfm_sharp *s)
{
	return s->radix_violations + s->depth_violations + s->path_violations +
	       s->uncovered;
}

uint32_t ibfm_sharp_check_lfts(const struct ibfm_sharp *s,
			       const struct ibfm_lfts *t)
{
	struct builder b = { .f = s->f, .t = t };
	uint32_t i, bad = 0;

	for (i = 0; i < s->nans; i++) {
		const struct ibfm_sharp_an *an = &s->ans[i];
		uint32_t parent;
		uint8_t up, down;

		if (an->parent == IBFM_NONE)
			continue;
		parent = s->ans[an->parent].node;
		if (!lft_direct(&b, an->node, parent, &up) ||
		    !lft_direct(&b, parent, an->node, &down) ||
		    up != an->up_port || down != an->down_port)
			bad++;
	}
	return bad;
}

/* Marks in 'count' (per AN index) how many job leaves lie below each AN. */
static int job_leaves(const struct ibfm_sharp *s,
		      const struct ibfm_sharp_tree *tr, const uint32_t *hosts,
		      uint32_t n, uint32_t *count, uint32_t *leaves,
		      uint32_t *nleaves, struct ibfm_err *err)
{
	const struct ibfm_fabric *f = s->f;
	uint32_t i, a;

	*nleaves = 0;
	for (i = 0; i < n; i++) {
		uint32_t q = f->ports[hosts[i]].peer, leaf;

		if (q == IBFM_NONE)
			return ibfm_err_set(
				err, -EINVAL, "S02 host \"%s\" is not cabled",
				ibfm_fabric_str(
					f,
					f->nodes[f->ports[hosts[i]].node].desc));
		leaf = f->ports[q].node;
		for (a = tr->first; a < tr->first + tr->nans; a++)
			if (s->ans[a].node == leaf && s->ans[a].level == 1)
				break;
		if (a == tr->first + tr->nans)
			return -ENOENT; /* not in this tree */
		if (count[a]++)
			continue; /* leaf seen */
		leaves[(*nleaves)++] = a;
	}
	return 0;
}

/* The subtree joining 'leaves' in 'tr': fills 'job' ANs; its room left. */
static uint32_t subtree(const struct ibfm_sharp *s,
			const struct ibfm_sharp_tree *tr,
			const uint32_t *leaves, uint32_t nleaves,
			uint32_t *below, unsigned quota, const uint32_t *usage,
			struct ibfm_sharp_job *job)
{
	uint32_t i, a, room = UINT32_MAX;

	memset(below, 0, (tr->nans + 1) * sizeof(*below));
	for (i = 0; i < nleaves; i++)
		for (a = leaves[i]; a != IBFM_NONE; a = s->ans[a].parent)
			below[a - tr->first]++;
	/* The lowest AN above every job leaf roots the subtree. */
	for (a = leaves[0]; a != IBFM_NONE && below[a - tr->first] < nleaves;
	     a = s->ans[a].parent)
		;
	if (a == IBFM_NONE)
		return 0; /* the leaves do not meet: a broken tree */
	job->root = a;
	job->nans = 0;
	for (i = tr->first; i < tr->first + tr->nans; i++) {
		if (!below[i - tr->first] ||
		    s->ans[i].level > s->ans[a].level ||
		    (s->ans[i].level == s->ans[a].level && i != a))
			continue;
		job->ans[job->nans++] = i;
		if (usage[s->ans[i].node] >= quota)
			room = 0;
		else if (quota - usage[s->ans[i].node] < room)
			room = quota - usage[s->ans[i].node];
	}
	return room;
}

int ibfm_sharp_carve(const struct ibfm_sharp *s, const uint32_t *hosts,
		     uint32_t n, unsigned jobs_per_an, uint32_t *usage,
		     struct ibfm_sharp_job *job, struct ibfm_err *err)
{
	uint32_t *count = calloc(s->nans + 1, sizeof(*count));
	uint32_t *leaves = malloc((s->nans + 1) * sizeof(*leaves));
	uint32_t *below = malloc((s->nans + 1) * sizeof(*below));
	uint32_t *ans = malloc((s->nans + 1) * sizeof(*ans));
	uint32_t best_room = 0, tree, i, nleaves;
	struct ibfm_sharp_job cand = { 0 }, best = { 0 };
	int rc = 0;

	best.ans = malloc((s->nans + 1) * sizeof(*best.ans));
	cand.ans = ans;
	if (!count || !leaves || !below || !ans || !best.ans || !n) {
		rc = n ? ibfm_err_set(err, -ENOMEM, "out of memory")
		       : ibfm_err_set(err, -EINVAL, "S03 a job needs hosts");
		goto out;
	}
	for (tree = 0; tree < s->ntrees; tree++) {
		const struct ibfm_sharp_tree *tr = &s->trees[tree];
		uint32_t room;

		memset(count + tr->first, 0, tr->nans * sizeof(*count));
		rc = job_leaves(s, tr, hosts, n, count, leaves, &nleaves, err);
		if (rc == -ENOENT) {
			rc = 0;
			continue;
		}
		if (rc)
			goto out;
		room = subtree(s, tr, leaves, nleaves, below, jobs_per_an,
			       usage, &cand);
		if (room > best_room) {
			best_room = room;
			best.tree = tree;
			best.root = cand.root;
			best.nans = cand.nans;
			memcpy(best.ans, cand.ans,
			       cand.nans * sizeof(*best.ans));
		}
	}
	if (!best_room) {
		rc = ibfm_err_set(
			err, -ENOSPC,
			"S04 no SHARP tree joins these %u hosts with room on every AN (quota %u jobs per AN)",
			n, jobs_per_an);
		goto out;
	}
	for (i = 0; i < best.nans; i++)
		usage[s->ans[best.ans[i]].node]++;
	best.hosts = n;
	*job = best;
	best.ans = NULL;
out:
	free(best.ans);
	free(count);
	free(leaves);
	free(below);
	free(ans);
	return rc;
}

void ibfm_sharp_release(struct ibfm_sharp_job *job, const struct ibfm_sharp *s,
			uint32_t *usage)
{
	uint32_t i;

	for (i = 0; job->ans && i < job->nans; i++)
		if (usage[s->ans[job->ans[i]].node])
			usage[s->ans[job->ans[i]].node]--;
	free(job->ans);
	job->ans = NULL;
	job->nans = 0;
}

static void json_node(struct ibfm_json *j, const struct ibfm_fabric *f,
		      const char *key, uint32_t node)
{
	char guid[24];

	snprintf(guid, sizeof(guid), "0x%016" PRIx64, f->nodes[node].guid);
	ibfm_json_obj_begin(j, key);
	ibfm_json_str(j, "guid", guid);
	ibfm_json_uint(j, "lid", f->ports[f->nodes[node].port0].lid);
	ibfm_json_str(j, "desc", ibfm_fabric_str(f, f->nodes[node].desc));
	ibfm_json_obj_end(j);
}

int ibfm_sharp_write_json(const struct ibfm_sharp *s,
			  const struct ibfm_sharp_job *jobs, uint32_t njobs,
			  bool edges, bool pretty, FILE *out)
{
	const struct ibfm_fabric *f = s->f;
	struct ibfm_json j;
	uint32_t i, a;

	ibfm_json_init(&j, out, pretty);
	ibfm_json_obj_begin(&j, NULL);
	ibfm_json_uint(&j, "violations", ibfm_sharp_violations(s));
	ibfm_json_uint(&j, "radix_violations", s->radix_violations);
	ibfm_json_uint(&j, "depth_violations", s->depth_violations);
	ibfm_json_uint(&j, "path_violations", s->path_violations);
	ibfm_json_uint(&j, "uncovered", s->uncovered);
	ibfm_json_uint(&j, "max_link_edges", s->max_link_edges);
	ibfm_json_arr_begin(&j, "trees");
	for (i = 0; i < s->ntrees; i++) {
		const struct ibfm_sharp_tree *tr = &s->trees[i];

		ibfm_json_obj_begin(&j, NULL);
		ibfm_json_uint(&j, "id", tr->id);
		json_node(&j, f, "root", tr->root);
		if (tr->rail != IBFM_RAIL_NONE)
			ibfm_json_uint(&j, "rail", tr->rail);
		ibfm_json_uint(&j, "depth", tr->depth);
		ibfm_json_uint(&j, "hosts", tr->hosts);
		ibfm_json_uint(&j, "ans", tr->nans);
		if (!edges) {
			ibfm_json_obj_end(&j);
			continue;
		}
		ibfm_json_arr_begin(&j, "edges");
		for (a = tr->first; a < tr->first + tr->nans; a++) {
			const struct ibfm_sharp_an *an = &s->ans[a];

			if (an->parent == IBFM_NONE)
				continue;
			ibfm_json_obj_begin(&j, NULL);
			json_node(&j, f, "child", an->node);
			ibfm_json_uint(&j, "child_port", an->up_port);
			json_node(&j, f, "parent", s->ans[an->parent].node);
			ibfm_json_uint(&j, "parent_port", an->down_port);
			ibfm_json_obj_end(&j);
		}
		ibfm_json_arr_end(&j);
		ibfm_json_obj_end(&j);
	}
	ibfm_json_arr_end(&j);
	ibfm_json_arr_begin(&j, "jobs");
	for (i = 0; i < njobs; i++) {
		ibfm_json_obj_begin(&j, NULL);
		ibfm_json_uint(&j, "id", jobs[i].id);
		if (jobs[i].name)
			ibfm_json_str(&j, "name", jobs[i].name);
		ibfm_json_uint(&j, "tree", jobs[i].tree);
		json_node(&j, f, "root", s->ans[jobs[i].root].node);
		ibfm_json_uint(&j, "hosts", jobs[i].hosts);
		ibfm_json_bool(&j, "recarved", jobs[i].recarved);
		ibfm_json_arr_begin(&j, "ans");
		for (a = 0; a < jobs[i].nans; a++)
			json_node(&j, f, NULL, s->ans[jobs[i].ans[a]].node);
		ibfm_json_arr_end(&j);
		ibfm_json_obj_end(&j);
	}
	ibfm_json_arr_end(&j);
	ibfm_json_obj_end(&j);
	return ibfm_json_finish(&j);
}
