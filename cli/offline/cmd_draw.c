// SPDX-License-Identifier: MIT
/*
 * ibfm topo draw: the fabric as a picture, SVG or DOT (routing/topo/draw.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/util/cli.h"
#include "cli/util/names.h"
#include "routing/topo/draw.h"
#include "routing/topo/page.h"
#include "routing/io/json.h"

static const char draw_usage[] =
	"Usage: ibfm topo draw --topo FILE [--expected FILE] [--drain-list FILE]\n"
	"                      [--format svg|html|dot] [--title TEXT]\n"
	"                      [--group NAME | --whole] [--href FORMAT]\n"
	"                      [--node-name-map FILE] -o OUT [--json]\n"
	"Draws the fabric as its operator thinks of it. A fabric of several groups\n"
	"(pods, scalable units, core planes: what ibfm topo show lists) is drawn\n"
	"as one block per group with its health and the links between groups;\n"
	"--group draws one group's switches and cables. A fabric of one group is\n"
	"drawn whole: switches in rows by rank, host counts under the leaves, a\n"
	"line per cabled switch pair. Against --expected, a switch not found is\n"
	"red, a pair short of links dashed red (\"found/cabled\"), a slower link\n"
	"orange; drained switches and links purple. HTML adds the problems list.\n"
	"\n"
	"  -t, --topo FILE        the fabric (ibnetdiscover format)\n"
	"  -e, --expected FILE    the fabric as cabled: what is missing is drawn\n"
	"      --drain-list FILE  a drain list (ibfmd's drain.list)\n"
	"      --format F         svg (default), html (the picture and the\n"
	"                         problems list) or dot (Graphviz; drawn whole)\n"
	"      --group NAME       one group's drill-down (\"pod-03\", \"su-02\")\n"
	"      --whole            every switch and cable, whatever the size\n"
	"      --href FORMAT      a group's link, %s its name (default \"%s.svg\",\n"
	"                         \"%s.html\" for html)\n"
	"      --title TEXT       a title over the picture\n"
	"  -o, --output OUT       where to write ('-' for standard output)\n" CLI_NAMES_HELP
	"      --json             what the picture shows, as JSON (to stdout)\n"
	"  -h, --help             this text\n"
	"\n"
	"Exit: 0 drawn, 2 bad command line, 3 bad input (a file, no such group),\n"
	"4 failed.\n"
	"Example: ibfm topo draw -t found.topo -e cabled.topo -o fabric.svg\n"
	"         ibfm topo draw -t found.topo -e cabled.topo --group pod-03 \\\n"
	"             --format html -o pod-03.html\n";

enum {
	OPT_DRAIN = 256,
	OPT_FORMAT,
	OPT_TITLE,
	OPT_JSON,
	OPT_GROUP,
	OPT_WHOLE,
	OPT_HREF
};

enum draw_format { FMT_SVG, FMT_HTML, FMT_DOT };

struct draw_args {
	const char *topo, *expected, *drains, *out, *title, *group, *href;
	enum draw_format format;
	bool json, whole;
};

static int parse(int argc, char **argv, struct draw_args *a)
{
	static const struct option opts[] = {
		{ "topo", required_argument, NULL, 't' },
		{ "expected", required_argument, NULL, 'e' },
		{ "drain-list", required_argument, NULL, OPT_DRAIN },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "title", required_argument, NULL, OPT_TITLE },
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "group", required_argument, NULL, OPT_GROUP },
		{ "whole", no_argument, NULL, OPT_WHOLE },
		{ "href", required_argument, NULL, OPT_HREF },
		{ "help", no_argument, NULL, 'h' },
		CLI_NAMES_OPTION,
		{ 0 },
	};
	int c;

	memset(a, 0, sizeof(*a));
	while ((c = getopt_long(argc, argv, "t:e:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			a->topo = optarg;
			break;
		case 'e':
			a->expected = optarg;
			break;
		case 'o':
			a->out = optarg;
			break;
		case OPT_DRAIN:
			a->drains = optarg;
			break;
		case OPT_TITLE:
			a->title = optarg;
			break;
		case OPT_JSON:
			a->json = true;
			break;
		case OPT_GROUP:
			a->group = optarg;
			break;
		case OPT_WHOLE:
			a->whole = true;
			break;
		case OPT_HREF:
			a->href = optarg;
			break;
		case CLI_NAMES_OPT:
			cli_names_path = optarg;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "svg") || !strcmp(optarg, "html") ||
			    !strcmp(optarg, "dot")) {
				a->format = !strcmp(optarg, "svg")    ? FMT_SVG
					    : !strcmp(optarg, "html") ? FMT_HTML
								      : FMT_DOT;
				break;
			}
			cli_error("--format: expected svg, html or dot, not "
				  "'%s'",
				  optarg);
			return CLI_USAGE;
		case 'h':
			fputs(draw_usage, stdout);
			return -1;
		default:
			fputs(draw_usage, stderr);
			return CLI_USAGE;
		}
	}
	if (optind != argc || !a->topo || !a->out) {
		fputs(draw_usage, stderr);
		return CLI_USAGE;
	}
	if (a->group && (a->whole || a->format == FMT_DOT)) {
		cli_error("--group: not with --whole or --format dot");
		return CLI_USAGE;
	}
	if (a->href && !strstr(a->href, "%s")) {
		cli_error(
			"--href: expected a format with %%s for the group's name");
		return CLI_USAGE;
	}
	return CLI_OK;
}

/* What the drawing shows, as text (stdout, or stderr when it is there). */
static void put_stats(const struct draw_args *a,
		      const struct ibfm_page_stats *ps,
		      const struct ibfm_draw_stats *st)
{
	FILE *out = !strcmp(a->out, "-") ? stderr : stdout;

	if (!ps->whole)
		fprintf(out,
			"drew %u blocks, %u lines (%u groups): %u problems\n",
			ps->blocks, ps->lines, ps->groups, ps->problems);
	else
		fprintf(out,
			"drew %u switches, %u switch pairs: %u switches and "
			"%u pairs missing, %u pairs slower, %u drained\n",
			st->switches, st->pairs, st->switches_missing,
			st->pairs_missing, st->degraded, st->drained);
}

