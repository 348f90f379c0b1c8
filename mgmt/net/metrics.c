// SPDX-License-Identifier: MIT
/* /metrics over HTTP/1.x (mgmt/net/metrics.h). */
#include "mgmt/net/metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include <event2/bufferevent.h>

#include "mgmt/net/gzip.h"
#include "mgmt/net/httpreq.h"
#include "mgmt/net/listen.h"
#include "mgmt/base/log.h"
#include "routing/base/grow.h"

IBFMD_LOG_MODULE(metrics);

/* A part of a page: text, or a source (then 'text' is NULL). */
struct part {
	struct evbuffer *text;
	struct ibfmd_metrics_source *src;
};

struct ibfmd_metrics_reply {
	struct part *parts;
	size_t n, cap;
	size_t next;		/* the part to send next */
	size_t nsrc;		/* parts that are sources */
	struct evbuffer *work;	/* a part being made, then framed */
	bool failed;		/* out of memory: a 500 */
	bool chunked;		/* HTTP/1.1: chunks, else ended by the close */
	struct ibfmd_gzip *gz;	/* gzip, when the client takes it */
	struct evbuffer *zwork; /* 'work' compressed */
};

struct conn {
	LIST_ENTRY(conn) link;
	struct ibfmd_metrics *m;
	struct bufferevent *bev;
	struct event *deadline; /* IBFMD_HTTP_DEADLINE_S after it came */
	size_t seen;		/* of the head: searched already */
	bool heard;		/* some byte of its request came */
	bool answered;		/* closed once the reply went out */
	struct ibfmd_metrics_reply *stream; /* a reply still being made */
};

LIST_HEAD(conn_list, conn);

struct ibfmd_metrics {
	struct event_base *base;
	struct ibfmd_listen *listen;
	ibfmd_metrics_fn collect;
	void *arg;
	ibfmd_metrics_page_fn pages; /* NULL: /metrics only */
	void *pages_arg;
	unsigned nconns, max_conns;
	struct conn_list conns;
};

static void reply_free(struct ibfmd_metrics_reply *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->n; i++)
		if (r->parts[i].text)
			evbuffer_free(r->parts[i].text);
		else
			r->parts[i].src->free(r->parts[i].src);
	free(r->parts);
	if (r->work)
		evbuffer_free(r->work);
	if (r->zwork)
		evbuffer_free(r->zwork);
	ibfmd_gzip_free(r->gz);
	free(r);
}

static struct ibfmd_metrics_reply *reply_new(void)
{
	struct ibfmd_metrics_reply *r = calloc(1, sizeof(*r));

	if (r)
		r->work = evbuffer_new();
	if (!r || !r->work) {
		reply_free(r);
		return NULL;
	}
	return r;
}

/* Room for one more part; false (the reply failed) without. */
static bool add_part(struct ibfmd_metrics_reply *r)
{
	if (!r->failed &&
	    ibfm_grow((void **)&r->parts, &r->cap, r->n + 1, sizeof(*r->parts)))
		r->failed = true;
	return !r->failed;
}

struct evbuffer *ibfmd_metrics_text(struct ibfmd_metrics_reply *r)
{
	struct evbuffer *b;

	if (r->n && r->parts[r->n - 1].text)
		return r->parts[r->n - 1].text;
	b = add_part(r) ? evbuffer_new() : NULL;
	if (!b) {
		/* Dropped with the reply, a 500. */
		r->failed = true;
		return r->work;
	}
	r->parts[r->n++] = (struct part){ .text = b };
	return b;
}

void ibfmd_metrics_stream(struct ibfmd_metrics_reply *r,
			  struct ibfmd_metrics_source *s)
{
	if (!s || !add_part(r)) {
		r->failed = true;
		if (s)
			s->free(s);
		return;
	}
	r->parts[r->n++] = (struct part){ .src = s };
	r->nsrc++;
}

static void conn_close(struct conn *c)
{
	LIST_REMOVE(c, link);
	reply_free(c->stream);
	event_free(c->deadline);
	bufferevent_free(c->bev);
	c->m->nconns--;
	free(c);
}

