// SPDX-License-Identifier: MIT
/*
 * Tests of cc/ccwire.c against libibmad's own CC field definitions:
 * what ibfm writes, libibmad reads field by field, and what libibmad
 * writes, ibfm reads, for every field ibfmd uses.
 */
#include "test_common.h"

#include <infiniband/mad.h>

#include "cc/ccwire.h"

static uint32_t dec(const uint8_t *d, enum MAD_FIELDS f)
{
	uint32_t v = 0;

	mad_decode_field((uint8_t *)d, f, &v);
	return v;
}

static void enc(uint8_t *d, enum MAD_FIELDS f, uint32_t v)
{
	mad_encode_field(d, f, &v);
}

static bool same_switch(const struct ibfm_ccprofile_switch *a,
			const struct ibfm_ccprofile_switch *b)
{
	return a->control_map == b->control_map &&
	       !memcmp(a->victim_mask, b->victim_mask, 32) &&
	       !memcmp(a->credit_mask, b->credit_mask, 32) &&
	       a->threshold == b->threshold &&
	       a->packet_size == b->packet_size &&
	       a->cs_threshold == b->cs_threshold &&
	       a->cs_return_delay == b->cs_return_delay &&
	       a->marking_rate == b->marking_rate;
}

static bool same_ca(const struct ibfm_ccprofile_ca *a,
		    const struct ibfm_ccprofile_ca *b)
{
	if (a->port_control != b->port_control ||
	    a->control_map != b->control_map)
		return false;
	for (unsigned i = 0; i < IBFM_CCPROFILE_SLS; i++)
		if (a->sl[i].ccti_timer != b->sl[i].ccti_timer ||
		    a->sl[i].ccti_increase != b->sl[i].ccti_increase ||
		    a->sl[i].trigger_threshold != b->sl[i].trigger_threshold ||
		    a->sl[i].ccti_min != b->sl[i].ccti_min)
			return false;
	return true;
}

/* Values that fill each field to its top bit, with distinct patterns. */
static void sample_switch(struct ibfm_ccprofile_switch *s)
{
	memset(s, 0, sizeof(*s));
	s->control_map = 0x80000005;
	s->victim_mask[0] = 0x01;  /* port 0 */
	s->victim_mask[31] = 0x80; /* port 255 */
	s->credit_mask[1] = 0x02;  /* port 9 */
	s->threshold = 0xF;
	s->packet_size = 0xA5;
	s->cs_threshold = 0x9;
	s->cs_return_delay = 0xBEEF;
	s->marking_rate = 0xFFFE;
}

static void test_switch_both_ways(void **state)
{
	uint8_t d[IBFM_CCWIRE_DATA] = { 0 }, mask[32],
		e[IBFM_CCWIRE_DATA] = { 0 };
	struct ibfm_ccprofile_switch s, back;

	(void)state;
	sample_switch(&s);
	ibfm_ccwire_put_switch(d, &s);
	assert_int_equal(dec(d, IB_CC_SWITCH_CONGESTION_SETTING_CONTROL_MAP_F),
			 s.control_map);
	assert_int_equal(dec(d, IB_CC_SWITCH_CONGESTION_SETTING_THRESHOLD_F),
			 0xF);
	assert_int_equal(dec(d, IB_CC_SWITCH_CONGESTION_SETTING_PACKET_SIZE_F),
			 0xA5);
	assert_int_equal(dec(d, IB_CC_SWITCH_CONGESTION_SETTING_CS_THRESHOLD_F),
			 0x9);
	assert_int_equal(
		dec(d, IB_CC_SWITCH_CONGESTION_SETTING_CS_RETURN_DELAY_F),
		0xBEEF);
	assert_int_equal(dec(d, IB_CC_SWITCH_CONGESTION_SETTING_MARKING_RATE_F),
			 0xFFFE);
	/* The mask as libibmad hands it out: 32 bytes, port 255 first. */
	mad_decode_field(d, IB_CC_SWITCH_CONGESTION_SETTING_VICTIM_MASK_F,
			 mask);
	assert_int_equal(mask[31], 0x01);
	assert_int_equal(mask[0], 0x80);
	mad_decode_field(d, IB_CC_SWITCH_CONGESTION_SETTING_CREDIT_MASK_F,
			 mask);
	assert_int_equal(mask[30], 0x02);

	/* The other way: libibmad writes, ibfm reads. */
	enc(e, IB_CC_SWITCH_CONGESTION_SETTING_CONTROL_MAP_F, s.control_map);
	enc(e, IB_CC_SWITCH_CONGESTION_SETTING_THRESHOLD_F, s.threshold);
	enc(e, IB_CC_SWITCH_CONGESTION_SETTING_PACKET_SIZE_F, s.packet_size);
	enc(e, IB_CC_SWITCH_CONGESTION_SETTING_CS_THRESHOLD_F, s.cs_threshold);
	enc(e, IB_CC_SWITCH_CONGESTION_SETTING_CS_RETURN_DELAY_F,
	    s.cs_return_delay);
	enc(e, IB_CC_SWITCH_CONGESTION_SETTING_MARKING_RATE_F, s.marking_rate);
	memset(mask, 0, sizeof(mask));
	mask[31] = 0x01;
	mask[0] = 0x80;
	mad_encode_field(e, IB_CC_SWITCH_CONGESTION_SETTING_VICTIM_MASK_F,
			 mask);
	memset(mask, 0, sizeof(mask));
	mask[30] = 0x02;
	mad_encode_field(e, IB_CC_SWITCH_CONGESTION_SETTING_CREDIT_MASK_F,
			 mask);
	ibfm_ccwire_get_switch(e, &back);
	assert_true(same_switch(&back, &s));
	assert_memory_equal(d, e, sizeof(d));
}

