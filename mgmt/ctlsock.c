// SPDX-License-Identifier: MIT
/* The control socket's glue to libevent (mgmt/ctlsock.h). */
#include "mgmt/ctlsock.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/listener.h>

#include "mgmt/log.h"

#define MAX_CLIENTS 256
#define MAX_OUTPUT (1 << 20) /* a client this far behind is dropped */

IBFMD_LOG_MODULE(ctl);

struct ibfmd_ctlsock {
	struct event_base *base;
	struct evconnlistener *listener;
	struct ibfm_ctl *ctl;
	char path[108];
	unsigned clients;
};

static void client_close(struct ibfmd_ctlsock *s, struct bufferevent *bev)
{
	bufferevent_free(bev);
	s->clients--;
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

static void client_reply_error_and_close(struct ibfmd_ctlsock *s,
					 struct bufferevent *bev,
					 const char *why)
{
	char msg[256];

	snprintf(msg, sizeof(msg), "{\"error\":\"%s\"}\n", why);
	bufferevent_write(bev, msg, strlen(msg));
	bufferevent_disable(bev, EV_READ);
	bufferevent_setcb(bev, NULL, client_drained, client_event, s);
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
	struct ibfmd_ctlsock *s = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	struct ibfm_ctl_peer peer;
	gid_t groups[64], *more = NULL;
	char *line;
	size_t len;

	if (peer_of(bufferevent_getfd(bev), &peer, groups, 64, &more)) {
		free(more);
		IBFMD_WARN_RL("a client's credentials cannot be read: closed");
		client_reply_error_and_close(
			s, bev, "permission denied: no peer credentials");
		return;
	}
	while ((line = evbuffer_readln(in, &len, EVBUFFER_EOL_LF))) {
		char *reply = NULL;
		size_t rlen = 0;
		FILE *out = open_memstream(&reply, &rlen);

		if (out) {
			ibfm_ctl_handle_from(s->ctl, &peer, line, len, out);
			fclose(out);
			bufferevent_write(bev, reply, rlen);
		}
		free(reply);
		free(line);
	}
	free(more);
	if (evbuffer_get_length(in) > IBFM_CTL_MAX_LINE) {
		IBFMD_WARN_RL("a client sent a line over %d bytes: dropped",
			      IBFM_CTL_MAX_LINE);
		client_reply_error_and_close(s, bev,
					     "request longer than 65536 bytes");
		return;
	}
	if (evbuffer_get_length(bufferevent_get_output(bev)) > MAX_OUTPUT) {
		IBFMD_WARN_RL("a client does not read its replies: dropped");
		client_close(s, bev);
	}
}

static void accept_client(struct evconnlistener *l, evutil_socket_t fd,
			  struct sockaddr *sa, int salen, void *arg)
{
	struct ibfmd_ctlsock *s = arg;
	struct bufferevent *bev;

	(void)l;
	(void)sa;
	(void)salen;
	if (s->clients >= MAX_CLIENTS) {
		static const char busy[] = "{\"error\":\"too many clients\"}\n";

		IBFMD_WARN_RL("%d clients: one more refused", MAX_CLIENTS);
		if (write(fd, busy, sizeof(busy) - 1) < 0)
			(void)0;
		evutil_closesocket(fd);
		return;
	}
	bev = bufferevent_socket_new(s->base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (!bev) {
		evutil_closesocket(fd);
		return;
	}
	s->clients++;
	/* Read no more than a line's worth ahead: memory stays bounded. */
	bufferevent_setwatermark(bev, EV_READ, 0, IBFM_CTL_MAX_LINE + 2);
	bufferevent_setcb(bev, client_read, NULL, client_event, s);
	bufferevent_enable(bev, EV_READ | EV_WRITE);
}

int ibfmd_ctlsock_open(struct event_base *base, const char *path,
		       struct ibfm_ctl *ctl, struct ibfmd_ctlsock **out)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct ibfmd_ctlsock *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->base = base;
	s->ctl = ctl;
	snprintf(s->path, sizeof(s->path), "%s", path);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	unlink(sun.sun_path);
	s->listener = evconnlistener_new_bind(
		base, accept_client, s,
		LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 64,
		(struct sockaddr *)&sun, sizeof(sun));
	if (!s->listener) {
		int rc = errno ? -errno : -EIO;

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
	evconnlistener_free(s->listener);
	unlink(s->path);
	free(s);
}
