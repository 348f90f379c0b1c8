// SPDX-License-Identifier: MIT
/*
 * CC attributes on the wire: plain big-endian loads and stores at the
 * annex's offsets, so that the engine and the node model need no MAD
 * library (the test holds them to libibmad's definitions).
 */
#include <string.h>

#include "cc/ccwire.h"

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)be16(p) << 16 | be16(p + 2);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

/* A 256-bit port mask: port p is bit p of a big-endian number. */
static void get_mask(const uint8_t *w, uint8_t *mask)
{
	for (unsigned i = 0; i < 32; i++)
		mask[i] = w[31 - i];
}

static void put_mask(uint8_t *w, const uint8_t *mask)
{
	for (unsigned i = 0; i < 32; i++)
		w[31 - i] = mask[i];
}

const char *ibfm_ccwire_attr_name(uint16_t attr)
{
	switch (attr) {
	case IBFM_CCWIRE_CLASS_PORT_INFO:
		return "ClassPortInfo";
	case IBFM_CCWIRE_INFO:
		return "CongestionInfo";
	case IBFM_CCWIRE_KEY_INFO:
		return "CongestionKeyInfo";
	case IBFM_CCWIRE_SWITCH:
		return "SwitchCongestionSetting";
	case IBFM_CCWIRE_CA:
		return "CACongestionSetting";
	case IBFM_CCWIRE_CCT:
		return "CongestionControlTable";
	}
	return "?";
}

void ibfm_ccwire_get_cpi(const uint8_t *d, struct ibfm_ccwire_cpi *c)
{
	c->base_version = d[0];
	c->class_version = d[1];
	c->cap_mask = be16(d + 2);
}

void ibfm_ccwire_put_cpi(uint8_t *d, const struct ibfm_ccwire_cpi *c)
{
	d[0] = c->base_version;
	d[1] = c->class_version;
	put16(d + 2, c->cap_mask);
}

void ibfm_ccwire_get_info(const uint8_t *d, struct ibfm_ccwire_info *i)
{
	i->info = be16(d);
	i->cct_cap = d[2];
}

void ibfm_ccwire_put_info(uint8_t *d, const struct ibfm_ccwire_info *i)
{
	put16(d, i->info);
	d[2] = i->cct_cap;
}

void ibfm_ccwire_get_key(const uint8_t *d, struct ibfm_ccwire_key *k)
{
	k->key = (uint64_t)be32(d) << 32 | be32(d + 4);
	k->protect = d[8] >> 7;
	k->lease_period = be16(d + 10);
	k->violations = be16(d + 12);
}

void ibfm_ccwire_put_key(uint8_t *d, const struct ibfm_ccwire_key *k)
{
	put32(d, (uint32_t)(k->key >> 32));
	put32(d + 4, (uint32_t)k->key);
	d[8] = (uint8_t)((d[8] & 0x7F) | (k->protect & 1) << 7);
	put16(d + 10, k->lease_period);
	put16(d + 12, k->violations);
}

void ibfm_ccwire_get_switch(const uint8_t *d, struct ibfm_ccprofile_switch *s)
{
	s->control_map = be32(d);
	get_mask(d + 4, s->victim_mask);
	get_mask(d + 36, s->credit_mask);
	s->threshold = d[68] >> 4;
	s->packet_size = d[69];
	s->cs_threshold = d[70] >> 4;
	s->cs_return_delay = be16(d + 72);
	s->marking_rate = be16(d + 74);
}

void ibfm_ccwire_put_switch(uint8_t *d, const struct ibfm_ccprofile_switch *s)
{
	put32(d, s->control_map);
	put_mask(d + 4, s->victim_mask);
	put_mask(d + 36, s->credit_mask);
	d[68] = (uint8_t)((d[68] & 0x0F) | (s->threshold & 0xF) << 4);
	d[69] = s->packet_size;
	d[70] = (uint8_t)((d[70] & 0x0F) | (s->cs_threshold & 0xF) << 4);
	put16(d + 72, s->cs_return_delay);
	put16(d + 74, s->marking_rate);
}

void ibfm_ccwire_get_ca(const uint8_t *d, struct ibfm_ccprofile_ca *c)
{
	c->port_control = be16(d);
	c->control_map = be16(d + 2);
	for (unsigned i = 0; i < IBFM_CCPROFILE_SLS; i++) {
		const uint8_t *e = d + 4 + i * 8;

		c->sl[i].ccti_timer = be16(e);
		c->sl[i].ccti_increase = e[2];
		c->sl[i].trigger_threshold = e[3];
		c->sl[i].ccti_min = e[4];
	}
}

void ibfm_ccwire_put_ca(uint8_t *d, const struct ibfm_ccprofile_ca *c)
{
	put16(d, c->port_control);
	put16(d + 2, c->control_map);
	for (unsigned i = 0; i < IBFM_CCPROFILE_SLS; i++) {
		uint8_t *e = d + 4 + i * 8;

		put16(e, c->sl[i].ccti_timer);
		e[2] = c->sl[i].ccti_increase;
		e[3] = c->sl[i].trigger_threshold;
		e[4] = c->sl[i].ccti_min;
	}
}

void ibfm_ccwire_get_cct(const uint8_t *d, struct ibfm_ccwire_cct *t)
{
	t->limit = be16(d);
	for (unsigned i = 0; i < IBFM_CCWIRE_CCT_BLOCK; i++) {
		uint16_t v = be16(d + 4 + i * 2);

		t->e[i].shift = (uint8_t)(v >> 14);
		t->e[i].multiplier = v & 0x3FFF;
	}
}

void ibfm_ccwire_put_cct(uint8_t *d, const struct ibfm_ccwire_cct *t)
{
	put16(d, t->limit);
	for (unsigned i = 0; i < IBFM_CCWIRE_CCT_BLOCK; i++)
		put16(d + 4 + i * 2, (uint16_t)((t->e[i].shift & 3) << 14 |
						(t->e[i].multiplier & 0x3FFF)));
}
