// SPDX-License-Identifier: MIT
/*
 * The fabric page at scale (routing/topo/page.h): the overview of
 * groups, a group's drill-down, the whole drawing of a small fabric.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "routing/topo/draw.h"
#include "routing/topo/page_int.h"

/* The overview's geometry: blocks in rows, upper tiers first. */
#define PAGE_W 980
#define MARGIN 16
#define BLOCK_W 148
#define BLOCK_H 80
#define GAP_X 10
#define GAP_Y 24
#define TOP 64
#define LINES_ALL 60 /* group pairs drawn all while they are this few */

#define C_OK "#8a8f98"
#define C_MISSING "#d62728"
#define C_DEGRADED "#ff7f0e"
#define C_DRAINED "#9467bd"
#define C_ERRORS "#8c564b"

struct place {
	double x, y; /* top left */
};

static bool upper(enum ibfm_group_kind k)
{
	return k == IBFM_GROUP_SPINES || k == IBFM_GROUP_CORES;
}

/* Blocks in rows: the spines and core planes, then the rest. */
static double place_blocks(const struct page *p, struct place *at)
{
	unsigned cols = (PAGE_W - 2 * MARGIN + GAP_X) / (BLOCK_W + GAP_X);
	double y = TOP;
	uint32_t i;
	int tier;

	for (tier = 1; tier >= 0; tier--) {
		uint32_t col = 0;

		for (i = 0; i < p->g->n; i++) {
			if (upper(p->g->v[i].kind) != (tier == 1))
				continue;
			if (col == cols) {
				col = 0;
				y += BLOCK_H + GAP_Y;
			}
			at[i] = (struct place){
				MARGIN + col * (BLOCK_W + GAP_X), y
			};
			col++;
		}
		if (col)
			y += BLOCK_H + GAP_Y;
	}
	return y;
}

static const char *tally_colour(const struct page_tally *t)
{
	return t->missing   ? C_MISSING
	       : t->drained ? C_DRAINED
	       : t->slower  ? C_DEGRADED
			    : C_OK;
}

static const char *block_colour(const struct page_block *b)
{
	return b->sw_missing || b->cables.missing   ? C_MISSING
	       : b->sw_drained || b->cables.drained ? C_DRAINED
	       : b->cables.slower		    ? C_DEGRADED
	       : b->err_ports			    ? C_ERRORS
						    : C_OK;
}

static bool tally_ok(const struct page_tally *t)
{
	return !t->missing && !t->slower && !t->drained;
}

/* A line between two blocks: found/cabled, coloured by the worst. */
static void group_line(const struct page *p, const struct place *at, uint32_t a,
		       uint32_t b, const struct page_tally *t)
{
	const struct place *u = &at[a], *v = &at[b];
	double x1 = u->x + BLOCK_W / 2, y1 = u->y + BLOCK_H;
	double x2 = v->x + BLOCK_W / 2, y2 = v->y;

	if (u->y > v->y) {
		y1 = u->y;
		y2 = v->y + BLOCK_H;
	}
	fprintf(p->out,
		"<g class=\"between\"><title>%s - %s: %" PRIu32 " of %" PRIu32
		" cables found, %" PRIu32 " slower, %" PRIu32
		" drained</title><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		"y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%s\"%s/>",
		p->g->v[a].name, p->g->v[b].name, t->cabled - t->missing,
		t->cabled, t->slower, t->drained, x1, y1, x2, y2,
		tally_colour(t), tally_ok(t) ? "0.4" : "2",
		t->missing ? " stroke-dasharray=\"5 3\"" : "");
	if (!tally_ok(t))
		fprintf(p->out,
			"<text x=\"%.1f\" y=\"%.1f\" class=\"c\">%" PRIu32
			"/%" PRIu32 "</text>",
			(x1 + x2) / 2, (y1 + y2) / 2, t->cabled - t->missing,
			t->cabled);
	fputs("</g>\n", p->out);
}

