/* SPDX-License-Identifier: MIT */
#ifndef IBFM_PAGE_INT_H
#define IBFM_PAGE_INT_H

/*
 * DOC: what the page's files share (routing/topo/page.h): the fabric
 * judged once (page_judge.c), then written (page.c, page_html.c).
 */

#include "routing/topo/page.h"

/* Cables by state; a cable missing is not judged slower or drained. */
struct page_tally {
	uint32_t cabled, missing, slower, drained;
};

/* A group's health. */
struct page_block {
	struct page_tally cables; /* every cable with an end in it */
	uint32_t sw_missing, sw_drained;
	uint32_t err_ports, err_port; /* ports with errors; the worst */
	uint64_t err_max;
	uint32_t wait_port; /* the hottest port, IBFM_NONE */
	uint64_t wait_max;
};

enum page_problem_kind {
	PP_SWITCH_MISSING,
	PP_CABLE_MISSING,
	PP_SWITCH_DRAINED,
	PP_PORT_DRAINED,
	PP_SLOWER,
	PP_ERRORS,
	PP_WAIT,
};

/*
 * A problem: 'port' of the layout (missing, slower, drained port), of
 * 'f' (errors, wait), or a node of the layout (switches).
 */
struct page_problem {
	uint8_t kind; /* enum page_problem_kind */
	uint32_t group, at;
	uint64_t value; /* errors; PortXmitWait */
};

#define PAGE_HOT 10 /* hottest ports listed */

struct page {
	const struct ibfm_fabric *lay, *f; /* layout (expected) and found */
	const struct ibfm_page_opts *o;
	const struct ibfm_groups *g;
	struct page_block *block;   /* per group */
	struct page_tally *between; /* g->n x g->n; NULL: too many groups */
	struct page_problem *prob;
	uint32_t nprob, cap;
	uint32_t more; /* problems past 'cap' */
	FILE *out;
};

/* Judges every cable, switch, drain and counter: 0 or -ENOMEM. */
int page_judge(struct page *p);

/* The found fabric's node for layout node 'n', or IBFM_NONE. */
uint32_t page_found_node(const struct page *p, uint32_t n);

/* "name[port]" of port 'q' of 'f' into 'out', escaped. */
void page_port_name(const struct page *p, const struct ibfm_fabric *f,
		    uint32_t q);

/* The problems list (an HTML table), of group 'only' (IBFM_NONE: all). */
void page_html_problems(const struct page *p, uint32_t only);

/* The page around 'svg' (written by the callback) as HTML. */
void page_html_head(const struct page *p, const char *title);
void page_html_tail(const struct page *p);

/* The links of group 'gi' to each other group, an HTML table. */
void page_html_between(const struct page *p, uint32_t gi);

/* The address of group 'gi' (o->href, or "NAME"), escaped. */
void page_href(const struct page *p, uint32_t gi);

#endif /* IBFM_PAGE_INT_H */
