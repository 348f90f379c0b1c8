// SPDX-License-Identifier: MIT
/*
 * Congestion control node by node. The order matters for safety: a
 * node must first prove it is a CC agent (ClassPortInfo of class
 * version 2, a CongestionInfo that answers) before anything is set,
 * because a node that misreads class 0x21 may treat a Set as something
 * else entirely (ibsim writes it into the P_Key table: docs/cc.md).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cc/cc.h"

/* IBA 13.4.7 MAD status, "Class" bits aside: 0 is success. */
#define STATUS_MASK 0x7FFF

/* SwitchCongestionSetting:Control_Map bits: which fields a Set takes. */
enum {
	SW_VICTIM = 1 << 0,
	SW_CREDIT = 1 << 1,
	SW_THRESHOLD = 1 << 2, /* and Packet_Size */
	SW_CS = 1 << 3,	       /* CS_Threshold and CS_ReturnDelay */
	SW_MARKING = 1 << 4,
	SW_ALL = 0x1F,
};

const char *ibfm_cc_state_name(enum ibfm_cc_state s)
{
	static const char *const names[] = { "unchanged", "pending", "set",
					     "failed", "unsupported" };

	return s <= IBFM_CC_UNSUPPORTED ? names[s] : "?";
}

static void verdict(struct ibfm_cc_result *r, enum ibfm_cc_state s,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void verdict(struct ibfm_cc_result *r, enum ibfm_cc_state s,
		    const char *fmt, ...)
{
	va_list ap;

	r->state = s;
	va_start(ap, fmt);
	vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
	va_end(ap);
}

/* Lists a difference (the first IBFM_CC_MAX_CHANGES; all counted). */
static void change_text(struct ibfm_cc_result *r, uint16_t attr,
			const char *field, const char *have, const char *want)
{
	struct ibfm_cc_change *c;

	if (r->nchanges++ >= IBFM_CC_MAX_CHANGES)
		return;
	c = &r->changes[r->nchanges - 1];
	c->attr = attr;
	snprintf(c->field, sizeof(c->field), "%s", field);
	snprintf(c->have, sizeof(c->have), "%s", have);
	snprintf(c->want, sizeof(c->want), "%s", want);
}

static void change(struct ibfm_cc_result *r, uint16_t attr, const char *field,
		   unsigned long have, unsigned long want)
{
	char h[24], w[24];

	snprintf(h, sizeof(h), "%lu", have);
	snprintf(w, sizeof(w), "%lu", want);
	change_text(r, attr, field, h, w);
}

/* Tries per MAD: at least one. */
static unsigned tries(const struct ibfm_cc_opts *o)
{
	return o->tries ? o->tries : 1;
}

static void pause_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	if (ms)
		nanosleep(&ts, NULL);
}

/*
 * One MAD with bounded retries on timeouts. 0 with status 0; -EPROTO
 * when the node answered with an error status; -ETIMEDOUT; -errno.
 */
static int mad(const struct ibfm_cc_transport *tr,
	       const struct ibfm_cc_target *t, const struct ibfm_cc_opts *o,
	       struct ibfm_cc_mad *m, struct ibfm_cc_result *r)
{
	uint8_t payload[IBFM_CCWIRE_DATA];
	int rc = -ETIMEDOUT;

	m->cc_key = o->cc_key;
	memcpy(payload, m->data, sizeof(payload));
	for (unsigned i = 0; i < tries(o); i++) {
		if (i)
			pause_ms(o->backoff_ms << (i - 1));
		memcpy(m->data, payload, sizeof(payload));
		m->status = 0;
		if (m->set)
			r->sets++;
		else
			r->gets++;
		rc = tr->send(tr->ctx, t, m);
		if (rc != -ETIMEDOUT)
			break;
		r->timeouts++;
	}
	if (!rc && (m->status & STATUS_MASK))
		rc = -EPROTO;
	return rc;
}

static int get(const struct ibfm_cc_transport *tr,
	       const struct ibfm_cc_target *t, const struct ibfm_cc_opts *o,
	       uint16_t attr, uint32_t mod, struct ibfm_cc_mad *m,
	       struct ibfm_cc_result *r)
{
	memset(m, 0, sizeof(*m));
	m->attr = attr;
	m->mod = mod;
	return mad(tr, t, o, m, r);
}

