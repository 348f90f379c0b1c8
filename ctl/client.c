// SPDX-License-Identifier: MIT
/* One request, one reply over ibfmd's control socket (ctl/client.h). */
#include "ctl/client.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Reads one reply line; NULL when the daemon closed without one. */
static char *read_reply(int fd)
{
	size_t got = 0, cap = 1 << 16;
	char *buf = malloc(cap), *b;

	if (!buf)
		return NULL;
	for (;;) {
		ssize_t n;

		if (got + 1 == cap) {
			b = cap < IBFM_CLIENT_MAX_REPLY ? realloc(buf, cap * 2)
							: NULL;
			if (!b)
				break;
			buf = b;
			cap *= 2;
		}
		n = read(fd, buf + got, cap - got - 1);
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
		return NULL;
	}
	buf[got] = '\0';
	return buf;
}

/* Writes all of 'line'; false when the daemon went away. */
static bool write_all(int fd, const char *line)
{
	size_t left = strlen(line);

	while (left) {
		ssize_t n = send(fd, line, left, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		line += n;
		left -= (size_t)n;
	}
	return true;
}

int ibfm_client_ask(const char *path, const char *line, char **reply)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	*reply = NULL;
	if (strlen(path) >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	memcpy(sun.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	if (write_all(fd, line))
		*reply = read_reply(fd);
	close(fd);
	return *reply ? 0 : -EPIPE;
}

bool ibfm_client_is_error(const char *reply)
{
	return !strncmp(reply, "{\"error\":", 9);
}
