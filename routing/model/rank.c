// SPDX-License-Identifier: MIT
#include "routing/model/rank.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool has_ca(const struct ibfm_fabric *f, const struct ibfm_node *n)
{
	unsigned i;

	for (i = 1; i <= n->nports; i++) {
		uint32_t q = f->ports[n->port0 + i].peer;

		if (q != IBFM_NONE &&
		    !ibfm_node_is_switch(&f->nodes[f->ports[q].node]))
			return true;
	}
	return false;
}

int ibfm_rank_detect(const struct ibfm_fabric *f, uint8_t *rank,
		     unsigned *levels)
{
	uint32_t *queue, head = 0, tail = 0, n;
	unsigned top = 0, i;

	queue = malloc((f->nnodes + 1) * sizeof(*queue));
	if (!queue)
		return -ENOMEM;
	memset(rank, IBFM_RANK_NONE, f->nnodes);
	for (n = 0; n < f->nnodes; n++) {
		const struct ibfm_node *node = &f->nodes[n];

		if (!ibfm_node_is_switch(node))
			rank[n] = 0;
		else if (has_ca(f, node)) {
			rank[n] = 1;
			queue[tail++] = n;
		}
	}
	while (head < tail) {
		const struct ibfm_node *node = &f->nodes[queue[head]];
		unsigned r = rank[queue[head++]];

		if (r > top)
			top = r;
		for (i = 1; i <= node->nports; i++) {
			uint32_t q = f->ports[node->port0 + i].peer, m;

			if (q == IBFM_NONE)
				continue;
			m = f->ports[q].node;
			if (rank[m] != IBFM_RANK_NONE ||
			    r + 1 >= IBFM_RANK_NONE)
				continue;
			rank[m] = (uint8_t)(r + 1);
			queue[tail++] = m;
		}
	}
	free(queue);
	*levels = top;
	return 0;
}

struct leaf_key {
	uint64_t guid;
	uint32_t node;
};

static int cmp_leaf_key(const void *a, const void *b)
{
	uint64_t x = ((const struct leaf_key *)a)->guid;
	uint64_t y = ((const struct leaf_key *)b)->guid;

	return (x > y) - (x < y);
}

uint32_t ibfm_rank_hosts(const struct ibfm_fabric *f, const uint8_t *rank,
			 uint32_t *ports)
{
	uint32_t n, count = 0, nleaves = 0, l;
	struct leaf_key *leaves = malloc((f->nnodes + 1) * sizeof(*leaves));
	unsigned i;

	if (!leaves)
		return 0;
	for (n = 0; n < f->nnodes; n++)
		if (ibfm_node_is_switch(&f->nodes[n]) && rank[n] == 1)
			leaves[nleaves++] =
				(struct leaf_key){ f->nodes[n].guid, n };
	/* By GUID: the same order however the fabric was read or found. */
	qsort(leaves, nleaves, sizeof(*leaves), cmp_leaf_key);
	for (l = 0; l < nleaves; l++) {
		const struct ibfm_node *sw = &f->nodes[leaves[l].node];

		for (i = 1; i <= sw->nports; i++) {
			uint32_t q = f->ports[sw->port0 + i].peer;

			if (q != IBFM_NONE &&
			    !ibfm_node_is_switch(&f->nodes[f->ports[q].node]))
				ports[count++] = q;
		}
	}
	free(leaves);
	return count;
}