/* The lines between groups: all while few, else those with a problem. */
static unsigned group_lines(const struct page *p, const struct place *at,
			    uint32_t *pairs, uint32_t *cables)
{
	uint32_t a, b, n = p->g->n;
	unsigned drawn = 0;

	*pairs = *cables = 0;
	for (a = 0; p->between && a < n; a++)
		for (b = a + 1; b < n; b++) {
			*pairs += p->between[a * n + b].cabled != 0;
			*cables += p->between[a * n + b].cabled;
		}
	for (a = 0; p->between && a < n; a++)
		for (b = a + 1; b < n; b++) {
			const struct page_tally *t = &p->between[a * n + b];

			if (!t->cabled || (*pairs > LINES_ALL &&
					   (tally_ok(t) || drawn >= LINES_ALL)))
				continue;
			group_line(p, at, a, b, t);
			drawn++;
		}
	return drawn;
}

/* One line of a block's text, in 'colour' (NULL: the default). */
static void block_text(const struct page *p, const struct place *at,
		       unsigned line, const char *colour)
{
	fprintf(p->out, "<text x=\"%.1f\" y=\"%.1f\" class=\"b\"%s%s%s>",
		at->x + 6, at->y + 14 + 12.5 * line, colour ? " fill=\"" : "",
		colour ? colour : "", colour ? "\"" : "");
}

/*
 * A line of a block: "1 sw, 8 cables drained" ('sw' 0: no switch part),
 * in 'colour', when anything is; whether it was written.
 */
static bool state_line(const struct page *p, const struct place *at,
		       unsigned line, const char *colour, uint32_t sw,
		       uint32_t cables, const char *what)
{
	if (!sw && !cables)
		return false;
	block_text(p, at, line, colour);
	if (sw)
		fprintf(p->out, "%" PRIu32 " sw, ", sw);
	fprintf(p->out, "%" PRIu32 " cable%s %s</text>", cables,
		cables == 1 ? "" : "s", what);
	return true;
}

/* What goes wrong in a block, a line each. */
static void block_health(const struct page *p, const struct place *at,
			 const struct page_block *b)
{
	unsigned line = 2;

	line += state_line(p, at, line, C_MISSING, b->sw_missing,
			   b->cables.missing, "missing");
	line += state_line(p, at, line, C_DRAINED, b->sw_drained,
			   b->cables.drained, "drained");
	line += state_line(p, at, line, C_DEGRADED, 0, b->cables.slower,
			   "slower");
	if (b->err_ports) {
		block_text(p, at, line++, C_ERRORS);
		fprintf(p->out, "errors %" PRIu32 ": ", b->err_ports);
		page_port_name(p, p->f, b->err_port);
		fputs("</text>", p->out);
	}
	if (b->wait_port != IBFM_NONE && line < 6) {
		block_text(p, at, line, NULL);
		fputs("hot ", p->out);
		page_port_name(p, p->f, b->wait_port);
		fprintf(p->out, " %" PRIu64 "</text>", b->wait_max);
	}
}

static void write_block(const struct page *p, const struct place *at,
			uint32_t i)
{
	const struct ibfm_group *x = &p->g->v[i];
	const struct page_block *b = &p->block[i];
	const char *c = block_colour(b);

	fputs("<a href=\"", p->out);
	page_href(p, i);
	fprintf(p->out,
		"\"><g class=\"group\"><title>%s (%s): %" PRIu32
		" switches, %" PRIu32 " hosts; %" PRIu32 " of %" PRIu32
		" cables found</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%d\" "
		"height=\"%d\" rx=\"4\" fill=\"white\" stroke=\"%s\" "
		"stroke-width=\"%s\"/>",
		x->name, ibfm_group_kind_name(x->kind), x->nswitches, x->hosts,
		b->cables.cabled - b->cables.missing, b->cables.cabled, at->x,
		at->y, BLOCK_W, BLOCK_H, c, strcmp(c, C_OK) ? "2.5" : "1");
	block_text(p, at, 0, NULL);
	fprintf(p->out, "<tspan font-weight=\"bold\">%s</tspan> %" PRIu32 " sw",
		x->name, x->nswitches);
	if (x->hosts)
		fprintf(p->out, ", %" PRIu32 " hosts", x->hosts);
	fputs("</text>", p->out);
	block_text(p, at, 1, NULL);
	if (tally_ok(&b->cables))
		fprintf(p->out, "all %" PRIu32 " cables as cabled</text>",
			b->cables.cabled);
	else
		fprintf(p->out, "cables %" PRIu32 "/%" PRIu32 "</text>",
			b->cables.cabled - b->cables.missing, b->cables.cabled);
	block_health(p, at, b);
	fputs("</g></a>\n", p->out);
}