static void put_json(const struct draw_args *a,
		     const struct ibfm_page_stats *ps,
		     const struct ibfm_draw_stats *st)
{
	struct ibfm_json j;

	ibfm_json_init(&j, stdout, true);
	ibfm_json_obj_begin(&j, NULL);
	ibfm_json_bool(&j, "whole", ps->whole);
	ibfm_json_uint(&j, "groups", ps->groups);
	if (a->group)
		ibfm_json_str(&j, "group", a->group);
	if (ps->whole) {
		ibfm_json_uint(&j, "switches", st->switches);
		ibfm_json_uint(&j, "pairs", st->pairs);
		ibfm_json_uint(&j, "switches_missing", st->switches_missing);
		ibfm_json_uint(&j, "pairs_missing", st->pairs_missing);
		ibfm_json_uint(&j, "pairs_degraded", st->degraded);
		ibfm_json_uint(&j, "drained", st->drained);
	} else {
		ibfm_json_uint(&j, "blocks", ps->blocks);
		ibfm_json_uint(&j, "lines", ps->lines);
		ibfm_json_bool(&j, "neighbours", ps->neighbours);
	}
	ibfm_json_uint(&j, "problems", ps->problems);
	ibfm_json_obj_end(&j);
	ibfm_json_finish(&j);
}

/*
 * Draws 'f' to 'out': whole (routing/topo/draw.h) for DOT, --whole or a
 * fabric of one group SVG, else the page (routing/topo/page.h).
 */
