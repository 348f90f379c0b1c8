// SPDX-License-Identifier: MIT
/* The control socket's glue to libevent (mgmt/net/ctlsock.h). */
#include "mgmt/net/ctlsock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>

#include "ctl/frame.h"
#include "mgmt/net/listen.h"
#include "mgmt/base/log.h"
#include "routing/base/clock.h"

#define EVICT_AFTER_MS 250 /* a client this long without a request */

IBFMD_LOG_MODULE(ctl);

struct client {
	TAILQ_ENTRY(client) link; /* in s->clients, longest idle first */
	struct ibfmd_ctlsock *s;
	struct bufferevent *bev;
	struct ibfm_ctl_conn conn; /* its request kept open, if any */
	struct event *idle;	   /* IBFMD_CTL_IDLE_S after its last request */
	struct event *late; /* IBFM_CTL_LATER_MS after a request kept open */
	long long last_ms;  /* its last request, or its connection */
	size_t seen;	    /* of its unfinished line: searched already */
	size_t held;	    /* of its input: counted in s->held */
	bool paused;	    /* not read until its replies drain */
	bool starved;	    /* not read until the budget allows */
	bool eof;	    /* sends no more: closed once answered */
	/* Who connected, read once: fixed when they connected. */
	struct ibfm_ctl_peer peer;
	gid_t groups[64];
	gid_t *more_groups; /* when there are more than 64 */
};

TAILQ_HEAD(client_list, client);

struct ibfmd_ctlsock {
	struct event_base *base;
	struct ibfmd_listen *listen;
	struct ibfm_ctl *ctl;
	char path[108];
	unsigned nclients, max_clients;
	struct client_list clients; /* longest idle first */
	size_t held;		    /* input bytes of all clients */
	unsigned nstarved;
};

static size_t queued(const struct client *c)
{
	return evbuffer_get_length(bufferevent_get_output(c->bev));
}

static void budget(struct ibfmd_ctlsock *s);

static void client_close(struct client *c)
{
	struct ibfmd_ctlsock *s = c->s;

	ibfm_ctl_conn_close(&c->conn);
	TAILQ_REMOVE(&s->clients, c, link);
	s->held -= c->held;
	s->nstarved -= c->starved;
	event_free(c->idle);
	if (c->late)
		event_free(c->late);
	bufferevent_free(c->bev);
	s->nclients--;
	free(c->more_groups);
	free(c);
	budget(s);
}

/* Read unless it sent all, its replies pile up or the budget is spent. */
static void set_reading(struct client *c)
{
	if (c->eof || c->paused || c->starved)
		bufferevent_disable(c->bev, EV_READ);
	else
		bufferevent_enable(c->bev, EV_READ);
}

/*
 * Over IBFMD_CTL_IN_BUDGET, only the client holding the most is read
 * past IBFMD_CTL_IN_FREE: it finishes its line (or is closed for it) and
 * gives its share back; the others wait. Under it, all are read again.
 */
static void budget(struct ibfmd_ctlsock *s)
{
	bool over = s->held > IBFMD_CTL_IN_BUDGET;
	struct client *c, *most = NULL;

	if (!over && !s->nstarved)
		return;
	TAILQ_FOREACH(c, &s->clients, link)
	if (!most || c->held > most->held)
		most = c;
	TAILQ_FOREACH(c, &s->clients, link)
	{
		bool starve = over && c != most && c->held > IBFMD_CTL_IN_FREE;

		if (starve == c->starved)
			continue;
		c->starved = starve;
		if (starve)
			s->nstarved++;
		else
			s->nstarved--;
		set_reading(c);
	}
}

/* What the client's input holds now, into the budget. */
static void held_update(struct client *c)
{
	size_t now = evbuffer_get_length(bufferevent_get_input(c->bev));

	c->s->held = c->s->held - c->held + now;
	c->held = now;
	budget(c->s);
}

/* A request came (or the client did): idle longest is now someone else. */
static void touch(struct client *c)
{
	c->last_ms = ibfm_clock_whole_ms();
	TAILQ_REMOVE(&c->s->clients, c, link);
	TAILQ_INSERT_TAIL(&c->s->clients, c, link);
	event_add(c->idle, &(struct timeval){ IBFMD_CTL_IDLE_S, 0 });
}