static void svg_legend(const struct page *p)
{
	static const struct {
		const char *colour, *what;
	} key[] = { { C_OK, "as cabled" },
		    { C_MISSING, "missing" },
		    { C_DEGRADED, "slower" },
		    { C_DRAINED, "drained" },
		    { C_ERRORS, "errors" } };
	size_t i;

	for (i = 0; i < sizeof(key) / sizeof(*key); i++)
		fprintf(p->out,
			"<rect x=\"%zu\" y=\"34\" width=\"12\" height=\"12\" "
			"fill=\"%s\"/><text x=\"%zu\" y=\"44\" class=\"k\">%s"
			"</text>\n",
			MARGIN + i * 110, key[i].colour, MARGIN + i * 110 + 16,
			key[i].what);
}

/* The overview: a block per group, lines between them. */
static int write_overview(const struct page *p, struct ibfm_page_stats *st)
{
	struct place *at = calloc(p->g->n + 1, sizeof(*at));
	uint32_t i, pairs, cables;
	double h;

	if (!at)
		return -ENOMEM;
	h = place_blocks(p, at);
	if (p->o->format == IBFM_PAGE_SVG)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", p->out);
	fprintf(p->out,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%.0f\" viewBox=\"0 0 %d %.0f\" "
		"font-family=\"sans-serif\">\n<style>.b{font-size:10.5px}"
		".k{font-size:11px}.c{font-size:9px;fill:#444}"
		".t{font-size:14px}</style>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		PAGE_W, h, PAGE_W, h);
	if (p->o->title && p->o->format == IBFM_PAGE_SVG) { /* else the h1 */
		fputs("<text x=\"16\" y=\"22\" class=\"t\">", p->out);
		ibfm_draw_esc(p->out, p->o->title);
		fputs("</text>\n", p->out);
	}
	svg_legend(p);
	st->lines = group_lines(p, at, &pairs, &cables);
	fprintf(p->out,
		"<text x=\"%d\" y=\"58\" class=\"c\">%" PRIu32
		" groups; %" PRIu32 " cables between %" PRIu32
		" group pairs%s. A block opens its group.</text>\n",
		MARGIN, p->g->n, cables, pairs,
		pairs > LINES_ALL ? ": only pairs with a problem drawn" : "");
	for (i = 0; i < p->g->n; i++)
		write_block(p, &at[i], i);
	fputs("</svg>\n", p->out);
	st->blocks = p->g->n;
	free(at);
	return 0;
}

/*
 * Group 'gi' and, when all fit the budget, the switches of other groups
 * cabled to it, into 'only'; whether the neighbours are in. '*inside':
 * the cables between the group's own switches.
 */
static bool drill_mask(const struct page *p, uint32_t gi, uint8_t *only,
		       uint32_t *inside)
{
	const struct ibfm_fabric *L = p->lay;
	const struct ibfm_group *x = &p->g->v[gi];
	uint32_t k, q, boxes = x->nswitches, lines = 0;

	for (k = 0; k < x->nswitches; k++)
		only[p->g->order[x->first + k]] = 1;
	for (k = 0; k < x->nswitches; k++) {
		const struct ibfm_node *s =
			&L->nodes[p->g->order[x->first + k]];

		for (q = s->port0 + 1; q <= s->port0 + s->nports; q++) {
			uint32_t peer = L->ports[q].peer, m;

			if (peer == IBFM_NONE ||
			    !ibfm_node_is_switch(
				    &L->nodes[L->ports[peer].node]))
				continue;
			m = L->ports[peer].node;
			lines++;
			*inside += p->g->of[m] == gi;
			if (!only[m]) {
				only[m] = 2;
				boxes++;
			}
		}
	}
	/* A cable between two of its switches was seen from both. */
	if (boxes + lines - *inside / 2 <= IBFM_PAGE_BUDGET)
		return true;
	for (k = 0; k < L->nnodes; k++)
		only[k] = only[k] == 1;
	return false;
}

/* Group 'gi' drawn by routing/topo/draw.h. */
static int write_drill(const struct page *p, uint32_t gi,
		       struct ibfm_page_stats *st, struct ibfm_err *err)
{
	uint8_t *only = calloc(p->lay->nnodes + 1, 1);
	struct ibfm_draw_opts d = { .expected = p->o->expected,
				    .drains = p->o->drains,
				    .names = p->o->names,
				    .title = p->g->v[gi].name,
				    .fragment =
					    p->o->format == IBFM_PAGE_HTML };
	struct ibfm_draw_stats ds;
	uint32_t inside = 0;
	char title[160];
	int rc;

	if (!only)
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	st->neighbours = drill_mask(p, gi, only, &inside);
	/* Too many cables of its own (1,024 in a radix-64 pod): problems. */
	inside /= 2;
	if (p->g->v[gi].nswitches + inside > IBFM_PAGE_BUDGET) {
		snprintf(title, sizeof(title),
			 "%s: its %" PRIu32 " switches; of its %" PRIu32
			 " internal cables, those not as cabled",
			 p->g->v[gi].name, p->g->v[gi].nswitches, inside);
		d.title = title;
		d.problems_only = true;
	}
	d.only = only;
	rc = ibfm_draw(p->f, &d, p->out, &ds, err);
	st->blocks = ds.switches;
	st->lines = ds.pairs_drawn;
	free(only);
	return rc;
}

/* Every switch drawn by routing/topo/draw.h. */
static int write_whole(const struct page *p, struct ibfm_page_stats *st,
		       struct ibfm_err *err)
{
	struct ibfm_draw_opts d = {
		.expected = p->o->expected,
		.drains = p->o->drains,
		.names = p->o->names,
		/* HTML has it as its heading */
		.title = p->o->format == IBFM_PAGE_SVG ? p->o->title : NULL,
		.fragment = p->o->format == IBFM_PAGE_HTML
	};
	struct ibfm_draw_stats ds;
	int rc = ibfm_draw(p->f, &d, p->out, &ds, err);

	st->whole = true;
	st->blocks = ds.switches;
	st->lines = ds.pairs;
	return rc;
}

/* The picture (and around it, for HTML, the page). */
static int write_page(struct page *p, uint32_t gi, struct ibfm_page_stats *st,
		      struct ibfm_err *err)
{
	bool html = p->o->format == IBFM_PAGE_HTML;
	bool whole = gi == IBFM_NONE && (p->o->whole || p->g->n == 1);
	int rc;

	if (html)
		page_html_head(p, gi == IBFM_NONE ? p->o->title
						  : p->g->v[gi].name);
	rc = gi != IBFM_NONE ? write_drill(p, gi, st, err)
	     : whole	     ? write_whole(p, st, err)
			     : write_overview(p, st);
	if (rc == -ENOMEM)
		ibfm_err_set(err, rc, "out of memory");
	if (html && !rc) {
		fputs("</div><div class=\"probs\">", p->out);
		if (gi != IBFM_NONE)
			page_html_between(p, gi);
		page_html_problems(p, gi);
		page_html_tail(p);
	}
	return rc;
}

int ibfm_page_write(const struct ibfm_fabric *f, const struct ibfm_page_opts *o,
		    FILE *out, struct ibfm_page_stats *st, struct ibfm_err *err)
{
	struct page p = { .lay = o->expected ? o->expected : f,
			  .f = f,
			  .o = o,
			  .g = o->groups,
			  .out = out };
	struct ibfm_groups own = { 0 };
	uint32_t gi = IBFM_NONE;
	int rc = 0;

	memset(st, 0, sizeof(*st));
	if (!p.g) {
		rc = ibfm_groups_find(p.lay, o->names, &own, err);
		p.g = &own;
	}
	if (!rc && o->group &&
	    (gi = ibfm_groups_by_name(p.g, o->group)) == IBFM_NONE)
		rc = ibfm_err_set(err, -ENOENT,
				  "no group \"%s\" in this fabric (ibfm topo "
				  "show lists its groups)",
				  o->group);
	if (!rc && page_judge(&p))
		rc = ibfm_err_set(err, -ENOMEM, "out of memory");
	if (!rc)
		rc = write_page(&p, gi, st, err);
	st->groups = p.g->n;
	st->problems = p.nprob + p.more;
	if (!rc && ferror(out))
		rc = ibfm_err_set(err, -EIO, "write error");
	free(p.block);
	free(p.between);
	free(p.prob);
	ibfm_groups_free(&own);
	return rc;
}
