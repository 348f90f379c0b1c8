/* SPDX-License-Identifier: MIT */
#ifndef IBFMD_PAGE_H
#define IBFMD_PAGE_H

/*
 * DOC: the fabric page ibfmd serves on its metrics listener, for
 * people: `/` (the overview of the fabric by its groups and the
 * problems list, routing/topo/page.h), `/group/NAME` (a group's
 * drill-down), `/fabric.svg` (the overview's picture alone) and
 * `/group/NAME.svg`. Each is made at the request from the last sweep,
 * the view's groups (found once per sweep, mgmt/core/view.h), the
 * expected fabric, the drain list and the counters as `ibfm counters`
 * reads them (errors above ibqueryerrors' default thresholds, the
 * hottest PortXmitWait since the sweep before): judging is O(ports),
 * writing O(groups + problems), so a page of 11,664 hosts is a few
 * tens of KB made in milliseconds, never the drawing of every switch.
 */

#include <event2/buffer.h>

#include "mgmt/core/view.h"
#include "routing/state/statedir.h"

enum ibfmd_page_type {
	IBFMD_PAGE_NONE, /* no such page */
	IBFMD_PAGE_HTML,
	IBFMD_PAGE_SVG,
};

/*
 * Writes the page at 'path' into 'b' from 'v' and the drain list of
 * 'state' (its dir "": none); what it is, or IBFMD_PAGE_NONE (nothing
 * written) for a path that is no page or a group that is not there.
 */
enum ibfmd_page_type ibfmd_page_write(const struct ibfmd_view *v,
				      const struct ibfm_statedir *state,
				      const char *path, struct evbuffer *b);

#endif /* IBFMD_PAGE_H */
