// SPDX-License-Identifier: MIT
/* The control socket's glue to libevent (mgmt/ctlsock.h). */
#include "mgmt/ctlsock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
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

static void client_read(struct bufferevent *bev, void *arg)
{
	struct ibfmd_ctlsock *s = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	char *line;
	size_t len;

	while ((line = evbuffer_readln(in, &len, EVBUFFER_EOL_LF))) {
		char *reply = NULL;
		size_t rlen = 0;
		FILE *out = open_memstream(&reply, &rlen);

		if (out) {
			ibfm_ctl_handle(s->ctl, line, len, out);
			fclose(out);
			bufferevent_write(bev, reply, rlen);
		}
		free(reply);
		free(line);
	}
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
