/* SPDX-License-Identifier: MIT */
#ifndef IBFM_FASTPATH_H
#define IBFM_FASTPATH_H

/*
 * DOC: the fast path: repaired tables on the switches before OpenSM has
 * swept (docs/fast-reroute.md).
 *
 * OpenSM reports each trap 128 (a switch saw a port change state) to
 * the plugin (report(), on OpenSM's thread, under its lock): that only
 * queues the switch's LID here. The fast path's own thread then, never
 * holding OpenSM's lock nor touching OpenSM's structures:
 *
 *  1. asks the reporting switches for the PortInfo of every port the
 *     last pass routed over (directed routes from the SM's port; a
 *     switch not answering is asked again by a route that avoids the
 *     route's last link, then given up);
 *  2. takes the ports found Down as lost (a port that came up, or any
 *     other change, waits for OpenSM's pass);
 *  3. under the plugin's route lock, runs the routing pass on the last
 *     pass's fabric less those links (routing/pass/fastplan.h: the same call
 *     the plugin's next pass makes, so that pass changes nothing);
 *  4. sends the changed LFT blocks (SubnSet LinearForwardingTable, by
 *     directed routes over the fabric as it now is, several in flight)
 *     through ibfm-smp-helper, then reads every one back;
 *  5. logs, and appends a "fast-reroute" line to state_dir's
 *     fast-reroute.log (ibfmd makes it an event and metrics).
 *
 * OpenSM's pass, when it comes, calls ibfm_fastpath_quiesce() first:
 * a fast path still sending stops sending and the pass waits (bounded)
 * for its SMPs in flight, so no block of the fast path lands after the
 * pass's. ibfm_fastpath_settle() then hands the pass the blocks the
 * fast path wrote, to compare with its own and to tell OpenSM what the
 * switches now hold. Nothing happens on a standby SM, before the first
 * pass, or with fast_reroute=off (the plugin then starts none).
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "routing/base/log.h"
#include "routing/pass/fastplan.h"
#include "routing/pass/route.h"

struct ibfm_fastpath;

struct ibfm_fastpath_conf {
	const char *helper;	   /* ibfm-smp-helper's path */
	const char *note_file;	   /* fast-reroute.log; NULL: none */
	unsigned window;	   /* SMPs in flight */
	unsigned timeout_ms;	   /* per SMP try */
	unsigned retries;	   /* tries after the first */
	struct ibfm_log log;	   /* called from the fast path's thread */
	pthread_mutex_t *lock;	   /* the plugin's lock over the next two */
	struct ibfm_route **route; /* the last pass */
	/* called under 'lock' before a repair changes *route (the plugin's
	 * publisher may still have to copy it); NULL: nothing to call */
	void (*changing)(void *ctx);
	/* planned changes (NULL 'found': none, OpenSM's sweep routes them):
	 * the last pass's fabric as OpenSM found it and its unhealthy
	 * links (by its ports), under 'lock'; the links a repair takes
	 * out are taken out of it too */
	struct ibfm_fabric **found;
	bool **found_sick;
	/* under 'lock': the lists read again for a planned change */
	void (*reload)(void *ctx);
	/* under 'lock': a planned change is on the switches: published */
	void (*changed)(void *ctx, const struct ibfm_fastplan *plan);
	/* not under 'lock': OpenSM's heavy sweep wanted (a planned change
	 * not made here, or made and multicast to follow) */
	void (*resweep)(void *ctx, const char *why);
	void *ctx; /* of the callbacks */
	/* the pass's options (read under 'lock'; SHARP trees are left to
	 * OpenSM's pass) */
	const struct ibfm_route_opts *opts;
};

/*
 * Starts the fast path's thread. 'c' and what it points to must
 * outlive it. 0 or -errno.
 */
int ibfm_fastpath_start(const struct ibfm_fastpath_conf *c,
			struct ibfm_fastpath **out);

/* Stops the thread and the helper. NULL is fine. */
void ibfm_fastpath_stop(struct ibfm_fastpath *fp);

/*
 * Trap 128 from the switch with LID 'lid' (report(): queues it and
 * returns at once). 'master': whether this SM is master now.
 */
void ibfm_fastpath_trap(struct ibfm_fastpath *fp, uint16_t lid, bool master);

/* Whether this SM is master (report() on every event). */
void ibfm_fastpath_master(struct ibfm_fastpath *fp, bool master);

/*
 * The SM's port and M_Key, from OpenSM's pass (under the route lock):
 * the helper, started at the first trap, opens that port, and directed
 * routes start there.
 */
void ibfm_fastpath_set_sm(struct ibfm_fastpath *fp, uint64_t port_guid,
			  uint64_t mkey);

/* What changed, for ibfm_fastpath_change. */
#define IBFM_FASTPATH_DRAINS 1u /* the drain list */
#define IBFM_FASTPATH_JOBS 2u	/* the running jobs */

/*
 * The drain list or the running jobs changed ('what', of the above;
 * returns at once): the fast path's thread routes the last pass's
 * fabric with them (routing/pass/fastplan.h ibfm_fastplan_change),
 * writes and reads back the changed blocks, and publishes the pass; a
 * drain then also asks for OpenSM's heavy sweep, for multicast. When
 * it cannot (a trap since the last pass not repaired here, no pass
 * yet, not master, the helper down, a block not read back), it asks
 * for OpenSM's heavy sweep at once and says why.
 */
void ibfm_fastpath_change(struct ibfm_fastpath *fp, unsigned what);

/*
 * OpenSM's pass failed (holding the route lock): OpenSM's next engine
 * routes, so the last pass is not what the switches will hold. The fast
 * path repairs and changes nothing until the next pass of the plugin's
 * (ibfm_fastpath_set_sm). NULL is fine.
 */
void ibfm_fastpath_invalidate(struct ibfm_fastpath *fp);

/*
 * OpenSM's pass, holding the route lock: stops a fast path that is
 * sending and waits for its SMPs in flight, at most the time the
 * helper takes to give them up. NULL is fine.
 */
void ibfm_fastpath_quiesce(struct ibfm_fastpath *fp);

/*
 * A block the fast path wrote: switch GUID, block, its entries, and
 * whether the switch acknowledged it (else what it holds is unknown).
 */
typedef void (*ibfm_fastpath_block_fn)(void *ctx, uint64_t guid, uint32_t block,
				       const uint8_t *ports, bool acked);

/*
 * Hands every block written since the last pass to 'fn' (a block
 * written twice, by two rounds: its last write) and forgets them (the
 * pass, under the route lock, after ibfm_fastpath_quiesce). Returns
 * how many. NULL is fine.
 */
size_t ibfm_fastpath_settle(struct ibfm_fastpath *fp, ibfm_fastpath_block_fn fn,
			    void *ctx);

/*
 * Appends a line to fast-reroute.log (routing/state/fastlog.h, an event
 * for ibfmd): 'kind' and a JSON object's members 'json'
 * ("\"blocks\":3"); P21 logged when it cannot. NULL 'fp' is fine.
 */
void ibfm_fastpath_note(struct ibfm_fastpath *fp, const char *kind,
			const char *json);

#endif /* IBFM_FASTPATH_H */
