// SPDX-License-Identifier: MIT
/*
 * A window of MADs in flight over one umad port (madwin.h says what and
 * why). Each slot of the window holds one request, the TID of its last
 * try and when that try expires. Answers are read one at a time with
 * umad_recv, waiting no longer than the earliest expiry.
 *
 * Timeouts are ours: the kernel reports a send that timed out as a MAD
 * with status ETIMEDOUT (when umad_send was given a timeout, which it
 * needs to route the answer back), but umad2sim never does, so each slot
 * carries its own deadline too. Whichever comes first retries the
 * request under a fresh TID; the other then matches nothing.
 */
#include "mgmt/mad/madwin.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "routing/base/clock.h"

_Static_assert(IBFM_MADWIN_DATA == IB_PC_DATA_SZ, "a GS MAD's data area");
_Static_assert(IBFM_MADWIN_DATA == IB_CC_DATA_SZ, "a CC MAD's data area");
_Static_assert(IBFM_MADWIN_HOPS < IB_SUBNET_PATH_HOPS_MAX, "a DR path");

struct slot {
	struct ibfm_madwin_req req;
	uint64_t deadline; /* ms, CLOCK_MONOTONIC */
	uint32_t tid;	   /* low 32 bits of the last try's TID */
	unsigned tries;	   /* sent so far */
	bool busy;
};

struct ibfm_madwin {
	struct ibfm_madwin_port port;
	struct ibfm_madwin_opts o;
	struct ibfm_madwin_stats st;
	uint8_t *sbuf, *rbuf; /* umad_size() + IB_MAD_SIZE each */
	unsigned inflight;
	bool more; /* 'next' may have a request: none said otherwise since
		    * the last completion */
	struct slot slot[]; /* o.window of them */
};

void ibfm_madwin_port_of(struct ibmad_port *mp, struct ibfm_madwin_port *p)
{
	p->fd = mad_rpc_portid(mp);
	p->smi = mad_rpc_class_agent(mp, IB_SMI_CLASS);
	p->smi_dr = mad_rpc_class_agent(mp, IB_SMI_DIRECT_CLASS);
	p->pma = mad_rpc_class_agent(mp, IB_PERFORMANCE_CLASS);
	p->cc = mad_rpc_class_agent(mp, IB_CC_CLASS);
}

int ibfm_madwin_create(const struct ibfm_madwin_port *p,
		       const struct ibfm_madwin_opts *o,
		       struct ibfm_madwin **out)
{
	struct ibfm_madwin_opts opts = o ? *o : (struct ibfm_madwin_opts){ 0 };
	size_t bufsz = umad_size() + IB_MAD_SIZE;
	struct ibfm_madwin *w;

	if (!opts.window)
		opts.window = IBFM_MADWIN_WINDOW;
	if (opts.window > IBFM_MADWIN_MAX_WINDOW)
		return -EINVAL;
	if (!opts.timeout_ms)
		opts.timeout_ms = IBFM_MADWIN_TIMEOUT_MS;
	if (opts.no_retries)
		opts.retries = 0;
	else if (!opts.retries)
		opts.retries = IBFM_MADWIN_RETRIES;
	w = calloc(1, sizeof(*w) + opts.window * sizeof(w->slot[0]));
	if (!w)
		return -ENOMEM;
	w->sbuf = calloc(1, bufsz);
	w->rbuf = calloc(1, bufsz);
	if (!w->sbuf || !w->rbuf) {
		ibfm_madwin_destroy(w);
		return -ENOMEM;
	}
	w->port = *p;
	w->o = opts;
	*out = w;
	return 0;
}

void ibfm_madwin_destroy(struct ibfm_madwin *w)
{
	if (!w)
		return;
	free(w->sbuf);
	free(w->rbuf);
	free(w);
}

unsigned ibfm_madwin_window(const struct ibfm_madwin *w)
{
	return w->o.window;
}

void ibfm_madwin_stats(const struct ibfm_madwin *w,
		       struct ibfm_madwin_stats *st)
{
	*st = w->st;
}