/* Why a MAD failed, for a reason: "timeout (2 tries)", "status 0x1c". */
static const char *why(int rc, const struct ibfm_cc_mad *m,
		       const struct ibfm_cc_opts *o, char *buf, size_t len)
{
	if (rc == -ETIMEDOUT)
		snprintf(buf, len, "no answer (%u tries)", tries(o));
	else if (rc == -EPROTO)
		snprintf(buf, len, "status 0x%04x", m->status);
	else
		snprintf(buf, len, "%s", strerror(-rc));
	return buf;
}

/* The profile's mask as "1,3,5-8" (cut short), or "none". */
static void mask_text(const uint8_t *mask, char *buf, size_t len)
{
	size_t at = 0;
	unsigned p = 0;

	buf[0] = 0;
	while (p < 256 && at + 12 < len) {
		unsigned q;

		if (!(mask[p / 8] >> (p % 8) & 1)) {
			p++;
			continue;
		}
		for (q = p;
		     q + 1 < 256 && (mask[(q + 1) / 8] >> ((q + 1) % 8) & 1);
		     q++)
			;
		at += (size_t)snprintf(buf + at, len - at,
				       q > p ? "%s%u-%u" : "%s%u",
				       at ? "," : "", p, q);
		p = q + 1;
	}
	if (!at)
		snprintf(buf, len, "none");
}

static void mask_change(struct ibfm_cc_result *r, const char *field,
			const uint8_t *have, const uint8_t *want)
{
	char h[40], w[40];

	mask_text(have, h, sizeof(h));
	mask_text(want, w, sizeof(w));
	change_text(r, IBFM_CCWIRE_SWITCH, field, h, w);
}

