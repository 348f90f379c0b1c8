// SPDX-License-Identifier: MIT
/* A picture of the fabric, in SVG or DOT (see routing/topo/draw.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* qsort_r */
#endif
#include "routing/topo/draw.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/model/nodemap.h"
#include "routing/model/rank.h"
#include "routing/topo/group.h"

#define BOX_W 58
#define BOX_H 24
#define STEP_X 66
#define ROW_H 120
#define MARGIN 40
#define TOP 70

/* Colours of the states, SVG and DOT alike. */
#define C_OK "#8a8f98"
#define C_MISSING "#d62728"
#define C_DEGRADED "#ff7f0e"
#define C_DRAINED "#9467bd"

struct box {
	uint32_t node; /* in the layout fabric */
	unsigned rank;
	unsigned hosts; /* CAs below it */
	double x, y;
	bool missing, drained;
};

/* A link of the layout fabric between two drawn switches. */
struct link {
	uint32_t a, b; /* box indexes, a above (or beside) b */
	uint32_t port; /* the layout fabric's port at a */
};

struct pair {
	uint32_t a, b;
	unsigned cabled, found;
	bool degraded, drained;
};

struct picture {
	const struct ibfm_fabric *lay, *f; /* layout (expected) and found */
	const struct ibfm_draw_opts *o;
	uint8_t *rank;
	unsigned levels;
	struct box *box;
	uint32_t nbox, *box_of; /* layout node -> box, IBFM_NONE */
	struct pair *pair;
	uint32_t npair;
	unsigned widest; /* boxes in the fullest row */
};

void ibfm_draw_esc(FILE *out, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			if ((unsigned char)*s >= 0x20)
				fputc(*s, out);
		}
}

/* The map's name for the node, else its description, else its id. */
static const char *name_of(const struct picture *p, const struct box *b)
{
	return ibfm_group_node_name(p->lay, p->o->names, b->node);
}

static int box_cmp(const void *x, const void *y, void *ctx)
{
	const struct box *a = x, *b = y;

	if (a->rank != b->rank)
		return a->rank > b->rank ? -1 : 1;
	return ibfm_group_name_cmp(name_of(ctx, a), name_of(ctx, b));
}

/* Whether the drain list names node 'n' of 'f' (port 0) or its port. */
static bool drained(const struct ibfm_drain *d, const struct ibfm_fabric *f,
		    uint32_t n, unsigned port)
{
	size_t i;

	for (i = 0; d && i < d->n; i++)
		if (d->v[i].guid == f->nodes[n].guid &&
		    (d->v[i].port == 0 || d->v[i].port == port))
			return true;
	return false;
}

/* The found fabric's node for layout node 'n', or IBFM_NONE. */
static uint32_t found_node(const struct picture *p, uint32_t n)
{
	return p->lay == p->f
		       ? n
		       : ibfm_fabric_node_by_guid(p->f, p->lay->nodes[n].guid);
}