/* ---- building requests ---- */

void ibfm_madwin_smp_dr(struct ibfm_madwin_req *r, const uint8_t *path,
			unsigned hops, uint8_t method, uint16_t attr,
			uint32_t mod)
{
	memset(r, 0, sizeof(*r));
	r->mclass = IBFM_MADWIN_SMP;
	r->method = method;
	r->attr = attr;
	r->mod = mod;
	r->hops = (uint8_t)(hops < IBFM_MADWIN_HOPS ? hops : IBFM_MADWIN_HOPS);
	if (r->hops)
		memcpy(r->path, path, r->hops);
}

void ibfm_madwin_smp_lid(struct ibfm_madwin_req *r, uint16_t lid,
			 uint8_t method, uint16_t attr, uint32_t mod)
{
	memset(r, 0, sizeof(*r));
	r->mclass = IBFM_MADWIN_SMP;
	r->method = method;
	r->attr = attr;
	r->mod = mod;
	r->lid = lid;
}

void ibfm_madwin_pma(struct ibfm_madwin_req *r, uint16_t lid, uint16_t attr,
		     unsigned port)
{
	ibfm_madwin_smp_lid(r, lid, IB_MAD_METHOD_GET, attr, 0);
	r->mclass = IBFM_MADWIN_PMA;
	mad_set_field(r->data, 0, IB_PC_PORT_SELECT_F, port);
}

/* ---- the wire ---- */

/* The management class and agent 'r' goes by; false when the port has
 * no agent for it. */
static bool class_of(const struct ibfm_madwin *w,
		     const struct ibfm_madwin_req *r, int *mclass, int *agent)
{
	switch (r->mclass) {
	case IBFM_MADWIN_SMP:
		*mclass = r->lid ? IB_SMI_CLASS : IB_SMI_DIRECT_CLASS;
		*agent = r->lid ? w->port.smi : w->port.smi_dr;
		break;
	case IBFM_MADWIN_PMA:
		*mclass = IB_PERFORMANCE_CLASS;
		*agent = w->port.pma;
		break;
	case IBFM_MADWIN_CC:
		*mclass = IB_CC_CLASS;
		*agent = w->port.cc;
		break;
	default:
		return false;
	}
	return *agent >= 0;
}

/* Encodes 'r' under a fresh TID into the send buffer; its length, or a
 * negative errno. */
static int encode(struct ibfm_madwin *w, const struct ibfm_madwin_req *r,
		  uint64_t *tid, int *agent)
{
	ib_rpc_cc_t rpc = { 0 }; /* ib_rpc_t with a CC_Key after it */
	ib_portid_t id = { 0 };
	int mclass, len;
	bool smp = r->mclass == IBFM_MADWIN_SMP;

	if (!class_of(w, r, &mclass, agent))
		return -EPROTONOSUPPORT;
	rpc.mgtclass = mclass;
	rpc.method = r->method;
	rpc.attr.id = r->attr;
	rpc.attr.mod = r->mod;
	rpc.dataoffs = smp ? IB_SMP_DATA_OFFS : IB_PC_DATA_OFFS;
	rpc.datasz = smp ? IB_SMP_DATA_SIZE : IBFM_MADWIN_DATA;
	rpc.mkey = smp ? r->key : 0;
	rpc.cckey = r->key;
	rpc.trid = *tid = mad_trid();
	if (r->lid) {
		id.lid = r->lid;
		id.qp = smp ? 0 : 1;
		id.qkey = smp ? 0 : IB_DEFAULT_QP1_QKEY;
	} else {
		id.drpath.cnt = r->hops;
		memcpy(&id.drpath.p[1], r->path, r->hops);
		id.drpath.drslid = 0xffff;
		id.drpath.drdlid = 0xffff;
	}
	memset(w->sbuf, 0, umad_size() + IB_MAD_SIZE);
	len = mad_build_pkt(w->sbuf, (ib_rpc_t *)&rpc, &id, NULL,
			    (void *)r->data);
	return len < 0 ? -EINVAL : len;
}

