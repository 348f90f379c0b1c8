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
#include "mgmt/ctl.h"
#include "mgmt/sweep.h"
#include "routing/diff.h"
#include "routing/topo.h"

#define MAX_CLIENTS 256
#define MAX_OUTPUT (1 << 20) /* a client this far behind is dropped */
#define MAX_EVENTS 4096

struct conf {
	char socket[108];
	char expected[4096];
	char ca[64];
	int ca_port;
	unsigned sweep_s;
	unsigned light_s;  /* 0: no light checks */
	char metrics[128]; /* HOST:PORT for Prometheus, "" for none */
};

struct event_rec {
	uint64_t seq;
	time_t time;
	const char *severity;
	const char *kind;
	char ports[2][160]; /* the link's two ends, or one node */
};

struct daemon {
	struct conf conf;
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
	char found_err[IBFM_ERR_MSG_MAX];
	double found_ms;
	bool found_light; /* a light check found nothing: no new fabric */
	/* what the loop knows */
	struct ibfm_fabric *fabric, *expected;
	uint64_t sweeps, light_checks, expected_diffs;
	double last_ms, last_light_ms;
	char last_error[IBFM_ERR_MSG_MAX];
	struct event_rec events[MAX_EVENTS];
	uint64_t nevents;
};

static void logmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void logmsg(const char *fmt, ...)
{
	va_list ap;

	fputs("ibfmd: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* "key value" lines ('=' allowed), '#' comments; errors say FILE:LINE. */
static int read_conf(const char *path, struct conf *c)
{
	char line[4200], key[64], val[4096];
	FILE *in = fopen(path, "r");
	unsigned no = 0;

	memset(c, 0, sizeof(*c));
	snprintf(c->socket, sizeof(c->socket), "/run/ibfm/ibfmd.sock");
	c->sweep_s = 60;
	c->light_s = 10;
	if (!in) {
		logmsg("%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), in)) {
		char *s = line + strspn(line, " \t");

		no++;
		if (*s == '#' || *s == '\n' || !*s)
			continue;
		for (char *q = s; *q; q++)
			if (*q == '=')
				*q = ' ';
		if (sscanf(s, "%63s %4095s", key, val) != 2) {
			logmsg("%s:%u: expected \"key value\"", path, no);
			goto bad;
		}
		if (!strcmp(key, "socket")) {
			if (strlen(val) >= sizeof(c->socket)) {
				logmsg("%s:%u: socket path longer than %zu bytes",
				       path, no, sizeof(c->socket) - 1);
				goto bad;
			}
			snprintf(c->socket, sizeof(c->socket), "%s", val);
		} else if (!strcmp(key, "expected")) {
			snprintf(c->expected, sizeof(c->expected), "%s", val);
		} else if (!strcmp(key, "ca")) {
			if (strlen(val) >= sizeof(c->ca)) {
				logmsg("%s:%u: ca: name too long", path, no);
				goto bad;
			}
			memcpy(c->ca, val, strlen(val) + 1);
		} else if (!strcmp(key, "ca_port")) {
			c->ca_port = atoi(val);
		} else if (!strcmp(key, "metrics")) {
			char *port = strrchr(val, ':'), *end;

			if (strlen(val) >= sizeof(c->metrics) || !port ||
			    strtoul(port + 1, &end, 10) > 65535 ||
			    end == port + 1 || *end) {
				logmsg("%s:%u: metrics: expected HOST:PORT",
				       path, no);
				goto bad;
			}
			snprintf(c->metrics, sizeof(c->metrics), "%s", val);
		} else if (!strcmp(key, "light_interval")) {
			c->light_s = (unsigned)atoi(val);
		} else if (!strcmp(key, "sweep_interval")) {
			c->sweep_s = (unsigned)atoi(val);
			if (!c->sweep_s) {
				logmsg("%s:%u: sweep_interval: expected seconds above 0",
				       path, no);
				goto bad;
			}
		} else {
			logmsg("%s:%u: unknown key \"%s\": expected socket, expected, ca, ca_port, sweep_interval, light_interval or metrics",
			       path, no, key);
			goto bad;
		}
	}
	fclose(in);
	return 0;
bad:
	fclose(in);
	return -1;
}

static int load_expected(struct daemon *d)
{
	struct ibfm_fabric *f = NULL;
	struct ibfm_err err;

	if (!d->conf.expected[0])
		return 0;
	if (ibfm_topo_read(d->conf.expected, &f, &err)) {
		logmsg("%s", err.msg);
		return -1;
	}
	ibfm_fabric_destroy(d->expected);
	d->expected = f;
	return 0;
}

/* ---- events ---- */

static void port_text(const struct ibfm_fabric *f, uint32_t p, char *buf,
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

struct diff_ctx {
	struct daemon *d;
	const struct ibfm_fabric *a, *b;
};

static void add_event(void *ctx, const struct ibfm_diff_item *it)
{
	struct diff_ctx *c = ctx;
	struct event_rec *e = &c->d->events[c->d->nevents % MAX_EVENTS];
	char x[150], y[150];
	bool on_a = it->exp_port != IBFM_NONE;

	e->seq = ++c->d->nevents;
	e->time = time(NULL);
	e->kind = ibfm_diff_kind_name(it->kind);
	e->severity = it->kind == IBFM_DIFF_LINK_DEGRADED ||
				      it->kind == IBFM_DIFF_NODE_EXTRA ||
				      it->kind == IBFM_DIFF_LINK_EXTRA
			      ? "warning"
			      : "error";
	port_text(on_a ? c->a : c->b, on_a ? it->exp_port : it->act_port, x,
		  sizeof(x));
	port_text(on_a ? c->a : c->b, on_a ? it->exp_peer : it->act_peer, y,
		  sizeof(y));
	snprintf(e->ports[0], sizeof(e->ports[0]), "%s", x);
	snprintf(e->ports[1], sizeof(e->ports[1]), "%s", y);
}

static void request_sweep(struct daemon *d);

/* A sweep came back: events for what changed, diff against expected. */
static void sweep_done(evutil_socket_t fd, short what, void *arg)
{
	struct daemon *d = arg;
	struct ibfm_fabric *f;
	struct diff_ctx c = { .d = d };

	(void)fd;
	(void)what;
	pthread_mutex_lock(&d->lock);
	f = d->found;
	d->found = NULL;
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
		request_sweep(d);
	}
	if (!f)
		return;
	d->sweeps++;
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
	ibfm_fabric_destroy(d->fabric);
	d->fabric = f;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * A light check of the last sweep's links; when one is no longer Active
 * a full sweep follows at once, so the event names the exact ports.
 * d->fabric is only replaced by sweep_done, after this hands back.
 */
static bool light_check_clean(struct daemon *d, struct ibfm_err *err)
{
	int rc;

	if (!d->fabric)
		return false;
	rc = ibfm_sweep_light(d->conf.ca[0] ? d->conf.ca : NULL,
			      d->conf.ca_port, d->fabric, err);
	if (rc > 0)
		logmsg("light check: %d known ports changed state, sweeping",
		       rc);
	err->msg[0] = '\0'; /* a failed check is answered by the sweep */
	return rc == 0;
}

static void *worker_main(void *arg)
{
	struct daemon *d = arg;

	pthread_mutex_lock(&d->lock);
	for (;;) {
		struct ibfm_fabric *f = NULL;
		struct ibfm_err err = { 0 };
		bool light;
		double t0;

		while (!d->want && !d->stop)
			pthread_cond_wait(&d->wake, &d->lock);
		if (d->stop)
			break;
		d->want = false;
		light = d->light;
		pthread_mutex_unlock(&d->lock);
		t0 = now_ms();
		if (!light || !light_check_clean(d, &err)) {
			light = false;
			ibfm_sweep_discover(d->conf.ca[0] ? d->conf.ca : NULL,
					    d->conf.ca_port, &f, &err);
		}
		pthread_mutex_lock(&d->lock);
		d->found = f;
		d->found_light = light;
		d->found_ms = now_ms() - t0;
		snprintf(d->found_err, sizeof(d->found_err), "%s", err.msg);
		event_active(d->sweep_done, EV_READ, 0);
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

/*
 * Starts a full sweep or a light check. A sweep asked for while the
 * worker is busy runs when it is done: what the worker started may
 * predate the change the sweep was asked for.
 */
static void request_work(struct daemon *d, bool light)
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

static void request_sweep(struct daemon *d)
{
	request_work(d, false);
}

static void sweep_tick(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	request_sweep(arg);
}

static void light_tick(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	request_work(arg, true);
}

/* (Re)arms the timers with the configured intervals. */
static void arm_timers(struct daemon *d)
{
	event_del(d->sweep_timer);
	event_add(d->sweep_timer, &(struct timeval){ d->conf.sweep_s, 0 });
	event_del(d->light_timer);
	if (d->conf.light_s)
		event_add(d->light_timer,
			  &(struct timeval){ d->conf.light_s, 0 });
}

/* ---- commands ---- */

/* One number of the daemon's state, as status and /metrics give it. */
struct stat_row {
	const char *key;  /* in status */
	const char *prom; /* in /metrics */
	const char *help;
	bool counter; /* else a gauge */
	bool ms;      /* milliseconds in status, seconds in /metrics */
	double v;
};

#define NSTATS 10

static void daemon_stats(const struct daemon *d, struct stat_row *r)
{
	const struct ibfm_fabric *f = d->fabric;
	const struct stat_row rows[NSTATS] = {
		{ "nodes", "ibfm_fabric_nodes", "nodes found by the last sweep",
		  false, false, f ? f->nnodes : 0 },
		{ "switches", "ibfm_fabric_switches", "switches found", false,
		  false, f ? f->nswitches : 0 },
		{ "cas", "ibfm_fabric_cas", "channel adapters found", false,
		  false, f ? f->ncas : 0 },
		{ "links", "ibfm_fabric_links", "links found", false, false,
		  f ? ibfm_fabric_count_links(f) : 0 },
		{ "sweeps", "ibfm_sweeps_total", "full sweeps done", true,
		  false, (double)d->sweeps },
		{ "light_checks", "ibfm_light_checks_total",
		  "light checks that found nothing changed", true, false,
		  (double)d->light_checks },
		{ "last_sweep_ms", "ibfm_last_sweep_seconds",
		  "duration of the last full sweep", false, true, d->last_ms },
		{ "last_light_check_ms", "ibfm_last_light_check_seconds",
		  "duration of the last light check", false, true,
		  d->last_light_ms },
		{ "events", "ibfm_events_total", "fabric events raised", true,
		  false, (double)d->nevents },
		{ "expected_differences", "ibfm_expected_differences",
		  "differences from the expected topology", false, false,
		  (double)d->expected_diffs },
	};

	memcpy(r, rows, sizeof(rows));
}

static void cmd_status(void *ctx, const struct ibfm_ctl_req *req,
		       struct ibfm_json *j)
{
	struct daemon *d = ctx;
	struct stat_row r[NSTATS];
	unsigned i;

	(void)req;
	daemon_stats(d, r);
	for (i = 0; i < NSTATS; i++)
		if (r[i].ms)
			ibfm_json_double(j, r[i].key, r[i].v);
		else
			ibfm_json_uint(j, r[i].key, (uint64_t)r[i].v);
	ibfm_json_bool(j, "expected", d->expected != NULL);
	ibfm_json_str(j, "last_error", d->last_error);
}

/* GET /metrics: the status numbers in Prometheus' text format. */
static void on_metrics(struct evhttp_request *req, void *arg)
{
	struct evbuffer *b = evbuffer_new();
	struct stat_row r[NSTATS];
	unsigned i;

	if (!b || evhttp_request_get_command(req) != EVHTTP_REQ_GET) {
		evhttp_send_error(req, b ? HTTP_BADMETHOD : HTTP_INTERNAL,
				  NULL);
		evbuffer_free(b);
		return;
	}
	daemon_stats(arg, r);
	for (i = 0; i < NSTATS; i++)
		evbuffer_add_printf(b, "# HELP %s %s\n# TYPE %s %s\n%s %.17g\n",
				    r[i].prom, r[i].help, r[i].prom,
				    r[i].counter ? "counter" : "gauge",
				    r[i].prom, r[i].ms ? r[i].v / 1e3 : r[i].v);
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
static int open_metrics(struct daemon *d)
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
		logmsg("metrics: cannot listen on %s", d->conf.metrics);
		return -1;
	}
	evhttp_set_cb(d->http, "/metrics", on_metrics, d);
	evhttp_set_gencb(d->http, on_http_other, d);
	if (getsockname(evhttp_bound_socket_get_fd(bs), (struct sockaddr *)&ss,
			&len) == 0)
		port = ntohs(ss.ss_family == AF_INET6
				     ? ((struct sockaddr_in6 *)&ss)->sin6_port
				     : ((struct sockaddr_in *)&ss)->sin_port);
	logmsg("metrics on http://%s:%u/metrics", host, port);
	return 0;
}

static void cmd_events(void *ctx, const struct ibfm_ctl_req *req,
		       struct ibfm_json *j)
{
	struct daemon *d = ctx;
	uint64_t first = d->nevents > MAX_EVENTS ? d->nevents - MAX_EVENTS : 0,
		 i;

	if (req->since > 0 && (uint64_t)req->since > first)
		first = (uint64_t)req->since;
	ibfm_json_arr_begin(j, "events");
	for (i = first; i < d->nevents; i++) {
		const struct event_rec *e = &d->events[i % MAX_EVENTS];

		ibfm_json_obj_begin(j, NULL);
		ibfm_json_uint(j, "seq", e->seq);
		ibfm_json_uint(j, "time", (uint64_t)e->time);
		ibfm_json_str(j, "severity", e->severity);
		ibfm_json_str(j, "kind", e->kind);
		ibfm_json_arr_begin(j, "ports");
		ibfm_json_str(j, NULL, e->ports[0]);
		if (e->ports[1][0])
			ibfm_json_str(j, NULL, e->ports[1]);
		ibfm_json_arr_end(j);
		ibfm_json_obj_end(j);
	}
	ibfm_json_arr_end(j);
}

static void cmd_sweep(void *ctx, const struct ibfm_ctl_req *req,
		      struct ibfm_json *j)
{
	struct daemon *d = ctx;

	(void)req;
	request_sweep(d);
	ibfm_json_bool(j, "started", true);
	ibfm_json_uint(j, "sweeps", d->sweeps);
}

/* ---- the control socket ---- */

static void client_close(struct daemon *d, struct bufferevent *bev)
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

static void client_reply_error_and_close(struct daemon *d,
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
	struct daemon *d = arg;
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
	struct daemon *d = arg;
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

static int open_socket(struct daemon *d)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", d->conf.socket);
	unlink(sun.sun_path);
	d->listener = evconnlistener_new_bind(
		d->base, accept_client, d,
		LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 64,
		(struct sockaddr *)&sun, sizeof(sun));
	if (!d->listener) {
		logmsg("%s: cannot listen: %s", d->conf.socket,
		       strerror(errno));
		return -1;
	}
	chmod(sun.sun_path, 0660);
	return 0;
}

/* ---- signals ---- */

static void on_stop(evutil_socket_t sig, short what, void *arg)
{
	struct daemon *d = arg;

	(void)what;
	logmsg("signal %d: shutting down", (int)sig);
	event_base_loopbreak(d->base);
}

static void on_hup(evutil_socket_t sig, short what, void *arg)
{
	struct daemon *d = arg;
	struct conf c;

	(void)sig;
	(void)what;
	/* A bad file changes nothing; the listening addresses stay. */
	if (read_conf(d->conf_path, &c)) {
		logmsg("SIGHUP: %s not reloaded", d->conf_path);
		return;
	}
	snprintf(c.socket, sizeof(c.socket), "%s", d->conf.socket);
	snprintf(c.metrics, sizeof(c.metrics), "%s", d->conf.metrics);
	d->conf = c;
	if (load_expected(d) == 0)
		logmsg("SIGHUP: %s reloaded", d->conf_path);
	arm_timers(d);
}

static const char usage[] =
	"Usage: ibfmd --config FILE [--foreground]\n"
	"The ibfm fabric management daemon: sweeps the fabric, compares it with\n"
	"the expected topology, and answers ibfm over its control socket.\n"
	"\n"
	"  -c, --config FILE   configuration (see ibfmd(8))\n"
	"  -f, --foreground    stay in the foreground (logs on stderr)\n"
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
	struct daemon *d = calloc(1, sizeof(*d));
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
	if (read_conf(d->conf_path, &d->conf) || load_expected(d))
		return 1;
	if (!foreground && daemon(0, 0)) {
		logmsg("cannot daemonize: %s", strerror(errno));
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	evthread_use_pthreads();
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->wake, NULL);
	ibfm_ctl_init(&d->ctl, d, PACKAGE_VERSION);
	ibfm_ctl_register(&d->ctl, "status", "fabric and sweep status",
			  cmd_status);
	ibfm_ctl_register(&d->ctl, "events", "events since \"since\"",
			  cmd_events);
	ibfm_ctl_register(&d->ctl, "sweep", "start a sweep now", cmd_sweep);
	d->base = event_base_new();
	if (!d->base || open_socket(d) || open_metrics(d))
		goto out;
	d->sweep_done = event_new(d->base, -1, 0, sweep_done, d);
	d->sweep_timer = event_new(d->base, -1, EV_PERSIST, sweep_tick, d);
	d->light_timer = event_new(d->base, -1, EV_PERSIST, light_tick, d);
	d->sig_term = evsignal_new(d->base, SIGTERM, on_stop, d);
	d->sig_int = evsignal_new(d->base, SIGINT, on_stop, d);
	d->sig_hup = evsignal_new(d->base, SIGHUP, on_hup, d);
	if (!d->sweep_done || !d->sweep_timer || !d->light_timer ||
	    !d->sig_term || !d->sig_int || !d->sig_hup ||
	    pthread_create(&d->worker, NULL, worker_main, d))
		goto out;
	event_add(d->sig_term, NULL);
	event_add(d->sig_int, NULL);
	event_add(d->sig_hup, NULL);
	arm_timers(d);
	request_sweep(d);
	logmsg("serving %s, sweeping every %u s, light checks every %u s",
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
	if (d->sweep_done)
		event_free(d->sweep_done);
	if (d->sweep_timer)
		event_free(d->sweep_timer);
	if (d->light_timer)
		event_free(d->light_timer);
	if (d->sig_term)
		event_free(d->sig_term);
	if (d->sig_int)
		event_free(d->sig_int);
	if (d->sig_hup)
		event_free(d->sig_hup);
	if (d->base)
		event_base_free(d->base);
	ibfm_fabric_destroy(d->fabric);
	ibfm_fabric_destroy(d->found);
	ibfm_fabric_destroy(d->expected);
	free(d);
	return rc;
}
