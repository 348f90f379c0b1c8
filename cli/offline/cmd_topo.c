// SPDX-License-Identifier: MIT
/*
 * ibfm topo gen|show|diff: make, summarise and compare topology files.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/util/cli.h"
#include "cli/util/names.h"
#include "routing/topo/diff.h"
#include "routing/topo/gen.h"
#include "routing/topo/group.h"
#include "routing/io/json.h"
#include "routing/model/rail.h"
#include "routing/model/rank.h"
#include "routing/topo/topo.h"

static const char gen_usage[] =
	"Usage: ibfm topo gen --levels L --radix K [options] -o FILE\n"
	"       ibfm topo gen --preset NAME [--units U] [removals] -o FILE\n"
	"Writes a generated fat tree in the ibnetdiscover format (ibsim's net file).\n"
	"\n"
	"  -l, --levels L           switch levels: 2 or 3\n"
	"  -k, --radix K            ports per switch (even, 4..254)\n"
	"  -n, --hosts N            CAs (HCAs) in all; default: as many as fit\n"
	"  -r, --rails R            HCAs per server, one per rail (rail-optimized)\n"
	"      --oversub D:U        leaf oversubscription, e.g. 2:1 (default 1:1)\n"
	"      --parallel N         links per switch pair at every level (PGFT;\n"
	"                           N divides the up-ports; default 1)\n"
	"      --core-parallel N    3 levels: links per spine-core pair (default\n"
	"                           --parallel)\n"
	"      --spines S           spines above each leaf (per pod), instead of\n"
	"                           --parallel; left-over up-ports spread evenly\n"
	"      --old-leaves N       the first N leaves and their links are older\n"
	"      --old-speed SPEED    their speed (default EDR)\n"
	"      --preset NAME        a named fabric (below); sets the shape\n"
	"      --units U            size of the preset, in its units\n"
	"      --remove-links PCT   remove PCT%% of switch-to-switch links at random\n"
	"      --remove-switches N  remove N switches above the leaves at random\n"
	"  -s, --seed S             seed for the removals (default 1)\n"
	"      --speed SPEED        SDR..XDR (default HDR; ibsim 0.10 knows up to HDR)\n"
	"      --width W            lanes: 1, 2, 4, 8 or 12 (default 4)\n"
	"  -o, --output FILE        where to write ('-' for standard output)\n"
	"      --json               print what was generated as JSON\n"
	"  -h, --help               this text\n"
	"\n"
	"Examples:\n"
	"  ibfm topo gen --levels 2 --radix 36 -o fat.topo          # 648 hosts\n"
	"  ibfm topo gen -l 3 -k 64 --hosts 45056 -o big.topo\n"
	"  ibfm topo gen -l 2 -k 64 --rails 8 --hosts 512 -o rail.topo\n"
	"  ibfm topo gen -l 2 -k 36 --remove-links 5 --seed 7 -o deg.topo\n"
	"  ibfm topo gen -l 2 -k 32 --parallel 2 -o pgft.topo       # 8 spines, 2 links\n"
	"  ibfm topo gen --preset superpod-h100 --units 4 -o su4.topo\n"
	"  ibfm topo gen --preset b200-3tier --remove-switches 2 -o b200.topo\n";

/* The usage text, then the presets from the generator's table. */
static void gen_help(FILE *out)
{
	const struct ibfm_gen_preset *pr;

	fputs(gen_usage, out);
	fputs("\nPresets (--units: range, default):\n", out);
	for (pr = ibfm_gen_presets; pr->name; pr++)
		fprintf(out,
			"  %-15s %s\n  %15s --units %u..%u (default %u): %s\n",
			pr->name, pr->summary, "", pr->min_units, pr->max_units,
			pr->default_units, pr->unit);
}

static bool parse_oversub(const char *s, unsigned radix, unsigned *down)
{
	unsigned d, u;
	char tail;

	if (sscanf(s, "%u:%u%c", &d, &u, &tail) != 2 || !d || !u)
		return false;
	/* Round host ports down so up-ports never fall below the ratio. */
	*down = (unsigned)((unsigned long)radix * d / (d + u));
	return *down >= 1 && *down < radix;
}

