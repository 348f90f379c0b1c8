/* SPDX-License-Identifier: MIT */
#ifndef IBFM_DAEMON_H
#define IBFM_DAEMON_H

/*
 * DOC: ibfmd's state, shared by its two files: ibfmd.c (configuration,
 * the libevent loop, the sweep worker, the control socket) and
 * queries.c (what the socket and /metrics answer). Everything here is
 * the loop thread's, except what the worker hands over under 'lock'.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "ctl/ctl.h"
#include "mgmt/cc.h"
#include "mgmt/ccmodel.h"
#include "mgmt/ccpolicy.h"
#include "mgmt/conf.h"
#include "mgmt/counters.h"
#include "mgmt/sweep.h"
#include "routing/drain.h"
#include "routing/err.h"
#include "routing/fabric.h"
#include "routing/lft.h"

#define IBFMD_MAX_EVENTS 4096

struct ibfmd_event {
	uint64_t seq;
	time_t time;
	const char *severity;
	const char *kind;
	char ports[2][160]; /* the link's two ends, or one node */
	char detail[120];   /* what changed, when there is more to say */
};

/* A link whose ends disagree (a duplicated GUID), as it persists. */
struct ibfmd_clash {
	uint64_t guid, peer_guid;
	uint8_t num, peer_num;
};

/* Routes for "path": a copy of the last sweep with the LFT dump on it. */
struct ibfmd_routes {
	struct ibfm_fabric *f;
	struct ibfm_lfts t;
	uint64_t sweep;	       /* the sweep it was copied from */
	struct timespec mtime; /* of the dump read */
};

/* A read-back job for the worker; it fills the counts. */
struct ibfmd_verify {
	const struct ibfm_fabric *f; /* routes to the switches (op.before) */
	struct ibfm_sweep_lft_block *v;
	size_t n, cap;
	uint32_t mismatched, unread;
};

/* A drain or undrain in progress (one at a time), or the last one. */
struct ibfmd_op {
	bool active, undrain;
	const char *state; /* rerouting, verifying, done, timeout, failed */
	char what[300];
	char error[256];
	struct ibfm_drain_entry e;
	uint64_t generation, new_generation; /* the plugin's, before/after */
	time_t started;
	double elapsed_s;
	struct ibfmd_routes before; /* the tables the drain started from */
	struct ibfmd_verify verify;
	bool verifying;			     /* 'verify' is the worker's */
	uint32_t blocks;		     /* changed by the reroute */
	uint32_t rounds, mismatched, unread; /* of the last read-back */
	struct event *tick;
};

/* What ibfmd last learnt of one CC target (by GUID and port). */
struct ibfmd_cc_known {
	uint64_t guid;
	uint8_t port;
	uint8_t state;	   /* enum ibfm_cc_state */
	bool key_rejected; /* with this cc_key */
};

/* Congestion control: the policy, the last or running job, what is known. */
struct ibfmd_cc {
	struct ibfm_ccpol policy;
	struct ibfm_ccpol next;	   /* reloaded while a job ran: taken after */
	struct ibfm_ccpol retired; /* replaced, named by the last results */
	bool has_next;
	struct ibfm_ccm model; /* cc_model: the nodes answering CC MADs */
	/* A job: set up by the loop, the worker's while 'running'. */
	bool want, running, apply, automatic, use_model;
	uint64_t job;
	struct ibfm_cc_target *t;
	struct ibfm_cc_result *r;
	size_t n, done; /* 'done' under d->lock */
	struct ibfm_cc_opts opts;
	unsigned timeout_ms; /* per CC MAD on the fabric */
	time_t started;
	double elapsed_s;
	struct event *done_ev;
	/* What the loop knows, sorted by GUID and port. */
	struct ibfmd_cc_known *known;
	size_t nknown;
	uint64_t sets; /* Set MADs sent, all jobs */
	int sharp_sl;  /* SHARP's SL as the last job read it, -1: none */
};

