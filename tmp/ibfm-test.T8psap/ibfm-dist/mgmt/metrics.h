/* SPDX-License-Identifier: MIT */
#ifndef IBFMD_METRICS_H
#define IBFMD_METRICS_H

/*
 * DOC: GET /metrics over HTTP/1.x: Prometheus' text exposition, version
 * 0.0.4. What it serves is collected at each request by one callback,
 * which asks every feature for its families. With a picture callback,
 * also GET /fabric.svg (the fabric drawn at each request: routing/draw.h)
 * and / (a page that shows it and links /metrics): a read-only view for
 * people, on the same bounded listener. Other paths get 404, other
 * methods 405. One request per connection (Connection: close).
 *
 * Served by a few lines of our own on a bufferevent rather than by
 * libevent's evhttp, whose 2.1 series cannot bound what a client costs:
 * its timeouts restart at every byte (a head sent a byte a second is
 * never cut) and it has no cap on connections. Here, per connection: the
 * head (request line and headers) is read up to IBFMD_HTTP_MAX_HEAD
 * bytes and no further (431 beyond: a 100 MB header line costs 8 KiB),
 * a body is never read (the reply closes the connection), and the whole
 * exchange must be over within IBFMD_HTTP_DEADLINE_S seconds of the
 * connection, however slowly bytes trickle in (then 408, closed). At
 * most 'max_conns' connections (the next get 503 and are closed), and
 * accept errors pause accepting (mgmt/listen.h). The head's parser
 * (mgmt/httpreq.h) is fuzzed. A metrics address that is not a loopback
 * one is served, with a warning: nothing here authenticates.
 */

#include <event2/buffer.h>
#include <event2/event.h>

#include "mgmt/conf.h"

#define IBFMD_HTTP_MAX_HEAD 8192 /* bytes of request line and headers */
#define IBFMD_HTTP_DEADLINE_S 10 /* from connection to reply sent */

struct ibfmd_metrics;

/* Appends the families to 'b'. */
typedef void (*ibfmd_metrics_fn)(void *arg, struct evbuffer *b);

/*
 * Listens on conf->metrics (HOST:PORT; port 0 takes a free one, logged;
 * "" serves nothing and leaves *out NULL) on 'base', holding at most
 * 'max_conns' connections. When the address cannot be bound: a negative
 * errno when conf->metrics_set (the file asked for it), else 0 and *out
 * NULL (the default address is taken).
 */
int ibfmd_metrics_open(struct event_base *base, const struct ibfmd_conf *conf,
		       unsigned max_conns, ibfmd_metrics_fn collect, void *arg,
		       struct ibfmd_metrics **out);

/* Serves /fabric.svg (from 'picture') and / on 'm'. NULL 'm' is fine. */
void ibfmd_metrics_set_picture(struct ibfmd_metrics *m,
			       ibfmd_metrics_fn picture, void *arg);

/* Stops serving and closes every connection. NULL is fine. */
void ibfmd_metrics_close(struct ibfmd_metrics *m);

#endif /* IBFMD_METRICS_H */
