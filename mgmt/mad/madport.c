// SPDX-License-Identifier: MIT
/*
 * The MAD port ibfmd's fabric I/O goes through (mgmt/mad/madport.h):
 * one libibmad port that stays open for the daemon's life, the window
 * of MADs in flight around it, and single MADs on it.
 *
 * Why not libibnetdisc: it opens and closes a umad port on every call,
 * and umad2sim (ibsim's libumad shim) frees only one of a port's agents
 * on close; after 15 sweeps its 32 agent slots are gone and no MAD can
 * be sent. One port, registered once, has no such limit, and costs a
 * real HCA nothing either.
 */
#include "mgmt/mad/madport_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "mgmt/mad/madwin.h"

#define MAD_TIMEOUT_MS 500
#define MAD_RETRIES 2

_Static_assert(IBFM_MADPORT_CC_DATA == IB_CC_DATA_SZ, "a CC MAD's payload");

/* A window of 'window' MADs over the port (timeouts and tries as the
 * single MADs'). */
static int open_window(struct ibfm_madport *s, unsigned window)
{
	struct ibfm_madwin_opts o = { .window = window,
				      .timeout_ms = MAD_TIMEOUT_MS,
				      .retries = MAD_RETRIES - 1 };
	struct ibfm_madwin_port port;

	ibfm_madwin_port_of(s->mp, &port);
	return ibfm_madwin_create(&port, &o, &s->win);
}

int ibfm_madport_open(const char *ca, int port, unsigned window,
		      struct ibfm_madport **out, struct ibfm_err *err)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS,
			  IB_PERFORMANCE_CLASS, IB_CC_CLASS };
	struct ibfm_madport *s = calloc(1, sizeof(*s));
	int rc;

	if (!s)
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	s->mp = mad_rpc_open_port((char *)ca, port, classes, 4);
	if (!s->mp) {
		free(s);
		return ibfm_err_set(err, -EIO,
				    "D03 cannot open %s port %d for MADs",
				    ca ? ca : "the first CA", port);
	}
	mad_rpc_set_retries(s->mp, MAD_RETRIES);
	mad_rpc_set_timeout(s->mp, MAD_TIMEOUT_MS);
	/* A port that went dark answers nothing: results say so, once. */
	madrpc_show_errors(0);
	rc = open_window(s, window);
	if (rc) {
		ibfm_madport_close(s);
		return ibfm_err_set(err, rc, "cannot keep %u MADs in flight",
				    window);
	}
	*out = s;
	return 0;
}

int ibfm_madport_set_window(struct ibfm_madport *s, unsigned window)
{
	struct ibfm_madwin *old = s->win;
	struct ibfm_madwin_stats st;
	int rc;

	if ((window ? window : IBFM_MADWIN_WINDOW) == ibfm_madwin_window(old))
		return 0;
	rc = open_window(s, window);
	if (rc) {
		s->win = old;
		return rc;
	}
	ibfm_madwin_stats(old, &st);
	s->before.sent += st.sent;
	s->before.answered += st.answered;
	s->before.retried += st.retried;
	s->before.timedout += st.timedout;
	s->before.dropped += st.dropped;
	ibfm_madwin_destroy(old);
	return 0;
}

unsigned ibfm_madport_mad_stats(const struct ibfm_madport *s,
				struct ibfm_madwin_stats *st)
{
	ibfm_madwin_stats(s->win, st);
	st->sent += s->before.sent;
	st->answered += s->before.answered;
	st->retried += s->before.retried;
	st->timedout += s->before.timedout;
	st->dropped += s->before.dropped;
	return ibfm_madwin_window(s->win);
}

void ibfm_madport_close(struct ibfm_madport *s)
{
	if (!s)
		return;
	ibfm_madwin_destroy(s->win);
	mad_rpc_close_port(s->mp);
	free(s);
}

int ibfm_madport_query_dr(struct ibmad_port *mp, const struct dr *r,
			  unsigned attr, unsigned mod, uint8_t *buf)
{
	ib_portid_t id;

	dr_portid(r, &id);
	memset(buf, 0, IB_SMP_DATA_SIZE);
	return smp_query_via(buf, &id, attr, mod, 0, mp) ? 0 : -EIO;
}

int ibfm_madport_cc(struct ibfm_madport *s, uint16_t lid, bool set,
		    uint16_t attr, uint32_t mod, uint64_t cc_key,
		    unsigned timeout_ms, uint8_t *data, uint16_t *status)
{
	ib_portid_t id = { 0 };
	uint8_t reply[IB_CC_DATA_SZ] = { 0 };
	int st = 0;
	void *got;

	ib_portid_set(&id, lid, 0, 0);
	/* The caller retries (cc_tries): one MAD here, its own timeout. */
	mad_rpc_set_retries(s->mp, 0);
	if (set)
		got = cc_config_status_via(data, reply, &id, attr, mod,
					   timeout_ms, &st, s->mp, cc_key);
	else
		got = cc_query_status_via(reply, &id, attr, mod, timeout_ms,
					  &st, s->mp, cc_key);
	mad_rpc_set_retries(s->mp, MAD_RETRIES);
	/* libibmad: NULL with a status is an answer; without, none came. */
	if (!got && !st)
		return -ETIMEDOUT;
	*status = (uint16_t)st;
	memcpy(data, reply, sizeof(reply));
	return 0;
}
