// SPDX-License-Identifier: MIT
/*
 * The LFT read-back over the MAD port (mgmt/mad/madport.h): blocks read
 * off the switches by directed route and compared with what they should
 * hold.
 */
#include "mgmt/mad/madport_int.h"

#include <errno.h>
#include <string.h>

#include <infiniband/mad.h>

#include "mgmt/mad/madwin.h"

/* ---- forwarding tables ---- */

/* Reading LFT blocks: b[i] off its switch, by the routes 'r'. */
struct lfts {
	const struct ibfm_fabric *f;
	const struct ibfm_madport_lft_block *b;
	size_t n, i;
	struct routes r;
	uint32_t local;
	uint32_t mismatched, unread;
};

static bool next_lft(void *arg, struct ibfm_madwin_req *q)
{
	struct lfts *l = arg;

	for (; l->i < l->n; l->i++) {
		uint32_t node = ibfm_fabric_node_by_guid(l->f, l->b[l->i].guid);

		if (node == IBFM_NONE || (!l->r.route[node].n &&
					  node != l->f->ports[l->local].node)) {
			l->unread++; /* no such switch, or out of reach */
			continue;
		}
		dr_get(q, &l->r.route[node], IB_ATTR_LINEARFORWTBL,
		       l->b[l->i].block);
		q->tag = l->i++;
		return true;
	}
	return false;
}

static int got_lft(void *arg, struct ibfm_madwin_req *q)
{
	struct lfts *l = arg;
	const struct ibfm_madport_lft_block *b = &l->b[q->tag];

	if (!answered(q))
		l->unread++;
	else if (memcmp(q->data, b->want, b->n))
		l->mismatched++;
	return 0;
}

int ibfm_madport_check_lfts(struct ibfm_madport *s, const struct ibfm_fabric *f,
			    const struct ibfm_madport_lft_block *b, size_t n,
			    uint32_t *mismatched, uint32_t *unread,
			    struct ibfm_err *err)
{
	struct lfts l = { .f = f, .b = b, .n = n };
	int rc = ibfm_madport_local_port(s->mp, f, &l.local, err);

	*mismatched = *unread = 0;
	if (rc)
		return rc;
	if (ibfm_madport_switch_routes(f, l.local, &l.r))
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	ibfm_madwin_run(s->win, next_lft, got_lft, &l);
	ibfm_madport_routes_free(&l.r);
	*mismatched = l.mismatched;
	*unread = l.unread;
	return 0;
}
