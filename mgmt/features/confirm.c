// SPDX-License-Identifier: MIT
/*
 * Confirming a reroute on the switches (mgmt/features/confirm.h): the kept
 * tables, the wait for the plugin's next generation, the changed blocks
 * and their read-back, shared by drains and jobs.
 */
#include "mgmt/features/confirm.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mgmt/base/log.h"
#include "routing/base/clock.h"
#include "routing/base/grow.h"

/* Often enough that a change the plugin wrote in a second is seen at
 * once: a tick reads snapshot.json's generation, a few hundred bytes. */
#define TICK_MS 100
#define REREAD_MS 500 /* between read-backs of blocks that differed */

IBFMD_LOG_MODULE_EXTERN(routing);

static uint64_t generation(const struct ibfmd_confirm *c)
{
	return ibfmd_routing_generation(c->core->conf->state_dir);
}

/* Lets the kept tables and the read-back go. */
static void release(struct ibfmd_confirm *c)
{
	ibfmd_routes_free(&c->before);
	free(c->v);
	c->v = NULL;
	c->n = c->cap = 0;
}

void ibfmd_confirm_end(struct ibfmd_confirm *c, const char *state,
		       const char *why)
{
	c->state = state;
	snprintf(c->error, sizeof(c->error), "%s", why ? why : "");
	c->active = false;
	c->elapsed_s = difftime(time(NULL), c->started);
	event_del(c->tick);
	release(c);
	c->finished(c->ctx);
}

/* Adds the blocks of switch 'sw' of 'now' that differ from 'was'. */
static int switch_blocks(struct ibfmd_confirm *c,
			 const struct ibfmd_routes *now, uint32_t sw,
			 const struct ibfmd_routes *was)
{
	const struct ibfm_fabric *f = now->f;
	uint32_t node = now->t.sw_node[sw], old_node, old_sw, b, i;
	const uint8_t *row = ibfm_lfts_row(&now->t, sw), *old = NULL;
	uint32_t top = now->t.top_lid;

	old_node = ibfm_fabric_node_by_guid(was->f, f->nodes[node].guid);
	old_sw = old_node == IBFM_NONE ? IBFM_NONE : was->t.node_sw[old_node];
	if (old_sw != IBFM_NONE)
		old = ibfm_lfts_row(&was->t, old_sw);
	for (b = 0; b * IBFM_LFT_BLOCK <= top; b++) {
		uint32_t first = b * IBFM_LFT_BLOCK;
		uint8_t n = (uint8_t)(top + 1 - first < IBFM_LFT_BLOCK
					      ? top + 1 - first
					      : IBFM_LFT_BLOCK);
		bool same = old != NULL;

		for (i = 0; same && i < n; i++)
			same = first + i <= was->t.top_lid &&
			       old[first + i] == row[first + i];
		if (same)
			continue;
		if (ibfm_grow((void **)&c->v, &c->cap, c->n + 1, sizeof(*c->v)))
			return -ENOMEM;
		/* Whole: two lists compare with memcmp (routed_again). */
		memset(&c->v[c->n], 0, sizeof(*c->v));
		c->v[c->n].guid = f->nodes[node].guid;
		c->v[c->n].block = (uint16_t)b;
		c->v[c->n].n = n;
		memcpy(c->v[c->n].want, row + first, n);
		c->n++;
	}
	return 0;
}

/* The plugin's last tables on the last sweep; NULL: not there yet. */
static const struct ibfmd_routes *routes_now(struct ibfmd_confirm *c)
{
	char why[IBFM_ERR_MSG_MAX];

	return ibfmd_routes_get(c->core->routes, c->core->view,
				c->core->conf->state_dir, why, sizeof(why));
}

bool ibfmd_confirm_routes_same(struct ibfmd_confirm *c, uint64_t *generation)
{
	const struct ibfmd_routes *now;
	uint32_t sw;
	bool same = true;

	if (c->n || c->verifying)
		return false; /* a read-back list is in c->v */
	now = routes_now(c);
	if (!now || !now->generation)
		return false; /* not known to be the same */
	/* The kept tables against the new, as a read-back list would be:
	 * empty when the same. */
	for (sw = 0; same && sw < now->t.nsw; sw++)
		same = !switch_blocks(c, now, sw, &c->before) && !c->n;
	c->n = 0;
	if (same)
		*generation = now->generation;
	return same;
}

/*
 * The blocks the plugin's tables 'now' change from those kept, into
 * c->v. 0, or -ENOMEM (the confirmation then failed).
 */
static int list_blocks(struct ibfmd_confirm *c, const struct ibfmd_routes *now)
{
	uint32_t sw;

	c->n = 0;
	for (sw = 0; sw < now->t.nsw; sw++)
		if (switch_blocks(c, now, sw, &c->before)) {
			ibfmd_confirm_end(c, "failed", "out of memory");
			return -ENOMEM;
		}
	c->blocks = (uint32_t)c->n;
	return 0;
}

/*
 * The generation of the tables read, not of snapshot.json, which the
 * plugin replaces after them: the two may differ for a moment.
 */
static uint64_t generation_of(struct ibfmd_confirm *c,
			      const struct ibfmd_routes *now)
{
	return now->generation ? now->generation : generation(c);
}

/* The list in c->v, of tables 'now': done already, or read back. */
static void verify_list(struct ibfmd_confirm *c, const struct ibfmd_routes *now)
{
	c->new_generation = generation_of(c, now);
	if (!c->n) {
		ibfmd_confirm_end(c, "done", NULL);
		return;
	}
	c->state = "verifying";
	c->vf = c->before.f; /* the loop's copy: the worker may read */
	c->verifying = true;
	ibfmd_work_submit(&c->work);
}