/* The reply's head, its body framed by 'framing' (a header line),
 * encoded as 'coding' says (header lines, "" for none). */
static void reply_head(struct conn *c, int code, const char *reason,
		       const char *type, const char *framing,
		       const char *coding)
{
	evbuffer_add_printf(bufferevent_get_output(c->bev),
			    "HTTP/1.1 %d %s\r\n"
			    "Content-Type: %s\r\n"
			    "%s"
			    "%s"
			    "%s"
			    "Connection: close\r\n\r\n",
			    code, reason, type, framing, coding,
			    code == 405 ? "Allow: GET, HEAD\r\n" : "");
	c->answered = true;
	bufferevent_disable(c->bev, EV_READ);
}

/* A reply with 'body' (NULL: none) encoded as 'coding' says; the
 * connection closes once it went. */
static void reply_with(struct conn *c, int code, const char *reason,
		       const char *type, struct evbuffer *body, bool head_only,
		       const char *coding)
{
	char length[48];

	snprintf(length, sizeof(length), "Content-Length: %zu\r\n",
		 body ? evbuffer_get_length(body) : 0);
	reply_head(c, code, reason, type, length, coding);
	if (body && !head_only)
		evbuffer_add_buffer(bufferevent_get_output(c->bev), body);
}

static void reply(struct conn *c, int code, const char *reason,
		  const char *type, struct evbuffer *body, bool head_only)
{
	reply_with(c, code, reason, type, body, head_only, "");
}

/* A short text reply: the error and why. */
static void reply_text(struct conn *c, int code, const char *reason,
		       const char *why)
{
	struct evbuffer *b = evbuffer_new();

	if (b)
		evbuffer_add_printf(b, "%s\n", why);
	reply(c, code, reason, "text/plain", b, false);
	evbuffer_free(b);
}

/* Frames what 'b' holds as one chunk (or as is, without chunks). */
static void frame(struct ibfmd_metrics_reply *r, struct evbuffer *out,
		  struct evbuffer *b)
{
	size_t len = evbuffer_get_length(b);

	if (!len)
		return;
	if (r->chunked)
		evbuffer_add_printf(out, "%zx\r\n", len);
	evbuffer_add_buffer(out, b);
	if (r->chunked)
		evbuffer_add(out, "\r\n", 2);
}

/* r->work (compressed first when gzip; 'last': the end of the body)
 * framed into 'out'. false when compressing ran out of memory. */
static bool frame_work(struct ibfmd_metrics_reply *r, struct evbuffer *out,
		       bool last)
{
	if (!r->gz) {
		frame(r, out, r->work);
		return true;
	}
	if (ibfmd_gzip_add(r->gz, r->work, r->zwork, last))
		return false;
	frame(r, out, r->zwork);
	return true;
}

/*
 * Queues the next parts of c's streamed reply while fewer than
 * IBFMD_HTTP_STREAM_HIGH bytes are queued (and, compressing, at most
 * STREAM_TEXT_MAX bytes of text made per call once some are queued: the
 * loop is not held for a whole compressed scrape); after its last, the
 * end.
 */
#define STREAM_TEXT_MAX (4 * IBFMD_HTTP_STREAM_HIGH)

static void stream_more(struct conn *c)
{
	struct ibfmd_metrics_reply *r = c->stream;
	struct evbuffer *out = bufferevent_get_output(c->bev);
	size_t made = 0;

	while (r->next < r->n &&
	       evbuffer_get_length(out) < IBFMD_HTTP_STREAM_HIGH &&
	       (made < STREAM_TEXT_MAX || !evbuffer_get_length(out))) {
		struct part *p = &r->parts[r->next];

		if (p->text)
			evbuffer_add_buffer(r->work, p->text);
		if (p->text || !p->src->next(p->src, r->work,
					     IBFMD_HTTP_STREAM_HIGH -
						     evbuffer_get_length(out)))
			r->next++;
		made += evbuffer_get_length(r->work);
		if (!frame_work(r, out, false)) {
			conn_close(c); /* out of memory: cut short */
			return;
		}
	}
	/* The client took what was queued: it has as long again. */
	event_add(c->deadline, &(struct timeval){ IBFMD_HTTP_DEADLINE_S, 0 });
	if (r->next < r->n)
		return;
	if (!frame_work(r, out, true)) {
		conn_close(c);
		return;
	}
	if (r->chunked)
		evbuffer_add(out, "0\r\n\r\n", 5);
	reply_free(r);
	c->stream = NULL;
	/* Closed once the end went out. */
	bufferevent_setwatermark(c->bev, EV_WRITE, 0, 0);
	if (!evbuffer_get_length(out))
		conn_close(c);
}

