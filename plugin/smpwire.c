// SPDX-License-Identifier: MIT
/* The plugin's and the SMP helper's pipes (plugin/smpwire.h). */
#include "plugin/smpwire.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <unistd.h>

/* Moves 'len' bytes to or from 'fd'; with ms >= 0, each wait bounded. */
static int move(int fd, char *p, size_t len, int ms, bool out)
{
	while (len) {
		ssize_t n;

		if (ms >= 0) {
			struct pollfd pfd = { .fd = fd,
					      .events =
						      out ? POLLOUT : POLLIN };
			int rc = poll(&pfd, 1, ms);

			if (rc < 0 && errno == EINTR)
				continue;
			if (rc == 0)
				return -ETIMEDOUT;
		}
		n = out ? send(fd, p, len, MSG_NOSIGNAL) : read(fd, p, len);
		if (n < 0 && out && errno == ENOTSOCK)
			n = write(fd, p, len); /* a pipe, by hand */
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int ibfm_smpwire_read(int fd, void *buf, size_t len, int ms)
{
	return move(fd, buf, len, ms, false);
}

int ibfm_smpwire_write(int fd, const void *buf, size_t len)
{
	return move(fd, (char *)buf, len, -1, true);
}
