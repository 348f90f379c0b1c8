// SPDX-License-Identifier: MIT
/* Listeners that pause on accept errors, and the descriptor budget. */
#include "mgmt/net/listen.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <event2/event.h>

struct ibfmd_listen {
	struct evconnlistener *l;
	struct event *resume; /* accepting again after a pause */
	ibfmd_listen_fn cb;   /* the owner's, with its 'arg' */
	void *arg;
	struct ibfmd_log_module *log;
	struct ibfmd_log_rl rl; /* this listener's accept errors */
	const char *what;
};

static unsigned min_u(unsigned long a, unsigned b)
{
	return a < b ? (unsigned)a : b;
}

void ibfmd_listen_budget(struct ibfmd_listen_budget *b)
{
	struct rlimit r;
	unsigned long left;

	memset(b, 0, sizeof(*b));
	if (getrlimit(RLIMIT_NOFILE, &r) == 0) {
		b->nofile = b->was = (unsigned long)r.rlim_cur;
		if (r.rlim_cur < r.rlim_max) {
			r.rlim_cur = r.rlim_max;
			if (setrlimit(RLIMIT_NOFILE, &r) == 0)
				b->nofile = (unsigned long)r.rlim_max;
		}
	}
	/* A quarter of what is left for /metrics, the rest for ibfm. */
	left = b->nofile > IBFMD_LISTEN_RESERVE + 8
		       ? b->nofile - IBFMD_LISTEN_RESERVE
		       : 8;
	b->http = min_u(left / 4, IBFMD_LISTEN_MAX_HTTP);
	b->ctl = min_u(left - b->http, IBFMD_LISTEN_MAX_CTL);
}

static void on_accept_error(struct evconnlistener *el, void *arg)
{
	struct ibfmd_listen *l = arg;
	int err = errno;

	evconnlistener_disable(el);
	event_add(l->resume,
		  &(struct timeval){ 0, IBFMD_LISTEN_PAUSE_MS * 1000 });
	ibfmd_log_rl(l->log, IBFMD_LOG_WARN, &l->rl,
		     "cannot accept on %s: %s; not accepting for %d ms",
		     l->what, strerror(err), IBFMD_LISTEN_PAUSE_MS);
}

static void on_accept(struct evconnlistener *el, evutil_socket_t fd,
		      struct sockaddr *sa, int len, void *arg)
{
	struct ibfmd_listen *l = arg;

	(void)el;
	(void)sa;
	(void)len;
	l->cb(l->arg, fd);
}

static void on_resume(evutil_socket_t fd, short what, void *arg)
{
	struct ibfmd_listen *l = arg;

	(void)fd;
	(void)what;
	evconnlistener_enable(l->l);
}

int ibfmd_listen_open(struct event_base *base, const struct sockaddr *sa,
		      socklen_t len, ibfmd_listen_fn cb, void *arg,
		      struct ibfmd_log_module *log, const char *what,
		      struct ibfmd_listen **out)
{
	struct ibfmd_listen *l = calloc(1, sizeof(*l));

	*out = NULL;
	if (!l)
		return -ENOMEM;
	l->cb = cb;
	l->arg = arg;
	l->log = log;
	l->what = what;
	l->rl = (struct ibfmd_log_rl)IBFMD_LOG_RL_INIT(5, 5);
	l->resume = evtimer_new(base, on_resume, l);
	errno = 0;
	l->l = l->resume
		       ? evconnlistener_new_bind(base, on_accept, l,
						 LEV_OPT_CLOSE_ON_FREE |
							 LEV_OPT_CLOSE_ON_EXEC |
							 LEV_OPT_REUSEABLE,
						 128, sa, (int)len)
		       : NULL;
	if (!l->l) {
		int rc = errno ? -errno : -ENOMEM;

		ibfmd_listen_close(l);
		return rc;
	}
	evconnlistener_set_error_cb(l->l, on_accept_error);
	*out = l;
	return 0;
}

int ibfmd_listen_conn(struct event_base *base, evutil_socket_t fd,
		      event_callback_fn timer_cb, void *arg,
		      struct bufferevent **bev, struct event **timer)
{
	*bev = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
	*timer = evtimer_new(base, timer_cb, arg);
	if (*bev && *timer)
		return 0;
	if (*bev)
		bufferevent_free(*bev);
	else
		evutil_closesocket(fd);
	if (*timer)
		event_free(*timer);
	*bev = NULL;
	*timer = NULL;
	return -ENOMEM;
}

void ibfmd_listen_tell(evutil_socket_t fd, const char *msg)
{
	if (send(fd, msg, strlen(msg), MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		(void)0; /* gone, or not reading: nothing more to do */
}

evutil_socket_t ibfmd_listen_fd(const struct ibfmd_listen *l)
{
	return evconnlistener_get_fd(l->l);
}

void ibfmd_listen_close(struct ibfmd_listen *l)
{
	if (!l)
		return;
	if (l->l)
		evconnlistener_free(l->l);
	if (l->resume)
		event_free(l->resume);
	free(l);
}
