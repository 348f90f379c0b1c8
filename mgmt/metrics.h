/* SPDX-License-Identifier: MIT */
#ifndef IBFMD_METRICS_H
#define IBFMD_METRICS_H

/*
 * DOC: GET /metrics over HTTP (libevent's evhttp): Prometheus' text
 * exposition, version 0.0.4. What it serves is collected at each
 * request by one callback, which asks every feature for its families;
 * other paths get 404, other methods 405.
 */

#include <event2/buffer.h>
#include <event2/event.h>

#include "mgmt/conf.h"

struct ibfmd_metrics;

/* Appends the families to 'b'. */
typedef void (*ibfmd_metrics_fn)(void *arg, struct evbuffer *b);

/*
 * Listens on conf->metrics (HOST:PORT; port 0 takes a free one, logged;
 * "" serves nothing and leaves *out NULL) on 'base'. When the address
 * cannot be bound: a negative errno when conf->metrics_set (the file
 * asked for it), else 0 and *out NULL (the default address is taken).
 */
int ibfmd_metrics_open(struct event_base *base, const struct ibfmd_conf *conf,
		       ibfmd_metrics_fn collect, void *arg,
		       struct ibfmd_metrics **out);

/* Stops serving. NULL is fine. */
void ibfmd_metrics_close(struct ibfmd_metrics *m);

#endif /* IBFMD_METRICS_H */
