// SPDX-License-Identifier: MIT
/* A window of directed-route SMPs over libibumad (plugin/smpwin.h). */
#include "plugin/smpwin.h"

#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/umad.h>

#define SMP_SIZE 256
#define CLASS_DR 0x81
/* Offsets in a directed-route SMP (IBA 14.2.1.2). */
#define OFF_METHOD 3
#define OFF_STATUS 4
#define OFF_HOP_PTR 6
#define OFF_HOP_COUNT 7
#define OFF_TID 8
#define OFF_ATTR 16
#define OFF_MOD 20
#define OFF_MKEY 24
#define OFF_DRSLID 32
#define OFF_DRDLID 34
#define OFF_DATA 64
#define OFF_PATH 128

struct slot {
	bool used;
	uint32_t tid;
	unsigned tries;
	double deadline; /* ms, monotonic */
	struct ibfm_smpwire_req req;
};

struct ibfm_smpwin {
	struct ibfm_smpwin_opts o;
	int fd, agent;
	uint32_t next_tid;
	struct slot *slots; /* o.window of them */
	size_t inflight;
	struct ibfm_smpwire_req *queue; /* a ring of qcap */
	size_t qhead, qlen, qcap;
	void *umad; /* one buffer for sending and receiving */
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The CA and port number of the local port 'guid' (0: any). */
static int find_port(uint64_t guid, char *ca, int *port)
{
	char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
	__be64 guids[UMAD_MAX_PORTS + 1];
	int n, i, k, m;

	*port = 0;
	ca[0] = '\0';
	if (!guid)
		return 0;
	n = umad_get_cas_names(names, UMAD_MAX_DEVICES);
	for (i = 0; i < n; i++) {
		m = umad_get_ca_portguids(names[i], guids, UMAD_MAX_PORTS + 1);
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

int ibfm_smpwin_open(uint64_t port_guid, const struct ibfm_smpwin_opts *o,
		     struct ibfm_smpwin **out, char *why, size_t len)
{
	struct ibfm_smpwin *w = calloc(1, sizeof(*w));
	char ca[UMAD_CA_NAME_LEN];
	int port, rc;

	if (!w)
		return -ENOMEM;
	w->o = *o;
	if (!w->o.window)
		w->o.window = 1;
	w->fd = -1;
	w->slots = calloc(w->o.window, sizeof(*w->slots));
	w->umad = umad_alloc(1, umad_size() + SMP_SIZE);
	w->next_tid = (uint32_t)now_ms();
	rc = !w->slots || !w->umad ? -ENOMEM : 0;
	if (!rc && umad_init() < 0)
		rc = -EIO;
	if (!rc)
		rc = find_port(port_guid, ca, &port);
	if (!rc) {
		w->fd = umad_open_port(ca[0] ? ca : NULL, port);
		if (w->fd < 0)
			rc = w->fd;
	}
	if (!rc) {
		w->agent = umad_register(w->fd, CLASS_DR, 1, 0, NULL);
		if (w->agent < 0)
			rc = w->agent;
	}
	if (rc) {
		snprintf(why, len, "port 0x%016llx: %s",
			 (unsigned long long)port_guid,
			 rc == -ENODEV ? "no such local port" : strerror(-rc));
		ibfm_smpwin_close(w);
		return rc;
	}
	*out = w;
	return 0;
}

void ibfm_smpwin_close(struct ibfm_smpwin *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		umad_close_port(w->fd);
	free(w->slots);
	free(w->queue);
	umad_free(w->umad);
	free(w);
}

int ibfm_smpwin_post(struct ibfm_smpwin *w, const struct ibfm_smpwire_req *r)
{
	if (w->qlen == w->qcap) {
		size_t n = w->qcap ? w->qcap * 2 : 256, i;
		struct ibfm_smpwire_req *q = malloc(n * sizeof(*q));

		if (!q)
			return -ENOMEM;
		for (i = 0; i < w->qlen; i++)
			q[i] = w->queue[(w->qhead + i) % w->qcap];
		free(w->queue);
		w->queue = q;
		w->qhead = 0;
		w->qcap = n;
	}
	w->queue[(w->qhead + w->qlen++) % w->qcap] = *r;
	return 0;
}

int ibfm_smpwin_fd(const struct ibfm_smpwin *w)
{
	return w->fd;
}

size_t ibfm_smpwin_busy(const struct ibfm_smpwin *w)
{
	return w->inflight + w->qlen;
}

int ibfm_smpwin_wait_ms(const struct ibfm_smpwin *w)
{
	double t = now_ms(), first = -1;
	unsigned i;

	for (i = 0; i < w->o.window; i++)
		if (w->slots[i].used &&
		    (first < 0 || w->slots[i].deadline < first))
			first = w->slots[i].deadline;
	if (first < 0)
		return -1;
	return first <= t ? 0 : (int)(first - t) + 1;
}

/* Sends slot 's' (again) with a new transaction ID; -errno. */
static int send_slot(struct ibfm_smpwin *w, struct slot *s)
{
	uint8_t *m = umad_get_mad(w->umad);
	uint64_t tid;
	uint16_t be16v;
	uint32_t be32v;

	memset(w->umad, 0, umad_size() + SMP_SIZE);
	umad_set_addr(w->umad, 0xffff, 0, 0, 0);
	s->tid = w->next_tid++;
	m[0] = 1; /* base version */
	m[1] = CLASS_DR;
	m[2] = 1; /* class version */
	m[OFF_METHOD] = s->req.method;
	m[OFF_HOP_PTR] = 0;
	m[OFF_HOP_COUNT] = s->req.hops;
	tid = htobe64(s->tid);
	memcpy(m + OFF_TID, &tid, 8);
	be16v = htobe16(s->req.attr);
	memcpy(m + OFF_ATTR, &be16v, 2);
	be32v = htobe32(s->req.mod);
	memcpy(m + OFF_MOD, &be32v, 4);
	tid = htobe64(w->o.mkey);
	memcpy(m + OFF_MKEY, &tid, 8);
	be16v = 0xffff; /* permissive DrSLID and DrDLID: all the way DR */
	memcpy(m + OFF_DRSLID, &be16v, 2);
	memcpy(m + OFF_DRDLID, &be16v, 2);
	memcpy(m + OFF_DATA, s->req.data, 64);
	memcpy(m + OFF_PATH, s->req.path, 64);
	s->tries++;
	s->deadline = now_ms() + w->o.timeout_ms;
	if (umad_send(w->fd, w->agent, w->umad, SMP_SIZE, (int)w->o.timeout_ms,
		      0) < 0)
		return -EIO;
	return 0;
}

/* Finishes slot 's' with 'status' (and the answer's data, if any). */
static void finish(struct ibfm_smpwin *w, struct slot *s, int status,
		   const uint8_t *data, ibfm_smpwin_done_fn done, void *ctx)
{
	struct ibfm_smpwire_reply r = { .id = s->req.id, .status = status };

	if (data)
		memcpy(r.data, data, 64);
	s->used = false;
	w->inflight--;
	done(ctx, &r);
}

/* Takes every answer waiting on the port. */
static void receive(struct ibfm_smpwin *w, ibfm_smpwin_done_fn done,
		    void *ctx)
{
	for (;;) {
		int len = SMP_SIZE, st;
		const uint8_t *m;
		uint64_t tid;
		uint16_t status;
		unsigned i;

		if (umad_recv(w->fd, w->umad, &len, 0) < 0)
			return;
		m = umad_get_mad(w->umad);
		memcpy(&tid, m + OFF_TID, 8);
		tid = be64toh(tid) & 0xffffffffu;
		memcpy(&status, m + OFF_STATUS, 2);
		st = umad_status(w->umad);
		for (i = 0; i < w->o.window; i++) {
			struct slot *s = &w->slots[i];

			if (!s->used || s->tid != tid)
				continue;
			if (st == ETIMEDOUT) /* the kernel's timeout */
				s->deadline = 0;
			else
				finish(w, s, be16toh(status) & 0x7fff,
				       m + OFF_DATA, done, ctx);
			break;
		}
	}
}

void ibfm_smpwin_step(struct ibfm_smpwin *w, ibfm_smpwin_done_fn done,
		      void *ctx)
{
	double t;
	unsigned i;

	receive(w, done, ctx);
	t = now_ms();
	for (i = 0; i < w->o.window; i++) {
		struct slot *s = &w->slots[i];

		if (!s->used || s->deadline > t)
			continue;
		if (s->tries > w->o.retries || send_slot(w, s))
			finish(w, s, -ETIMEDOUT, NULL, done, ctx);
	}
	for (i = 0; i < w->o.window && w->qlen; i++) {
		struct slot *s = &w->slots[i];

		if (s->used)
			continue;
		s->req = w->queue[w->qhead];
		w->qhead = (w->qhead + 1) % w->qcap;
		w->qlen--;
		s->used = true;
		s->tries = 0;
		w->inflight++;
		if (send_slot(w, s))
			finish(w, s, -EIO, NULL, done, ctx);
	}
}
