// SPDX-License-Identifier: MIT
/* /metrics over evhttp (mgmt/metrics.h). */
#include "mgmt/metrics.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <event2/http.h>

#include "mgmt/log.h"

IBFMD_LOG_MODULE(metrics);

struct ibfmd_metrics {
	struct evhttp *http;
	ibfmd_metrics_fn collect;
	void *arg;
};

/* GET /metrics: the status numbers in Prometheus' text format. */
static void on_metrics(struct evhttp_request *req, void *arg)
{
	struct ibfmd_metrics *m = arg;
	struct evbuffer *b = evbuffer_new();

	if (!b || evhttp_request_get_command(req) != EVHTTP_REQ_GET) {
		evhttp_send_error(req, b ? HTTP_BADMETHOD : HTTP_INTERNAL,
				  NULL);
		evbuffer_free(b);
		return;
	}
	m->collect(m->arg, b);
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

int ibfmd_metrics_open(struct event_base *base, const struct ibfmd_conf *conf,
		       ibfmd_metrics_fn collect, void *arg,
		       struct ibfmd_metrics **out)
{
	char host[sizeof(conf->metrics)], *colon;
	struct evhttp_bound_socket *bs;
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct ibfmd_metrics *m;
	unsigned port;

	*out = NULL;
	if (!conf->metrics[0])
		return 0;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->collect = collect;
	m->arg = arg;
	snprintf(host, sizeof(host), "%s", conf->metrics);
	colon = strrchr(host, ':');
	*colon = '\0';
	port = (unsigned)atoi(colon + 1);
	m->http = evhttp_new(base);
	bs = m->http ? evhttp_bind_socket_with_handle(m->http, host,
						      (uint16_t)port)
		     : NULL;
	if (!bs) {
		ibfmd_log(ibfmd_log_this,
			  conf->metrics_set ? IBFMD_LOG_ERR : IBFMD_LOG_WARN,
			  "cannot listen on %s%s", conf->metrics,
			  conf->metrics_set
				  ? ""
				  : " (the default; going on without)");
		ibfmd_metrics_close(m);
		return conf->metrics_set ? -EADDRNOTAVAIL : 0;
	}
	evhttp_set_cb(m->http, "/metrics", on_metrics, m);
	evhttp_set_gencb(m->http, on_http_other, m);
	if (getsockname(evhttp_bound_socket_get_fd(bs), (struct sockaddr *)&ss,
			&len) == 0)
		port = ntohs(ss.ss_family == AF_INET6
				     ? ((struct sockaddr_in6 *)&ss)->sin6_port
				     : ((struct sockaddr_in *)&ss)->sin_port);
	IBFMD_INFO("serving metrics on http://%s:%u/metrics", host, port);
	*out = m;
	return 0;
}

void ibfmd_metrics_close(struct ibfmd_metrics *m)
{
	if (!m)
		return;
	if (m->http)
		evhttp_free(m->http);
	free(m);
}