static int show(const struct ibfm_fabric *f, const char *file, bool json);

enum {
	OPT_OVERSUB = 256,
	OPT_RLINKS,
	OPT_RSW,
	OPT_SPEED,
	OPT_WIDTH,
	OPT_JSON,
	OPT_PARALLEL,
	OPT_CPARALLEL,
	OPT_SPINES,
	OPT_OLD_LEAVES,
	OPT_OLD_SPEED,
	OPT_PRESET,
	OPT_UNITS,
};

/* Parses a speed name into 'speed'; false if it is not one. */
static bool parse_speed(const char *s, uint8_t *speed)
{
	*speed = (uint8_t)ibfm_speed_parse(s, strlen(s));
	return *speed != IBFM_SPEED_UNKNOWN;
}

/* Fills the shape from --preset; the options that set it are refused. */
static int gen_preset(const char *preset, unsigned units, const char *shape_opt,
		      struct ibfm_gen_params *p)
{
	struct ibfm_err err;

	if (!preset) {
		if (!units)
			return CLI_OK;
		cli_error("--units goes with --preset");
		return CLI_USAGE;
	}
	if (shape_opt) {
		cli_error(
			"--preset %s sets the shape: --%s cannot go with it (removals, --seed, --speed and --width can)",
			preset, shape_opt);
		return CLI_USAGE;
	}
	if (ibfm_gen_preset(preset, units, p, &err)) {
		cli_error("%s", err.msg);
		return CLI_USAGE;
	}
	return CLI_OK;
}

static int gen_options(int argc, char **argv, struct ibfm_gen_params *p,
		       const char **out, bool *json)
{
	static const struct option opts[] = {
		{ "levels", required_argument, NULL, 'l' },
		{ "radix", required_argument, NULL, 'k' },
		{ "hosts", required_argument, NULL, 'n' },
		{ "rails", required_argument, NULL, 'r' },
		{ "oversub", required_argument, NULL, OPT_OVERSUB },
		{ "remove-links", required_argument, NULL, OPT_RLINKS },
		{ "remove-switches", required_argument, NULL, OPT_RSW },
		{ "seed", required_argument, NULL, 's' },
		{ "speed", required_argument, NULL, OPT_SPEED },
		{ "width", required_argument, NULL, OPT_WIDTH },
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "parallel", required_argument, NULL, OPT_PARALLEL },
		{ "core-parallel", required_argument, NULL, OPT_CPARALLEL },
		{ "spines", required_argument, NULL, OPT_SPINES },
		{ "old-leaves", required_argument, NULL, OPT_OLD_LEAVES },
		{ "old-speed", required_argument, NULL, OPT_OLD_SPEED },
		{ "preset", required_argument, NULL, OPT_PRESET },
		{ "units", required_argument, NULL, OPT_UNITS },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	/* Shape options, by value, that a preset sets itself. */
	static const int shape[] = { 'l',	    'k',	 'n',
				     'r',	    OPT_OVERSUB, OPT_PARALLEL,
				     OPT_CPARALLEL, OPT_SPINES,	 OPT_OLD_LEAVES,
				     OPT_OLD_SPEED };
	const char *oversub = NULL, *preset = NULL, *shape_opt = NULL;
	unsigned v, units = 0;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "l:k:n:r:s:o:h", opts, NULL)) !=
	       -1) {
		for (v = 0; v < sizeof(shape) / sizeof(*shape); v++)
			if (shape[v] == c)
				shape_opt = cli_opt_name(opts, c);
		switch (c) {
		case 'l':
			if (!cli_parse_uint(optarg, 2, 3, &p->levels))
				goto bad;
			break;
		case 'k':
			if (!cli_parse_uint(optarg, 4, IBFM_MAX_PORTS,
					    &p->radix))
				goto bad;
			break;
		case 'n':
			if (!cli_parse_uint(optarg, 1, 1U << 24, &p->hosts))
				goto bad;
			break;
		case 'r':
			if (!cli_parse_uint(optarg, 1, 64, &p->rails))
				goto bad;
			break;
		case OPT_OVERSUB:
			oversub = optarg;
			break;
		case OPT_RLINKS:
			p->remove_links = strtod(optarg, &end);
			if (*end || end == optarg || p->remove_links < 0 ||
			    p->remove_links > 100)
				goto bad;
			break;
		case OPT_RSW:
			if (!cli_parse_uint(optarg, 0, 1U << 20,
					    &p->remove_switches))
				goto bad;
			break;
		case 's':
			errno = 0;
			p->seed = strtoull(optarg, &end, 0);
			if (errno || *end || end == optarg)
				goto bad;
			break;
		case OPT_SPEED:
			if (!parse_speed(optarg, &p->speed))
				goto bad;
			break;
		case OPT_OLD_SPEED:
			if (!parse_speed(optarg, &p->old_speed))
				goto bad;
			break;
		case OPT_PARALLEL:
			if (!cli_parse_uint(optarg, 1, IBFM_MAX_PORTS,
					    &p->parallel))
				goto bad;
			break;
		case OPT_CPARALLEL:
			if (!cli_parse_uint(optarg, 1, IBFM_MAX_PORTS,
					    &p->core_parallel))
				goto bad;
			break;
		case OPT_SPINES:
			if (!cli_parse_uint(optarg, 1, IBFM_MAX_PORTS,
					    &p->spines))
				goto bad;
			break;
		case OPT_OLD_LEAVES:
			if (!cli_parse_uint(optarg, 0, 1U << 24,
					    &p->old_leaves))
				goto bad;
			break;
		case OPT_PRESET:
			preset = optarg;
			break;
		case OPT_UNITS:
			if (!cli_parse_uint(optarg, 1, 1U << 16, &units))
				goto bad;
			break;
		case OPT_WIDTH:
			if (!cli_parse_uint(optarg, 1, 12, &v) ||
			    !ibfm_width_valid(v))
				goto bad;
			p->width = (uint8_t)v;
			break;
		case 'o':
			*out = optarg;
			break;
		case OPT_JSON:
			*json = true;
			break;
		case 'h':
			gen_help(stdout);
			exit(CLI_OK);
		default:
			gen_help(stderr);
			return CLI_USAGE;
		}
	}
	c = gen_preset(preset, units, shape_opt, p);
	if (c)
		return c;
	if (!p->levels || !p->radix || !*out || optind < argc) {
		cli_error(
			"topo gen needs --levels and --radix (or --preset) and -o, and no other arguments");
		gen_help(stderr);
		return CLI_USAGE;
	}
	if (oversub && !parse_oversub(oversub, p->radix, &p->down)) {
		cli_error(
			"--oversub %s: expected D:U such as 2:1 that leaves ports both ways",
			oversub);
		return CLI_USAGE;
	}
	return CLI_OK;
