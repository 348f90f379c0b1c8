// SPDX-License-Identifier: MIT
/*
 * ibfmd: the fabric management daemon. One libevent loop serves the
 * control socket, /metrics and the timers; discovery (blocking MADs)
 * runs on the worker thread and hands its fabric back to the loop.
 *
 * This file is the wiring: options, the configuration and SIGHUP, the
 * signals, the sweep timers, and the table of features (mgmt/core/feature.h)
 * it starts, tells about each sweep, asks for metrics and stops.
 */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/thread.h>

#include "config.h"
#include "mgmt/net/access.h"
#include "mgmt/net/ctlsock.h"
#include "mgmt/core/feature.h"
#include "mgmt/net/listen.h"
#include "mgmt/base/log.h"
#include "mgmt/net/metrics.h"
#include "mgmt/core/page.h"
#include "mgmt/ha/peers.h"
#include "routing/io/file.h"

IBFMD_LOG_MODULE(main);

/* Every feature, in the order they start, are told of sweeps and stop. */
static const struct ibfmd_feature *const features[] = {
	&ibfmd_feature_audit,  &ibfmd_feature_queries,	  &ibfmd_feature_links,
	&ibfmd_feature_drains, &ibfmd_feature_draincheck, &ibfmd_feature_jobs,
	&ibfmd_feature_cc,     &ibfmd_feature_log,
};

#define NFEATURES (sizeof(features) / sizeof(*features))

struct ibfmd {
	struct ibfmd_conf conf;
	struct ibfmd_core core; /* what features get */
	struct ibfm_ctl ctl;
	struct ibfmd_events events;
	struct ibfmd_view view;
	struct ibfmd_routes routes;
	struct ibfmd_statedir statedir;
	struct ibfmd_worker *worker;
	struct ibfmd_ctlsock *sock;
	struct ibfmd_metrics *metrics;
	struct event *sweep_timer, *light_timer;
	struct event *sig_term, *sig_int, *sig_hup;
	int lock; /* SOCKET.lock, held while ibfmd runs; -1 before */
	void *state[NFEATURES]; /* each feature's */
};

/* Reads the configuration and who may use the socket by it; logs why not. */
static int read_conf(const char *path, struct ibfmd_conf *c,
		     struct ibfm_ctl_access *a)
{
	struct ibfm_err err;

	if (ibfmd_conf_read(path, c, &err)) {
		IBFMD_ERR("%s", err.msg);
		return -1;
	}
	return ibfmd_access_resolve(c, path, a);
}

/* A sweep or light check came back: the view takes it, features follow. */
static void on_found(struct ibfmd_found *r, void *arg)
{
	struct ibfmd *d = arg;
	size_t i;

	if (!ibfmd_view_take(&d->view, r))
		return;
	for (i = 0; i < NFEATURES; i++)
		if (features[i]->after_sweep)
			features[i]->after_sweep(d->state[i]);
}

/* GET /metrics: every feature's families, in table order. */
static void collect_metrics(void *arg, struct ibfmd_metrics_reply *r)
{
	struct ibfmd *d = arg;
	size_t i;

	for (i = 0; i < NFEATURES; i++)
		if (features[i]->metrics)
			features[i]->metrics(d->state[i], r);
}

/* GET /, /fabric.svg, /group/NAME: the fabric page (mgmt/core/page.h). */
static enum ibfmd_metrics_page fabric_page(void *arg, const char *path,
					   struct ibfmd_metrics_reply *r)
{
	const struct ibfmd *d = arg;

	switch (ibfmd_page_write(&d->view, &d->conf.state, path,
				 ibfmd_metrics_text(r))) {
	case IBFMD_PAGE_HTML:
		return IBFMD_PAGE_IS_HTML;
	case IBFMD_PAGE_SVG:
		return IBFMD_PAGE_IS_SVG;
	default:
		return IBFMD_PAGE_NOT_FOUND;
	}
}

static void sweep_tick(evutil_socket_t fd, short what, void *arg)
{
	struct ibfmd *d = arg;

	(void)fd;
	(void)what;
	ibfmd_worker_sweep(d->worker);
}

