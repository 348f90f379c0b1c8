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
 * steal OpenSM's own answers). It exits when its input closes, and the
 * kernel ends it when the thread that started it goes (OpenSM killed):
 * none outlives its SM.
 *
 * The SMPs go through mgmt/madwin (a window of MADs in flight, answers
 * matched by transaction ID, bounded retries), as ibfmd's do.
 *
 * Usage: ibfm-smp-helper, with no argument: its port, window and the
 * SM's M_Key come as the first record on its input (struct
 * ibfm_smpwire_conf), never on its command line.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <endian.h>
#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "mgmt/mad/madwin.h"
#include "plugin/smpwire.h"

/* Writes all of 'buf' to the plugin, or exits: the plugin has gone. */
static void write_all(const void *buf, size_t len)
{
	if (ibfm_smpwire_write(STDOUT_FILENO, buf, len))
		exit(0);
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
	size_t at; /* the next one to send */
	bool eof;  /* the plugin closed our input: done */
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
	int rc = 0;

	for (;;) {
		ssize_t n = read(STDIN_FILENO, buf + have, sizeof(buf) - have);
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

/* What the window's callbacks share. */
struct helper {
	struct inbox *in;
	uint64_t mkey;
};

/* The next request the plugin sent, if any (never waits). */
static bool next_req(void *arg, struct ibfm_madwin_req *r)
{
	struct helper *h = arg;
	struct ibfm_smpwire_req q;
	bool have;

	pthread_mutex_lock(&h->in->lock);
	have = h->in->at < h->in->n;
	if (have)
		q = h->in->v[h->in->at++];
	pthread_mutex_unlock(&h->in->lock);
	if (!have)
		return false;
	ibfm_madwin_smp_dr(r, q.path + 1, q.hops,
			   q.method == IBFM_SMPWIRE_SET ? IB_MAD_METHOD_SET
							: IB_MAD_METHOD_GET,
			   q.attr, q.mod);
	r->tag = q.id;
	r->key = h->mkey;
	memcpy(r->data, q.data, sizeof(q.data));
	return true;
}

/* Its answer, to the plugin. */
static int done_req(void *arg, struct ibfm_madwin_req *r)
{
	struct ibfm_smpwire_reply a = { .id = (uint32_t)r->tag };

	(void)arg;
	a.status = r->rc ? r->rc : r->status;
	if (!r->rc)
		memcpy(a.data, r->data, sizeof(a.data));
	write_all(&a, sizeof(a));
	return 0;
}

/*
 * Waits until the plugin sent requests not yet taken; false once its
 * pipe is closed.
 */
static bool wait_requests(struct inbox *in)
{
	bool more;

	pthread_mutex_lock(&in->lock);
	if (in->at == in->n)
		in->at = in->n = 0;
	while (!in->eof && !in->n)
		pthread_cond_wait(&in->cond, &in->lock);
	more = !in->eof;
	pthread_mutex_unlock(&in->lock);
	return more;
}

/* The CA and port number of the local port 'guid' (0: any). */
static int find_port(uint64_t guid, char *ca, int *port)
{
	char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
	__be64 guids[UMAD_MAX_PORTS + 1];
	int n, i, k;

	*port = 0;
	ca[0] = '\0';
	if (!guid)
		return 0;
	n = umad_get_cas_names(names, UMAD_MAX_DEVICES);
	for (i = 0; i < n; i++) {
		int m = umad_get_ca_portguids(names[i], guids,
					      UMAD_MAX_PORTS + 1);
		for (k = 0; k < m; k++)
			if (be64toh(guids[k]) == guid) {
				memcpy(ca, names[i], UMAD_CA_NAME_LEN);
				ca[UMAD_CA_NAME_LEN - 1] = '\0';
				*port = k;
				return 0;
			}
	}
	return -ENODEV;
}

/* The window on the local port 'guid'; 0 or -errno (said on stderr). */
static int open_window(uint64_t guid, const struct ibfm_madwin_opts *o,
		       struct ibfm_madwin **w)
{
	int classes[] = { IB_SMI_DIRECT_CLASS };
	struct ibfm_madwin_port port;
	struct ibmad_port *mp;
	char ca[UMAD_CA_NAME_LEN];
	int portnum, rc;

	rc = find_port(guid, ca, &portnum);
	if (rc) {
		fprintf(stderr, "ibfm-smp-helper: no local port 0x%016llx\n",
			(unsigned long long)guid);
		return rc;
	}
	mp = mad_rpc_open_port(ca[0] ? ca : NULL, portnum, classes, 1);
	if (!mp) {
		fprintf(stderr, "ibfm-smp-helper: cannot open port 0x%016llx\n",
			(unsigned long long)guid);
		return -EIO;
	}
	ibfm_madwin_port_of(mp, &port);
	rc = ibfm_madwin_create(&port, o, w);
	if (rc)
		fprintf(stderr, "ibfm-smp-helper: %s\n", strerror(-rc));
	return rc;
}

/* The plugin's first record: what to open, how. 0 or -errno. */
static int read_conf(struct ibfm_smpwire_conf *c, struct ibfm_madwin_opts *o)
{
	/* No poll: libumad2sim's would not see a non-umad descriptor. */
	if (ibfm_smpwire_read(STDIN_FILENO, c, sizeof(*c), -1))
		return -EIO;
	if (c->magic != IBFM_SMPWIRE_MAGIC)
		return -EPROTO;
	o->window = c->window;
	o->timeout_ms = c->timeout_ms;
	o->retries = c->retries;
	o->no_retries = !c->retries;
	return 0;
}

int main(int argc, char **argv)
{
	struct ibfm_madwin_opts o = { 0 };
	struct ibfm_smpwire_conf conf;
	struct ibfm_smpwire_reply ready = { .id = IBFM_SMPWIRE_READY };
	struct inbox in = { .lock = PTHREAD_MUTEX_INITIALIZER,
			    .cond = PTHREAD_COND_INITIALIZER };
	struct helper h = { .in = &in };
	struct ibfm_madwin *w = NULL;
	pthread_t reader;
	pid_t parent = getppid();

	if (argc != 1) {
		fprintf(stderr,
			"usage: %s (no arguments: the plugin sends them on "
			"standard input)\n",
			argv[0]);
		return 2;
	}
	/* Ended with OpenSM; and it may have gone before we asked. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != parent)
		return 1;
	ready.status = read_conf(&conf, &o);
	if (!ready.status)
		ready.status = open_window(conf.port_guid, &o, &w);
	h.mkey = conf.mkey;
	write_all(&ready, sizeof(ready));
	if (ready.status)
		return 1;
	if (pthread_create(&reader, NULL, read_input, &in))
		return 1;
	while (wait_requests(&in))
		ibfm_madwin_run(w, next_req, done_req, &h);
	/* The port is not closed: libumad2sim's close frees what its
	 * receiver thread still uses; the port goes with the process, and
	 * exit() (not _exit) lets libumad2sim give ibsim its client slot
	 * back. */
	exit(0);
}
