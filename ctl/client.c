// SPDX-License-Identifier: MIT
/* One request, one reply over ibfmd's control socket (ctl/client.h). */
#include "ctl/client.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "routing/base/clock.h"

/* Milliseconds left until 'deadline' (ibfm_clock_whole_ms()); -1: none. */
static int left_ms(long long deadline)
{
	long long now;

	if (!deadline)
		return -1;
	now = ibfm_clock_whole_ms();
	return now >= deadline ? 0 : (int)(deadline - now);
}

/*
 * Reads one reply line into '*reply' before 'deadline' (0: none).
 * 0; -ETIMEDOUT; -EPIPE when the daemon closed without one.
 */
static int read_reply(int fd, long long deadline, char **reply)
{
	size_t got = 0, cap = 1 << 16;
	char *buf = malloc(cap), *b;

	if (!buf)
		return -EPIPE;
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;
		int ready;

		if (got + 1 == cap) {
			b = cap < IBFM_CLIENT_MAX_REPLY ? realloc(buf, cap * 2)
							: NULL;
			if (!b)
				break;
			buf = b;
			cap *= 2;
		}
		ready = poll(&p, 1, left_ms(deadline));
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready == 0) {
			free(buf);
			return -ETIMEDOUT;
		}
		n = ready < 0 ? -1 : read(fd, buf + got, cap - got - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
		if (memchr(buf + got - n, '\n', (size_t)n))
			break;
	}
	if (!got) {
		free(buf);
		return -EPIPE;
	}
	buf[got] = '\0';
	*reply = buf;
	return 0;
}

/* Writes all of 'line'; 0, -ETIMEDOUT, or -EPIPE when the daemon went away. */
static int write_all(int fd, const char *line)
{
	size_t left = strlen(line);

	while (left) {
		/* MSG_NOSIGNAL: a daemon that hung up is an error, not SIGPIPE. */
		ssize_t n = send(fd, line, left, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return -ETIMEDOUT; /* SO_SNDTIMEO */
		if (n <= 0)
			return -EPIPE;
		line += n;
		left -= (size_t)n;
	}
	return 0;
}

int ibfm_client_ask(const char *path, const char *line, unsigned timeout_ms,
		    char **reply)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct timeval tv = { (time_t)(timeout_ms / 1000),
			      (suseconds_t)(timeout_ms % 1000) * 1000 };
	long long deadline = 0;
	int fd, rc;

	*reply = NULL;
	if (strlen(path) >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	memcpy(sun.sun_path, path, strlen(path) + 1);
	if (timeout_ms)
		deadline = ibfm_clock_whole_ms() + timeout_ms;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* Bounds connect() (a full backlog) and send() too. */
	if (timeout_ms)
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		rc = errno == EAGAIN || errno == EINPROGRESS ? -ETIMEDOUT
							     : -errno;
		close(fd);
		return rc;
	}
	rc = write_all(fd, line);
	/*
	 * A daemon that refused the connection (too many clients) may have
	 * hung up before the request went out: its reason is still there.
	 */
	if (rc != -ETIMEDOUT)
		rc = read_reply(fd, deadline, reply);
	close(fd);
	return rc;
}

bool ibfm_client_is_error(const char *reply)
{
	return !strncmp(reply, "{\"error\":", 9);
}