static void process(struct client *c);

/* Whether the client closed its end whole, not only its sending half. */
static bool hung_up_whole(struct client *c)
{
	struct pollfd p = { .fd = bufferevent_getfd(c->bev) };

	return poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR));
}

/*
 * Hung up: the requests that came before still get their replies, then
 * it is closed (client_write); closed whole while a reply is to come: it
 * is closed, and the request kept open cancelled. An error, or IBFMD_CTL_STALL_S without
 * reading a reply: closed at once.
 */
static void client_event(struct bufferevent *bev, short what, void *arg)
{
	struct client *c = arg;

	if ((what & BEV_EVENT_EOF) && !(what & BEV_EVENT_ERROR)) {
		bufferevent_disable(bev, EV_READ);
		if (!c->eof) {
			c->eof = true;
			bufferevent_setwatermark(bev, EV_WRITE, 0, 0);
			process(c);
		}
		/* Waiting for a late reply: kept, unless no one is left. */
		if (!queued(c) && (!c->conn.later || hung_up_whole(c)))
			client_close(c);
		return;
	}
	if (what & BEV_EVENT_TIMEOUT)
		IBFMD_INFO_RL(
			"a client read none of its replies for %d s: closed",
			IBFMD_CTL_STALL_S);
	client_close(c);
}

/* No request for IBFMD_CTL_IDLE_S: closed, unless it is still owed. */
static void client_idle(evutil_socket_t fd, short what, void *arg)
{
	struct client *c = arg;

	(void)fd;
	(void)what;
	if (queued(c) || c->conn.later || c->starved) {
		/* Replies still going out or to come: the stall timeout or
		 * the request's own judges; starved: the budget's doing. */
		event_add(c->idle, &(struct timeval){ IBFMD_CTL_IDLE_S, 0 });
		return;
	}
	IBFMD_DBG("a client asked nothing for %d s: closed", IBFMD_CTL_IDLE_S);
	client_close(c);
}

/* Answers nothing more: closed once 'why' went out (client_write). */
static void client_reply_error_and_close(struct client *c, const char *why)
{
	char msg[256];

	snprintf(msg, sizeof(msg), "{\"error\":\"%s\"}\n", why);
	bufferevent_write(c->bev, msg, strlen(msg));
	evbuffer_drain(bufferevent_get_input(c->bev), (size_t)-1);
	bufferevent_disable(c->bev, EV_READ);
	bufferevent_setwatermark(c->bev, EV_WRITE, 0, 0);
	c->eof = true;
}

/*
 * One request line (ctl/frame.h): answered. False once the client is far
 * enough behind with reading its replies.
 */
static bool answer(void *arg, const char *line, size_t len)
{
	struct client *c = arg;
	char *reply = NULL;
	size_t rlen = 0;
	FILE *out = open_memstream(&reply, &rlen);

	if (out) {
		/* Without its timer a request cannot be kept: answered now. */
		ibfm_ctl_handle_conn(c->s->ctl, &c->peer,
				     c->late ? &c->conn : NULL, line, len, out);
		fclose(out);
		bufferevent_write(c->bev, reply, rlen);
	}
	free(reply);
	touch(c);
	if (c->conn.later) /* answered later: the next line waits */
		event_add(c->late,
			  &(struct timeval){ IBFM_CTL_LATER_MS / 1000, 0 });
	return !c->conn.later && queued(c) < IBFMD_CTL_OUT_HIGH;
}

/* The late reply to its request kept open: sent, then the next lines. */
static void late_send(struct ibfm_ctl_conn *conn, const char *reply, size_t len)
{
	struct client *c =
		(struct client *)((char *)conn - offsetof(struct client, conn));

	event_del(c->late);
	bufferevent_write(c->bev, reply, len);
	touch(c);
	process(c);
}

/* Its request kept open ran out of time: the client is told. */
static void client_late(evutil_socket_t fd, short what, void *arg)
{
	struct client *c = arg;

	(void)fd;
	(void)what;
	ibfm_ctl_conn_expire(&c->conn);
}