/* Sends slot 's's request (again); a negative errno when it cannot. */
static int send_slot(struct ibfm_madwin *w, struct slot *s)
{
	unsigned timeout =
		s->req.timeout_ms ? s->req.timeout_ms : w->o.timeout_ms;
	uint64_t tid;
	int agent, len = encode(w, &s->req, &tid, &agent);

	if (len < 0)
		return len;
	if (umad_send(w->port.fd, agent, w->sbuf, len, (int)timeout, 0) < 0)
		return errno ? -errno : -EIO;
	s->tid = (uint32_t)tid;
	s->tries++;
	s->deadline = ibfm_clock_whole_ms() + timeout;
	w->st.sent++;
	return 0;
}

/* Frees slot 's' and hands its request to 'done'. */
static int complete(struct ibfm_madwin *w, struct slot *s, int rc,
		    ibfm_madwin_done_fn *done, void *arg)
{
	s->busy = false;
	w->inflight--;
	w->more = true; /* an answer may make new requests */
	s->req.rc = rc;
	if (!rc)
		w->st.answered++;
	else if (rc == -ETIMEDOUT)
		w->st.timedout++;
	return done(arg, &s->req);
}

/* A try of 's' got no answer: send it again, or give up. */
static int expire(struct ibfm_madwin *w, struct slot *s,
		  ibfm_madwin_done_fn *done, void *arg)
{
	int rc;

	if (s->tries > w->o.retries)
		return complete(w, s, -ETIMEDOUT, done, arg);
	w->st.retried++;
	rc = send_slot(w, s);
	return rc ? complete(w, s, rc, done, arg) : 0;
}

/* The slot in flight whose last try carried 'tid', or NULL. */
static struct slot *slot_of(struct ibfm_madwin *w, uint32_t tid)
{
	unsigned i;

	for (i = 0; i < w->o.window; i++)
		if (w->slot[i].busy && w->slot[i].tid == tid)
			return &w->slot[i];
	return NULL;
}

/* Takes the MAD in the receive buffer: an answer, or the kernel's word
 * that a send timed out. */
static int take(struct ibfm_madwin *w, ibfm_madwin_done_fn *done, void *arg)
{
	uint8_t *mad = umad_get_mad(w->rbuf);
	uint32_t tid = (uint32_t)mad_get_field64(mad, 0, IB_MAD_TRID_F);
	struct slot *s = slot_of(w, tid);
	unsigned mclass;
	bool smp;

	if (!s || (!umad_status(w->rbuf) &&
		   (!mad_get_field(mad, 0, IB_MAD_RESPONSE_F) ||
		    mad_get_field(mad, 0, IB_MAD_ATTRID_F) != s->req.attr))) {
		w->st.dropped++;
		return 0;
	}
	if (umad_status(w->rbuf))
		return expire(w, s, done, arg);
	mclass = mad_get_field(mad, 0, IB_MAD_MGMTCLASS_F);
	smp = s->req.mclass == IBFM_MADWIN_SMP;
	/* A directed-route SMP's status word carries the direction bit. */
	s->req.status = (uint16_t)mad_get_field(mad, 0,
						mclass == IB_SMI_DIRECT_CLASS
							? IB_DRSMP_STATUS_F
							: IB_MAD_STATUS_F);
	memcpy(s->req.data, mad + (smp ? IB_SMP_DATA_OFFS : IB_PC_DATA_OFFS),
	       smp ? IB_SMP_DATA_SIZE : IBFM_MADWIN_DATA);
	return complete(w, s, 0, done, arg);
}

/* Retries or gives up every slot whose try expired by 'now'. */
static int expire_all(struct ibfm_madwin *w, uint64_t now,
		      ibfm_madwin_done_fn *done, void *arg)
{
	unsigned i;
	int rc;

	for (i = 0; i < w->o.window; i++) {
		if (!w->slot[i].busy || w->slot[i].deadline > now)
			continue;
		rc = expire(w, &w->slot[i], done, arg);
		if (rc)
			return rc;
	}
	return 0;
}

