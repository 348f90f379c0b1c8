/* SPDX-License-Identifier: MIT */
#ifndef IBFM_PAGE_H
#define IBFM_PAGE_H

/*
 * DOC: the fabric page at scale: one block per group, a problems list
 * beside it, a drill-down per group.
 *
 * A drawing of every switch and cable reads at 12 switches and not at
 * 1,620 (23,328 switch links at 11,664 hosts). The page draws the
 * fabric by its groups (routing/topo/group.h): one block per pod, unit
 * or core plane with its health (cables as cabled, missing, slower or
 * drained; switches missing or drained; ports with errors above the
 * thresholds; the hottest PortXmitWait where counters are known), the
 * links between groups aggregated with counts (every group pair while
 * they are few, else only those with a problem), and a link from each
 * block to the group's drill-down: its switches and cables drawn by
 * routing/topo/draw.h, with the switches of other groups they are
 * cabled to when all fit IBFM_PAGE_BUDGET elements (boxes and lines),
 * and a table of its links to each other group. The problems list
 * names what the operator acts on, as `ibfm links --down --degraded`
 * and `ibfm counters` would: missing switches and cables by their
 * ports, drained switches and ports, slower links, ports with errors,
 * the hottest ports; at most IBFM_PAGE_LIST a page.
 *
 * A fabric of one group (a 2-level tree without rails) keeps the whole
 * drawing. What is missing is judged against the expected fabric (the
 * layout, when given) as routing/topo/draw.h judges it. Cost: O(ports)
 * to judge, then O(groups + problems) to write: 11,664 hosts make a
 * page of about 60 KB (docs/operators.md has the figures).
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "routing/base/err.h"
#include "routing/model/fabric.h"
#include "routing/state/drain.h"
#include "routing/topo/group.h"

struct ibfm_nodemap;

#define IBFM_PAGE_BUDGET 400 /* elements a drill-down draws, at most */
#define IBFM_PAGE_LIST 200   /* problems a page lists, at most */

/*
 * A port's counters, when known: errors above the thresholds (as
 * ibqueryerrors counts them) and PortXmitWait since the sweep before.
 * False when the port was not read.
 */
typedef bool (*ibfm_page_counters_fn)(void *ctx, uint32_t port,
				      uint64_t *errors, uint64_t *wait);

enum ibfm_page_format { IBFM_PAGE_SVG, IBFM_PAGE_HTML };

struct ibfm_page_opts {
	const struct ibfm_fabric *expected; /* NULL: judge 'f' alone */
	const struct ibfm_drain *drains;    /* NULL: none */
	const struct ibfm_nodemap *names;   /* NULL: node descriptions */
	const struct ibfm_groups *groups;   /* of the layout (expected, else
					     * 'f'); NULL: found here */
	ibfm_page_counters_fn counters;	    /* per port of 'f'; NULL: none */
	void *counters_ctx;
	const char *title;  /* NULL: none */
	const char *group;  /* NULL: the overview; else its drill-down */
	const char *href;   /* a group's address, "%s" its name ("/group/%s") */
	const char *home;   /* the overview's address; NULL: no link to it */
	unsigned refresh_s; /* HTML: reloads itself this often; 0: never */
	enum ibfm_page_format format;
	bool whole; /* the overview draws every switch whatever the size */
};

/* What the page shows, for the caller's summary. */
struct ibfm_page_stats {
	unsigned groups;   /* in the fabric */
	unsigned blocks;   /* drawn: groups, or switches of a drawing */
	unsigned lines;	   /* drawn: group pairs, or switch pairs */
	unsigned problems; /* found; at most IBFM_PAGE_LIST listed */
	bool whole;	   /* every switch drawn (routing/topo/draw.h) */
	bool neighbours;   /* a drill-down with its neighbours' switches */
};

/*
 * Writes the page of fabric 'f' to 'out' as 'o' says; figures into
 * 'st'. 0, -ENOENT (no group o->group), -ENOMEM or -EIO ('err' says).
 */
int ibfm_page_write(const struct ibfm_fabric *f, const struct ibfm_page_opts *o,
		    FILE *out, struct ibfm_page_stats *st,
		    struct ibfm_err *err);

#endif /* IBFM_PAGE_H */
