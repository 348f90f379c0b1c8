// SPDX-License-Identifier: MIT
/*
 * ibfmd: the fabric management daemon. One libevent loop serves the
 * control socket and the sweep timer; discovery (blocking MADs) runs on
 * a worker thread and hands its fabric back to the loop.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/listener.h>
#include <event2/thread.h>

#include "config.h"
#include "mgmt/daemon.h"
#include "mgmt/log.h"
#include "mgmt/sweep.h"
#include "routing/diff.h"
#include "routing/topo.h"

#define MAX_CLIENTS 256
#define MAX_OUTPUT (1 << 20) /* a client this far behind is dropped */
#define MAX_PORT_EVENTS 64   /* counter events per sweep; then a summary */

IBFMD_LOG_MODULE(main);
IBFMD_LOG_MODULE_DEFINE(sweep);
IBFMD_LOG_MODULE_DEFINE(ctl);
IBFMD_LOG_MODULE_DEFINE(metrics);

/* Reads the configuration; logs why not. */
static int read_conf(const char *path, struct ibfmd_conf *c)
{
	struct ibfm_err err;

	if (ibfmd_conf_read(path, c, &err)) {
		IBFMD_ERR("%s", err.msg);
		return -1;
	}
	return 0;
}

static int load_expected(struct ibfmd *d)
{
	struct ibfm_fabric *f = NULL;
	struct ibfm_err err;

	if (!d->conf.expected[0])
		return 0;
	if (ibfm_topo_read(d->conf.expected, &f, &err)) {
		IBFMD_ERR("%s", err.msg);
		return -1;
	}
	ibfm_fabric_destroy(d->expected);
	d->expected = f;
	return 0;
}

/* ---- events ---- */

void ibfmd_port_text(const struct ibfm_fabric *f, uint32_t p, char *buf,
		     size_t len)
{
	if (p == IBFM_NONE) {
		buf[0] = '\0';
		return;
	}
	snprintf(buf, len, "\"%s\"[%u] (0x%016" PRIx64 ")",
		 ibfm_fabric_str(f, f->nodes[f->ports[p].node].desc),
		 f->ports[p].num, f->nodes[f->ports[p].node].guid);
}

void ibfmd_event_add(struct ibfmd *d, const struct ibfmd_event *e)
{
	struct ibfmd_event *r = &d->events[d->nevents % IBFMD_MAX_EVENTS];

	*r = *e;
	r->seq = ++d->nevents;
	r->time = time(NULL);
	d->nerrors += !strcmp(e->severity, "error");
	d->nwarnings += !strcmp(e->severity, "warning");
}

struct diff_ctx {
	struct ibfmd *d;
	const struct ibfm_fabric *a, *b;
};

static void add_event(void *ctx, const struct ibfm_diff_item *it)
{
	struct diff_ctx *c = ctx;
	struct ibfmd_event e;

	ibfmd_diff_event(&e, c->a, c->b, it);
	ibfmd_event_add(c->d, &e);
}

/* "symbol_errors +3, link_downed +1": the error counters that rose. */
static void rose_text(const struct ibfm_pc *delta, char *buf, size_t len)
{
	size_t n = 0;
	unsigned k;

	buf[0] = '\0';
	for (k = 0; k < IBFM_PC_NERRORS && n < len; k++)
		if (delta->v[k])
			n += (size_t)snprintf(buf + n, len - n,
					      "%s%s +%" PRIu64, n ? ", " : "",
					      ibfm_pc_name(k), delta->v[k]);
}

/* A "port-errors" event per port whose error counters rose. */
static void counter_events(struct ibfmd *d)
{
	const struct ibfm_fabric *f = d->fabric;
	struct ibfmd_event e = { .severity = "warning", .kind = "port-errors" };
	uint32_t p, n = 0;

	for (p = 0; p < f->nports; p++) {
		if (!d->pc_delta[p].valid || !ibfm_pc_errors(&d->pc_delta[p]) ||
		    ++n > MAX_PORT_EVENTS)
			continue;
		ibfmd_port_text(f, p, e.ports[0], sizeof(e.ports[0]));
		ibfmd_port_text(f, f->ports[p].peer, e.ports[1],
				sizeof(e.ports[1]));
		rose_text(&d->pc_delta[p], e.detail, sizeof(e.detail));
		ibfmd_event_add(d, &e);
	}
	if (n > MAX_PORT_EVENTS) {
		memset(e.ports, 0, sizeof(e.ports));
		snprintf(e.detail, sizeof(e.detail),
			 "and %" PRIu32 " more ports (see counters)",
			 n - MAX_PORT_EVENTS);
		ibfmd_event_add(d, &e);
	}
}