/*
 * Answers the whole lines the client sent, until its replies pile up:
 * then it is not read until they drained (client_write), and the lines
 * not answered yet wait in its input.
 */
static void process_lines(struct client *c)
{
	struct evbuffer *in = bufferevent_get_input(c->bev);
	size_t len = evbuffer_get_length(in);
	long taken;

	if (!len || c->conn.later)
		return;
	taken = ibfm_frame_lines((const char *)evbuffer_pullup(in, -1), len,
				 IBFM_CTL_MAX_LINE, &c->seen, answer, c);
	if (taken < 0) {
		char why[64];

		IBFMD_WARN_RL("a client sent a line over %d bytes: dropped",
			      IBFM_CTL_MAX_LINE);
		snprintf(why, sizeof(why), "request longer than %d bytes",
			 IBFM_CTL_MAX_LINE);
		client_reply_error_and_close(c, why);
		return;
	}
	evbuffer_drain(in, (size_t)taken);
	if (queued(c) >= IBFMD_CTL_OUT_HIGH && !c->paused) {
		c->paused = true;
		set_reading(c);
	}
}

/* process_lines(), what it left counted in the budget. */
static void process(struct client *c)
{
	process_lines(c);
	held_update(c);
}

/*
 * Who is at the other end of 'fd', as the kernel recorded it when they
 * connected: uid, gid and pid (SO_PEERCRED) and the supplementary
 * groups (SO_PEERGROUPS) into 'buf' of 'n', or into '*heap' (the
 * caller frees it) when there are more. A kernel without SO_PEERGROUPS
 * (before 4.13) gives the primary group only. 0 or a negative errno.
 */
static int peer_of(evutil_socket_t fd, struct ibfm_ctl_peer *p, gid_t *buf,
		   size_t n, gid_t **heap)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len))
		return -errno;
	*p = (struct ibfm_ctl_peer){ uc.uid, uc.gid, uc.pid, buf, 0 };
	len = (socklen_t)(n * sizeof(*buf));
	if (!getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, buf, &len)) {
		p->ngroups = len / sizeof(*buf);
		return 0;
	}
	if (errno == ENOPROTOOPT)
		return 0;
	if (errno != ERANGE)
		return -errno;
	*heap = malloc(len);
	if (!*heap)
		return -ENOMEM;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, *heap, &len))
		return -errno;
	p->groups = *heap;
	p->ngroups = len / sizeof(*buf);
	return 0;
}

static void client_read(struct bufferevent *bev, void *arg)
{
	(void)bev;
	process(arg);
}

/*
 * Its replies drained to IBFMD_CTL_OUT_LOW (to nothing once it hung up):
 * read and answer it again; closed when it hung up and all is answered.
 */
static void client_write(struct bufferevent *bev, void *arg)
{
	struct client *c = arg;

	(void)bev;
	if (c->paused) {
		c->paused = false;
		set_reading(c);
		process(c);
	}
	if (c->eof && !c->paused && !queued(c))
		client_close(c);
}

/* At the cap: closes the client idle longest, if one is; whether it did. */
static bool evict(struct ibfmd_ctlsock *s)
{
	struct client *c = TAILQ_FIRST(&s->clients);

	if (!c || c->paused || queued(c) || c->conn.later ||
	    ibfm_clock_whole_ms() - c->last_ms < EVICT_AFTER_MS)
		return false;
	IBFMD_INFO_RL("%u clients: the one idle longest closed for a new one",
		      s->max_clients);
	client_close(c);
	return true;
}

