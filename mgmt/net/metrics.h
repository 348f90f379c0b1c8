/* SPDX-License-Identifier: MIT */
#ifndef IBFMD_METRICS_H
#define IBFMD_METRICS_H

/*
 * DOC: GET /metrics over HTTP/1.x: Prometheus' text exposition, version
 * 0.0.4. What it serves is collected at each request by one callback,
 * which asks every feature for its families. With a pages callback,
 * also the pages for people it makes (the fabric page, mgmt/core/page.h:
 * /, /fabric.svg, /group/NAME), read-only, on the same bounded listener.
 * Other paths get 404, other methods 405. One request per connection (Connection: close).
 *
 * Served by a few lines of our own on a bufferevent rather than by
 * libevent's evhttp, whose 2.1 series cannot bound what a client costs:
 * its timeouts restart at every byte (a head sent a byte a second is
 * never cut) and it has no cap on connections. Here, per connection: the
 * head (request line and headers) is read up to IBFMD_HTTP_MAX_HEAD
 * bytes and no further (431 beyond: a 100 MB header line costs 8 KiB),
 * a body is never read (the reply closes the connection), and the whole
 * exchange must be over within IBFMD_HTTP_DEADLINE_S seconds of the
 * connection, however slowly bytes trickle in (then 408, closed; a
 * streamed reply: below). At
 * most 'max_conns' connections (the next get 503 and are closed), and
 * accept errors pause accepting (mgmt/net/listen.h). The head's parser
 * (mgmt/net/httpreq.h) is fuzzed. A metrics address that is not a loopback
 * one is served, with a warning: nothing here authenticates.
 *
 * A page is made of text and of sources (struct ibfmd_metrics_source):
 * parts made as the client takes them, for what is too large to build
 * whole (the port counters of /metrics: 256 MB of text at 30,528 nodes,
 * 18 families x 165,888 ports). A page of text only is sent whole, with
 * its Content-Length. A page with a source is streamed: to an HTTP/1.1
 * request with "Transfer-Encoding: chunked", to HTTP/1.0 as a body the
 * close ends; the next part is made only when what is queued fell below
 * IBFMD_HTTP_STREAM_LOW bytes, up to IBFMD_HTTP_STREAM_HIGH, so a reply
 * holds a few hundred KB however large the page. HEAD gets the same
 * head and no body. The text is collected whole when the head came, the
 * sources' state then too (/metrics: a hold on the sweep it started on,
 * mgmt/core/view.h), so a reply is one state of the daemon throughout.
 *
 * The deadline of a streamed reply restarts each time the next part is
 * made: the client must take what is queued (IBFMD_HTTP_STREAM_HIGH -
 * IBFMD_HTTP_STREAM_LOW bytes at least) within IBFMD_HTTP_DEADLINE_S
 * seconds, however long the whole reply takes. One that reads slower
 * (about 20 KB/s) is cut, the body left short (the chunked reply
 * without its last chunk), so no client holds a sweep's fabric and
 * counters, or a connection, for long.
 */

#include <stdbool.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "mgmt/base/conf.h"

#define IBFMD_HTTP_MAX_HEAD 8192 /* bytes of request line and headers */
#define IBFMD_HTTP_DEADLINE_S 10 /* from connection to reply sent */
/* A streamed reply: its next part is made when fewer bytes are queued. */
#define IBFMD_HTTP_STREAM_LOW (64 * 1024)
#define IBFMD_HTTP_STREAM_HIGH (256 * 1024) /* queued, at most, and a part */

struct ibfmd_metrics;

/* A page being made (mgmt/net/metrics.c). */
struct ibfmd_metrics_reply;

/* A part of a page made as the client takes it. */
struct ibfmd_metrics_source {
	/*
	 * Appends the next bytes, about 'want' (whole lines), to 'b';
	 * false once it appended its last.
	 */
	bool (*next)(struct ibfmd_metrics_source *s, struct evbuffer *b,
		     size_t want);
	/* Frees it, whether it came to its end or not (a client gone). */
	void (*free)(struct ibfmd_metrics_source *s);
};

/* Where the page's text goes next: after every part added so far. */
struct evbuffer *ibfmd_metrics_text(struct ibfmd_metrics_reply *r);

/*
 * Adds 's' after every part added so far; the reply owns it from here.
 * NULL: it could not be made (out of memory), and the reply is a 500.
 */
void ibfmd_metrics_stream(struct ibfmd_metrics_reply *r,
			  struct ibfmd_metrics_source *s);

/* Makes a page in 'r' (its text, and its sources). */
typedef void (*ibfmd_metrics_fn)(void *arg, struct ibfmd_metrics_reply *r);

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

/* What a page for people is. */
enum ibfmd_metrics_page {
	IBFMD_PAGE_NOT_FOUND,
	IBFMD_PAGE_IS_HTML,
	IBFMD_PAGE_IS_SVG
};

/*
 * Makes the page at 'path' (a path other than /metrics) in 'r' and says
 * what it is; IBFMD_PAGE_NOT_FOUND (nothing made) for a 404.
 */
typedef enum ibfmd_metrics_page (*ibfmd_metrics_page_fn)(
	void *arg, const char *path, struct ibfmd_metrics_reply *r);

/* Serves the pages of 'pages' beside /metrics on 'm'. NULL 'm' is fine. */
void ibfmd_metrics_set_pages(struct ibfmd_metrics *m,
			     ibfmd_metrics_page_fn pages, void *arg);

/* Stops serving and closes every connection. NULL is fine. */
void ibfmd_metrics_close(struct ibfmd_metrics *m);

#endif /* IBFMD_METRICS_H */