static bool same_clash(const struct ibfmd_clash *x, const struct ibfmd_clash *y)
{
	return x->guid == y->guid && x->num == y->num &&
	       x->peer_guid == y->peer_guid && x->peer_num == y->peer_num;
}

/*
 * Links whose ends disagree: an event for each that the sweep before
 * did not have (a duplicated GUID persists; it is raised once).
 */
static void take_clashes(struct ibfmd *d, const struct ibfm_fabric *f,
			 struct ibfm_sweep_clashes *c)
{
	struct ibfmd_clash *now = calloc(c->n ? c->n : 1, sizeof(*now));
	struct ibfmd_event e = { .severity = "error",
				 .kind = "duplicate-guid" };
	size_t i, k;

	for (i = 0; now && i < c->n; i++) {
		const struct ibfm_port *p = &f->ports[c->v[i].port];
		const struct ibfm_port *q = &f->ports[c->v[i].peer];
		uint64_t guid = f->nodes[q->node].guid;

		now[i] = (struct ibfmd_clash){ f->nodes[p->node].guid, guid,
					       p->num, q->num };
		for (k = 0; k < d->nclashes; k++)
			if (same_clash(&now[i], &d->clashes[k]))
				break;
		if (k < d->nclashes)
			continue;
		ibfmd_port_text(f, c->v[i].port, e.ports[0],
				sizeof(e.ports[0]));
		ibfmd_port_text(f, c->v[i].peer, e.ports[1],
				sizeof(e.ports[1]));
		snprintf(
			e.detail, sizeof(e.detail),
			"the far end names another peer: two nodes or ports answer with GUID 0x%016" PRIx64,
			guid);
		ibfmd_event_add(d, &e);
	}
	free(d->clashes);
	d->clashes = now;
	d->nclashes = now ? c->n : 0;
	free(c->v);
}

/* Takes the counters read with the new fabric 'f': deltas and events. */
static void take_counters(struct ibfmd *d, const struct ibfm_fabric *old,
			  struct ibfm_fabric *f, struct ibfm_pc *pc, double ms)
{
	struct ibfm_pc *delta = pc ? calloc(f->nports, sizeof(*delta)) : NULL;
	time_t now = time(NULL);
	uint32_t p;

	if (!delta) {
		free(pc);
		pc = NULL;
	} else {
		ibfm_pc_delta_fabric(old, d->pc, f, pc, delta);
	}
	free(d->pc);
	free(d->pc_delta);
	d->pc_interval = d->pc_time && pc ? difftime(now, d->pc_time) : 0;
	d->pc = pc;
	d->pc_delta = delta;
	d->pc_time = pc ? now : 0;
	d->last_counters_ms = ms;
	d->pc_ports = 0;
	for (p = 0; pc && p < f->nports; p++)
		d->pc_ports += pc[p].valid;
}

