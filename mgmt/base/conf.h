/* SPDX-License-Identifier: MIT */
#ifndef IBFM_CONF_H
#define IBFM_CONF_H

/*
 * DOC: ibfmd's configuration file: "key value" per line ('=' allowed),
 * '#' comments. Every key, its default and its range are in conf.c's
 * table; an unknown key or a bad value is an error naming FILE:LINE,
 * and nothing of a bad file is used.
 */

#include <stdbool.h>

#include "routing/base/err.h"
#include "routing/state/statedir.h"

#define IBFMD_CONF_MAX_PEERS 8

struct ibfmd_conf {
	char socket[108];
	char expected[4096];
	char node_name_map[4096];   /* "": the system's if it exists; "none" */
	char state_dir[4096];	    /* the plugin's: lfts.dump, snapshot.json */
	struct ibfm_statedir state; /* state_dir's files, built with it */
	char fabric_file[4096];	    /* the last sweep, ibnetdiscover format */
	char ca[64];
	unsigned ca_port;
	unsigned mad_window; /* MADs in flight in sweeps and counters */
	unsigned sweep_s;
	unsigned light_s;  /* 0: no light checks */
	char metrics[128]; /* HOST:PORT for Prometheus, "" for none */
	bool metrics_set;  /* by the file: failing to listen is fatal */
	bool counters;	   /* read PMA counters on every full sweep */
	int log_level;	   /* enum ibfmd_log_level of every module */
	/* who may use the control socket (docs/security.md): a group name
	 * or number each, "" for none */
	char read_group[64];
	char admin_group[64];
	/* drains listed and no routing pass since: an error after this */
	unsigned drain_grace_s;
	/* congestion control (docs/cc.md) */
	char cc_profile[4096]; /* a built-in name or a profile file */
	char cc_policy[4096];  /* rules choosing profiles per node, or "" */
	bool cc_auto;	       /* apply to new nodes after each sweep */
	unsigned long long cc_key;
	unsigned cc_tries, cc_backoff_ms, cc_timeout_ms;
	/* peers sharing the drain list and jobs (docs/ha.md) */
	char peers[IBFMD_CONF_MAX_PEERS][256]; /* HOST:PORT each */
	unsigned npeers;
	char peer_listen[256]; /* ADDR:PORT, "" for none */
	char peer_key[4096];   /* the shared secret's file */
};

/* Reads 'path' into 'c' (defaults first). 0, or -EINVAL/-errno and 'err'. */
int ibfmd_conf_read(const char *path, struct ibfmd_conf *c,
		    struct ibfm_err *err);

/* Parses the text of a configuration ('name' for messages); as above. */
int ibfmd_conf_parse(const char *text, const char *name, struct ibfmd_conf *c,
		     struct ibfm_err *err);

#endif /* IBFM_CONF_H */
