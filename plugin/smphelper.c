// SPDX-License-Identifier: MIT
/*
 * DOC: ibfm-smp-helper, the plugin's hands on the wire.
 *
 * The plugin's fast path (plugin/fastpath.c) starts this process beside
 * OpenSM and sends it directed-route SMPs to make (plugin/smpwire.h) on
 * its standard input; it answers each on its standard output. It opens
 * its own umad port (the SM's port, by GUID) with its own agent, so the
 * fast path never sends on OpenSM's MAD layer nor waits behind OpenSM's
 * sweep, and never registers a second agent inside OpenSM's process
 * (libumad2sim, which runs OpenSM on ibsim, hands every answer of a
 * management class to the last agent registered for it, which would
 * steal OpenSM's own answers). It exits when its input closes.
 *
 * Usage: ibfm-smp-helper PORT_GUID WINDOW TIMEOUT_MS RETRIES [MKEY]
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin/smpwin.h"

/* Writes all of 'buf', or exits: the plugin has gone. */
static void write_all(const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(STDOUT_FILENO, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			exit(0);
		p += n;
		len -= (size_t)n;
	}
}

static void reply(void *ctx, const struct ibfm_smpwire_reply *r)
{
	(void)ctx;
	write_all(r, sizeof(*r));
}

/*
 * Requests read by the input thread, waiting for the sending loop. Two
 * threads because libumad2sim's poll() waits on its umad descriptor
 * alone, ignoring the others in the set.
 */
struct inbox {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct ibfm_smpwire_req *v;
	size_t n, cap;
	bool eof; /* the plugin closed our input: done */
};

/* Adds whole requests of 'buf' to the inbox; -ENOMEM. */
static int inbox_add(struct inbox *in, const char *buf, size_t n)
{
	size_t k = n / sizeof(*in->v), need = in->n + k;

	if (need > in->cap) {
		size_t cap = need * 2;
		void *v = realloc(in->v, cap * sizeof(*in->v));

		if (!v)
			return -ENOMEM;
		in->v = v;
		in->cap = cap;
	}
	memcpy(in->v + in->n, buf, k * sizeof(*in->v));
	in->n = need;
	return 0;
}

/* The input thread: reads requests until the plugin closes the pipe. */
static void *read_input(void *arg)
{
	static char buf[64 * sizeof(struct ibfm_smpwire_req)];
	struct inbox *in = arg;
	size_t have = 0, whole;
	ssize_t n;
	int rc = 0;

	for (;;) {
		n = read(STDIN_FILENO, buf + have, sizeof(buf) - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		whole = have - have % sizeof(struct ibfm_smpwire_req);
		pthread_mutex_lock(&in->lock);
		rc = inbox_add(in, buf, whole);
		pthread_cond_signal(&in->cond);
		pthread_mutex_unlock(&in->lock);
		if (rc)
			break;
		memmove(buf, buf + whole, have - whole);
		have -= whole;
	}
	pthread_mutex_lock(&in->lock);
	in->eof = true;
	pthread_cond_signal(&in->cond);
	pthread_mutex_unlock(&in->lock);
	return NULL;
}

/*
 * Moves the inbox into the window; waits for requests while nothing is
 * in flight. False once the input is closed.
 */
static bool take_requests(struct inbox *in, struct ibfm_smpwin *w)
{
	size_t i;
	bool more;

	pthread_mutex_lock(&in->lock);
	while (!in->eof && !in->n && !ibfm_smpwin_busy(w))
		pthread_cond_wait(&in->cond, &in->lock);
	for (i = 0; i < in->n; i++)
		if (ibfm_smpwin_post(w, &in->v[i]))
			in->eof = true;
	in->n = 0;
	more = !in->eof;
	pthread_mutex_unlock(&in->lock);
	return more;
}

int main(int argc, char **argv)
{
	struct ibfm_smpwin_opts o = { 0 };
	struct ibfm_smpwire_reply ready = { .id = IBFM_SMPWIRE_READY };
	struct inbox in = { .lock = PTHREAD_MUTEX_INITIALIZER,
			    .cond = PTHREAD_COND_INITIALIZER };
	struct ibfm_smpwin *w = NULL;
	pthread_t reader;
	uint64_t guid;
	char why[256];

	if (argc < 5 || argc > 6) {
		fprintf(stderr, "usage: %s PORT_GUID WINDOW TIMEOUT_MS RETRIES "
				"[MKEY]\n",
			argv[0]);
		return 2;
	}
	guid = strtoull(argv[1], NULL, 0);
	o.window = (unsigned)strtoul(argv[2], NULL, 0);
	o.timeout_ms = (unsigned)strtoul(argv[3], NULL, 0);
	o.retries = (unsigned)strtoul(argv[4], NULL, 0);
	o.mkey = argc > 5 ? strtoull(argv[5], NULL, 0) : 0;
	ready.status = ibfm_smpwin_open(guid, &o, &w, why, sizeof(why));
	if (ready.status)
		fprintf(stderr, "ibfm-smp-helper: %s\n", why);
	write_all(&ready, sizeof(ready));
	if (ready.status)
		return 1;
	if (pthread_create(&reader, NULL, read_input, &in))
		return 1;
	while (take_requests(&in, w)) {
		struct pollfd pfd = { .fd = ibfm_smpwin_fd(w),
				      .events = POLLIN };
		int wait = ibfm_smpwin_wait_ms(w);

		ibfm_smpwin_step(w, reply, NULL);
		/* At most 1 ms, so that new requests wait no longer. */
		if (ibfm_smpwin_busy(w))
			poll(&pfd, 1, wait < 0 || wait > 1 ? 1 : wait);
		ibfm_smpwin_step(w, reply, NULL);
	}
	/* No ibfm_smpwin_close(): libumad2sim's close frees what its
	 * receiver thread still uses (a heap corruption once an SMP went
	 * unanswered); the port goes with the process, and exit() (not
	 * _exit) lets libumad2sim give ibsim its client slot back. */
	exit(0);
}