/* Compresses the text-only reply r (its parts joined into the first)
 * for gzip; false when out of memory. */
static bool gzip_whole(struct ibfmd_metrics_reply *r)
{
	struct ibfmd_gzip *z = ibfmd_gzip_new();
	struct evbuffer *b = evbuffer_new();
	bool ok = z && b && !ibfmd_gzip_add(z, r->parts[0].text, b, true);

	ibfmd_gzip_free(z);
	if (ok) {
		evbuffer_free(r->parts[0].text);
		r->parts[0].text = b;
	} else if (b) {
		evbuffer_free(b);
	}
	return ok;
}

#define GZIP_HEADERS "Content-Encoding: gzip\r\nVary: Accept-Encoding\r\n"

/* Page r as c's reply: whole when it is text only, else streamed;
 * gzip when the client takes it. */
static void reply_page(struct conn *c, struct ibfmd_metrics_reply *r,
		       const char *type, const struct ibfmd_httpreq *req)
{
	bool gz = req->gzip && r->n;

	if (!r->nsrc) {
		for (size_t i = 1; i < r->n; i++)
			evbuffer_add_buffer(r->parts[0].text, r->parts[i].text);
		if (gz && !gzip_whole(r)) {
			reply_free(r);
			reply_text(c, 500, "Internal Server Error",
				   "out of memory");
			return;
		}
		reply_with(c, 200, "OK", type, r->n ? r->parts[0].text : NULL,
			   req->method == IBFMD_HTTP_HEAD,
			   gz ? GZIP_HEADERS : "");
		reply_free(r);
		return;
	}
	if (gz) {
		r->gz = ibfmd_gzip_new();
		r->zwork = evbuffer_new();
		if (!r->gz || !r->zwork) {
			reply_free(r);
			reply_text(c, 500, "Internal Server Error",
				   "out of memory");
			return;
		}
	}
	/* HTTP/1.0 knows no chunks: the close ends the body. */
	r->chunked = req->minor >= 1;
	reply_head(c, 200, "OK", type,
		   r->chunked ? "Transfer-Encoding: chunked\r\n" : "",
		   gz ? GZIP_HEADERS : "");
	if (req->method == IBFMD_HTTP_HEAD) {
		reply_free(r);
		return;
	}
	c->stream = r;
	bufferevent_setwatermark(c->bev, EV_WRITE, IBFMD_HTTP_STREAM_LOW, 0);
	stream_more(c);
}

/* The head is whole: GET /metrics (or a page), or why not. */
static void serve(struct conn *c, const struct ibfmd_httpreq *req)
{
	struct ibfmd_metrics_reply *r;
	bool metrics = !strcmp(req->path, "/metrics");
	enum ibfmd_metrics_page page = IBFMD_PAGE_NOT_FOUND;

	if (req->method == IBFMD_HTTP_OTHER) {
		reply_text(c, 405, "Method Not Allowed", "only GET and HEAD");
		return;
	}
	r = reply_new();
	if (r && metrics)
		c->m->collect(c->m->arg, r);
	else if (r && c->m->pages)
		page = c->m->pages(c->m->pages_arg, req->path, r);
	if (r && !metrics && page == IBFMD_PAGE_NOT_FOUND && !r->failed) {
		reply_free(r);
		reply_text(c, 404, "Not Found",
			   c->m->pages ? "/, /fabric.svg, /group/NAME and "
					 "/metrics"
				       : "only /metrics is served");
		return;
	}
	if (!r || r->failed) {
		reply_free(r);
		reply_text(c, 500, "Internal Server Error", "out of memory");
		return;
	}
	reply_page(c, r,
		   metrics		       ? "text/plain; version=0.0.4"
		   : page == IBFMD_PAGE_IS_SVG ? "image/svg+xml"
					       : "text/html; charset=utf-8",
		   req);
}