/* The plugin published: which blocks to read back, or done already. */
static void routed(struct ibfmd_confirm *c)
{
	const struct ibfmd_routes *now = routes_now(c);

	/* The dump not there yet: next tick. */
	if (now && !list_blocks(c, now))
		verify_list(c, now);
}

/*
 * Another pass since the one being read back (OpenSM's after the fast
 * path's, or a second one): read back again only when its tables
 * differ. Whether the read-back starts over (or the confirmation ended).
 */
static bool routed_again(struct ibfmd_confirm *c)
{
	const struct ibfmd_routes *now = routes_now(c);
	struct ibfm_madport_lft_block *was;
	size_t n = c->n;
	bool same;

	if (!now)
		return true; /* the dump is not there yet: next tick */
	was = malloc((n + 1) * sizeof(*was));
	if (was)
		memcpy(was, c->v, n * sizeof(*was));
	if (list_blocks(c, now)) {
		free(was);
		return true;
	}
	same = was && c->n == n && !memcmp(was, c->v, n * sizeof(*was));
	free(was);
	if (same) {
		c->new_generation = generation_of(c, now);
		return false; /* the same tables: the read-back stands */
	}
	verify_list(c, now);
	return true;
}

static void tick(evutil_socket_t fd, short what, void *arg)
{
	struct ibfmd_confirm *c = arg;
	bool rerouting;

	(void)fd;
	(void)what;
	if (!c->active || c->verifying)
		return;
	rerouting = !strcmp(c->state, "rerouting");
	if (!rerouting && strcmp(c->state, "verifying"))
		return; /* the owner's phase */
	if (difftime(time(NULL), c->listed) > IBFMD_CONFIRM_TIMEOUT_S) {
		ibfmd_confirm_end(
			c, "timeout",
			rerouting
				? "the plugin published no new routing generation"
				: "the switches do not hold the new tables");
		return;
	}
	if (rerouting) {
		if (generation(c) > c->generation)
			routed(c);
		return;
	}
	/* Another pass since (OpenSM may route twice): compare with it. */
	if (generation(c) > c->new_generation && routed_again(c))
		return;
	/* Verifying: the last read-back came back. */
	if (!c->mismatched && !c->unread) {
		ibfmd_confirm_end(c, "done", NULL);
		return;
	}
	/* Blocks still differ (OpenSM may still be sending): read them
	 * again, but not back to back. */
	if (ibfm_clock_ms() - c->read_ms < REREAD_MS)
		return;
	c->verifying = true;
	ibfmd_work_submit(&c->work);
}

/* The read-back came back from the worker. */
static void verify_done(void *arg)
{
	struct ibfmd_confirm *c = arg;

	c->verifying = false;
	c->read_ms = ibfm_clock_ms();
	c->rounds++;
	c->mismatched = c->got_mismatched;
	c->unread = c->got_unread;
	IBFMD_DBG("read back %" PRIu32 " blocks: %" PRIu32
		  " mismatched, %" PRIu32 " unread",
		  c->blocks, c->mismatched, c->unread);
	/* Clean: done now. Not yet: the next tick reads again (OpenSM may
	 * still be sending blocks). */
	if (!c->mismatched && !c->unread)
		tick(-1, 0, c);
}

/*
 * The worker's read-back: every block of the list, counts filled in.
 * Without a MAD port nothing could be read.
 */
static void verify_run(struct ibfm_madport *port, void *arg)
{
	struct ibfmd_confirm *c = arg;
	struct ibfm_err err;

	if (!port ||
	    ibfm_madport_check_lfts(port, c->vf, c->v, c->n, &c->got_mismatched,
				    &c->got_unread, &err))
		c->got_unread = (uint32_t)c->n;
}

int ibfmd_confirm_init(struct ibfmd_confirm *c, const struct ibfmd_core *core,
		       void (*finished)(void *ctx), void *ctx)
{
	memset(c, 0, sizeof(*c));
	c->core = core;
	c->finished = finished;
	c->ctx = ctx;
	c->tick = event_new(core->base, -1, EV_PERSIST, tick, c);
	if (!c->tick ||
	    ibfmd_work_init(&c->work, core->worker, verify_run, verify_done, c))
		return -ENOMEM;
	return 0;
}

void ibfmd_confirm_begin(struct ibfmd_confirm *c, const char *state)
{
	struct ibfmd_routes *shared = c->core->routes;

	release(c);
	c->before = *shared; /* the loop's next lookup reloads */
	memset(shared, 0, sizeof(*shared));
	c->active = true;
	c->state = state;
	c->error[0] = '\0';
	c->new_generation = 0;
	c->started = c->listed = time(NULL);
	c->rounds = c->mismatched = c->unread = c->blocks = 0;
	c->generation = generation(c);
	event_add(c->tick, &(struct timeval){ 0, TICK_MS * 1000 });
}

void ibfmd_confirm_listed(struct ibfmd_confirm *c)
{
	c->state = "rerouting";
	c->generation = generation(c);
	c->listed = time(NULL);
}

double ibfmd_confirm_elapsed(const struct ibfmd_confirm *c)
{
	return c->active ? difftime(time(NULL), c->started) : c->elapsed_s;
}

void ibfmd_confirm_fini(struct ibfmd_confirm *c)
{
	release(c);
	if (c->tick)
		event_free(c->tick);
	c->tick = NULL;
	if (c->core)
		ibfmd_work_fini(&c->work);
}