static void test_ca_both_ways(void **state)
{
	uint8_t d[IBFM_CCWIRE_DATA] = { 0 }, e[IBFM_CCWIRE_DATA] = { 0 };
	struct ibfm_ccprofile_ca c, back;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.port_control = 0x8001;
	c.control_map = 0xFFFD;
	for (unsigned i = 0; i < IBFM_CCPROFILE_SLS; i++)
		c.sl[i] = (struct ibfm_ccprofile_sl){ (uint16_t)(0xF000 + i),
						      (uint8_t)(0x80 + i),
						      (uint8_t)(0xF0 - i),
						      (uint8_t)(0x40 + i) };
	ibfm_ccwire_put_ca(d, &c);
	assert_int_equal(dec(d, IB_CC_CA_CONGESTION_SETTING_PORT_CONTROL_F),
			 0x8001);
	assert_int_equal(dec(d, IB_CC_CA_CONGESTION_SETTING_CONTROL_MAP_F),
			 0xFFFD);
	enc(e, IB_CC_CA_CONGESTION_SETTING_PORT_CONTROL_F, c.port_control);
	enc(e, IB_CC_CA_CONGESTION_SETTING_CONTROL_MAP_F, c.control_map);
	for (unsigned i = 0; i < IBFM_CCPROFILE_SLS; i++) {
		/* Entries follow the two 16-bit fields, 8 bytes each (as
		 * infiniband-diags' ibccconfig lays them out). */
		uint8_t *p = d + 4 + i * 8, *q = e + 4 + i * 8;

		assert_int_equal(dec(p, IB_CC_CA_CONGESTION_ENTRY_CCTI_TIMER_F),
				 c.sl[i].ccti_timer);
		assert_int_equal(
			dec(p, IB_CC_CA_CONGESTION_ENTRY_CCTI_INCREASE_F),
			c.sl[i].ccti_increase);
		assert_int_equal(
			dec(p, IB_CC_CA_CONGESTION_ENTRY_TRIGGER_THRESHOLD_F),
			c.sl[i].trigger_threshold);
		assert_int_equal(dec(p, IB_CC_CA_CONGESTION_ENTRY_CCTI_MIN_F),
				 c.sl[i].ccti_min);
		enc(q, IB_CC_CA_CONGESTION_ENTRY_CCTI_TIMER_F,
		    c.sl[i].ccti_timer);
		enc(q, IB_CC_CA_CONGESTION_ENTRY_CCTI_INCREASE_F,
		    c.sl[i].ccti_increase);
		enc(q, IB_CC_CA_CONGESTION_ENTRY_TRIGGER_THRESHOLD_F,
		    c.sl[i].trigger_threshold);
		enc(q, IB_CC_CA_CONGESTION_ENTRY_CCTI_MIN_F, c.sl[i].ccti_min);
	}
	ibfm_ccwire_get_ca(e, &back);
	assert_true(same_ca(&back, &c));
	assert_memory_equal(d, e, sizeof(d));
}