static void light_tick(evutil_socket_t fd, short what, void *arg)
{
	struct ibfmd *d = arg;

	(void)fd;
	(void)what;
	/* The view's fabric is replaced only once the worker handed back. */
	ibfmd_worker_light(d->worker, d->view.fabric);
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

static void on_stop(evutil_socket_t sig, short what, void *arg)
{
	struct ibfmd *d = arg;

	(void)what;
	IBFMD_INFO("signal %d: shutting down", (int)sig);
	event_base_loopbreak(d->core.base);
}

static void on_hup(evutil_socket_t sig, short what, void *arg)
{
	struct ibfmd *d = arg;
	struct ibfm_ctl_access access;
	struct ibfmd_conf c;
	struct ibfm_err err;
	size_t i;

	(void)sig;
	(void)what;
	/* A bad file changes nothing; the listening addresses stay. */
	if (read_conf(d->core.conf_path, &c, &access)) {
		IBFMD_WARN("SIGHUP: %s not reloaded", d->core.conf_path);
		return;
	}
	snprintf(c.socket, sizeof(c.socket), "%s", d->conf.socket);
	snprintf(c.metrics, sizeof(c.metrics), "%s", d->conf.metrics);
	/* Levels set through the socket stay unless the file's changed. */
	if (c.log_level != d->conf.log_level)
		ibfmd_log_set_all((enum ibfmd_log_level)c.log_level);
	d->conf = c;
	ibfm_ctl_set_access(&d->ctl, &access);
	ibfmd_access_socket_file(d->conf.socket, &access);
	ibfmd_worker_configure(d->worker, &d->conf);
	ibfmd_statedir_check(&d->statedir);
	if (ibfmd_peers_reload(d->core.peers, &d->conf, &err))
		IBFMD_WARN("SIGHUP: peers not reloaded: %s", err.msg);
	if (!ibfmd_view_load_expected(&d->view, d->conf.expected) &&
	    !ibfmd_view_load_names(&d->view, d->conf.node_name_map))
		IBFMD_INFO("SIGHUP: %s reloaded", d->core.conf_path);
	for (i = 0; i < NFEATURES; i++)
		if (features[i]->reload)
			features[i]->reload(d->state[i]);
	arm_timers(d);
}

/* The timers and signals on the loop; 0 or -ENOMEM. */
static int add_events(struct ibfmd *d)
{
	struct event_base *base = d->core.base;

	d->sweep_timer = event_new(base, -1, EV_PERSIST, sweep_tick, d);
	d->light_timer = event_new(base, -1, EV_PERSIST, light_tick, d);
	d->sig_term = evsignal_new(base, SIGTERM, on_stop, d);
	d->sig_int = evsignal_new(base, SIGINT, on_stop, d);
	d->sig_hup = evsignal_new(base, SIGHUP, on_hup, d);
	if (!d->sweep_timer || !d->light_timer || !d->sig_term || !d->sig_int ||
	    !d->sig_hup)
		return -ENOMEM;
	event_add(d->sig_term, NULL);
	event_add(d->sig_int, NULL);
	event_add(d->sig_hup, NULL);
	arm_timers(d);
	return 0;
}

/*
 * The core's rooms, then each feature, then the listeners: a feature
 * that cannot start (a bad CC profile) stops ibfmd before the socket
 * exists. 0, or -1 (logged).
 */
static int start(struct ibfmd *d, const struct ibfm_ctl_access *access)
{
	struct ibfmd_core *core = &d->core;
	struct ibfmd_listen_budget fds;
	struct ibfm_err err;
	size_t i;

	core->conf = &d->conf;
	core->ctl = &d->ctl;
	core->events = &d->events;
	core->view = &d->view;
	core->routes = &d->routes;
	core->statedir = &d->statedir;
	d->view.events = &d->events;
	ibfm_ctl_init(&d->ctl, ibfm_cmds, PACKAGE_VERSION);
	ibfm_ctl_set_access(&d->ctl, access);
	core->base = event_base_new();
	if (!core->base ||
	    ibfmd_statedir_start(&d->statedir, core->base, &d->conf,
				 &d->events) ||
	    ibfmd_worker_start(core->base, &d->conf, on_found, d, &d->worker))
		return -1;
	core->worker = d->worker;
	if (ibfmd_peers_open(&d->conf, core->base, &core->peers, &err)) {
		IBFMD_ERR("%s", err.msg);
		return -1;
	}
	for (i = 0; i < NFEATURES; i++) {
		const struct ibfmd_feature *f = features[i];

		if (f->init && f->init(core, &d->state[i]))
			return -1;
		ibfm_ctl_register_all(&d->ctl, f->cmds, f->ncmds, d->state[i]);
	}
	if (d->ctl.bad_register) {
		IBFMD_ERR(
			"control command \"%s\": not in ctl/commands.c, or registered twice",
			d->ctl.bad_register);
		return -1;
	}
	ibfmd_listen_budget(&fds);
	IBFMD_INFO(
		"descriptors: %lu%s; at most %u control clients and %u metrics connections",
		fds.nofile,
		fds.nofile > fds.was ? " (raised to the hard limit)" : "",
		fds.ctl, fds.http);
	if (ibfmd_ctlsock_open(core->base, d->conf.socket, &d->ctl, fds.ctl,
			       &d->sock))
		return -1;
	ibfmd_access_socket_file(d->conf.socket, access);
	if (ibfmd_metrics_open(core->base, &d->conf, fds.http, collect_metrics,
			       d, &d->metrics))
		return -1;
	ibfmd_metrics_set_pages(d->metrics, fabric_page, d);
	return add_events(d);
}

/*
 * Temporary files that writers killed mid-write left in the state
 * directory (the plugin's, ibfmd's own): never renamed in, never read.
 */
static void clean_state_dir(const char *dir)
{
	unsigned n = dir[0] ? ibfm_file_clean_stale(dir) : 0;

	if (n)
		IBFMD_INFO("%s: %u temporary files of writers gone removed",
			   dir, n);
}

/* Stops the worker first: nothing it does may outlive what it uses. */
static void stop(struct ibfmd *d)
{
	struct event *evs[] = { d->sweep_timer, d->light_timer, d->sig_term,
				d->sig_int, d->sig_hup };
	size_t i;

	ibfmd_worker_stop(d->worker);
	ibfmd_peers_close(d->core.peers);
	d->core.peers = NULL;
	ibfmd_statedir_stop(&d->statedir);
	ibfmd_metrics_close(d->metrics);
	ibfmd_ctlsock_close(d->sock);
	for (i = 0; i < sizeof(evs) / sizeof(*evs); i++)
		if (evs[i])
			event_free(evs[i]);
	/* Their events too: before their base. */
	for (i = NFEATURES; i-- > 0;)
		if (features[i]->free)
			features[i]->free(d->state[i]);
	if (d->core.base)
		event_base_free(d->core.base);
	ibfmd_view_free(&d->view);
	ibfmd_routes_free(&d->routes);
	/* After the socket is gone: a next ibfmd may take it from here. */
	if (d->lock >= 0)
		close(d->lock);
}

/*
 * Large arrays (a fabric's ports, its counters: megabytes each at 30,000
 * nodes) from mmap, always: glibc would raise its mmap threshold after
 * the first such array is freed and serve the next ones from the heap,
 * where what is freed stays resident. Keeps the peak RSS near what is
 * live (docs/BENCHMARKS.md).
 */
static void large_arrays_from_mmap(void)
{
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
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
	struct ibfm_ctl_access access;
	bool foreground = false;
	int c, rc = 1;

	if (d)
		d->lock = -1;
	while (d && (c = getopt_long(argc, argv, "c:fhV", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			d->core.conf_path = optarg;
			break;
		case 'f':
			foreground = true;
			break;
		case 'h':
			fputs(usage, stdout);
			free(d);
			return 0;
		case 'V':
			printf("ibfmd %s\n", PACKAGE_VERSION);
			free(d);
			return 0;
		default:
			fputs(usage, stderr);
			free(d);
			return 2;
		}
	}
	if (!d || !d->core.conf_path || optind < argc) {
		fputs(usage, stderr);
		free(d);
		return 2;
	}
	ibfmd_log_to_stderr();
	if (read_conf(d->core.conf_path, &d->conf, &access) ||
	    ibfmd_view_load_expected(&d->view, d->conf.expected) ||
	    ibfmd_view_load_names(&d->view, d->conf.node_name_map))
		goto out;
	if (!d->conf.state_dir[0])
		IBFMD_WARN(
			"no state_dir in %s: no drains, no routes of the plugin (path, drain), no audit file (admin requests are audited in the log and the events only)",
			d->core.conf_path);
	ibfmd_log_set_all((enum ibfmd_log_level)d->conf.log_level);
	/* Before detaching: a second ibfmd says why on stderr and exits 1.
	 * The lock lives beside the socket: its directory first. */
	if (ibfmd_access_socket_dir(d->conf.socket, &access))
		goto out;
	d->lock = ibfmd_ctlsock_lock(d->conf.socket, -1);
	if (d->lock < 0)
		goto out;
	clean_state_dir(d->conf.state_dir);
	if (!foreground && daemon(0, 0)) {
		IBFMD_ERR("cannot daemonize: %s", strerror(errno));
		goto out;
	}
	if (!foreground) {
		ibfmd_log_to_syslog("ibfmd");
		ibfmd_ctlsock_lock(d->conf.socket, d->lock); /* the new pid */
	}
	signal(SIGPIPE, SIG_IGN);
	large_arrays_from_mmap();
	evthread_use_pthreads();
	if (start(d, &access))
		goto out;
	ibfmd_worker_sweep(d->worker);
	IBFMD_INFO("serving %s, sweeping every %u s, light checks every %u s",
		   d->conf.socket, d->conf.sweep_s, d->conf.light_s);
	event_base_dispatch(d->core.base);
	rc = 0;
out:
	stop(d);
	free(d);
	return rc;
}
