// SPDX-License-Identifier: MIT
/*
 * The fabric page's HTML around its picture (routing/topo/page.h): the
 * problems list, a group's links to the others.
 */
#include <inttypes.h>
#include <string.h>

#include "routing/topo/draw.h"
#include "routing/topo/page_int.h"

void page_href(const struct page *p, uint32_t gi)
{
	const char *h = p->o->href ? p->o->href : "%s";
	const char *s = strstr(h, "%s");
	char head[256];
	size_t n = s ? (size_t)(s - h) : strlen(h);

	snprintf(head, sizeof(head), "%.*s", (int)n, h);
	ibfm_draw_esc(p->out, head);
	if (!s)
		return;
	ibfm_draw_esc(p->out, p->g->v[gi].name);
	ibfm_draw_esc(p->out, s + 2);
}

void page_html_head(const struct page *p, const char *title)
{
	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>",
	      p->out);
	ibfm_draw_esc(p->out, title ? title : "ibfm fabric");
	fputs("</title>", p->out);
	if (p->o->refresh_s)
		fprintf(p->out, "<meta http-equiv=\"refresh\" content=\"%u\">",
			p->o->refresh_s);
	fputs("<style>body{font-family:sans-serif;margin:12px}"
	      "h1{font-size:18px;margin:0 0 8px}h2{font-size:15px;margin:4px 0}"
	      ".wrap{display:flex;gap:14px;align-items:flex-start}"
	      ".pic{flex:1 1 auto;min-width:0}"
	      ".pic svg{max-width:100%;height:auto}"
	      ".probs{flex:0 0 370px;font-size:12.5px}"
	      "table{border-collapse:collapse}td,th{padding:2px 5px;"
	      "border-bottom:1px solid #e4e4e4;text-align:left}a{white-space:nowrap}"
	      ".k0,.k1{color:#d62728}.k2,.k3{color:#9467bd}.k4{color:#e06d00}"
	      ".k5{color:#8c564b}</style></head>\n<body><h1>",
	      p->out);
	ibfm_draw_esc(p->out, title ? title : "ibfm fabric");
	fputs("</h1><p>", p->out);
	if (p->o->group && p->o->home) {
		fputs("<a href=\"", p->out);
		ibfm_draw_esc(p->out, p->o->home);
		fputs("\">the whole fabric</a> &middot; ", p->out);
	}
	fputs("Red: missing against the expected cabling; orange: slower "
	      "than cabled; purple: drained; brown: errors above the "
	      "thresholds. Hover an element for its names.</p>\n"
	      "<div class=\"wrap\"><div class=\"pic\">",
	      p->out);
}

void page_html_tail(const struct page *p)
{
	fputs("</div></div></body></html>\n", p->out);
}

static const char *const problem_what[] = {
	"switch missing", "cable missing", "switch drained", "port drained",
	"slower",	  "errors",	   "PortXmitWait",
};

/* The element one problem names: a switch, a port, a cable. */
static void problem_element(const struct page *p, const struct page_problem *x)
{
	const struct ibfm_fabric *L = p->lay;

	switch (x->kind) {
	case PP_SWITCH_MISSING:
	case PP_SWITCH_DRAINED:
		ibfm_draw_esc(p->out,
			      ibfm_group_node_name(L, p->o->names, x->at));
		break;
	case PP_CABLE_MISSING:
	case PP_SLOWER:
		page_port_name(p, L, x->at);
		fputs(" &ndash; ", p->out);
		page_port_name(p, L, L->ports[x->at].peer);
		break;
	case PP_PORT_DRAINED:
		page_port_name(p, L, x->at);
		break;
	default: /* a port of the found fabric */
		page_port_name(p, p->f, x->at);
		fprintf(p->out, ": %" PRIu64, x->value);
	}
}

void page_html_problems(const struct page *p, uint32_t only)
{
	uint32_t i, n = 0, listed = 0;

	for (i = 0; i < p->nprob; i++)
		n += only == IBFM_NONE || p->prob[i].group == only;
	fprintf(p->out, "<h2>Problems: %" PRIu32 "</h2>", n + p->more);
	if (!n) {
		fputs("<p>None: every cable as cabled, no switch drained, no "
		      "port with errors.</p>",
		      p->out);
		return;
	}
	fputs("<table class=\"problems\"><tr><th>what</th><th>where</th>"
	      "<th>group</th></tr>\n",
	      p->out);
	for (i = 0; i < p->nprob && listed < IBFM_PAGE_LIST; i++) {
		const struct page_problem *x = &p->prob[i];

		if (only != IBFM_NONE && x->group != only)
			continue;
		listed++;
		fprintf(p->out, "<tr class=\"k%u\"><td>%s</td><td>", x->kind,
			problem_what[x->kind]);
		problem_element(p, x);
		fputs("</td><td><a href=\"", p->out);
		page_href(p, x->group);
		fprintf(p->out, "\">%s</a></td></tr>\n",
			p->g->v[x->group].name);
	}
	fputs("</table>", p->out);
	if (n + p->more > listed)
		fprintf(p->out,
			"<p>%" PRIu32 " more: <code>ibfm links --down "
			"--degraded</code>, <code>ibfm counters</code>.</p>",
			n + p->more - listed);
}

void page_html_between(const struct page *p, uint32_t gi)
{
	uint32_t k, n = p->g->n;

	if (!p->between)
		return;
	fputs("<h2>Links to other groups</h2><table><tr><th>group</th>"
	      "<th>found/cabled</th><th>slower</th><th>drained</th></tr>\n",
	      p->out);
	for (k = 0; k < n; k++) {
		const struct page_tally *t = &p->between[gi * n + k];

		if (!t->cabled)
			continue;
		fputs("<tr><td><a href=\"", p->out);
		page_href(p, k);
		fprintf(p->out,
			"\">%s</a></td><td>%" PRIu32 "/%" PRIu32
			"</td><td>%" PRIu32 "</td><td>%" PRIu32 "</td></tr>\n",
			p->g->v[k].name, t->cabled - t->missing, t->cabled,
			t->slower, t->drained);
	}
	fputs("</table>", p->out);
}