/* The switches to draw, in rows, placed. */
static int place_boxes(struct picture *p)
{
	const struct ibfm_fabric *L = p->lay;
	uint32_t n, i, q, row0 = 0;

	p->box = calloc(L->nnodes + 1, sizeof(*p->box));
	p->box_of = malloc((L->nnodes + 1) * sizeof(*p->box_of));
	if (!p->box || !p->box_of)
		return -ENOMEM;
	for (n = 0; n < L->nnodes; n++) {
		const struct ibfm_node *x = &L->nodes[n];
		struct box *b = &p->box[p->nbox];

		if (!ibfm_node_is_switch(x) || p->rank[n] == IBFM_RANK_NONE ||
		    !p->rank[n] || (p->o->only && !p->o->only[n]))
			continue;
		b->node = n;
		b->rank = p->rank[n];
		b->missing = found_node(p, n) == IBFM_NONE;
		b->drained = drained(p->o->drains, L, n, 0);
		for (q = x->port0 + 1; q <= x->port0 + x->nports; q++)
			b->hosts += L->ports[q].peer != IBFM_NONE &&
				    !ibfm_node_is_switch(
					    &L->nodes[L->ports[L->ports[q].peer]
							      .node]);
		p->nbox++;
	}
	qsort_r(p->box, p->nbox, sizeof(*p->box), box_cmp, p);
	if (p->nbox) /* a drill-down may leave the top rows out */
		p->levels = p->box[0].rank;
	for (n = 0; n < L->nnodes; n++)
		p->box_of[n] = IBFM_NONE;
	for (i = 0; i <= p->nbox; i++) {
		if (i < p->nbox && p->box[i].rank == p->box[row0].rank)
			continue;
		if (i - row0 > p->widest)
			p->widest = i - row0;
		row0 = i;
	}
	for (i = 0, row0 = 0; i <= p->nbox; i++) {
		uint32_t k, w;

		if (i < p->nbox && p->box[i].rank == p->box[row0].rank)
			continue;
		w = i - row0; /* this row: spread over the widest's width */
		for (k = row0; k < i; k++) {
			p->box[k].x = MARGIN +
				      (k - row0 + 0.5) *
					      ((double)p->widest * STEP_X / w);
			p->box[k].y =
				TOP + (p->levels - p->box[k].rank) * ROW_H;
			p->box_of[p->box[k].node] = k;
		}
		row0 = i;
	}
	return 0;
}

static int link_cmp(const void *x, const void *y)
{
	const struct link *a = x, *b = y;

	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	if (a->b != b->b)
		return a->b < b->b ? -1 : 1;
	return (a->port > b->port) - (a->port < b->port);
}

/* One cabled link of a pair: found, degraded, drained? */
static void judge(const struct picture *p, struct pair *pr, uint32_t port)
{
	const struct ibfm_fabric *L = p->lay, *f = p->f;
	const struct ibfm_port *lp = &L->ports[port];
	const struct ibfm_port *lq = &L->ports[lp->peer];
	uint32_t an = found_node(p, lp->node), fp, fq;

	if (drained(p->o->drains, L, lp->node, lp->num) ||
	    drained(p->o->drains, L, lq->node, lq->num))
		pr->drained = true;
	if (an == IBFM_NONE || lp->num > f->nodes[an].nports)
		return;
	fp = f->nodes[an].port0 + lp->num;
	fq = f->ports[fp].peer;
	if (fq == IBFM_NONE ||
	    f->nodes[f->ports[fq].node].guid != L->nodes[lq->node].guid)
		return;
	pr->found++;
	if (L != f && lp->width && lp->speed &&
	    ibfm_link_gbps(f->ports[fp].width, f->ports[fp].speed) <
		    ibfm_link_gbps(lp->width, lp->speed))
		pr->degraded = true;
}

/* The cabled switch pairs of the layout, each judged against 'f'. */
static int make_pairs(struct picture *p)
{
	const struct ibfm_fabric *L = p->lay;
	struct link *l = malloc((L->nports + 1) * sizeof(*l));
	uint32_t q, n = 0, i;

	p->pair = calloc(L->nports + 1, sizeof(*p->pair));
	if (!l || !p->pair) {
		free(l);
		return -ENOMEM;
	}
	for (q = 0; q < L->nports; q++) {
		uint32_t peer = L->ports[q].peer, a, b;

		if (peer == IBFM_NONE)
			continue;
		a = p->box_of[L->ports[q].node];
		b = p->box_of[L->ports[peer].node];
		if (a == IBFM_NONE || b == IBFM_NONE || a > b)
			continue; /* each link once, from its lower box */
		l[n++] = (struct link){ a, b, q };
	}
	qsort(l, n, sizeof(*l), link_cmp);
	for (i = 0; i < n; i++) {
		struct pair *pr;

		if (!i || l[i].a != l[i - 1].a || l[i].b != l[i - 1].b)
			p->pair[p->npair++] =
				(struct pair){ .a = l[i].a, .b = l[i].b };
		pr = &p->pair[p->npair - 1];
		pr->cabled++;
		judge(p, pr, l[i].port);
	}
	free(l);
	return 0;
}