/* The Control_Map groups of 'have' that differ from 'want' (in 'map'). */
static unsigned diff_switch(const struct ibfm_ccprofile_switch *have,
			    const struct ibfm_ccprofile_switch *want,
			    unsigned map, struct ibfm_cc_result *r)
{
	const uint16_t a = IBFM_CCWIRE_SWITCH;
	unsigned d = 0;

	if ((map & SW_VICTIM) &&
	    memcmp(have->victim_mask, want->victim_mask, 32)) {
		mask_change(r, "victim_mask", have->victim_mask,
			    want->victim_mask);
		d |= SW_VICTIM;
	}
	if ((map & SW_CREDIT) &&
	    memcmp(have->credit_mask, want->credit_mask, 32)) {
		mask_change(r, "credit_mask", have->credit_mask,
			    want->credit_mask);
		d |= SW_CREDIT;
	}
#define FIELD(bit, name)                                                       \
	if ((map & (bit)) && have->name != want->name) {                       \
		change(r, a, #name, have->name, want->name);                   \
		d |= (bit);                                                    \
	}
	FIELD(SW_THRESHOLD, threshold)
	FIELD(SW_THRESHOLD, packet_size)
	FIELD(SW_CS, cs_threshold)
	FIELD(SW_CS, cs_return_delay)
	FIELD(SW_MARKING, marking_rate)
#undef FIELD
	return d;
}

/* Whether 'have' differs; one change per field, over the SLs. */
static bool diff_ca(const struct ibfm_ccprofile_ca *have,
		    const struct ibfm_ccprofile_ca *want,
		    struct ibfm_cc_result *r)
{
	const uint16_t a = IBFM_CCWIRE_CA;
	unsigned before = r->nchanges;

	if (have->port_control != want->port_control)
		change(r, a, "port_control", have->port_control,
		       want->port_control);
	if (have->control_map != want->control_map)
		change(r, a, "control_map", have->control_map,
		       want->control_map);
#define SLFIELD(name)                                                          \
	for (unsigned i = 0; i < IBFM_CCPROFILE_SLS; i++)                      \
		if (have->sl[i].name != want->sl[i].name) {                    \
			char f[32];                                            \
			snprintf(f, sizeof(f), "sl%u." #name, i);              \
			change(r, a, f, have->sl[i].name, want->sl[i].name);   \
			break;                                                 \
		}
	SLFIELD(ccti_timer)
	SLFIELD(ccti_increase)
	SLFIELD(trigger_threshold)
	SLFIELD(ccti_min)
#undef SLFIELD
	return r->nchanges != before;
}

/* Block 'b' of the table the profile wants. */
static void want_cct(const struct ibfm_ccprofile *p, unsigned b,
		     struct ibfm_ccwire_cct *t)
{
	memset(t, 0, sizeof(*t));
	t->limit = p->cct_limit;
	for (unsigned i = 0; i < IBFM_CCWIRE_CCT_BLOCK; i++)
		if (b * IBFM_CCWIRE_CCT_BLOCK + i < p->cct_n)
			t->e[i] = p->cct[b * IBFM_CCWIRE_CCT_BLOCK + i];
}

static bool diff_cct(const struct ibfm_ccwire_cct *have,
		     const struct ibfm_ccwire_cct *want, unsigned b,
		     struct ibfm_cc_result *r)
{
	const uint16_t a = IBFM_CCWIRE_CCT;
	unsigned n = 0, first = 0;
	char f[32];

	if (have->limit != want->limit) {
		snprintf(f, sizeof(f), "block%u.ccti_limit", b);
		change(r, a, f, have->limit, want->limit);
	}
	for (unsigned i = IBFM_CCWIRE_CCT_BLOCK; i-- > 0;)
		if (have->e[i].shift != want->e[i].shift ||
		    have->e[i].multiplier != want->e[i].multiplier) {
			n++;
			first = i;
		}
	if (n) {
		/* The first entry that differs stands for the rest. */
		char h[24], w[24];
		unsigned k = b * IBFM_CCWIRE_CCT_BLOCK + first;

		if (n > 1)
			snprintf(f, sizeof(f), "entry%u (+%u more)", k, n - 1);
		else
			snprintf(f, sizeof(f), "entry%u", k);
		snprintf(h, sizeof(h), "%u:%u", have->e[first].shift,
			 have->e[first].multiplier);
		snprintf(w, sizeof(w), "%u:%u", want->e[first].shift,
			 want->e[first].multiplier);
		change_text(r, a, f, h, w);
	}
	return have->limit != want->limit || n;
}

/*
 * True when a probe's Get answered (rc 0); else verdict 's' naming
 * 'label', with 'hint' after a timeout when given.
 */
static bool answered(int rc, enum ibfm_cc_state s, const char *label,
		     const char *hint, const struct ibfm_cc_mad *m,
		     const struct ibfm_cc_opts *o, struct ibfm_cc_result *r)
{
	char b[128];

	if (!rc)
		return true;
	if (rc == -ETIMEDOUT && hint)
		snprintf(b, sizeof(b), "no answer (%u tries): %s", tries(o),
			 hint);
	else
		why(rc, m, o, b, sizeof(b));
	verdict(r, s, "%s: %s", label, b);
	return false;
}

/*
 * Whether 't' is a CC agent worth talking to, with the CCT blocks it
 * can hold; false with the verdict given when not.
 */
static bool probe(const struct ibfm_cc_transport *tr,
		  const struct ibfm_cc_target *t, const struct ibfm_cc_opts *o,
		  unsigned *cct_cap, struct ibfm_cc_result *r)
{
	struct ibfm_cc_mad m;
	struct ibfm_ccwire_cpi cpi;
	struct ibfm_ccwire_info info;
	struct ibfm_ccwire_key key;
	int rc;

	if (!answered(get(tr, t, o, IBFM_CCWIRE_CLASS_PORT_INFO, 0, &m, r),
		      IBFM_CC_UNSUPPORTED, "CC ClassPortInfo",
		      "no CC agent, or one protected by another CC_Key", &m, o,
		      r))
		return false;
	ibfm_ccwire_get_cpi(m.data, &cpi);
	if (cpi.base_version != 1 ||
	    cpi.class_version != IBFM_CCWIRE_CLASS_VERSION) {
		verdict(r, IBFM_CC_UNSUPPORTED,
			"CC ClassPortInfo answered BaseVersion %u ClassVersion "
			"%u (a CC agent answers 1 and 2)",
			cpi.base_version, cpi.class_version);
		return false;
	}
	if (!answered(get(tr, t, o, IBFM_CCWIRE_INFO, 0, &m, r),
		      IBFM_CC_UNSUPPORTED, "CongestionInfo", NULL, &m, o, r))
		return false;
	ibfm_ccwire_get_info(m.data, &info);
	*cct_cap = info.cct_cap;
	if (!t->sw && !info.cct_cap) {
		verdict(r, IBFM_CC_UNSUPPORTED,
			"CongestionInfo: no Congestion Control Table "
			"(ControlTableCap 0)");
		return false;
	}
	/* A node keyed otherwise drops our Sets: find out before. */
	rc = get(tr, t, o, IBFM_CCWIRE_KEY_INFO, 0, &m, r);
	if (rc == -ETIMEDOUT)
		return answered(rc, IBFM_CC_FAILED, "CongestionKeyInfo",
				"protected by another CC_Key?", &m, o, r);
	if (!rc) {
		ibfm_ccwire_get_key(m.data, &key);
		if (key.key && key.key != o->cc_key) {
			r->key_rejected = true;
			verdict(r, IBFM_CC_FAILED,
				"wrong CC_Key: the node holds another key "
				"(CC_KeyViolations %u); not retried until "
				"cc_key changes",
				key.violations);
			return false;
		}
	}
	return true;
}

/* True when 'rc' is 0; else the failed verdict naming the MAD. */
static bool done(int rc, const char *method, const struct ibfm_cc_mad *m,
		 const struct ibfm_cc_opts *o, struct ibfm_cc_result *r)
{
	char b[64];

	if (!rc)
		return true;
	verdict(r, IBFM_CC_FAILED, "%s %s (block %u): %s",
		ibfm_ccwire_attr_name(m->attr), method, m->mod,
		why(rc, m, o, b, sizeof(b)));
	return false;
}

/* Reads the attribute into 'm' or gives the failed verdict. */
static bool read_attr(const struct ibfm_cc_transport *tr,
		      const struct ibfm_cc_target *t,
		      const struct ibfm_cc_opts *o, uint16_t attr, uint32_t mod,
		      struct ibfm_cc_mad *m, struct ibfm_cc_result *r)
{
	return done(get(tr, t, o, attr, mod, m, r), "Get", m, o, r);
}

/* Sets 'm' (payload in m->data) or gives the failed verdict. */
static bool write_attr(const struct ibfm_cc_transport *tr,
		       const struct ibfm_cc_target *t,
		       const struct ibfm_cc_opts *o, struct ibfm_cc_mad *m,
		       struct ibfm_cc_result *r)
{
	m->set = true;
	return done(mad(tr, t, o, m, r), "Set", m, o, r);
}

/* A read-back that still differs: the first difference, as the reason. */
static void mismatch(struct ibfm_cc_result *r, const struct ibfm_cc_result *v)
{
	const struct ibfm_cc_change *c = &v->changes[0];

	verdict(r, IBFM_CC_FAILED, "read back: %s %s is %s after setting %s",
		ibfm_ccwire_attr_name(c->attr), c->field, c->have, c->want);
}

static void run_switch(const struct ibfm_cc_transport *tr,
		       const struct ibfm_cc_target *t,
		       const struct ibfm_cc_opts *o, bool apply,
		       struct ibfm_cc_result *r)
{
	const struct ibfm_ccprofile_switch *want = &t->profile->sw;
	unsigned map = want->control_map & SW_ALL, d;
	struct ibfm_ccprofile_switch have, set;
	struct ibfm_cc_result v = { 0 };
	struct ibfm_cc_mad m;

	if (!read_attr(tr, t, o, IBFM_CCWIRE_SWITCH, 0, &m, r))
		return;
	ibfm_ccwire_get_switch(m.data, &have);
	d = diff_switch(&have, want, map, r);
	if (!d || !apply)
		return;
	set = *want;
	set.control_map = d; /* only the groups that differ */
	memset(&m, 0, sizeof(m));
	m.attr = IBFM_CCWIRE_SWITCH;
	ibfm_ccwire_put_switch(m.data, &set);
	if (!write_attr(tr, t, o, &m, r) ||
	    !read_attr(tr, t, o, IBFM_CCWIRE_SWITCH, 0, &m, r))
		return;
	ibfm_ccwire_get_switch(m.data, &have);
	if (diff_switch(&have, want, map, &v))
		mismatch(r, &v);
}

static void run_ca(const struct ibfm_cc_transport *tr,
		   const struct ibfm_cc_target *t, const struct ibfm_cc_opts *o,
		   unsigned cct_cap, bool apply, struct ibfm_cc_result *r)
{
	const struct ibfm_ccprofile *p = t->profile;
	unsigned blocks =
		(p->cct_n + IBFM_CCWIRE_CCT_BLOCK - 1) / IBFM_CCWIRE_CCT_BLOCK;
	struct ibfm_cc_result v = { 0 };
	struct ibfm_ccprofile_ca have;
	struct ibfm_ccwire_cct th, tw;
	struct ibfm_cc_mad m;
	bool ca_differs;
	uint32_t cct_differs = 0;

	if (blocks > cct_cap) {
		verdict(r, IBFM_CC_FAILED,
			"the profile's table needs %u blocks of 64 entries, the "
			"node holds %u (ControlTableCap)",
			blocks, cct_cap);
		return;
	}
	if (!read_attr(tr, t, o, IBFM_CCWIRE_CA, 0, &m, r))
		return;
	ibfm_ccwire_get_ca(m.data, &have);
	ca_differs = diff_ca(&have, &p->ca, r);
	for (unsigned b = 0; b < blocks; b++) {
		if (!read_attr(tr, t, o, IBFM_CCWIRE_CCT, b, &m, r))
			return;
		ibfm_ccwire_get_cct(m.data, &th);
		want_cct(p, b, &tw);
		if (diff_cct(&th, &tw, b, r))
			cct_differs |= 1U << b;
	}
	if (!apply || (!ca_differs && !cct_differs))
		return;
	/* The table first: CC must not start on a port before its CCT. */
	for (unsigned b = 0; b < blocks; b++) {
		if (!(cct_differs >> b & 1))
			continue;
		memset(&m, 0, sizeof(m));
		m.attr = IBFM_CCWIRE_CCT;
		m.mod = b;
		want_cct(p, b, &tw);
		ibfm_ccwire_put_cct(m.data, &tw);
		if (!write_attr(tr, t, o, &m, r) ||
		    !read_attr(tr, t, o, IBFM_CCWIRE_CCT, b, &m, r))
			return;
		ibfm_ccwire_get_cct(m.data, &th);
		if (diff_cct(&th, &tw, b, &v)) {
			mismatch(r, &v);
			return;
		}
	}
	if (!ca_differs)
		return;
	memset(&m, 0, sizeof(m));
	m.attr = IBFM_CCWIRE_CA;
	ibfm_ccwire_put_ca(m.data, &p->ca);
	if (!write_attr(tr, t, o, &m, r) ||
	    !read_attr(tr, t, o, IBFM_CCWIRE_CA, 0, &m, r))
		return;
	ibfm_ccwire_get_ca(m.data, &have);
	if (diff_ca(&have, &p->ca, &v))
		mismatch(r, &v);
}

void ibfm_cc_run(const struct ibfm_cc_transport *tr,
		 const struct ibfm_cc_target *t, const struct ibfm_cc_opts *o,
		 bool apply, struct ibfm_cc_result *r)
{
	unsigned cct_cap = 0;

	memset(r, 0, sizeof(*r));
	if (!probe(tr, t, o, &cct_cap, r))
		return;
	if (t->sw)
		run_switch(tr, t, o, apply, r);
	else
		run_ca(tr, t, o, cct_cap, apply, r);
	if (r->state == IBFM_CC_FAILED)
		return;
	if (!r->nchanges)
		verdict(r, IBFM_CC_UNCHANGED, "matches profile %s",
			t->profile->name);
	else if (!apply)
		verdict(r, IBFM_CC_PENDING,
			"%u field%s differ%s from profile %s", r->nchanges,
			r->nchanges == 1 ? "" : "s",
			r->nchanges == 1 ? "s" : "", t->profile->name);
	else
		verdict(r, IBFM_CC_SET,
			"%u field%s set to profile %s, read back", r->nchanges,
			r->nchanges == 1 ? "" : "s", t->profile->name);
}

long ibfm_cc_targets(const struct ibfm_fabric *f, struct ibfm_cc_target **out)
{
	struct ibfm_cc_target *v = NULL;
	long n = 0;

	*out = NULL;
	if (f->nports) {
		v = calloc(f->nports, sizeof(*v));
		if (!v)
			return -ENOMEM;
	}
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct ibfm_node *nd = &f->nodes[i];
		bool sw = nd->type == IBFM_NODE_SWITCH;

		for (unsigned k = sw ? 0 : 1; k <= (sw ? 0 : nd->nports); k++) {
			const struct ibfm_port *p = &f->ports[nd->port0 + k];

			if (!p->lid || (!sw && p->peer == IBFM_NONE))
				continue;
			v[n] = (struct ibfm_cc_target){ .guid = nd->guid,
							.lid = p->lid,
							.port = p->num,
							.sw = sw };
			snprintf(v[n].name, sizeof(v[n].name), "%s",
				 f->strs + nd->desc);
			n++;
		}
	}
	if (!n) {
		free(v);
		v = NULL;
	}
	*out = v;
	return n;
}