static void conn_read(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	size_t len = evbuffer_get_length(in);
	struct ibfmd_httpreq r;
	long rc;

	if (c->answered || !len)
		return;
	c->heard = true;
	rc = ibfmd_httpreq_parse((const char *)evbuffer_pullup(in, -1), len,
				 IBFMD_HTTP_MAX_HEAD, &c->seen, &r);
	if (rc == -E2BIG) {
		IBFMD_INFO_RL("a request head over %d bytes: refused",
			      IBFMD_HTTP_MAX_HEAD);
		reply_text(c, 431, "Request Header Fields Too Large",
			   "request head over 8192 bytes");
	} else if (rc < 0) {
		reply_text(c, 400, "Bad Request", "not an HTTP/1.x request");
	} else if (rc > 0) {
		serve(c, &r);
	}
}

/*
 * Its reply went out: closed (a body it may have sent is never read);
 * a streamed one: what was queued fell below IBFMD_HTTP_STREAM_LOW.
 */
static void conn_written(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;

	(void)bev;
	if (c->stream)
		stream_more(c);
	else if (c->answered)
		conn_close(c);
}

static void conn_event(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	(void)what;
	conn_close(arg);
}

/*
 * IBFMD_HTTP_DEADLINE_S since it came, or since a streamed reply's last
 * part was made: closed, however far it got.
 */
static void conn_deadline(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;

	(void)fd;
	(void)what;
	IBFMD_INFO_RL("a client took over %d s for %s: closed",
		      IBFMD_HTTP_DEADLINE_S,
		      c->stream ? "a part of its reply" : "its request");
	if (!c->answered)
		ibfmd_listen_tell(
			bufferevent_getfd(c->bev),
			"HTTP/1.1 408 Request Timeout\r\n"
			"Content-Length: 0\r\nConnection: close\r\n\r\n");
	conn_close(c);
}

/*
 * The connection to close for a new one when all are taken: the oldest
 * that has sent nothing, else the oldest whose request is still coming;
 * never one being answered. NULL when every one is. Connections that
 * only wait cannot then lock a scraper out until their deadline.
 */
static struct conn *evictable(struct ibfmd_metrics *m)
{
	struct conn *c, *silent = NULL, *partial = NULL;

	/* Newest first: the last one seen of each kind is the oldest. */
	LIST_FOREACH(c, &m->conns, link)
	{
		if (c->answered || c->stream)
			continue;
		if (c->heard)
			partial = c;
		else
			silent = c;
	}
	return silent ? silent : partial;
}

static void accept_conn(void *arg, evutil_socket_t fd)
{
	struct ibfmd_metrics *m = arg;
	struct conn *c;

	if (m->nconns >= m->max_conns && (c = evictable(m))) {
		IBFMD_INFO_RL("%u connections: the oldest idle one closed for "
			      "a new one",
			      m->max_conns);
		ibfmd_listen_tell(
			bufferevent_getfd(c->bev),
			"HTTP/1.1 503 Service Unavailable\r\n"
			"Content-Length: 0\r\nConnection: close\r\n\r\n");
		conn_close(c);
	}
	if (m->nconns >= m->max_conns) {
		IBFMD_WARN_RL("%u connections: one more refused", m->max_conns);
		ibfmd_listen_tell(fd, "HTTP/1.1 503 Service Unavailable\r\n"
				      "Content-Length: 0\r\n"
				      "Connection: close\r\n\r\n");
		evutil_closesocket(fd);
		return;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		evutil_closesocket(fd);
	if (!c || ibfmd_listen_conn(m->base, fd, conn_deadline, c, &c->bev,
				    &c->deadline)) {
		free(c);
		return;
	}
	c->m = m;
	LIST_INSERT_HEAD(&m->conns, c, link);
	m->nconns++;
	event_add(c->deadline, &(struct timeval){ IBFMD_HTTP_DEADLINE_S, 0 });
	/* A head one byte over the limit is enough to refuse it. */
	bufferevent_setwatermark(c->bev, EV_READ, 0, IBFMD_HTTP_MAX_HEAD + 1);
	bufferevent_setcb(c->bev, conn_read, conn_written, conn_event, c);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
}

/* Whether 'sa' is a loopback address (127/8, ::1, ::ffff:127/104). */
static bool loopback(const struct sockaddr *sa)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;

	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)
				      ->sin_addr.s_addr) >>
			24) == 127;
	return sa->sa_family == AF_INET6 &&
	       (IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr) ||
		(IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr) &&
		 s6->sin6_addr.s6_addr[12] == 127));
}