bad:
	cli_error("bad value for --%s: '%s' (see ibfm topo gen --help)",
		  cli_opt_name(opts, c), optarg);
	return CLI_USAGE;
}

static int topo_gen(int argc, char **argv)
{
	struct ibfm_gen_params p = { .seed = 1 };
	struct ibfm_fabric *f = NULL;
	struct ibfm_err err;
	const char *out = NULL;
	bool json = false;
	int rc;

	rc = gen_options(argc, argv, &p, &out, &json);
	if (rc)
		return rc;
	cli_progress_begin("generating a %u-level radix-%u fat tree", p.levels,
			   p.radix);
	if (ibfm_gen_build(&p, &f, &err)) {
		cli_progress_end();
		cli_error("%s", err.msg);
		return CLI_INPUT;
	}
	cli_progress_end();
	cli_progress_begin("writing %s", out);
	if (!strcmp(out, "-"))
		rc = ibfm_topo_write(f, stdout) ? CLI_FAIL : CLI_OK;
	else if (ibfm_topo_write_file(f, out, &err)) {
		cli_error("%s", err.msg);
		rc = CLI_FAIL;
	}
	cli_progress_end();
	if (!rc && json && strcmp(out, "-"))
		rc = show(f, out, true);
	ibfm_fabric_destroy(f);
	return rc;
}

static const char show_usage[] =
	"Usage: ibfm topo show [--topo] FILE [--json]\n"
	"Summarises a topology file: node counts, switch levels, links by rate.\n"
	"\n"
	"  -t, --topo FILE   ibnetdiscover output or an ibsim net file\n"
	"      --json        one JSON object on standard output\n"
	"  -h, --help        this text\n";

