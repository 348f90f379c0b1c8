/* SPDX-License-Identifier: MIT */
#ifndef IBFMD_CONFIRM_H
#define IBFMD_CONFIRM_H

/*
 * DOC: confirming a reroute on the switches, for drains and jobs.
 *
 * A feature that changes a list the plugin reads (the drain list, the
 * jobs list) wants to know when the switches route by it. It begins a
 * confirmation, which keeps the plugin's tables as they were (the
 * shared copy of mgmt/core/routes.h, taken over: the loop's next lookup
 * reloads), then says when the list holds the change
 * (ibfmd_confirm_listed()). From then on a tick waits for the plugin to
 * publish a newer routing generation, works out which 64-entry LFT
 * blocks differ from the kept tables, and has the worker read those
 * blocks back off the switches until every one holds the new entries:
 * then the confirmation is "done". It is "timeout" when no generation
 * came, or the switches did not take the tables, within
 * IBFMD_CONFIRM_TIMEOUT_S of the last listing. A change listed again
 * while one is under way (another job started) waits for a pass after
 * it, and is compared with the same kept tables.
 *
 * Like the drains before it, it trusts that a generation published after
 * the listing routed with it: a pass already running when the list
 * changed publishes first, and the plugin's watcher asks for another,
 * which a read-back still mismatching waits for.
 *
 * Everything runs on the loop thread, but the read-back (the worker).
 */

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "mgmt/core/feature.h"
#include "mgmt/mad/madport.h"

#define IBFMD_CONFIRM_TIMEOUT_S 120

/* A confirmation; its owner reads the fields, changes none. */
struct ibfmd_confirm {
	const struct ibfmd_core *core;
	/* Called on the loop when it ends ('state' then says how). */
	void (*finished)(void *ctx);
	void *ctx;
	bool active;
	/*
	 * the owner's own phases before the listing (e.g. "checking"),
	 * then rerouting, verifying; at the end done, timeout, failed
	 * (or the owner's own reason, ibfmd_confirm_end())
	 */
	const char *state;
	char error[IBFM_ERR_MSG_MAX];
	uint64_t generation, new_generation; /* the plugin's, before/after */
	time_t started, listed;		     /* begun; last listed */
	double elapsed_s;		     /* when it ended */
	struct ibfmd_routes before;	     /* the tables it started from */
	uint32_t blocks;		     /* changed by the reroute */
	uint32_t rounds, mismatched, unread; /* of the last read-back */
	/* the read-back's, for the worker */
	struct ibfm_madport_lft_block *v;
	size_t n, cap;
	const struct ibfm_fabric *vf; /* routes to the switches (before.f) */
	uint32_t got_mismatched, got_unread;
	bool verifying; /* the worker holds the read-back */
	double read_ms; /* when the last read-back came back (monotonic) */
	struct ibfmd_work work;
	struct event *tick;
};

/*
 * Sets 'c' up for 'core'; 'finished' (with 'ctx') is called each time
 * a confirmation ends. 0 or -ENOMEM; ibfmd_confirm_fini() either way.
 */
int ibfmd_confirm_init(struct ibfmd_confirm *c, const struct ibfmd_core *core,
		       void (*finished)(void *ctx), void *ctx);

/*
 * Whether the plugin's tables now are the kept ones, switch by switch
 * (a pass that routed the same: OpenSM's after a change the plugin's
 * fast path made); then their generation into '*generation'. On the
 * loop, outside a read-back.
 */
bool ibfmd_confirm_routes_same(struct ibfmd_confirm *c, uint64_t *generation);

/*
 * Begins a confirmation in the owner's phase 'state': keeps the
 * plugin's tables, which the caller made sure are there
 * (ibfmd_routes_get() on core->routes succeeded); counts reset.
 */
void ibfmd_confirm_begin(struct ibfmd_confirm *c, const char *state);

/*
 * The list holds the change (again): waits for a routing pass after
 * now, then reads back. On an active confirmation only.
 */
void ibfmd_confirm_listed(struct ibfmd_confirm *c);

/*
 * Ends an active confirmation in 'state' ('why': NULL or what went
 * wrong) and calls 'finished'; the kept tables are let go.
 */
void ibfmd_confirm_end(struct ibfmd_confirm *c, const char *state,
		       const char *why);

/* Seconds since it began, or what it took when it ended. */
double ibfmd_confirm_elapsed(const struct ibfmd_confirm *c);

/* Frees what 'c' holds (shutdown, the worker stopped). */
void ibfmd_confirm_fini(struct ibfmd_confirm *c);

#endif /* IBFMD_CONFIRM_H */
