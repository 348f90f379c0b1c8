/* SPDX-License-Identifier: MIT */
#ifndef IBFM_PLUGIN_FASTPATH_INT_H
#define IBFM_PLUGIN_FASTPATH_INT_H

/*
 * DOC: the fast path's internals (plugin/fastpath.c: its thread, the
 * traps and the wire; plugin/fastfind.c: the ports found Down;
 * plugin/fastchange.c: planned changes), shared by those files only.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plugin/fastpath.h"
#include "plugin/smplink.h"
#include "plugin/smpwire.h"
#include "routing/pass/fastplan.h"

#define IBFM_FASTPATH_MAX_TRAPS 1024

/* A block written, as OpenSM's pass will want it. */
struct ibfm_fastpath_written {
	uint64_t guid;
	uint32_t block;
	uint8_t ports[64];
	bool acked;
	size_t seq; /* the order written */
};

struct ibfm_fastpath {
	struct ibfm_fastpath_conf c;
	pthread_t thread;
	/* the queue, under qlock */
	pthread_mutex_t qlock;
	pthread_cond_t qcond;
	uint16_t lids[IBFM_FASTPATH_MAX_TRAPS];
	unsigned nlids;
	double first_trap;   /* ms, monotonic: when the oldest queued came */
	unsigned changes;    /* IBFM_FASTPATH_DRAINS | _JOBS queued */
	double first_change; /* ms, monotonic: when they were seen */
	bool stop;
	int master; /* atomic: this SM is master */
	int cancel; /* atomic: OpenSM's pass wants the wire */
	/* under the route lock */
	uint64_t sm_guid, mkey;
	uint64_t gen;	     /* changes of *route by the fast path or a pass */
	bool inflight;	     /* blocks being sent */
	pthread_cond_t idle; /* signalled when inflight ends */
	/* atomic: the route is the fabric's as it is: 0 from a trap until
	 * a round repaired everything it found, or a pass; and from a
	 * planned change not made whole until the pass it asks for */
	int model_ok;
	/* atomic: the route is what the switches hold: 0 from a failed
	 * pass of the plugin's (OpenSM's next engine routed) to the next */
	int route_ok;
	struct ibfm_fastpath_written *w;
	size_t nw, wcap;
	size_t wseq; /* the order written, across compactions */
	/* the helper; only the thread uses it */
	struct ibfm_smplink helper;
	/* the lock of the log file; only the thread and the pass write */
	pthread_mutex_t note_lock;
};

/* A round's findings, for the log line and fast-reroute.log. */
struct ibfm_fastround {
	double trap;	   /* when the first trap (or the change) came */
	unsigned switches; /* that trapped */
	unsigned silent;   /* of them, not answering */
	size_t asked;	   /* PortInfo SMPs */
	uint32_t *dead;	   /* ports found Down */
	size_t ndead;
	struct ibfm_fastplan plan;
	size_t cut_off; /* blocks of switches no route reaches */
	size_t sent, acked, verified, mismatched;
	double found_ms, planned_ms, acked_ms, verified_ms; /* since trap */
	const char *result;
};

/*
 * fastwritten.c, under the route lock: block 'b' of switch 'guid'
 * written, kept for OpenSM's pass; -ENOMEM.
 */
int ibfm_fastpath_remember(struct ibfm_fastpath *fp, uint64_t guid,
			   const struct ibfm_fastplan_block *b);

/*
 * fastwritten.c, under the route lock, between rounds: when many are
 * kept, only each block's last write (planned changes with no pass
 * between them, as jobs, would pile up copies). Indexes change.
 */
void ibfm_fastpath_compact(struct ibfm_fastpath *fp);

/* fastpath.c: whether the plugin is stopping the fast path. */
bool ibfm_fastpath_stopping(struct ibfm_fastpath *fp);

/* fastpath.c: the helper runs on the SM's port; false when it cannot. */
bool ibfm_fastpath_helper_ready(struct ibfm_fastpath *fp);

/*
 * fastpath.c, under the route lock: the Set requests of rd->plan by
 * directed routes over the links of 'wire' (the routed fabric, or one
 * with the same GUIDs), each block remembered for OpenSM's pass (from
 * index '*first'); inflight set. 0 or -ENOMEM.
 */
int ibfm_fastpath_requests(struct ibfm_fastpath *fp, struct ibfm_fastround *rd,
			   const struct ibfm_fabric *wire,
			   struct ibfm_smpwire_req **reqp, size_t *n,
			   size_t *first);

/* fastpath.c: the blocks sent, acknowledged, read back; rd->result. */
void ibfm_fastpath_send(struct ibfm_fastpath *fp, struct ibfm_smpwire_req *req,
			size_t n, size_t first, struct ibfm_fastround *rd);

/* fastpath.c: the round's figures as JSON members into 'buf'. */
void ibfm_fastpath_round_json(const struct ibfm_fastround *rd, char *buf,
			      size_t len);

/*
 * fastpath.c: sends 'n' requests through the helper, their replies into
 * 'rep' (by index: request ids are indexes), stopping when OpenSM's
 * pass cancels ('*sent' says how many went; '*last_ms', if not NULL,
 * when the last reply came). 0, or -errno when the helper failed.
 */
int ibfm_fastpath_exchange(struct ibfm_fastpath *fp,
			   const struct ibfm_smpwire_req *req, size_t n,
			   struct ibfm_smpwire_reply *rep, size_t *sent,
			   double *last_ms);

/*
 * fastfind.c, steps 1-2: the Down ports of the switches whose LIDs
 * trapped ('lids', reordered) and of a switch lost whole, into rd->dead
 * (allocated; the caller frees it); '*gen' the route's generation they
 * were asked on. 0 or -errno.
 */
int ibfm_fastpath_find_dead(struct ibfm_fastpath *fp, uint16_t *lids,
			    unsigned n, uint64_t *gen,
			    struct ibfm_fastround *rd);

/* fastchange.c: one planned change, on the fast path's thread. */
void ibfm_fastpath_change_round(struct ibfm_fastpath *fp, unsigned changes,
				double seen);

#endif /* IBFM_PLUGIN_FASTPATH_INT_H */