static int draw(const struct draw_args *a, const struct ibfm_fabric *f,
		const struct ibfm_fabric *exp, const struct ibfm_drain *drains,
		FILE *out, struct ibfm_page_stats *ps,
		struct ibfm_draw_stats *st)
{
	struct ibfm_draw_opts o = { .expected = exp,
				    .drains = drains,
				    .format = a->format == FMT_DOT
						      ? IBFM_DRAW_DOT
						      : IBFM_DRAW_SVG,
				    .title = a->title };
	struct ibfm_page_opts po = { .expected = exp,
				     .drains = drains,
				     .title = a->title,
				     .group = a->group,
				     .whole = a->whole,
				     .format = a->format == FMT_HTML
						       ? IBFM_PAGE_HTML
						       : IBFM_PAGE_SVG };
	struct ibfm_groups g;
	struct ibfm_err err;
	int rc = ibfm_groups_find(exp ? exp : f, NULL, &g, &err);

	memset(ps, 0, sizeof(*ps));
	memset(st, 0, sizeof(*st));
	if (!rc &&
	    (a->format == FMT_DOT ||
	     (a->format == FMT_SVG && !a->group && (a->whole || g.n == 1)))) {
		ps->whole = true;
		ps->groups = g.n;
		rc = ibfm_draw(f, &o, out, st, &err);
	} else if (!rc) {
		po.groups = &g;
		po.href = a->href		  ? a->href
			  : a->format == FMT_HTML ? "%s.html"
						  : "%s.svg";
		rc = ibfm_page_write(f, &po, out, ps, &err);
	}
	ibfm_groups_free(&g);
	if (rc)
		cli_error("%s", err.msg);
	return !rc ? CLI_OK : rc == -ENOENT ? CLI_INPUT : CLI_FAIL;
}

static int topo_draw(int argc, char **argv)
{
	struct ibfm_fabric *f = NULL, *exp = NULL;
	struct ibfm_drain drains = { 0 };
	struct ibfm_page_stats ps;
	struct ibfm_draw_stats st;
	struct ibfm_err err;
	struct draw_args a;
	FILE *out = NULL;
	int rc = parse(argc, argv, &a);

	if (rc)
		return rc < 0 ? CLI_OK : rc;
	f = cli_load_topo(a.topo);
	if (f && a.expected)
		exp = cli_load_topo(a.expected);
	rc = !f || (a.expected && !exp) ? CLI_INPUT : CLI_OK;
	if (!rc)
		rc = cli_names_fabric(f);
	if (!rc && exp)
		rc = cli_names_fabric(exp);
	if (!rc && a.drains && ibfm_drain_read(a.drains, &drains, &err)) {
		cli_error("%s", err.msg);
		rc = CLI_INPUT;
	}
	if (!rc && a.json && !strcmp(a.out, "-")) {
		cli_error("--json and -o -: both on standard output");
		rc = CLI_USAGE;
	}
	if (!rc) {
		out = strcmp(a.out, "-") ? fopen(a.out, "w") : stdout;
		if (!out) {
			cli_error("%s: %s", a.out, strerror(errno));
			rc = CLI_FAIL;
		}
	}
	/* The fabrics are renamed already (cli_names_fabric). */
	if (!rc)
		rc = draw(&a, f, exp, a.drains ? &drains : NULL, out, &ps, &st);
	if (out && out != stdout && fclose(out) && !rc) {
		cli_error("%s: %s", a.out, strerror(errno));
		rc = CLI_FAIL;
	}
	if (!rc && a.json)
		put_json(&a, &ps, &st);
	else if (!rc)
		put_stats(&a, &ps, &st);
	ibfm_drain_free(&drains);
	ibfm_fabric_destroy(exp);
	ibfm_fabric_destroy(f);
	return rc;
}

const struct cli_cmd cli_draw_cmds[] = {
	{ "topo", "draw", "--topo FILE [--expected FILE] [--group NAME] -o OUT",
	  "draw the fabric by its groups, or a group (SVG, HTML or DOT)",
	  topo_draw },
	{ 0 },
};
