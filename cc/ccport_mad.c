// SPDX-License-Identifier: MIT
/*
 * ibfmd's CC transport on a fabric (cc/ccport.h): each CC MAD one
 * LID-routed class 0x21 MAD through the worker's MAD port.
 */
#include "cc/ccport.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mgmt/mad/madport.h"

_Static_assert(IBFM_MADPORT_CC_DATA == IBFM_CCWIRE_DATA, "a CC MAD's payload");

struct ibfm_ccport {
	struct ibfm_madport *mad; /* the worker's, for the job running */
	unsigned timeout_ms;
};

int ibfm_ccport_open(struct ibfm_ccport **out, struct ibfm_err *err)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : ibfm_err_set(err, -ENOMEM, "out of memory");
}

void ibfm_ccport_close(struct ibfm_ccport *p)
{
	free(p);
}

const char *ibfm_ccport_name(const struct ibfm_ccport *p)
{
	(void)p;
	return "fabric";
}

static int send_mad(void *ctx, const struct ibfm_cc_target *t,
		    struct ibfm_cc_mad *m)
{
	struct ibfm_ccport *p = ctx;

	return ibfm_madport_cc(p->mad, t->lid, m->set, m->attr, m->mod,
			       m->cc_key, p->timeout_ms, m->data, &m->status);
}

/*
 * Under ibsim (umad2sim preloaded) the SM's port is not probed: umad2sim
 * hands a class 0x21 request to OpenSM's client there although OpenSM
 * registered no such class, and OpenSM 3.3.23's vendor layer calls a
 * stray callback and dies (measured with ibccquery alone, no ibfm
 * involved). A kernel never delivers such a MAD, so real fabrics keep
 * every port.
 */
static uint16_t simulated_sm_lid(struct ibfm_madport *mad)
{
	const char *pre = getenv("LD_PRELOAD");

	return mad && pre && strstr(pre, "umad2sim") ? ibfm_madport_sm_lid(mad)
						     : 0;
}

uint16_t ibfm_ccport_begin(struct ibfm_ccport *p, struct ibfm_madport *mad,
			   const struct ibfm_cc_target *t, size_t n,
			   unsigned timeout_ms, struct ibfm_cc_transport *tr)
{
	(void)t;
	(void)n;
	p->mad = mad;
	p->timeout_ms = timeout_ms;
	*tr = (struct ibfm_cc_transport){ send_mad, mad ? p : NULL };
	return simulated_sm_lid(mad);
}