/* The port 'fd' listens on. */
static unsigned bound_port(evutil_socket_t fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return 0;
	return ntohs(ss.ss_family == AF_INET6
			     ? ((struct sockaddr_in6 *)&ss)->sin6_port
			     : ((struct sockaddr_in *)&ss)->sin_port);
}

/* Listens on 'host' 'port'; whether it is a loopback address in *local. */
static int bind_metrics(struct ibfmd_metrics *m, const char *host,
			const char *port, bool *local)
{
	struct addrinfo hints = { .ai_flags = AI_PASSIVE | AI_NUMERICSERV,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai;
	int rc;

	if (getaddrinfo(host, port, &hints, &ai))
		return -EADDRNOTAVAIL;
	*local = loopback(ai->ai_addr);
	rc = ibfmd_listen_open(m->base, ai->ai_addr, ai->ai_addrlen,
			       accept_conn, m, ibfmd_log_this,
			       "the metrics port", &m->listen);
	freeaddrinfo(ai);
	return rc;
}

int ibfmd_metrics_open(struct event_base *base, const struct ibfmd_conf *conf,
		       unsigned max_conns, ibfmd_metrics_fn collect, void *arg,
		       struct ibfmd_metrics **out)
{
	char host[sizeof(conf->metrics)], *colon;
	struct ibfmd_metrics *m;
	bool local = true;
	int rc;

	*out = NULL;
	if (!conf->metrics[0])
		return 0;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->base = base;
	m->collect = collect;
	m->arg = arg;
	m->max_conns = max_conns ? max_conns : 1;
	LIST_INIT(&m->conns);
	/* HOST:PORT, checked by conf.c; HOST may hold colons (IPv6). */
	snprintf(host, sizeof(host), "%s", conf->metrics);
	colon = strrchr(host, ':');
	*colon = '\0';
	rc = bind_metrics(m, host, colon + 1, &local);
	if (rc) {
		ibfmd_log(ibfmd_log_this,
			  conf->metrics_set ? IBFMD_LOG_ERR : IBFMD_LOG_WARN,
			  "cannot listen on %s: %s%s", conf->metrics,
			  strerror(-rc),
			  conf->metrics_set
				  ? ""
				  : " (the default; going on without)");
		ibfmd_metrics_close(m);
		return conf->metrics_set ? -EADDRNOTAVAIL : 0;
	}
	if (!local)
		IBFMD_WARN(
			"metrics on %s: not a loopback address, so every host that reaches it reads the fabric's numbers, unauthenticated (see docs/security.md)",
			conf->metrics);
	IBFMD_INFO("serving metrics on http://%s:%u/metrics", host,
		   bound_port(ibfmd_listen_fd(m->listen)));
	*out = m;
	return 0;
}

void ibfmd_metrics_close(struct ibfmd_metrics *m)
{
	if (!m)
		return;
	ibfmd_listen_close(m->listen);
	while (!LIST_EMPTY(&m->conns))
		conn_close(LIST_FIRST(&m->conns));
	free(m);
}

void ibfmd_metrics_set_pages(struct ibfmd_metrics *m,
			     ibfmd_metrics_page_fn pages, void *arg)
{
	if (!m)
		return;
	m->pages = pages;
	m->pages_arg = arg;
}