struct ibfmd {
	struct ibfmd_conf conf;
	const char *conf_path;
	struct event_base *base;
	struct evconnlistener *listener;
	struct evhttp *http;
	struct event *sweep_timer, *light_timer, *sweep_done;
	struct event *sig_term, *sig_int, *sig_hup;
	struct ibfm_ctl ctl;
	unsigned clients;
	/* the worker */
	pthread_t worker;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool busy, want, light, stop; /* light: a light check will do */
	bool again; /* a sweep was asked for while the worker was busy */
	struct ibfm_fabric *found; /* handed from the worker */
	struct ibfm_pc *found_pc;  /* its counters, when read */
	struct ibfm_sweep_clashes found_clashes;
	char found_err[IBFM_ERR_MSG_MAX];
	double found_ms, found_pc_ms;
	bool found_light;   /* a light check found nothing: no new fabric */
	bool found_written; /* the worker wrote it to conf.fabric_file */
	bool verify_want;   /* op.verify is handed to the worker */
	struct event *verify_done;
	/* what the loop knows */
	struct ibfm_fabric *fabric, *expected;
	uint64_t sweeps, light_checks, expected_diffs;
	double last_ms, last_light_ms, last_counters_ms;
	char last_error[IBFM_ERR_MSG_MAX];
	bool fabric_written; /* conf.fabric_file holds the last sweep */
	struct ibfmd_event events[IBFMD_MAX_EVENTS];
	uint64_t nevents, nerrors, nwarnings; /* in all; by severity */
	struct ibfmd_clash *clashes; /* links whose ends disagree, by GUID */
	size_t nclashes;
	struct ibfm_pc *pc, *pc_delta; /* per port of 'fabric' */
	time_t pc_time;		       /* when 'pc' was read */
	double pc_interval;	       /* seconds 'pc_delta' covers */
	uint32_t pc_ports;	       /* ports that answered */
	struct ibfmd_routes routes;
	struct ibfmd_op op;
	struct ibfmd_cc cc;
};

/* Registers log-list and log-level (logctl.c). */
void ibfmd_register_log(struct ibfm_ctl *c);

/* Adds a copy of 'e' to the ring, numbered and timed now. */
void ibfmd_event_add(struct ibfmd *d, const struct ibfmd_event *e);

struct ibfm_diff_item;

/* Fills 'e' (all but seq and time) from a difference between a and b. */
void ibfmd_diff_event(struct ibfmd_event *e, const struct ibfm_fabric *a,
		      const struct ibfm_fabric *b,
		      const struct ibfm_diff_item *it);

/* "desc"[num] (0xguid) of port 'p' of 'f' into 'buf'; "" for IBFM_NONE. */
void ibfmd_port_text(const struct ibfm_fabric *f, uint32_t p, char *buf,
		     size_t len);

/* Starts a full sweep now, or as soon as the worker is free. */
void ibfmd_request_sweep(struct ibfmd *d);

/* Registers the control commands of queries.c. */
void ibfmd_register_queries(struct ibfmd *d);

/* Registers drain, undrain and drain-status (drains.c). */
void ibfmd_register_drains(struct ibfmd *d);

/* Frees what a drain operation holds (shutdown). */
void ibfmd_drains_free(struct ibfmd *d);

/* Hands op.verify to the worker. */
void ibfmd_request_verify(struct ibfmd *d);

/* The worker's read-back: every block of 'v', counts filled in. */
void ibfmd_verify_run(struct ibfm_sweep *port, struct ibfmd_verify *v);

/* The Prometheus text exposition of the daemon's numbers. */
void ibfmd_metrics(const struct ibfmd *d, struct evbuffer *b);

/* Drops the routes copy (a new sweep or shutdown). */
void ibfmd_routes_free(struct ibfmd_routes *r);

/*
 * Makes 'd->routes' the last sweep with the plugin's LFT dump read on
 * it, unless it is already; the copy is the loop's own, so the worker
 * may keep reading d->fabric. NULL and 'why' set when there is none.
 */
const struct ibfmd_routes *ibfmd_routes(struct ibfmd *d, char *why, size_t len);

/* The plugin's routing generation from its snapshot.json, 0 if none. */
uint64_t ibfmd_routing_generation(const struct ibfmd *d);

/*
 * Congestion control (congestion.c): loads cc_profile and cc_policy
 * (0, or -EINVAL logged with FILE:LINE), registers cc-diff, cc-apply,
 * cc-status and cc-show.
 */
int ibfmd_cc_init(struct ibfmd *d);

/*
 * SIGHUP: the new cc_profile and cc_policy (kept out when bad), taken
 * now or when the running job ends; what was known is forgotten, so
 * the next pass compares every node with the new profiles.
 */
void ibfmd_cc_reload(struct ibfmd *d);
void ibfmd_cc_free(struct ibfmd *d);

/* The CC families of /metrics. */
void ibfmd_cc_metrics(const struct ibfmd *d, struct evbuffer *b);

/* After a sweep: with cc_auto, applies to nodes not configured yet. */
void ibfmd_cc_after_sweep(struct ibfmd *d);

/* The worker's part of a job: every target, on 'port' or the model. */
void ibfmd_cc_run(struct ibfmd *d, struct ibfm_sweep *port);

#endif /* IBFM_DAEMON_H */