static bool pair_ok(const struct pair *pr)
{
	return !pr->drained && pr->found == pr->cabled && !pr->degraded;
}

static const char *pair_colour(const struct pair *pr)
{
	return pr->drained		? C_DRAINED
	       : pr->found < pr->cabled ? C_MISSING
	       : pr->degraded		? C_DEGRADED
					: C_OK;
}

static const char *box_colour(const struct box *b)
{
	return b->missing ? C_MISSING : b->drained ? C_DRAINED : C_OK;
}

static void svg_legend(FILE *out)
{
	static const struct {
		const char *colour, *what;
	} key[] = { { C_OK, "as cabled" },
		    { C_MISSING, "missing" },
		    { C_DEGRADED, "slower than cabled" },
		    { C_DRAINED, "drained" } };
	size_t i;

	for (i = 0; i < sizeof(key) / sizeof(*key); i++)
		fprintf(out,
			"<rect x=\"%zu\" y=\"34\" width=\"12\" height=\"12\" "
			"fill=\"%s\"/><text x=\"%zu\" y=\"44\" "
			"class=\"k\">%s</text>\n",
			MARGIN + i * 150, key[i].colour, MARGIN + i * 150 + 16,
			key[i].what);
}

static void write_svg(const struct picture *p, FILE *out)
{
	double w = 2 * MARGIN + (double)p->widest * STEP_X;
	double h = TOP + (double)p->levels * ROW_H;
	uint32_t i;

	if (!p->o->fragment)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
	fprintf(out,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"font-family=\"sans-serif\">\n"
		"<style>.n{font-size:8px;text-anchor:middle}"
		".k{font-size:11px}.c{font-size:7px;fill:#444}</style>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		w < 640 ? 640 : w, h, w < 640 ? 640 : w, h);
	if (p->o->title) {
		fputs("<text x=\"40\" y=\"22\" font-size=\"14\">", out);
		ibfm_draw_esc(out, p->o->title);
		fputs("</text>\n", out);
	}
	svg_legend(out);
	for (i = 0; i < p->npair; i++) {
		const struct pair *pr = &p->pair[i];
		const struct box *a = &p->box[pr->a], *b = &p->box[pr->b];
		bool dash = pr->found < pr->cabled;

		if (p->o->problems_only && pair_ok(pr))
			continue;

		fputs("<g class=\"link\"><title>", out);
		ibfm_draw_esc(out, name_of(p, a));
		fputs(" - ", out);
		ibfm_draw_esc(out, name_of(p, b));
		fprintf(out,
			": %u of %u links</title><line x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-width=\"%s\"%s/>",
			pr->found, pr->cabled, a->x,
			a->y + (a->y < b->y ? BOX_H / 2 : -BOX_H / 2), b->x,
			b->y + (a->y < b->y ? -BOX_H / 2 : BOX_H / 2),
			pair_colour(pr), pair_ok(pr) ? "0.6" : "1.6",
			dash ? " stroke-dasharray=\"4 3\"" : "");
		if (pr->cabled > 1 || dash)
			fprintf(out,
				"<text x=\"%.1f\" y=\"%.1f\" class=\"c\">%u/%u"
				"</text>",
				(a->x + b->x) / 2, (a->y + b->y) / 2, pr->found,
				pr->cabled);
		fputs("</g>\n", out);
	}
	for (i = 0; i < p->nbox; i++) {
		const struct box *b = &p->box[i];

		fputs("<g class=\"switch\"><title>", out);
		ibfm_draw_esc(out, name_of(p, b));
		fprintf(out,
			"%s%s</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%d\" "
			"height=\"%d\" rx=\"3\" fill=\"white\" stroke=\"%s\" "
			"stroke-width=\"%s\"/><text x=\"%.1f\" y=\"%.1f\" "
			"class=\"n\">",
			b->missing ? " (missing)" : "",
			b->drained ? " (drained)" : "", b->x - BOX_W / 2,
			b->y - BOX_H / 2, BOX_W, BOX_H, box_colour(b),
			!b->missing && !b->drained ? "1" : "2.5", b->x,
			b->y - (b->hosts ? 1 : -3));
		ibfm_draw_esc(out, name_of(p, b));
		fputs("</text>", out);
		if (b->hosts)
			fprintf(out,
				"<text x=\"%.1f\" y=\"%.1f\" class=\"c\" "
				"text-anchor=\"middle\">%u hosts</text>",
				b->x, b->y + 9, b->hosts);
		fputs("</g>\n", out);
	}
	fputs("</svg>\n", out);
}

static void dot_name(FILE *out, const struct picture *p, const struct box *b)
{
	const char *s = name_of(p, b);

	fputc('"', out);
	for (; *s; s++)
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if ((unsigned char)*s >= 0x20)
			fputc(*s, out);
	fputc('"', out);
}

static void write_dot(const struct picture *p, FILE *out)
{
	uint32_t i, row0 = 0;

	fputs("graph fabric {\n  node [shape=box, fontsize=9];\n", out);
	for (i = 0; i <= p->nbox; i++) {
		uint32_t k;

		if (i < p->nbox && p->box[i].rank == p->box[row0].rank)
			continue;
		fputs("  { rank=same;", out);
		for (k = row0; k < i; k++) {
			fputc(' ', out);
			dot_name(out, p, &p->box[k]);
			fprintf(out, " [color=\"%s\"%s];",
				box_colour(&p->box[k]),
				p->box[k].hosts ? ", style=bold" : "");
		}
		fputs(" }\n", out);
		row0 = i;
	}
	for (i = 0; i < p->npair; i++) {
		const struct pair *pr = &p->pair[i];

		fputs("  ", out);
		dot_name(out, p, &p->box[pr->a]);
		fputs(" -- ", out);
		dot_name(out, p, &p->box[pr->b]);
		fprintf(out, " [color=\"%s\"", pair_colour(pr));
		if (pr->cabled > 1 || pr->found < pr->cabled)
			fprintf(out, ", label=\"%u/%u\"", pr->found,
				pr->cabled);
		if (pr->found < pr->cabled)
			fputs(", style=dashed", out);
		fputs("];\n", out);
	}
	fputs("}\n", out);
}

static void count(const struct picture *p, struct ibfm_draw_stats *st)
{
	uint32_t i;

	memset(st, 0, sizeof(*st));
	st->switches = p->nbox;
	st->pairs = p->npair;
	for (i = 0; i < p->nbox; i++) {
		st->switches_missing += p->box[i].missing;
		st->drained += p->box[i].drained;
	}
	for (i = 0; i < p->npair; i++) {
		st->pairs_drawn +=
			!p->o->problems_only || !pair_ok(&p->pair[i]);
		st->pairs_missing += p->pair[i].found < p->pair[i].cabled;
		st->degraded += p->pair[i].degraded;
		st->drained += p->pair[i].drained;
	}
}

int ibfm_draw(const struct ibfm_fabric *f, const struct ibfm_draw_opts *o,
	      FILE *out, struct ibfm_draw_stats *st, struct ibfm_err *err)
{
	struct picture p = { .lay = o->expected ? o->expected : f,
			     .f = f,
			     .o = o };
	int rc;

	p.rank = malloc(p.lay->nnodes + 1);
	rc = p.rank ? ibfm_rank_detect(p.lay, p.rank, &p.levels) : -ENOMEM;
	if (!rc)
		rc = place_boxes(&p);
	if (!rc)
		rc = make_pairs(&p);
	if (!rc) {
		count(&p, st);
		if (o->format == IBFM_DRAW_DOT)
			write_dot(&p, out);
		else
			write_svg(&p, out);
		if (ferror(out))
			rc = ibfm_err_set(err, -EIO, "write error");
	} else {
		ibfm_err_set(err, rc, "out of memory");
	}
	free(p.rank);
	free(p.box);
	free(p.box_of);
	free(p.pair);
	return rc;
}