/* Parses "--topo FILE [--json]" style options shared by show and diff. */
static int file_options(int argc, char **argv, const char *usage,
			const char **topo, const char **expected, bool *json)
{
	static const struct option opts[] = {
		{ "topo", required_argument, NULL, 't' },
		{ "expected", required_argument, NULL, 'e' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		CLI_NAMES_OPTION,
		{ 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "t:e:h", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			*topo = optarg;
			break;
		case 'e':
			if (!expected)
				goto usage;
			*expected = optarg;
			break;
		case 'j':
			*json = true;
			break;
		case CLI_NAMES_OPT: /* diff prints names, show none */
			if (!expected)
				goto usage;
			cli_names_path = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			exit(CLI_OK);
		default:
			goto usage;
		}
	}
	/* show also takes its one file without --topo. */
	if (!*topo && !expected && optind == argc - 1)
		*topo = argv[optind++];
	if (*topo && (!expected || *expected) && optind == argc)
		return CLI_OK;
usage:
	fputs(usage, stderr);
	return CLI_USAGE;
}

struct rate_count {
	uint8_t width, speed;
	uint32_t links;
};

#define MAX_RATES 64

/* What "topo show" reports, computed once for text and JSON alike. */
struct topo_summary {
	uint32_t switches, cas, routers, links;
	unsigned levels;
	uint32_t per_level[IBFM_RANK_NONE]; /* switches at rank 1.. */
	struct rate_count rates[MAX_RATES]; /* links per width x speed */
	unsigned nrates;
	uint32_t slow;		   /* links below the fastest rate */
	uint32_t unranked;	   /* switches no leaf reaches */
	struct ibfm_rails rails;   /* found from node descriptions */
	struct ibfm_groups groups; /* what the fabric is built of */
};

static void count_rates(const struct ibfm_fabric *f, struct topo_summary *s)
{
	unsigned i;
	uint32_t p;

	for (p = 0; p < f->nports; p++) {
		const struct ibfm_port *port = &f->ports[p];

		if (port->peer == IBFM_NONE || port->peer < p)
			continue;
		for (i = 0; i < s->nrates; i++)
			if (s->rates[i].width == port->width &&
			    s->rates[i].speed == port->speed)
				break;
		if (i == s->nrates && s->nrates < MAX_RATES)
			s->rates[s->nrates++] =
				(struct rate_count){ port->width, port->speed,
						     0 };
		if (i < s->nrates)
			s->rates[i].links++;
	}
}

static double rate_gbps(const struct rate_count *r)
{
	return ibfm_link_gbps(r->width, r->speed);
}

static int summarize(const struct ibfm_fabric *f, struct topo_summary *s)
{
	uint8_t *rank = malloc(f->nnodes ? f->nnodes : 1);
	double best = 0;
	unsigned i;
	uint32_t n;

	memset(s, 0, sizeof(*s));
	if (!rank || ibfm_rank_detect(f, rank, &s->levels)) {
		free(rank);
		return -ENOMEM;
	}
	s->switches = f->nswitches;
	s->cas = f->ncas;
	s->routers = f->nnodes - f->nswitches - f->ncas;
	s->links = ibfm_fabric_count_links(f);
	for (n = 0; n < f->nnodes; n++) {
		if (!ibfm_node_is_switch(&f->nodes[n]))
			continue;
		if (rank[n] == IBFM_RANK_NONE)
			s->unranked++;
		else
			s->per_level[rank[n]]++;
	}
	free(rank);
	count_rates(f, s);
	if (ibfm_rail_detect(f, NULL, NULL, &s->rails, NULL) ||
	    ibfm_groups_find(f, NULL, &s->groups, NULL))
		return -ENOMEM;
	for (i = 0; i < s->nrates; i++)
		if (rate_gbps(&s->rates[i]) > best)
			best = rate_gbps(&s->rates[i]);
	for (i = 0; i < s->nrates; i++)
		if (rate_gbps(&s->rates[i]) < best)
			s->slow += s->rates[i].links;
	return 0;
}

/* The NodeDescription of a CA port's node. */
static const char *port_name(const struct ibfm_fabric *f, uint32_t p)
{
	return ibfm_fabric_str(f, f->nodes[f->ports[p].node].desc);
}

static void show_text(const struct ibfm_fabric *f, const struct topo_summary *s)
{
	unsigned l, i;

	printf("switches  %u\ncas       %u\nrouters   %u\nlinks     %u\nlevels    %u\n",
	       s->switches, s->cas, s->routers, s->links, s->levels);
	for (l = 1; l <= s->levels; l++)
		printf("  level %u: %u switches%s\n", l, s->per_level[l],
		       l == 1 ? " (leaves)" : "");
	printf("links by rate:\n");
	for (i = 0; i < s->nrates; i++)
		printf("  %2ux%-5s %8u  (%g Gb/s)\n", s->rates[i].width,
		       ibfm_speed_name(s->rates[i].speed), s->rates[i].links,
		       rate_gbps(&s->rates[i]));
	printf("links below the fastest rate: %u\n", s->slow);
	if (s->unranked)
		printf("switches no leaf reaches: %u\n", s->unranked);
	printf("rails     %u\n", s->rails.nrails);
	for (i = 0; i < s->rails.nmiswired; i++)
		printf("  miswired: %s (on a leaf of another rail)\n",
		       port_name(f, s->rails.miswired[i]));
	for (i = 0; i < s->rails.nincomplete; i++)
		printf("  incomplete server: %s has fewer HCAs than the others\n",
		       port_name(f, s->rails.incomplete[i]));
	printf("groups    %u\n", s->groups.n);
	for (i = 0; i < s->groups.n; i++) {
		const struct ibfm_group *g = &s->groups.v[i];

		printf("  %-14s %-10s %u switches, %u leaves, %u hosts\n",
		       g->name, ibfm_group_kind_name(g->kind), g->nswitches,
		       g->leaves, g->hosts);
	}
}

static void show_json(const struct ibfm_fabric *f, const struct topo_summary *s,
		      const char *file)
{
	struct ibfm_json j;
	char key[32];
	unsigned l, i;

	ibfm_json_init(&j, stdout, true);
	ibfm_json_obj_begin(&j, NULL);
	ibfm_json_str(&j, "file", file);
	ibfm_json_uint(&j, "switches", s->switches);
	ibfm_json_uint(&j, "cas", s->cas);
	ibfm_json_uint(&j, "routers", s->routers);
	ibfm_json_uint(&j, "links", s->links);
	ibfm_json_uint(&j, "levels", s->levels);
	ibfm_json_arr_begin(&j, "switches_per_level");
	for (l = 1; l <= s->levels; l++)
		ibfm_json_uint(&j, NULL, s->per_level[l]);
	ibfm_json_arr_end(&j);
	ibfm_json_obj_begin(&j, "links_by_rate");
	for (i = 0; i < s->nrates; i++) {
		snprintf(key, sizeof(key), "%ux%s", s->rates[i].width,
			 ibfm_speed_name(s->rates[i].speed));
		ibfm_json_uint(&j, key, s->rates[i].links);
	}
	ibfm_json_obj_end(&j);
	ibfm_json_uint(&j, "slow_links", s->slow);
	ibfm_json_uint(&j, "unranked_switches", s->unranked);
	ibfm_json_uint(&j, "rails", s->rails.nrails);
	ibfm_json_arr_begin(&j, "miswired");
	for (i = 0; i < s->rails.nmiswired; i++)
		ibfm_json_str(&j, NULL, port_name(f, s->rails.miswired[i]));
	ibfm_json_arr_end(&j);
	ibfm_json_arr_begin(&j, "incomplete_servers");
	for (i = 0; i < s->rails.nincomplete; i++)
		ibfm_json_str(&j, NULL, port_name(f, s->rails.incomplete[i]));
	ibfm_json_arr_end(&j);
	ibfm_json_arr_begin(&j, "groups");
	for (i = 0; i < s->groups.n; i++) {
		ibfm_json_obj_begin(&j, NULL);
		ibfm_json_str(&j, "name", s->groups.v[i].name);
		ibfm_json_str(&j, "kind",
			      ibfm_group_kind_name(s->groups.v[i].kind));
		ibfm_json_uint(&j, "switches", s->groups.v[i].nswitches);
		ibfm_json_uint(&j, "leaves", s->groups.v[i].leaves);
		ibfm_json_uint(&j, "hosts", s->groups.v[i].hosts);
		ibfm_json_obj_end(&j);
	}
	ibfm_json_arr_end(&j);
	ibfm_json_obj_end(&j);
	ibfm_json_finish(&j);
}

/* Prints the summary of 'f'; CLI_OK or CLI_FAIL. */
static int show(const struct ibfm_fabric *f, const char *file, bool json)
{
	struct topo_summary s;

	if (summarize(f, &s)) {
		ibfm_rails_free(&s.rails);
		cli_error("out of memory");
		return CLI_FAIL;
	}
	if (json)
		show_json(f, &s, file);
	else
		show_text(f, &s);
	ibfm_rails_free(&s.rails);
	ibfm_groups_free(&s.groups);
	return CLI_OK;
}

static int topo_show(int argc, char **argv)
{
	const char *topo = NULL;
	struct ibfm_fabric *f;
	bool json = false;
	int rc;

	rc = file_options(argc, argv, show_usage, &topo, NULL, &json);
	if (rc)
		return rc;
	f = cli_load_topo(topo);
	if (!f)
		return CLI_INPUT;
	rc = show(f, topo, json);
	ibfm_fabric_destroy(f);
	return rc;
}

static const char diff_usage[] =
	"Usage: ibfm topo diff --expected FILE --topo FILE [--node-name-map FILE]\n"
	"                      [--json]\n"
	"Compares a fabric (e.g. ibnetdiscover output) with the one expected.\n"
	"Nodes match by GUID, ports by number; cabling differences are told\n"
	"once per cable (a moved cable: one link-wrong-peer with the peer\n"
	"expected and the peer found). Exit 0: same; 1: differences; 3: bad\n"
	"input.\n"
	"\n"
	"  -e, --expected FILE  the fabric as it should be cabled\n"
	"  -t, --topo FILE      the fabric as it is\n" CLI_NAMES_HELP
	"      --json           one JSON object with a \"differences\" array\n"
	"  -h, --help           this text\n";

struct diff_out {
	const struct ibfm_fabric *exp, *act;
	struct ibfm_json *json;
};

/* One end of a difference: text "desc"[port] (guid), or a JSON object. */
static void put_port(struct diff_out *d, const struct ibfm_fabric *f,
		     const char *key, const char *sep, uint32_t port)
{
	char buf[160];

	const struct ibfm_port *p = &f->ports[port];
	const struct ibfm_node *n = &f->nodes[p->node];
	bool node_only = !strcmp(key, "node");

	if (d->json) {
		ibfm_json_obj_begin(d->json, key);
		ibfm_json_str(d->json, "desc", ibfm_fabric_str(f, n->desc));
		snprintf(buf, sizeof(buf), "0x%016" PRIx64, n->guid);
		ibfm_json_str(d->json, "guid", buf);
		if (!node_only)
			ibfm_json_uint(d->json, "port", p->num);
		ibfm_json_obj_end(d->json);
	} else if (node_only) {
		printf("%s\"%s\" (0x%016" PRIx64 ")", sep,
		       ibfm_fabric_str(f, n->desc), n->guid);
	} else {
		printf("%s%s", sep, cli_port_str(f, port, buf, sizeof(buf)));
	}
}

static void put_rate(struct diff_out *d, const char *key,
		     const struct ibfm_port *p)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ux%s", p->width,
		 ibfm_speed_name(p->speed));
	if (d->json)
		ibfm_json_str(d->json, key, buf);
	else
		printf(" %s %s", key, buf);
}