static void test_cct_both_ways(void **state)
{
	uint8_t d[IBFM_CCWIRE_DATA] = { 0 }, e[IBFM_CCWIRE_DATA] = { 0 };
	struct ibfm_ccwire_cct t, back;

	(void)state;
	memset(&t, 0, sizeof(t));
	t.limit = 0x017F;
	for (unsigned i = 0; i < IBFM_CCWIRE_CCT_BLOCK; i++)
		t.e[i] = (struct ibfm_ccprofile_cct_entry){
			(uint8_t)(i % 4), (uint16_t)(0x3FFF - i)
		};
	ibfm_ccwire_put_cct(d, &t);
	assert_int_equal(dec(d, IB_CC_CONGESTION_CONTROL_TABLE_CCTI_LIMIT_F),
			 0x017F);
	enc(e, IB_CC_CONGESTION_CONTROL_TABLE_CCTI_LIMIT_F, t.limit);
	for (unsigned i = 0; i < IBFM_CCWIRE_CCT_BLOCK; i++) {
		uint8_t *p = d + 4 + i * 2, *q = e + 4 + i * 2;

		assert_int_equal(
			dec(p,
			    IB_CC_CONGESTION_CONTROL_TABLE_ENTRY_CCT_SHIFT_F),
			t.e[i].shift);
		assert_int_equal(
			dec(p,
			    IB_CC_CONGESTION_CONTROL_TABLE_ENTRY_CCT_MULTIPLIER_F),
			t.e[i].multiplier);
		enc(q, IB_CC_CONGESTION_CONTROL_TABLE_ENTRY_CCT_SHIFT_F,
		    t.e[i].shift);
		enc(q, IB_CC_CONGESTION_CONTROL_TABLE_ENTRY_CCT_MULTIPLIER_F,
		    t.e[i].multiplier);
	}
	ibfm_ccwire_get_cct(e, &back);
	assert_int_equal(back.limit, t.limit);
	for (unsigned i = 0; i < IBFM_CCWIRE_CCT_BLOCK; i++) {
		assert_int_equal(back.e[i].shift, t.e[i].shift);
		assert_int_equal(back.e[i].multiplier, t.e[i].multiplier);
	}
	assert_memory_equal(d, e, sizeof(d));
}

static void test_info_and_key(void **state)
{
	uint8_t d[IBFM_CCWIRE_DATA] = { 0 }, e[IBFM_CCWIRE_DATA] = { 0 };
	struct ibfm_ccwire_info i = { 0x8001, 3 }, ib;
	struct ibfm_ccwire_key k = { 0x0123456789ABCDEFULL, 1, 0xFFF0, 0x8002 },
			       kb;
	uint64_t key = 0;

	(void)state;
	ibfm_ccwire_put_info(d, &i);
	assert_int_equal(dec(d, IB_CC_CONGESTION_INFO_F), 0x8001);
	assert_int_equal(dec(d, IB_CC_CONGESTION_INFO_CONTROL_TABLE_CAP_F), 3);
	enc(e, IB_CC_CONGESTION_INFO_F, i.info);
	enc(e, IB_CC_CONGESTION_INFO_CONTROL_TABLE_CAP_F, i.cct_cap);
	ibfm_ccwire_get_info(e, &ib);
	assert_int_equal(ib.info, i.info);
	assert_int_equal(ib.cct_cap, i.cct_cap);

	memset(d, 0, sizeof(d));
	memset(e, 0, sizeof(e));
	ibfm_ccwire_put_key(d, &k);
	mad_decode_field(d, IB_CC_CONGESTION_KEY_INFO_CC_KEY_F, &key);
	assert_true(key == k.key);
	assert_int_equal(dec(d, IB_CC_CONGESTION_KEY_INFO_CC_KEY_PROTECT_BIT_F),
			 1);
	assert_int_equal(
		dec(d, IB_CC_CONGESTION_KEY_INFO_CC_KEY_LEASE_PERIOD_F),
		0xFFF0);
	assert_int_equal(dec(d, IB_CC_CONGESTION_KEY_INFO_CC_KEY_VIOLATIONS_F),
			 0x8002);
	mad_encode_field(e, IB_CC_CONGESTION_KEY_INFO_CC_KEY_F, &k.key);
	enc(e, IB_CC_CONGESTION_KEY_INFO_CC_KEY_PROTECT_BIT_F, k.protect);
	enc(e, IB_CC_CONGESTION_KEY_INFO_CC_KEY_LEASE_PERIOD_F, k.lease_period);
	enc(e, IB_CC_CONGESTION_KEY_INFO_CC_KEY_VIOLATIONS_F, k.violations);
	ibfm_ccwire_get_key(e, &kb);
	assert_true(kb.key == k.key);
	assert_int_equal(kb.protect, k.protect);
	assert_int_equal(kb.lease_period, k.lease_period);
	assert_int_equal(kb.violations, k.violations);
	assert_memory_equal(d, e, sizeof(d));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_switch_both_ways),
		cmocka_unit_test(test_ca_both_ways),
		cmocka_unit_test(test_cct_both_ways),
		cmocka_unit_test(test_info_and_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
