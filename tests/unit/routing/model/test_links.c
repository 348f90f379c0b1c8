// SPDX-License-Identifier: MIT
/* Tests of routing/model/links.c: PortInfo masks, names, down and degraded. */
#include "test_common.h"

#include "routing/model/links.h"
#include "routing/topo/topo.h"

/* A leaf, two hosts; every link 4xHDR as the file says. */
static int setup(void **state)
{
	struct ibfm_fabric *f;
	struct ibfm_err err;

	if (ibfm_topo_read(FIXTURES "/leaf-2hosts.topo", &f, &err))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	ibfm_fabric_destroy(*state);
	return 0;
}

/* Port 'num' of the node with GUID 'guid'. */
static struct ibfm_port *port(struct ibfm_fabric *f, uint64_t guid,
			      unsigned num)
{
	return &f->ports[ibfm_fabric_port(f, ibfm_fabric_node_by_guid(f, guid),
					  num)];
}

/* Both ends of the leaf-hostA link enable 'w' lanes of 'speed'. */
static void enable(struct ibfm_fabric *f, uint8_t w, uint8_t speed)
{
	struct ibfm_port *a = port(f, 0x10, 1), *b = port(f, 0x20, 1);

	a->width_en = b->width_en = w;
	a->speed_en = b->speed_en = speed;
	a->width_sup = b->width_sup = 12;
	a->speed_sup = b->speed_sup = IBFM_SPEED_XDR;
	a->phys = b->phys = 5;
}

static void test_masks(void **state)
{
	(void)state;
	/* 1X|4X|8X|12X|2X, as ibsim supports: 12X. */
	assert_int_equal(ibfm_links_width_max(0x1f), 12);
	assert_int_equal(ibfm_links_width_max(0x2), 4);
	assert_int_equal(ibfm_links_width_max(0x11), 2); /* 2X beats 1X */
	assert_int_equal(ibfm_links_width_max(0), 0);
	assert_int_equal(ibfm_links_speed_max(0x7, 0), IBFM_SPEED_QDR);
	assert_int_equal(ibfm_links_speed_max(0x1, 0), IBFM_SPEED_SDR);
	assert_int_equal(ibfm_links_speed_max(0x7, 0x7), IBFM_SPEED_HDR);
	assert_int_equal(ibfm_links_speed_max(0x7, 0xf), IBFM_SPEED_NDR);
	assert_int_equal(ibfm_links_speed_max(0, 0), IBFM_SPEED_UNKNOWN);
	assert_string_equal(ibfm_links_lane_gbps(IBFM_SPEED_HDR), "53.125");
	assert_string_equal(ibfm_links_lane_gbps(IBFM_SPEED_SDR), "2.5");
	assert_string_equal(ibfm_links_lane_gbps(99), "?");
	assert_string_equal(ibfm_links_state_name(IBFM_PORT_ACTIVE), "Active");
	assert_string_equal(ibfm_links_state_name(9), "?");
	assert_string_equal(ibfm_links_phys_name(2), "Polling");
	assert_string_equal(ibfm_links_phys_name(5), "LinkUp");
}

static void test_down(void **state)
{
	struct ibfm_fabric *f = *state;
	uint32_t a = ibfm_fabric_port(f, ibfm_fabric_node_by_guid(f, 0x10), 1);

	/* A topology file knows no physical state: Active is up. */
	assert_false(ibfm_links_down(f, a));
	f->ports[a].phys = 5;
	assert_false(ibfm_links_down(f, a));
	f->ports[a].phys = 2;
	assert_true(ibfm_links_down(f, a)); /* Active but Polling */
	f->ports[a].phys = 5;
	f->ports[a].state = IBFM_PORT_INIT;
	assert_true(ibfm_links_down(f, a));
	/* Unlinked: Down. */
	ibfm_fabric_unlink(f, a);
	assert_true(ibfm_links_down(f, a));
}

static void test_degraded(void **state)
{
	struct ibfm_fabric *f = *state;
	uint32_t a = ibfm_fabric_port(f, ibfm_fabric_node_by_guid(f, 0x10), 1);
	uint32_t b = ibfm_fabric_port(f, ibfm_fabric_node_by_guid(f, 0x10), 2);
	uint8_t w, s;

	/* Nothing known of what the ends enable: not degraded. */
	assert_int_equal(ibfm_links_degraded(f, b, &w, &s), 0);
	assert_int_equal(w, 0);
	/* 4xHDR enabled on both ends, running 4xHDR. */
	enable(f, 4, IBFM_SPEED_HDR);
	assert_int_equal(ibfm_links_degraded(f, a, &w, &s), 0);
	assert_int_equal(w, 4);
	assert_int_equal(s, IBFM_SPEED_HDR);
	/* A lane lost: 1X. */
	f->ports[a].width = f->ports[f->ports[a].peer].width = 1;
	assert_int_equal(ibfm_links_degraded(f, a, &w, NULL),
			 IBFM_LINKS_NARROW);
	assert_int_equal(w, 4);
	/* And slower: EDR. */
	f->ports[a].speed = IBFM_SPEED_EDR;
	assert_int_equal(ibfm_links_degraded(f, a, NULL, &s),
			 IBFM_LINKS_NARROW | IBFM_LINKS_SLOW);
	assert_int_equal(s, IBFM_SPEED_HDR);
	/* Enabled narrow on purpose (1X on both ends): not degraded,
	 * though both support 12X. */
	enable(f, 1, IBFM_SPEED_EDR);
	assert_int_equal(ibfm_links_degraded(f, a, NULL, NULL), 0);
	/* The peer is the slower end: an EDR HCA on an HDR port. */
	enable(f, 4, IBFM_SPEED_HDR);
	f->ports[f->ports[a].peer].speed_en = IBFM_SPEED_EDR;
	f->ports[a].width = 4;
	assert_int_equal(ibfm_links_degraded(f, a, NULL, &s), 0);
	assert_int_equal(s, IBFM_SPEED_EDR);
	/* Enabled unknown, supported known: supported counts. */
	f->ports[a].speed_en = f->ports[f->ports[a].peer].speed_en = 0;
	assert_int_equal(ibfm_links_degraded(f, a, NULL, &s), IBFM_LINKS_SLOW);
	assert_int_equal(s, IBFM_SPEED_XDR);
	/* Unlinked: not degraded (down). */
	ibfm_fabric_unlink(f, a);
	assert_int_equal(ibfm_links_degraded(f, a, &w, &s), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_masks),
		cmocka_unit_test_setup_teardown(test_down, setup, teardown),
		cmocka_unit_test_setup_teardown(test_degraded, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
