// SPDX-License-Identifier: MIT
/*
 * ctl_client: a test client for ibfmd's control socket.
 *   ctl_client SOCKET line TEXT      send TEXT and a newline, print the reply
 *   ctl_client SOCKET flood BYTES    send BYTES without a newline, print the reply
 *   ctl_client SOCKET many N         hold N connections open, then ask
 *                                    "status" on a new one and print the reply
 *   ctl_client SOCKET held SECONDS   connect, wait, then ask "status" on
 *                                    that same connection
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int dial(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun)))
		return -1;
	return fd;
}

/* Prints the reply line, however long, or "(closed)". */
static int reply(int fd)
{
	char buf[4096];
	size_t total = 0;
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = '\0';
		fputs(buf, stdout);
		total += (size_t)n;
		if (memchr(buf, '\n', (size_t)n))
			break;
	}
	if (!total) {
		printf("(closed)\n");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long n, i;
	int fd, *fds;

	if (argc != 4)
		return 2;
	/* A daemon that hangs up on a flood must not kill the client. */
	signal(SIGPIPE, SIG_IGN);
	if (!strcmp(argv[2], "line")) {
		fd = dial(argv[1]);
		if (fd < 0 || write(fd, argv[3], strlen(argv[3])) < 0 ||
		    write(fd, "\n", 1) < 0)
			return 1;
		return reply(fd);
	}
	n = atol(argv[3]);
	if (!strcmp(argv[2], "held")) {
		fd = dial(argv[1]);
		if (fd < 0)
			return 1;
		sleep((unsigned)n);
		if (write(fd, "{\"cmd\":\"status\"}\n", 17) < 0)
			return 1;
		return reply(fd);
	}
	if (!strcmp(argv[2], "flood")) {
		char *junk = malloc(n);

		fd = dial(argv[1]);
		if (!junk || fd < 0)
			return 1;
		memset(junk, 'x', n);
		for (i = 0; i < n;) {
			ssize_t w = write(fd, junk + i, n - i);

			if (w <= 0)
				break; /* the daemon hung up: fine */
			i += w;
		}
		free(junk);
		return reply(fd);
	}
	fds = calloc(n, sizeof(*fds));
	for (i = 0; fds && i < n; i++)
		fds[i] = dial(argv[1]);
	fd = dial(argv[1]);
	free(fds); /* the connections stay open until exit */
	if (fd < 0)
		return 1;
	/*
	 * Past the cap the daemon writes its refusal and hangs up, maybe
	 * before this request goes out (EPIPE); the refusal is still there
	 * to read.
	 */
	if (write(fd, "{\"cmd\":\"status\"}\n", 17) < 0)
		(void)0;
	return reply(fd);
}