/* Milliseconds until the earliest try in flight expires (0: now). */
static int wait_ms(const struct ibfm_madwin *w, uint64_t now)
{
	uint64_t first = UINT64_MAX;
	unsigned i;

	for (i = 0; i < w->o.window; i++)
		if (w->slot[i].busy && w->slot[i].deadline < first)
			first = w->slot[i].deadline;
	return first <= now ? 0 : (int)(first - now);
}

/* Fills the free slots from 'next' until it has nothing. */
static int fill(struct ibfm_madwin *w, ibfm_madwin_next_fn *next,
		ibfm_madwin_done_fn *done, void *arg)
{
	unsigned i;
	int rc;

	for (i = 0; i < w->o.window && w->more; i++) {
		struct slot *s = &w->slot[i];

		if (s->busy)
			continue;
		memset(&s->req, 0, sizeof(s->req));
		if (!next(arg, &s->req)) {
			w->more = false;
			break;
		}
		s->busy = true;
		s->tries = 0;
		w->inflight++;
		rc = send_slot(w, s);
		if (rc)
			rc = complete(w, s, rc, done, arg);
		if (rc)
			return rc;
	}
	return 0;
}

/* Forgets what is in flight (after an error): late answers drop. */
static void forget(struct ibfm_madwin *w)
{
	unsigned i;

	for (i = 0; i < w->o.window; i++)
		w->slot[i].busy = false;
	w->inflight = 0;
}

/*
 * Waits up to 'ms' for an answer, then takes every other one already
 * there before the caller sends more: answers taken in a burst and
 * requests sent in one cost fewer wake-ups than one of each in turn.
 */
static int receive(struct ibfm_madwin *w, int ms, ibfm_madwin_done_fn *done,
		   void *arg)
{
	int len = IB_MAD_SIZE, rc = 0;

	if (umad_recv(w->port.fd, w->rbuf, &len, ms) < 0)
		return 0;
	do {
		rc = take(w, done, arg);
		len = IB_MAD_SIZE;
	} while (!rc && w->inflight && !umad_poll(w->port.fd, 0) &&
		 umad_recv(w->port.fd, w->rbuf, &len, 0) >= 0);
	return rc;
}

int ibfm_madwin_run(struct ibfm_madwin *w, ibfm_madwin_next_fn *next,
		    ibfm_madwin_done_fn *done, void *arg)
{
	int rc;

	w->more = true;
	for (;;) {
		int ms;

		rc = fill(w, next, done, arg);
		if (rc || !w->inflight)
			break;
		ms = wait_ms(w, ibfm_clock_whole_ms());
		if (ms)
			rc = receive(w, ms, done, arg);
		if (!rc)
			rc = expire_all(w, ibfm_clock_whole_ms(), done, arg);
		if (rc)
			break;
	}
	if (rc)
		forget(w);
	return rc;
}

/* ---- the batch form ---- */

struct batch {
	struct ibfm_madwin_req *v;
	size_t n, next, good;
};

static bool batch_next(void *arg, struct ibfm_madwin_req *req)
{
	struct batch *b = arg;

	if (b->next >= b->n)
		return false;
	*req = b->v[b->next];
	req->tag = b->next++;
	return true;
}

static int batch_done(void *arg, struct ibfm_madwin_req *req)
{
	struct batch *b = arg;
	uintptr_t tag = b->v[req->tag].tag;

	b->v[req->tag] = *req;
	b->v[req->tag].tag = tag;
	b->good += !req->rc && !req->status;
	return 0;
}

size_t ibfm_madwin_batch(struct ibfm_madwin *w, struct ibfm_madwin_req *v,
			 size_t n)
{
	struct batch b = { .v = v, .n = n };

	ibfm_madwin_run(w, batch_next, batch_done, &b);
	return b.good;
}
