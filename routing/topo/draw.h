/* SPDX-License-Identifier: MIT */
#ifndef IBFM_DRAW_H
#define IBFM_DRAW_H

/*
 * DOC: a picture of the fabric as its operator thinks of it.
 *
 * Switches in rows by rank (cores on top, then spines, then leaves),
 * each row in name order, so rails and scalable units ("leaf-r3-02")
 * and pods fall side by side; a leaf's box says how many hosts hang
 * below it. One line per cabled switch pair, labelled with the number
 * of links when there are several. Against an expected fabric, what is
 * missing is drawn where it should be: a switch not found in red, a
 * switch pair with fewer links than cabled in dashed red ("2/4"), a link
 * slower or narrower than cabled in orange; drained switches and links
 * (a drain list) in purple. The layout comes from the expected fabric
 * when there is one, so a missing switch keeps its place.
 *
 * SVG (self-contained, a legend, a <title> on every element for a
 * tooltip) or Graphviz DOT (rank=same rows, the same colours). Cost:
 * O(ports) plus sorting the switches.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "routing/state/drain.h"
#include "routing/base/err.h"
#include "routing/model/fabric.h"

struct ibfm_nodemap;

enum ibfm_draw_format { IBFM_DRAW_SVG, IBFM_DRAW_DOT };

struct ibfm_draw_opts {
	const struct ibfm_fabric *expected; /* NULL: draw 'f' alone */
	const struct ibfm_drain *drains;    /* NULL: none */
	enum ibfm_draw_format format;
	const char *title;		  /* NULL: none */
	const struct ibfm_nodemap *names; /* names by NodeGUID; NULL: the
					   * node descriptions */
	const uint8_t *only; /* per node of the layout fabric: draw it;
			      * NULL: every switch (a group's drill-down) */
	bool fragment;	     /* SVG inside HTML: no XML declaration */
	bool problems_only;  /* SVG: only the pairs not as cabled (a group
			      * too large to draw every cable of) */
};

/* What the picture shows, for the caller's summary. */
struct ibfm_draw_stats {
	unsigned switches, pairs;	  /* drawn */
	unsigned switches_missing;	  /* expected, not found */
	unsigned pairs_missing, degraded; /* pairs short of links; slower */
	unsigned drained;		  /* switches and pairs drained */
	unsigned pairs_drawn;		  /* pairs drawn (problems_only) */
};

/*
 * Draws fabric 'f' to 'out' as 'o' says; figures into 'st'. 0, -ENOMEM
 * or -EIO ('err' says which).
 */
int ibfm_draw(const struct ibfm_fabric *f, const struct ibfm_draw_opts *o,
	      FILE *out, struct ibfm_draw_stats *st, struct ibfm_err *err);

/* Writes 's' to 'out' escaped for XML text and attributes (SVG, HTML). */
void ibfm_draw_esc(FILE *out, const char *s);

#endif /* IBFM_DRAW_H */