static void accept_client(void *arg, evutil_socket_t fd)
{
	struct ibfmd_ctlsock *s = arg;
	struct ibfm_ctl_peer peer;
	gid_t groups[64], *more = NULL;
	struct client *c;

	if (peer_of(fd, &peer, groups, 64, &more)) {
		free(more);
		IBFMD_WARN_RL("a client's credentials cannot be read: closed");
		ibfmd_listen_tell(
			fd,
			"{\"error\":\"permission denied: no peer credentials\"}\n");
		evutil_closesocket(fd);
		return;
	}
	if (s->nclients >= s->max_clients && !evict(s)) {
		char busy[128];

		snprintf(
			busy, sizeof(busy),
			"{\"error\":\"too many clients (%u): try again later\"}\n",
			s->max_clients);
		IBFMD_WARN_RL("%u clients, none idle: one more refused",
			      s->max_clients);
		ibfmd_listen_tell(fd, busy);
		evutil_closesocket(fd);
		free(more);
		return;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		evutil_closesocket(fd);
	if (!c ||
	    ibfmd_listen_conn(s->base, fd, client_idle, c, &c->bev, &c->idle)) {
		free(c);
		free(more);
		return;
	}
	c->s = s;
	c->conn.send = late_send;
	c->late = event_new(s->base, -1, 0, client_late, c);
	c->peer = peer;
	memcpy(c->groups, groups, sizeof(groups));
	c->more_groups = more;
	c->peer.groups = more ? more : c->groups;
	TAILQ_INSERT_TAIL(&s->clients, c, link);
	s->nclients++;
	touch(c);
	/* Read no more than a line's worth ahead: memory stays bounded. */
	bufferevent_setwatermark(c->bev, EV_READ, 0, IBFM_CTL_MAX_LINE + 1);
	bufferevent_setwatermark(c->bev, EV_WRITE, IBFMD_CTL_OUT_LOW, 0);
	bufferevent_set_timeouts(c->bev, NULL,
				 &(struct timeval){ IBFMD_CTL_STALL_S, 0 });
	bufferevent_setcb(c->bev, client_read, client_write, client_event, c);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
}

int ibfmd_ctlsock_lock(const char *path, int fd)
{
	char lock[sizeof(((struct sockaddr_un *)0)->sun_path) + 8], pid[32];
	int n;

	snprintf(lock, sizeof(lock), "%s.lock", path);
	if (fd < 0) {
		fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
			  0644);
		if (fd < 0) {
			int rc = -errno;

			IBFMD_ERR("%s: cannot open the lock: %s", lock,
				  strerror(-rc));
			return rc;
		}
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			int rc = errno == EWOULDBLOCK ? -EBUSY : -errno;
			ssize_t got = pread(fd, pid, sizeof(pid) - 1, 0);

			pid[got > 0 ? got : 0] = '\0';
			pid[strcspn(pid, "\n")] = '\0';
			if (rc == -EBUSY)
				IBFMD_ERR(
					"another ibfmd (pid %s) holds %s and serves %s: not starting a second one",
					pid[0] ? pid : "unknown", lock, path);
			else
				IBFMD_ERR("%s: cannot lock: %s", lock,
					  strerror(-rc));
			close(fd);
			return rc;
		}
	}
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, pid, (size_t)n, 0) != n)
		IBFMD_WARN("%s: cannot write the pid: %s", lock,
			   strerror(errno));
	return fd;
}

int ibfmd_ctlsock_open(struct event_base *base, const char *path,
		       struct ibfm_ctl *ctl, unsigned max_clients,
		       struct ibfmd_ctlsock **out)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct ibfmd_ctlsock *s = calloc(1, sizeof(*s));
	int rc;

	if (!s)
		return -ENOMEM;
	s->base = base;
	s->ctl = ctl;
	s->max_clients = max_clients ? max_clients : 1;
	TAILQ_INIT(&s->clients);
	snprintf(s->path, sizeof(s->path), "%s", path);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	unlink(sun.sun_path);
	rc = ibfmd_listen_open(base, (struct sockaddr *)&sun, sizeof(sun),
			       accept_client, s, ibfmd_log_this,
			       "the control socket", &s->listen);
	if (rc) {
		IBFMD_ERR("%s: cannot listen: %s", path, strerror(-rc));
		free(s);
		return rc;
	}
	chmod(sun.sun_path, 0660);
	*out = s;
	return 0;
}

void ibfmd_ctlsock_close(struct ibfmd_ctlsock *s)
{
	if (!s)
		return;
	ibfmd_listen_close(s->listen);
	while (!TAILQ_EMPTY(&s->clients))
		client_close(TAILQ_FIRST(&s->clients));
	unlink(s->path);
	free(s);
}
