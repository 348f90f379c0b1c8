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
#include "routing/io/json.h"

static const char draw_usage[] =
	"Usage: ibfm topo draw --topo FILE [--expected FILE] [--drain-list FILE]\n"
	"                      [--format svg|dot] [--title TEXT]\n"
	"                      [--node-name-map FILE] -o OUT [--json]\n"
	"Draws the fabric as its operator thinks of it: switches in rows by rank\n"
	"(cores, spines, leaves; rails and units side by side), host counts under\n"
	"the leaves, a line per cabled switch pair. Against --expected, a switch\n"
	"not found is red, a pair short of links dashed red (\"found/cabled\"),\n"
	"a slower link orange; drained switches and links purple.\n"
	"\n"
	"  -t, --topo FILE        the fabric (ibnetdiscover format)\n"
	"  -e, --expected FILE    the fabric as cabled: what is missing is drawn\n"
	"      --drain-list FILE  a drain list (ibfmd's drain.list)\n"
	"      --format F         svg (default) or dot (Graphviz)\n"
	"      --title TEXT       a title over the picture\n"
	"  -o, --output OUT       where to write ('-' for standard output)\n" CLI_NAMES_HELP
	"      --json             what the picture shows, as JSON (to stdout)\n"
	"  -h, --help             this text\n"
	"\n"
	"Exit: 0 drawn, 2 bad command line, 3 bad input, 4 failed.\n"
	"Example: ibfm topo draw -t found.topo -e cabled.topo -o fabric.svg\n";

enum { OPT_DRAIN = 256, OPT_FORMAT, OPT_TITLE, OPT_JSON };

struct draw_args {
	const char *topo, *expected, *drains, *out, *title;
	enum ibfm_draw_format format;
	bool json;
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
		case CLI_NAMES_OPT:
			cli_names_path = optarg;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "svg") && strcmp(optarg, "dot")) {
				cli_error("--format: expected svg or dot, not "
					  "'%s'",
					  optarg);
				return CLI_USAGE;
			}
			a->format = strcmp(optarg, "dot") ? IBFM_DRAW_SVG
							  : IBFM_DRAW_DOT;
			break;
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
	return CLI_OK;
}

static void put_stats(const struct draw_args *a,
		      const struct ibfm_draw_stats *st)
{
	struct ibfm_json j;

	if (!a->json) {
		fprintf(!strcmp(a->out, "-") ? stderr : stdout,
			"drew %u switches, %u switch pairs: %u switches and "
			"%u pairs missing, %u pairs slower, %u drained\n",
			st->switches, st->pairs, st->switches_missing,
			st->pairs_missing, st->degraded, st->drained);
		return;
	}
	ibfm_json_init(&j, stdout, true);
	ibfm_json_obj_begin(&j, NULL);
	ibfm_json_uint(&j, "switches", st->switches);
	ibfm_json_uint(&j, "pairs", st->pairs);
	ibfm_json_uint(&j, "switches_missing", st->switches_missing);
	ibfm_json_uint(&j, "pairs_missing", st->pairs_missing);
	ibfm_json_uint(&j, "pairs_degraded", st->degraded);
	ibfm_json_uint(&j, "drained", st->drained);
	ibfm_json_obj_end(&j);
	ibfm_json_finish(&j);
}

static int topo_draw(int argc, char **argv)
{
	struct ibfm_fabric *f = NULL, *exp = NULL;
	struct ibfm_drain drains = { 0 };
	struct ibfm_draw_opts o = { 0 };
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
	o = (struct ibfm_draw_opts){ .expected = exp,
				     .drains = a.drains ? &drains : NULL,
				     .format = a.format,
				     .title = a.title };
	if (!rc && ibfm_draw(f, &o, out, &st, &err)) {
		cli_error("%s", err.msg);
		rc = CLI_FAIL;
	}
	if (out && out != stdout && fclose(out) && !rc) {
		cli_error("%s: %s", a.out, strerror(errno));
		rc = CLI_FAIL;
	}
	if (!rc)
		put_stats(&a, &st);
	ibfm_drain_free(&drains);
	ibfm_fabric_destroy(exp);
	ibfm_fabric_destroy(f);
	return rc;
}

const struct cli_cmd cli_draw_cmds[] = {
	{ "topo", "draw", "--topo FILE [--expected FILE] -o OUT",
	  "draw the fabric (SVG or DOT)", topo_draw },
	{ 0 },
};