static void diff_item(void *ctx, const struct ibfm_diff_item *it)
{
	struct diff_out *d = ctx;
	char buf[32];

	if (d->json) {
		ibfm_json_obj_begin(d->json, NULL);
		ibfm_json_str(d->json, "kind", ibfm_diff_kind_name(it->kind));
	} else {
		printf("%-16s", ibfm_diff_kind_name(it->kind));
	}
	switch (it->kind) {
	case IBFM_DIFF_NODE_EXTRA:
		put_port(d, d->act, "node", " ", it->act_port);
		break;
	case IBFM_DIFF_NODE_MISSING:
		put_port(d, d->exp, "node", " ", it->exp_port);
		break;
	case IBFM_DIFF_LINK_EXTRA:
		put_port(d, d->act, "port", " ", it->act_port);
		if (it->act_peer != IBFM_NONE)
			put_port(d, d->act, "peer", " - ", it->act_peer);
		break;
	case IBFM_DIFF_LINK_MISSING:
	case IBFM_DIFF_LINK_DEGRADED:
		put_port(d, d->exp, "port", " ", it->exp_port);
		if (it->exp_peer != IBFM_NONE)
			put_port(d, d->exp, "peer", " - ", it->exp_peer);
		if (it->kind == IBFM_DIFF_LINK_DEGRADED) {
			put_rate(d, "at", &d->act->ports[it->act_port]);
			put_rate(d, "expected", &d->exp->ports[it->exp_port]);
		}
		break;
	case IBFM_DIFF_LINK_WRONG_PEER:
		put_port(d, d->exp, "port", " ", it->exp_port);
		put_port(d, d->exp, "expected_peer", " expected ",
			 it->exp_peer);
		if (it->act_peer != IBFM_NONE)
			put_port(d, d->act, "found_peer", ", found ",
				 it->act_peer);
		break;
	case IBFM_DIFF_PORT_GUID:
		put_port(d, d->exp, "port", " ", it->exp_port);
		snprintf(buf, sizeof(buf), "0x%016" PRIx64,
			 d->act->ports[it->act_port].guid);
		if (d->json)
			ibfm_json_str(d->json, "found_guid", buf);
		else
			printf(" has PortGUID %s", buf);
		break;
	}
	if (d->json)
		ibfm_json_obj_end(d->json);
	else
		putchar('\n');
}

