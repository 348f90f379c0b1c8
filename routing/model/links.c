// SPDX-License-Identifier: MIT
/*
 * Links as operators read them: names of PortInfo's states and speeds,
 * and the down and degraded verdicts (routing/model/links.h says what each
 * means and why).
 */
#include "routing/model/links.h"

uint8_t ibfm_links_width_max(unsigned mask)
{
	/* 12X and 8X beat 4X beats 2X beats 1X; the mask bits are not in
	 * lane order (2X came last). */
	static const unsigned order[] = { 8, 4, 2, 16, 1 };
	unsigned i;

	for (i = 0; i < sizeof(order) / sizeof(*order); i++)
		if (mask & order[i])
			return ibfm_width_lanes(order[i]);
	return 0;
}

uint8_t ibfm_links_speed_max(unsigned mask, unsigned ext_mask)
{
	/* LinkSpeedExt: 1 FDR, 2 EDR, 4 HDR, 8 NDR, 16 XDR. */
	static const uint8_t ext[] = { IBFM_SPEED_FDR, IBFM_SPEED_EDR,
				       IBFM_SPEED_HDR, IBFM_SPEED_NDR,
				       IBFM_SPEED_XDR };
	/* LinkSpeed: 1 SDR, 2 DDR, 4 QDR. */
	static const uint8_t base[] = { IBFM_SPEED_SDR, IBFM_SPEED_DDR,
					IBFM_SPEED_QDR };
	int i;

	for (i = (int)(sizeof(ext) / sizeof(*ext)) - 1; i >= 0; i--)
		if (ext_mask & (1U << i))
			return ext[i];
	for (i = (int)(sizeof(base) / sizeof(*base)) - 1; i >= 0; i--)
		if (mask & (1U << i))
			return base[i];
	return IBFM_SPEED_UNKNOWN;
}

const char *ibfm_links_state_name(unsigned state)
{
	static const char *const names[] = { "?", "Down", "Initialize", "Armed",
					     "Active" };

	return state < sizeof(names) / sizeof(*names) ? names[state] : "?";
}

const char *ibfm_links_phys_name(unsigned phys)
{
	static const char *const names[] = {
		"?",
		"Sleep",
		"Polling",
		"Disabled",
		"PortConfigurationTraining",
		"LinkUp",
		"LinkErrorRecovery",
		"PhyTest",
	};

	return phys < sizeof(names) / sizeof(*names) ? names[phys] : "?";
}

const char *ibfm_links_lane_gbps(unsigned speed)
{
	/* The signalling rate per lane, the figure iblinkinfo prints. */
	static const char *const rates[IBFM_SPEED_COUNT] = {
		[IBFM_SPEED_UNKNOWN] = "?",	[IBFM_SPEED_SDR] = "2.5",
		[IBFM_SPEED_DDR] = "5.0",	[IBFM_SPEED_QDR] = "10.0",
		[IBFM_SPEED_FDR10] = "10.3125", [IBFM_SPEED_FDR] = "14.0625",
		[IBFM_SPEED_EDR] = "25.78125",	[IBFM_SPEED_HDR] = "53.125",
		[IBFM_SPEED_NDR] = "106.25",	[IBFM_SPEED_XDR] = "212.5",
	};

	return speed < IBFM_SPEED_COUNT ? rates[speed] : "?";
}

bool ibfm_links_down(const struct ibfm_fabric *f, uint32_t p)
{
	const struct ibfm_port *x = &f->ports[p];

	/* A topology file says nothing of the physical state: 0 passes. */
	return x->state != IBFM_PORT_ACTIVE || (x->phys && x->phys != 5);
}

/* The most a port allows: enabled, else supported, else 0. */
static uint8_t most(uint8_t en, uint8_t sup)
{
	return en ? en : sup;
}

/* The smaller of two maxima, one of which may be unknown (0). */
static uint8_t lower(uint8_t a, uint8_t b)
{
	if (!a || !b)
		return a ? a : b;
	return a < b ? a : b;
}

unsigned ibfm_links_degraded(const struct ibfm_fabric *f, uint32_t p,
			     uint8_t *width, uint8_t *speed)
{
	const struct ibfm_port *x = &f->ports[p];
	uint8_t w = 0, s = 0;
	unsigned why = 0;

	if (x->peer != IBFM_NONE) {
		const struct ibfm_port *y = &f->ports[x->peer];

		w = lower(most(x->width_en, x->width_sup),
			  most(y->width_en, y->width_sup));
		s = lower(most(x->speed_en, x->speed_sup),
			  most(y->speed_en, y->speed_sup));
		if (w && x->width && x->width < w)
			why |= IBFM_LINKS_NARROW;
		if (s && x->speed && x->speed < s)
			why |= IBFM_LINKS_SLOW;
	}
	if (width)
		*width = w;
	if (speed)
		*speed = s;
	return why;
}