/* A sweep came back: events for what changed, diff against expected. */
static void sweep_done(evutil_socket_t fd, short what, void *arg)
{
	struct ibfmd *d = arg;
	struct ibfm_fabric *f;
	struct ibfm_pc *pc;
	struct diff_ctx c = { .d = d };
	struct ibfm_sweep_clashes clashes;
	double pc_ms;
	bool written;

	(void)fd;
	(void)what;
	pthread_mutex_lock(&d->lock);
	f = d->found;
	pc = d->found_pc;
	pc_ms = d->found_pc_ms;
	written = d->found_written;
	clashes = d->found_clashes;
	memset(&d->found_clashes, 0, sizeof(d->found_clashes));
	d->found = NULL;
	d->found_pc = NULL;
	d->busy = false;
	snprintf(d->last_error, sizeof(d->last_error), "%s", d->found_err);
	if (d->found_light) {
		d->light_checks++;
		d->last_light_ms = d->found_ms;
	} else
		d->last_ms = d->found_ms;
	pthread_mutex_unlock(&d->lock);
	if (d->again) {
		d->again = false;
		ibfmd_request_sweep(d);
	}
	if (d->last_error[0])
		IBFMD_LOG_RL_SITE(&ibfmd_log_mod_sweep, IBFMD_LOG_WARN, "%s",
				  d->last_error);
	if (!f) {
		free(clashes.v);
		return;
	}
	d->sweeps++;
	ibfmd_log(&ibfmd_log_mod_sweep, IBFMD_LOG_DEBUG,
		  "sweep %" PRIu64 ": %" PRIu32 " nodes, %" PRIu32
		  " links in %.0f ms",
		  d->sweeps, f->nnodes, ibfm_fabric_count_links(f), d->last_ms);
	take_clashes(d, f, &clashes);
	d->fabric_written = written;
	if (d->fabric) {
		c.a = d->fabric;
		c.b = f;
		ibfm_diff_fabrics(d->fabric, f, add_event, &c);
	} else if (d->expected) {
		c.a = d->expected;
		c.b = f;
		ibfm_diff_fabrics(d->expected, f, add_event, &c);
	}
	d->expected_diffs =
		d->expected ? ibfm_diff_fabrics(d->expected, f, NULL, NULL) : 0;
	take_counters(d, d->fabric, f, pc, pc_ms);
	ibfm_fabric_destroy(d->fabric);
	d->fabric = f;
	if (d->pc_delta)
		counter_events(d);
	ibfmd_cc_after_sweep(d);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * A light check of the last sweep's links; when one changed a full
 * sweep follows at once, so the event names the exact ports.
 * d->fabric is only replaced by sweep_done, after this hands back.
 */
static bool light_check_clean(struct ibfmd *d, struct ibfm_sweep *port)
{
	struct ibfm_err err;
	int rc;

	if (!d->fabric)
		return false;
	rc = ibfm_sweep_light(port, d->fabric, &err);
	if (rc > 0)
		IBFMD_LOG_RL_SITE(
			&ibfmd_log_mod_sweep, IBFMD_LOG_INFO,
			"light check: %d known ports changed, sweeping", rc);
	return rc == 0; /* a failed check is answered by the sweep */
}

/* The new fabric's port counters; NULL when none answered. */
static struct ibfm_pc *read_counters(struct ibfm_sweep *port,
				     const struct ibfm_fabric *f)
{
	struct ibfm_pc *pc = calloc(f->nports ? f->nports : 1, sizeof(*pc));

	if (pc && ibfm_sweep_counters(port, f, pc) <= 0) {
		free(pc); /* no LIDs yet (no SM): nothing to keep */
		pc = NULL;
	}
	return pc;
}

/* The sweep for offline tools (ibfm drain --dry-run --socket). */
static bool write_fabric(const struct ibfmd_conf *c,
			 const struct ibfm_fabric *f)
{
	struct ibfm_err err;

	if (ibfm_topo_write_file(f, c->fabric_file, &err)) {
		IBFMD_LOG_RL_SITE(&ibfmd_log_mod_sweep, IBFMD_LOG_WARN, "%s",
				  err.msg);
		return false;
	}
	return true;
}

/* What one round of the worker found, handed to the loop. */
struct found {
	struct ibfm_fabric *f;
	struct ibfm_pc *pc;
	struct ibfm_sweep_clashes clashes;
	struct ibfm_err err;
	bool light, written;
	double ms, pc_ms;
};

/* The local port, opened on first use and again after a CA change. */
static struct ibfm_sweep *local_port(struct ibfm_sweep **port, char *ca,
				     unsigned *ca_port,
				     const struct ibfmd_conf *c,
				     struct ibfm_err *err)
{
	if (*port && (strcmp(ca, c->ca) || *ca_port != c->ca_port)) {
		ibfm_sweep_close(*port);
		*port = NULL;
	}
	if (!*port && !ibfm_sweep_open(c->ca[0] ? c->ca : NULL, (int)c->ca_port,
				       port, err)) {
		snprintf(ca, sizeof(c->ca), "%s", c->ca);
		*ca_port = c->ca_port;
	}
	return *port;
}

/* A light check, or a full sweep with counters when it is not clean. */
static void work(struct ibfmd *d, struct ibfm_sweep *port,
		 const struct ibfmd_conf *c, struct found *r)
{
	double t0 = now_ms(), t1;

	if (r->light && light_check_clean(d, port)) {
		r->ms = now_ms() - t0;
		ibfmd_log(&ibfmd_log_mod_sweep, IBFMD_LOG_DEBUG,
			  "light check: nothing changed (%.0f ms)", r->ms);
		return;
	}
	r->light = false;
	ibfm_sweep_discover(port, &r->f, &r->clashes, &r->err);
	t1 = now_ms();
	r->ms = t1 - t0;
	if (r->f && c->counters) {
		r->pc = read_counters(port, r->f);
		r->pc_ms = now_ms() - t1;
	}
	r->written = r->f && write_fabric(c, r->f);
}

static void *worker_main(void *arg)
{
	struct ibfmd *d = arg;
	struct ibfm_sweep *port = NULL;
	char ca[sizeof(d->conf.ca)] = "";
	unsigned ca_port = 0;

	pthread_mutex_lock(&d->lock);
	for (;;) {
		struct found r = { 0 };
		struct ibfmd_conf c;

		while (!d->want && !d->verify_want && !d->cc.want && !d->stop)
			pthread_cond_wait(&d->wake, &d->lock);
		if (d->stop)
			break;
		if (d->cc.want) {
			/* The job is the worker's until its done event. */
			d->cc.want = false;
			c = d->conf;
			pthread_mutex_unlock(&d->lock);
			ibfmd_cc_run(
				d, local_port(&port, ca, &ca_port, &c, &r.err));
			pthread_mutex_lock(&d->lock);
			event_active(d->cc.done_ev, EV_READ, 0);
			continue;
		}
		if (d->verify_want) {
			/* op.verify is the worker's until verify_done. */
			d->verify_want = false;
			c = d->conf;
			pthread_mutex_unlock(&d->lock);
			if (local_port(&port, ca, &ca_port, &c, &r.err))
				ibfmd_verify_run(port, &d->op.verify);
			pthread_mutex_lock(&d->lock);
			event_active(d->verify_done, EV_READ, 0);
			continue;
		}
		d->want = false;
		r.light = d->light;
		c = d->conf;
		pthread_mutex_unlock(&d->lock);
		if (local_port(&port, ca, &ca_port, &c, &r.err))
			work(d, port, &c, &r);
		pthread_mutex_lock(&d->lock);
		d->found = r.f;
		d->found_pc = r.pc;
		free(d->found_clashes.v);
		d->found_clashes = r.clashes;
		d->found_pc_ms = r.pc_ms;
		d->found_light = r.light;
		d->found_written = r.written;
		d->found_ms = r.ms;
		snprintf(d->found_err, sizeof(d->found_err), "%s", r.err.msg);
		event_active(d->sweep_done, EV_READ, 0);
	}
	pthread_mutex_unlock(&d->lock);
	ibfm_sweep_close(port);
	return NULL;
}

/*
 * Starts a full sweep or a light check. A sweep asked for while the
 * worker is busy runs when it is done: what the worker started may
 * predate the change the sweep was asked for.
 */
static void request_work(struct ibfmd *d, bool light)
{
	pthread_mutex_lock(&d->lock);
	if (!d->busy) {
		d->busy = true;
		d->want = true;
		d->light = light;
		pthread_cond_signal(&d->wake);
	} else if (!light) {
		d->again = true;
	}
	pthread_mutex_unlock(&d->lock);
}

void ibfmd_request_sweep(struct ibfmd *d)
{
	request_work(d, false);
}

static void sweep_tick(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	ibfmd_request_sweep(arg);
}

static void light_tick(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	request_work(arg, true);
}

/* (Re)arms the timers with the configured intervals. */
static void arm_timers(struct ibfmd *d)
{
	event_del(d->sweep_timer);
	event_add(d->sweep_timer, &(struct timeval){ d->conf.sweep_s, 0 });
	event_del(d->light_timer);
	if (d->conf.light_s)
		event_add(d->light_timer,
			  &(struct timeval){ d->conf.light_s, 0 });
}

/* ---- metrics ---- */

/* GET /metrics: the status numbers in Prometheus' text format. */
static void on_metrics(struct evhttp_request *req, void *arg)
{
	struct evbuffer *b = evbuffer_new();

	if (!b || evhttp_request_get_command(req) != EVHTTP_REQ_GET) {
		evhttp_send_error(req, b ? HTTP_BADMETHOD : HTTP_INTERNAL,
				  NULL);
		evbuffer_free(b);
		return;
	}
	ibfmd_metrics(arg, b);
	evhttp_add_header(evhttp_request_get_output_headers(req),
			  "Content-Type", "text/plain; version=0.0.4");
	evhttp_send_reply(req, HTTP_OK, "OK", b);
	evbuffer_free(b);
}

static void on_http_other(struct evhttp_request *req, void *arg)
{
	(void)arg;
	evhttp_send_error(req, HTTP_NOTFOUND, "only /metrics is served");
}

/* The metrics listener, when configured; port 0 takes a free one. */
static int open_metrics(struct ibfmd *d)
{
	char host[sizeof(d->conf.metrics)], *colon;
	struct evhttp_bound_socket *bs;
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	unsigned port;

	if (!d->conf.metrics[0])
		return 0;
	snprintf(host, sizeof(host), "%s", d->conf.metrics);
	colon = strrchr(host, ':');
	*colon = '\0';
	port = (unsigned)atoi(colon + 1);
	d->http = evhttp_new(d->base);
	bs = d->http ? evhttp_bind_socket_with_handle(d->http, host,
						      (uint16_t)port)
		     : NULL;
	if (!bs) {
		ibfmd_log(&ibfmd_log_mod_metrics,
			  d->conf.metrics_set ? IBFMD_LOG_ERR : IBFMD_LOG_WARN,
			  "cannot listen on %s%s", d->conf.metrics,
			  d->conf.metrics_set
				  ? ""
				  : " (the default; going on without)");
		return d->conf.metrics_set ? -1 : 0;
	}
	evhttp_set_cb(d->http, "/metrics", on_metrics, d);
	evhttp_set_gencb(d->http, on_http_other, d);
	if (getsockname(evhttp_bound_socket_get_fd(bs), (struct sockaddr *)&ss,
			&len) == 0)
		port = ntohs(ss.ss_family == AF_INET6
				     ? ((struct sockaddr_in6 *)&ss)->sin6_port
				     : ((struct sockaddr_in *)&ss)->sin_port);
	ibfmd_log(&ibfmd_log_mod_metrics, IBFMD_LOG_INFO,
		  "serving metrics on http://%s:%u/metrics", host, port);
	return 0;
}

/* ---- the control socket ---- */

static void client_close(struct ibfmd *d, struct bufferevent *bev)
{
	bufferevent_free(bev);
	d->clients--;
}

static void client_event(struct bufferevent *bev, short what, void *arg)
{
	(void)what;
	client_close(arg, bev);
}

/* Closes a client once what it was told has gone out. */
static void client_drained(struct bufferevent *bev, void *arg)
{
	client_close(arg, bev);
}

static void client_reply_error_and_close(struct ibfmd *d,
					 struct bufferevent *bev,
					 const char *why)
{
	char msg[256];

	snprintf(msg, sizeof(msg), "{\"error\":\"%s\"}\n", why);
	bufferevent_write(bev, msg, strlen(msg));
	bufferevent_disable(bev, EV_READ);
	bufferevent_setcb(bev, NULL, client_drained, client_event, d);
}

static void client_read(struct bufferevent *bev, void *arg)
{
	struct ibfmd *d = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	char *line;
	size_t len;

	while ((line = evbuffer_readln(in, &len, EVBUFFER_EOL_LF))) {
		char *reply = NULL;
		size_t rlen = 0;
		FILE *out = open_memstream(&reply, &rlen);

		if (out) {
			ibfm_ctl_handle(&d->ctl, line, len, out);
			fclose(out);
			bufferevent_write(bev, reply, rlen);
		}
		free(reply);
		free(line);
	}
	if (evbuffer_get_length(in) > IBFM_CTL_MAX_LINE) {
		client_reply_error_and_close(d, bev,
					     "request longer than 65536 bytes");
		return;
	}
	if (evbuffer_get_length(bufferevent_get_output(bev)) > MAX_OUTPUT)
		client_close(d, bev); /* not reading its replies */
}

static void accept_client(struct evconnlistener *l, evutil_socket_t fd,
			  struct sockaddr *sa, int salen, void *arg)
{
	struct ibfmd *d = arg;
	struct bufferevent *bev;

	(void)l;
	(void)sa;
	(void)salen;
	if (d->clients >= MAX_CLIENTS) {
		static const char busy[] = "{\"error\":\"too many clients\"}\n";

		if (write(fd, busy, sizeof(busy) - 1) < 0)
			(void)0;
		evutil_closesocket(fd);
		return;
	}
	bev = bufferevent_socket_new(d->base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (!bev) {
		evutil_closesocket(fd);
		return;
	}
	d->clients++;
	/* Read no more than a line's worth ahead: memory stays bounded. */
	bufferevent_setwatermark(bev, EV_READ, 0, IBFM_CTL_MAX_LINE + 2);
	bufferevent_setcb(bev, client_read, NULL, client_event, d);
	bufferevent_enable(bev, EV_READ | EV_WRITE);
}

static int open_socket(struct ibfmd *d)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", d->conf.socket);
	unlink(sun.sun_path);
	d->listener = evconnlistener_new_bind(
		d->base, accept_client, d,
		LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 64,
		(struct sockaddr *)&sun, sizeof(sun));
	if (!d->listener) {
		ibfmd_log(&ibfmd_log_mod_ctl, IBFMD_LOG_ERR,
			  "%s: cannot listen: %s", d->conf.socket,
			  strerror(errno));
		return -1;
	}
	chmod(sun.sun_path, 0660);
	return 0;
}

/* ---- signals ---- */

static void on_stop(evutil_socket_t sig, short what, void *arg)
{
	struct ibfmd *d = arg;

	(void)what;
	IBFMD_INFO("signal %d: shutting down", (int)sig);
	event_base_loopbreak(d->base);
}

static void on_hup(evutil_socket_t sig, short what, void *arg)
{
	struct ibfmd *d = arg;
	struct ibfmd_conf c;

	(void)sig;
	(void)what;
	/* A bad file changes nothing; the listening addresses stay. */
	if (read_conf(d->conf_path, &c)) {
		IBFMD_WARN("SIGHUP: %s not reloaded", d->conf_path);
		return;
	}
	snprintf(c.socket, sizeof(c.socket), "%s", d->conf.socket);
	snprintf(c.metrics, sizeof(c.metrics), "%s", d->conf.metrics);
	/* Levels set through the socket stay unless the file's changed. */
	if (c.log_level != d->conf.log_level)
		ibfmd_log_set_all((enum ibfmd_log_level)c.log_level);
	pthread_mutex_lock(&d->lock); /* the worker copies it */
	d->conf = c;
	pthread_mutex_unlock(&d->lock);
	if (load_expected(d) == 0)
		IBFMD_INFO("SIGHUP: %s reloaded", d->conf_path);
	ibfmd_cc_reload(d);
	arm_timers(d);
}

static const char usage[] =
	"Usage: ibfmd --config FILE [--foreground]\n"
	"The ibfm fabric management daemon: sweeps the fabric, compares it with\n"
	"the expected topology, and answers ibfm over its control socket.\n"
	"\n"
	"  -c, --config FILE   configuration (see ibfmd(8))\n"
	"  -f, --foreground    stay in the foreground (log on stderr, not syslog)\n"
	"  -h, --help          this text\n"
	"  -V, --version       the version\n";

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	struct ibfmd *d = calloc(1, sizeof(*d));
	bool foreground = false;
	int c, rc = 1;

	while (d && (c = getopt_long(argc, argv, "c:fhV", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			d->conf_path = optarg;
			break;
		case 'f':
			foreground = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		case 'V':
			printf("ibfmd %s\n", PACKAGE_VERSION);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (!d || !d->conf_path || optind < argc) {
		fputs(usage, stderr);
		return 2;
	}
	ibfmd_log_to_stderr();
	if (read_conf(d->conf_path, &d->conf) || load_expected(d))
		return 1;
	ibfmd_log_set_all((enum ibfmd_log_level)d->conf.log_level);
	if (!foreground && daemon(0, 0)) {
		IBFMD_ERR("cannot daemonize: %s", strerror(errno));
		return 1;
	}
	if (!foreground)
		ibfmd_log_to_syslog("ibfmd");
	signal(SIGPIPE, SIG_IGN);
	evthread_use_pthreads();
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->wake, NULL);
	ibfm_ctl_init(&d->ctl, ibfm_cmds, d, PACKAGE_VERSION);
	ibfmd_register_queries(d);
	d->base = event_base_new();
	if (!d->base || open_socket(d) || open_metrics(d))
		goto out;
	ibfmd_register_drains(d);
	if (ibfmd_cc_init(d))
		goto out;
	ibfmd_register_log(&d->ctl);
	if (d->ctl.bad_register) {
		IBFMD_ERR(
			"control command \"%s\": not in ctl/commands.c, or registered twice",
			d->ctl.bad_register);
		goto out;
	}
	d->sweep_done = event_new(d->base, -1, 0, sweep_done, d);
	d->sweep_timer = event_new(d->base, -1, EV_PERSIST, sweep_tick, d);
	d->light_timer = event_new(d->base, -1, EV_PERSIST, light_tick, d);
	d->sig_term = evsignal_new(d->base, SIGTERM, on_stop, d);
	d->sig_int = evsignal_new(d->base, SIGINT, on_stop, d);
	d->sig_hup = evsignal_new(d->base, SIGHUP, on_hup, d);
	if (!d->sweep_done || !d->sweep_timer || !d->light_timer ||
	    !d->op.tick || !d->verify_done || !d->sig_term || !d->sig_int ||
	    !d->sig_hup || pthread_create(&d->worker, NULL, worker_main, d))
		goto out;
	event_add(d->sig_term, NULL);
	event_add(d->sig_int, NULL);
	event_add(d->sig_hup, NULL);
	arm_timers(d);
	ibfmd_request_sweep(d);
	IBFMD_INFO("serving %s, sweeping every %u s, light checks every %u s",
		   d->conf.socket, d->conf.sweep_s, d->conf.light_s);
	event_base_dispatch(d->base);
	pthread_mutex_lock(&d->lock);
	d->stop = true;
	pthread_cond_signal(&d->wake);
	pthread_mutex_unlock(&d->lock);
	pthread_join(d->worker, NULL);
	rc = 0;
out:
	if (d->http)
		evhttp_free(d->http);
	if (d->listener) {
		evconnlistener_free(d->listener);
		unlink(d->conf.socket);
	}
	{
		struct event *evs[] = { d->sweep_done,	d->sweep_timer,
					d->light_timer, d->sig_term,
					d->sig_int,	d->sig_hup };

		for (size_t i = 0; i < sizeof(evs) / sizeof(*evs); i++)
			if (evs[i])
				event_free(evs[i]);
	}
	ibfmd_drains_free(d); /* its events too: before their base */
	ibfmd_cc_free(d);
	if (d->base)
		event_base_free(d->base);
	ibfm_fabric_destroy(d->fabric);
	ibfm_fabric_destroy(d->found);
	ibfm_fabric_destroy(d->expected);
	ibfmd_routes_free(&d->routes);
	free(d->pc);
	free(d->pc_delta);
	free(d->found_pc);
	free(d->found_clashes.v);
	free(d->clashes);
	free(d);
	return rc;
}
