/* SPDX-License-Identifier: MIT */
#ifndef IBFM_LINKS_H
#define IBFM_LINKS_H

/*
 * DOC: links as operators read them (iblinkinfo).
 *
 * What a port's PortInfo says, in iblinkinfo's words: the logical
 * state ("Active"), the physical state ("LinkUp", "Polling"), the
 * width ("4X") and the lane speed ("53.125 Gbps"); and two verdicts:
 *
 * - down: a port that is not Active over a LinkUp physical link. A
 *   switch port whose cable was pulled is Down/Polling; the node behind
 *   it is gone from the sweep, so only this port says where it was.
 * - degraded: a linked port running narrower or slower than both its
 *   ends have enabled (LinkWidthEnabled, LinkSpeed(Ext)Enabled; the
 *   supported values where enabled is not known): a link that trained
 *   down (a bad lane, a bad cable). A port enabled narrow on purpose is
 *   not degraded, and an HDR HCA on an NDR switch port is not either:
 *   the link can run no faster than the slower end.
 *
 * The PortInfo masks become the widest width and the fastest speed they
 * allow here too, so that the sweep stores plain numbers.
 */

#include <stdbool.h>
#include <stdint.h>

#include "routing/model/fabric.h"

/* The widest width (in lanes) of a PortInfo LinkWidth mask; 0 if none. */
uint8_t ibfm_links_width_max(unsigned mask);

/*
 * The fastest enum ibfm_speed of a PortInfo LinkSpeed mask and its
 * LinkSpeedExt mask (the extended speeds, FDR and up, win); 0 if none.
 */
uint8_t ibfm_links_speed_max(unsigned mask, unsigned ext_mask);

/* "Down", "Initialize", "Armed", "Active"; "?" when unknown. */
const char *ibfm_links_state_name(unsigned state);

/* "Sleep", "Polling", "Disabled", ..., "LinkUp"; "?" when unknown. */
const char *ibfm_links_phys_name(unsigned phys);

/* A lane's signalling rate as iblinkinfo prints it ("53.125"); "?". */
const char *ibfm_links_lane_gbps(unsigned speed);

/* Whether port 'p' of 'f' is down: not Active, or not LinkUp. */
bool ibfm_links_down(const struct ibfm_fabric *f, uint32_t p);

/* What degrades a link, as bits. */
enum {
	IBFM_LINKS_NARROW = 1, /* fewer lanes than both ends enable */
	IBFM_LINKS_SLOW = 2,   /* slower lanes than both ends enable */
};

/*
 * Whether linked port 'p' of 'f' runs below what both its ends enable:
 * IBFM_LINKS_NARROW | IBFM_LINKS_SLOW, 0 when it is not (or unlinked,
 * or nothing is known of what its ends enable). '*width' and '*speed'
 * (either may be NULL) get what the link could run at: the narrower
 * and slower of the two ends' maxima, 0 when unknown.
 */
unsigned ibfm_links_degraded(const struct ibfm_fabric *f, uint32_t p,
			     uint8_t *width, uint8_t *speed);

#endif /* IBFM_LINKS_H */