static int topo_diff(int argc, char **argv)
{
	const char *topo = NULL, *expected = "";
	struct ibfm_fabric *exp = NULL, *act = NULL;
	struct diff_out d = { 0 };
	struct ibfm_json j;
	bool json = false;
	int count;
	int rc;

	expected = NULL;
	rc = file_options(argc, argv, diff_usage, &topo, &expected, &json);
	if (!rc && !expected) {
		fputs(diff_usage, stderr);
		rc = CLI_USAGE;
	}
	if (rc)
		return rc;
	exp = cli_load_topo(expected);
	act = exp ? cli_load_topo(topo) : NULL;
	rc = act ? cli_names_fabric(exp) : CLI_INPUT;
	if (!rc)
		rc = cli_names_fabric(act);
	if (rc) {
		ibfm_fabric_destroy(exp);
		ibfm_fabric_destroy(act);
		return rc;
	}
	d.exp = exp;
	d.act = act;
	if (json) {
		d.json = &j;
		ibfm_json_init(&j, stdout, true);
		ibfm_json_obj_begin(&j, NULL);
		ibfm_json_arr_begin(&j, "differences");
	}
	count = ibfm_diff_fabrics(exp, act, diff_item, &d);
	if (count < 0) {
		cli_error("out of memory");
		rc = CLI_FAIL;
	}
	if (json) {
		ibfm_json_arr_end(&j);
		if (!rc)
			ibfm_json_uint(&j, "count", (unsigned)count);
		ibfm_json_obj_end(&j);
		ibfm_json_finish(&j);
	} else if (!rc) {
		printf("%d difference%s\n", count, count == 1 ? "" : "s");
	}
	ibfm_fabric_destroy(exp);
	ibfm_fabric_destroy(act);
	return rc ? rc : count ? CLI_FOUND : CLI_OK;
}

const struct cli_cmd cli_topo_cmds[] = {
	{ "topo", "gen", "--levels L --radix K [...] -o FILE",
	  "generate a fat-tree topology file", topo_gen },
	{ "topo", "show", "[--topo] FILE [--json]", "summarise a topology file",
	  topo_show },
	{ "topo", "diff", "--expected FILE --topo FILE [--json]",
	  "compare a fabric with the one expected", topo_diff },
	{ 0 },
};
