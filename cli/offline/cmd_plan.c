// SPDX-License-Identifier: MIT
/*
 * ibfm plan: will this fabric carry this training job? Demand from the
 * job's size and layout, supply from the routes as they are.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/util/cli.h"
#include "routing/engine/ftree.h"
#include "routing/io/json.h"
#include "routing/jobs/capacity.h"
#include "routing/model/rank.h"
#include "routing/topo/topo.h"

static const char plan_usage[] =
	"Usage: ibfm plan --topo FILE --params P --step S [options]\n"
	"Will this fabric carry this training job? The data-parallel all-reduce\n"
	"each step needs, against what the routes give the job's nodes.\n"
	"\n"
	"  -t, --topo FILE        topology with the links' active width and speed\n"
	"      --lfts DUMP        OpenSM's opensm-lfts.dump instead of ibfm's routes\n"
	"      --params P         model parameters (70e9, or 70B, 7000M)\n"
	"      --dtype T          bf16 (default), fp16, fp32 or fp8\n"
	"      --step S           target step time in seconds\n"
	"      --hosts H          all (default), a count of nodes placed in host\n"
	"                         order as a scheduler fills units, or a list of\n"
	"                         server names or HCA descriptions, comma separated\n"
	"      --gpus-per-node G  default 8\n"
	"      --hcas-per-node H  default: the rails found, else 1\n"
	"      --tp N --pp N --dp N   parallel layout (TP inside a node)\n"
	"      --no-sharp         leave SHARP out\n"
	"      --json             one JSON object (schema in docs/plan.md)\n"
	"  -h, --help             this text\n"
	"\n"
	"Exit 0 when the all-reduce fits the step time, 1 when it does not.\n"
	"Example: ibfm plan --topo c.topo --params 70e9 --step 1 --tp 8 --hosts 64\n";

struct plan_args {
	const char *topo, *lfts, *hosts;
	struct ibfm_capacity_job job;
	bool json, no_sharp;
};

enum {
	OPT_LFTS = 256,
	OPT_PARAMS,
	OPT_DTYPE,
	OPT_STEP,
	OPT_HOSTS,
	OPT_GPN,
	OPT_HPN,
	OPT_TP,
	OPT_PP,
	OPT_DP,
	OPT_NO_SHARP,
	OPT_JSON
};

static bool parse_params(const char *s, double *v)
{
	char *end;
	double x = strtod(s, &end);

	if (end == s || !(x > 0))
		return false;
	if (*end == 'B' || *end == 'b')
		x *= 1e9, end++;
	else if (*end == 'M' || *end == 'm')
		x *= 1e6, end++;
	else if (*end == 'T' || *end == 't')
		x *= 1e12, end++;
	*v = x;
	return !*end;
}

static bool parse_dtype(const char *s, double *bytes)
{
	static const struct {
		const char *name;
		double bytes;
	} types[] = {
		{ "bf16", 2 },
		{ "fp16", 2 },
		{ "fp32", 4 },
		{ "fp8", 1 },
	};
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(*types); i++)
		if (!strcmp(s, types[i].name)) {
			*bytes = types[i].bytes;
			return true;
		}
	return false;
}

static int parse_plan(int argc, char **argv, struct plan_args *a)
{
	static const struct option opts[] = {
		{ "topo", required_argument, NULL, 't' },
		{ "lfts", required_argument, NULL, OPT_LFTS },
		{ "params", required_argument, NULL, OPT_PARAMS },
		{ "dtype", required_argument, NULL, OPT_DTYPE },
		{ "step", required_argument, NULL, OPT_STEP },
		{ "hosts", required_argument, NULL, OPT_HOSTS },
		{ "gpus-per-node", required_argument, NULL, OPT_GPN },
		{ "hcas-per-node", required_argument, NULL, OPT_HPN },
		{ "tp", required_argument, NULL, OPT_TP },
		{ "pp", required_argument, NULL, OPT_PP },
		{ "dp", required_argument, NULL, OPT_DP },
		{ "no-sharp", no_argument, NULL, OPT_NO_SHARP },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	unsigned v;
	char *end;
	int c;

	a->job.bytes = 2;
	while ((c = getopt_long(argc, argv, "t:h", opts, NULL)) != -1) {
		bool ok = true;

		switch (c) {
		case 't':
			a->topo = optarg;
			break;
		case OPT_LFTS:
			a->lfts = optarg;
			break;
		case OPT_PARAMS:
			ok = parse_params(optarg, &a->job.params);
			break;
		case OPT_DTYPE:
			ok = parse_dtype(optarg, &a->job.bytes);
			break;
		case OPT_STEP:
			a->job.step_s = strtod(optarg, &end);
			ok = end != optarg && !*end && a->job.step_s > 0;
			break;
		case OPT_HOSTS:
			a->hosts = optarg;
			break;
		case OPT_GPN:
		case OPT_HPN:
		case OPT_TP:
		case OPT_PP:
		case OPT_DP:
			ok = cli_parse_uint(optarg, 1, 1U << 20, &v);
			if (c == OPT_GPN)
				a->job.gpus_per_node = v;
			else if (c == OPT_HPN)
				a->job.hcas_per_node = v;
			else if (c == OPT_TP)
				a->job.tp = v;
			else if (c == OPT_PP)
				a->job.pp = v;
			else
				a->job.dp = v;
			break;
		case OPT_NO_SHARP:
			a->no_sharp = true;
			break;
		case OPT_JSON:
			a->json = true;
			break;
		case 'h':
			fputs(plan_usage, stdout);
			exit(CLI_OK);
		default:
			fputs(plan_usage, stderr);
			return CLI_USAGE;
		}
		if (!ok) {
			cli_error("bad value for --%s: '%s'",
				  cli_opt_name(opts, c), optarg);
			return CLI_USAGE;
		}
	}
	if (!a->topo || !a->job.params || !a->job.step_s || optind < argc) {
		cli_error("plan needs --topo, --params and --step");
		fputs(plan_usage, stderr);
		return CLI_USAGE;
	}
	return CLI_OK;
}

/* Nodes as groups of CA ports, in host order. */
struct nodes {
	unsigned n;
	uint32_t *first; /* n + 1 starts into 'port' */
	uint32_t *port;
};

static void nodes_free(struct nodes *g)
{
	free(g->first);
	free(g->port);
}

/* Every node of the fabric: a server's HCAs with rails, else each CA port. */
static int all_nodes(const struct ibfm_fabric *f,
		     const struct ibfm_rails *rails, struct nodes *g)
{
	uint8_t *rank = malloc(f->nnodes + 1);
	uint32_t *hosts = malloc((f->nports + 1) * sizeof(*hosts));
	uint32_t *of = NULL, nh = 0, i, k = 0;
	unsigned levels;
	bool by_server = rails && rails->nrails >= 2;
	int rc = -ENOMEM;

	memset(g, 0, sizeof(*g));
	if (!rank || !hosts || ibfm_rank_detect(f, rank, &levels))
		goto out;
	nh = ibfm_rank_hosts(f, rank, hosts);
	g->first = calloc(nh + 2, sizeof(*g->first));
	g->port = malloc((nh + 1) * sizeof(*g->port));
	of = malloc((nh + 1) * sizeof(*of));
	if (!g->first || !g->port || !of)
		goto out;
	/* Node of each host: by server id in order of first appearance. */
	for (i = 0; i < nh; i++) {
		uint32_t srv = by_server ? rails->port_server[hosts[i]]
					 : IBFM_NONE,
			 j;

		for (j = 0; srv != IBFM_NONE && j < i; j++)
			if (rails->port_server[hosts[j]] == srv)
				break;
		of[i] = srv != IBFM_NONE && j < i ? of[j] : g->n++;
	}
	for (i = 0; i < nh; i++)
		g->first[of[i] + 1]++;
	for (i = 0; i < g->n; i++)
		g->first[i + 1] += g->first[i];
	for (i = 0; i < g->n; i++) {
		uint32_t j;

		for (j = 0; j < nh; j++)
			if (of[j] == i)
				g->port[k++] = hosts[j];
	}
	rc = 0;
out:
	free(rank);
	free(hosts);
	free(of);
	return rc;
}

/* The nodes 'sel[0 .. n)' of 'all' as their own group list. */
static int pick_nodes(const struct nodes *all, const uint32_t *sel, unsigned n,
		      struct nodes *g)
{
	unsigned i, k = 0;
	uint32_t p;

	g->n = n;
	g->first = malloc((n + 1) * sizeof(*g->first));
	g->port = malloc((all->first[all->n] + 1) * sizeof(*g->port));
	if (!g->first || !g->port)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		g->first[i] = k;
		for (p = all->first[sel[i]]; p < all->first[sel[i] + 1]; p++)
			g->port[k++] = all->port[p];
	}
	g->first[n] = k;
	return 0;
}

/* Whether node 'i' is named by 'tok': an HCA description or its host. */
static bool node_named(const struct ibfm_fabric *f, const struct nodes *all,
		       unsigned i, const char *tok)
{
	uint32_t p;
	size_t len = strlen(tok);

	for (p = all->first[i]; p < all->first[i + 1]; p++) {
		const char *d = ibfm_fabric_str(
			f, f->nodes[f->ports[all->port[p]].node].desc);

		if (!strcmp(d, tok) || (!strncmp(d, tok, len) && d[len] == ' '))
			return true;
	}
	return false;
}

/* The job's nodes from --hosts: all, a count from 'offset', or names. */
static int select_nodes(const struct ibfm_fabric *f, const struct nodes *all,
			const char *spec, unsigned offset, uint32_t *sel,
			unsigned *n)
{
	unsigned count, i;
	char *copy, *save = NULL, *tok;

	*n = 0;
	if (!spec || !strcmp(spec, "all")) {
		for (i = 0; i < all->n; i++)
			sel[(*n)++] = i;
		return CLI_OK;
	}
	if (cli_parse_uint(spec, 1, all->n, &count)) {
		for (i = 0; i < count && offset + i < all->n; i++)
			sel[(*n)++] = offset + i;
		return *n == count ? CLI_OK : CLI_INPUT;
	}
	copy = strdup(spec);
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < all->n && !node_named(f, all, i, tok); i++)
			;
		if (i == all->n) {
			cli_error(
				"--hosts: no node \"%s\" (a count up to %u, \"all\", or server names / HCA descriptions)",
				tok, all->n);
			free(copy);
			return CLI_INPUT;
		}
		sel[(*n)++] = i;
	}
	free(copy);
	return CLI_OK;
}

struct evaluation {
	struct ibfm_capacity_demand d;
	struct ibfm_capacity_supply s;
};

static int evaluate(const struct ibfm_fabric *f, const struct ibfm_lfts *t,
		    const struct ibfm_rails *rails,
		    const struct ibfm_sharp *trees, const struct nodes *g,
		    const struct ibfm_capacity_job *job, struct evaluation *e)
{
	struct ibfm_err err;

	if (ibfm_capacity_demand(job, g->n, &e->d, &err) ||
	    ibfm_capacity_supply(f, t, rails, trees, g->first, g->port, g->n,
				 &e->d, &e->s, &err)) {
		cli_error("%s", err.msg);
		return CLI_INPUT;
	}
	return CLI_OK;
}

struct fix {
	const char *what;
	char detail[160];
	double time_s;
};

static void link_name(const struct ibfm_fabric *f, uint32_t p, char *buf,
		      size_t len)
{
	uint32_t q = f->ports[p].peer;
	char a[96], b[96];

	cli_port_str(f, p, a, sizeof(a));
	cli_port_str(f, q, b, sizeof(b));
	snprintf(buf, len, "%s -> %s", a, b);
}

/* What would make it fit, each with its predicted time. */
static unsigned find_fixes(const struct plan_args *a,
			   const struct evaluation *e,
			   const struct ibfm_fabric *f,
			   const struct ibfm_lfts *t,
			   const struct ibfm_rails *rails,
			   const struct nodes *all, struct fix *fx)
{
	unsigned n = 0, g = a->job.gpus_per_node ? a->job.gpus_per_node : 8;
	unsigned tp = a->job.tp ? a->job.tp : 1, count;
	double hcas = e->s.flow_gbps > 0 ? e->s.node_gbps / e->s.flow_gbps : 1;

	if (e->s.sharp_s > 0) {
		fx[n].what = "enable SHARP";
		snprintf(fx[n].detail, sizeof(fx[n].detail),
			 "in-network reduction at %.1f Gb/s per node",
			 e->s.sharp_node_gbps);
		fx[n++].time_s = e->s.sharp_s;
	}
	if (tp < g) {
		fx[n].what = "tensor parallelism over the whole node";
		snprintf(
			fx[n].detail, sizeof(fx[n].detail),
			"TP %u instead of %u cuts each node's gradient volume %u-fold",
			g, tp, g / tp);
		fx[n++].time_s = e->s.ring_s * tp / g;
	}
	if (e->s.nworst && e->s.next_flow_gbps > e->s.flow_gbps) {
		fx[n].what = "relieve the bottleneck links";
		snprintf(fx[n].detail, sizeof(fx[n].detail),
			 "the %u links at %.1f Gb/s per flow, back to %.1f",
			 e->s.nworst, e->s.flow_gbps, e->s.next_flow_gbps);
		fx[n++].time_s = e->d.ring_bytes /
				 (e->s.next_flow_gbps * hcas * 1e9 / 8);
	}
	/* Another placement of the same count of nodes. */
	if (a->hosts && cli_parse_uint(a->hosts, 1, all->n, &count) &&
	    count < all->n) {
		unsigned step = (all->n - count) / 8 ? (all->n - count) / 8 : 1,
			 off;
		uint32_t *sel = malloc(all->n * sizeof(*sel));
		double best = e->s.ring_s;
		unsigned best_off = 0, k;

		for (off = step; sel && off + count <= all->n; off += step) {
			struct nodes g2 = { 0 };
			struct evaluation e2;

			if (select_nodes(f, all, a->hosts, off, sel, &k) ==
				    CLI_OK &&
			    !pick_nodes(all, sel, k, &g2) &&
			    evaluate(f, t, rails, NULL, &g2, &a->job, &e2) ==
				    CLI_OK &&
			    e2.s.ring_s < best) {
				best = e2.s.ring_s;
				best_off = off;
			}
			nodes_free(&g2);
		}
		free(sel);
		if (best_off) {
			fx[n].what = "another placement";
			snprintf(fx[n].detail, sizeof(fx[n].detail),
				 "the %u nodes from node #%u in host order",
				 count, best_off + 1);
			fx[n++].time_s = best;
		}
	}
	return n;
}

static void print_json(const struct plan_args *a, const struct evaluation *e,
		       const struct ibfm_fabric *f, const struct fix *fx,
		       unsigned nfix)
{
	struct ibfm_json j;
	char buf[256];
	unsigned i;

	ibfm_json_init(&j, stdout, true);
	ibfm_json_obj_begin(&j, NULL);
	ibfm_json_obj_begin(&j, "job");
	ibfm_json_double(&j, "params", a->job.params);
	ibfm_json_double(&j, "bytes_per_param", a->job.bytes);
	ibfm_json_double(&j, "step_s", a->job.step_s);
	ibfm_json_uint(&j, "nodes", e->d.nodes);
	ibfm_json_uint(&j, "gpus", e->d.gpus);
	ibfm_json_uint(&j, "tp", a->job.tp ? a->job.tp : 1);
	ibfm_json_uint(&j, "pp", a->job.pp ? a->job.pp : 1);
	ibfm_json_uint(&j, "dp", e->d.dp);
	ibfm_json_obj_end(&j);
	ibfm_json_obj_begin(&j, "demand");
	ibfm_json_double(&j, "rule_of_thumb_gbs", e->d.rule_gbs);
	ibfm_json_double(&j, "node_gradient_bytes", e->d.node_bytes);
	ibfm_json_double(&j, "ring_bytes_per_node", e->d.ring_bytes);
	ibfm_json_double(&j, "ring_gbs_per_node", e->d.ring_gbs);
	ibfm_json_double(&j, "ring_gbs_per_hca", e->d.ring_gbs_hca);
	ibfm_json_double(&j, "sharp_gbs_per_node", e->d.sharp_gbs);
	ibfm_json_obj_end(&j);
	ibfm_json_obj_begin(&j, "supply");
	ibfm_json_double(&j, "flow_gbps", e->s.flow_gbps);
	ibfm_json_double(&j, "node_gbps", e->s.node_gbps);
	ibfm_json_arr_begin(&j, "rail_gbps");
	for (i = 0; i < e->s.rails; i++)
		ibfm_json_double(&j, NULL, e->s.rail_gbps[i]);
	ibfm_json_arr_end(&j);
	ibfm_json_double(&j, "ring_s", e->s.ring_s);
	ibfm_json_double(&j, "sharp_node_gbps", e->s.sharp_node_gbps);
	ibfm_json_double(&j, "sharp_s", e->s.sharp_s);
	ibfm_json_uint(&j, "unrouted_flows", e->s.unrouted);
	ibfm_json_arr_begin(&j, "bottlenecks");
	for (i = 0; i < e->s.nworst; i++) {
		ibfm_json_obj_begin(&j, NULL);
		link_name(f, e->s.worst[i], buf, sizeof(buf));
		ibfm_json_str(&j, "link", buf);
		ibfm_json_uint(&j, "flows", e->s.worst_load[i]);
		ibfm_json_double(&j, "rate_gbps", e->s.worst_rate[i]);
		ibfm_json_obj_end(&j);
	}
	ibfm_json_arr_end(&j);
	ibfm_json_obj_end(&j);
	ibfm_json_obj_begin(&j, "verdict");
	ibfm_json_bool(&j, "fits",
		       e->s.ring_s <= a->job.step_s && !e->s.unrouted);
	ibfm_json_double(&j, "allreduce_s", e->s.ring_s);
	ibfm_json_double(&j, "ratio", e->s.ring_s / a->job.step_s);
	ibfm_json_obj_end(&j);
	ibfm_json_arr_begin(&j, "fixes");
	for (i = 0; i < nfix; i++) {
		ibfm_json_obj_begin(&j, NULL);
		ibfm_json_str(&j, "fix", fx[i].what);
		ibfm_json_str(&j, "detail", fx[i].detail);
		ibfm_json_double(&j, "allreduce_s", fx[i].time_s);
		ibfm_json_bool(&j, "fits", fx[i].time_s <= a->job.step_s);
		ibfm_json_obj_end(&j);
	}
	ibfm_json_arr_end(&j);
	ibfm_json_obj_end(&j);
	ibfm_json_finish(&j);
}

static void print_text(const struct plan_args *a, const struct evaluation *e,
		       const struct ibfm_fabric *f, const struct fix *fx,
		       unsigned nfix)
{
	bool fits = e->s.ring_s <= a->job.step_s && !e->s.unrouted;
	char buf[256];
	unsigned i;

	printf("job: %.3g parameters x %g bytes, step %g s, %u nodes, %u GPUs (TP %u, PP %u, DP %u)\n",
	       a->job.params, a->job.bytes, a->job.step_s, e->d.nodes,
	       e->d.gpus, a->job.tp ? a->job.tp : 1, a->job.pp ? a->job.pp : 1,
	       e->d.dp);
	printf("demand per node:  rule of thumb 2 x params x bytes / step   %8.1f GB/s\n",
	       e->d.rule_gbs);
	printf("                  ring all-reduce of the sharded gradients  %8.1f GB/s (%.1f GB/s per HCA)\n",
	       e->d.ring_gbs, e->d.ring_gbs_hca);
	printf("                  SHARP (each byte once each way)          %8.1f GB/s\n",
	       e->d.sharp_gbs);
	printf("supply, as routed: slowest ring flow %.1f Gb/s, %.1f Gb/s per node (%.1f GB/s)\n",
	       e->s.flow_gbps, e->s.node_gbps, e->s.node_gbps / 8);
	for (i = 0; e->s.rails > 1 && i < e->s.rails; i++)
		printf("  rail %u: slowest flow %.1f Gb/s\n", i,
		       e->s.rail_gbps[i]);
	for (i = 0; i < e->s.nworst; i++) {
		link_name(f, e->s.worst[i], buf, sizeof(buf));
		printf("  bottleneck: %s carries %u flows at %g Gb/s\n", buf,
		       e->s.worst_load[i], e->s.worst_rate[i]);
	}
	if (e->s.unrouted)
		printf("  %" PRIu64 " ring flows are not routed at all\n",
		       e->s.unrouted);
	printf("all-reduce per step: ring %.3f s", e->s.ring_s);
	if (e->s.sharp_s > 0)
		printf(", SHARP %.3f s", e->s.sharp_s);
	printf("\nverdict: %s: %.3f s of a %g s step (%.0f%%)\n",
	       fits ? "fits" : "does NOT fit", e->s.ring_s, a->job.step_s,
	       100 * e->s.ring_s / a->job.step_s);
	for (i = 0; !fits && i < nfix; i++)
		printf("  fix: %s (%s): %.3f s, %s\n", fx[i].what, fx[i].detail,
		       fx[i].time_s,
		       fx[i].time_s <= a->job.step_s ? "fits"
						     : "still does not fit");
}

static int cmd_plan(int argc, char **argv)
{
	struct plan_args a = { 0 };
	struct ibfm_fabric *f = NULL;
	struct ibfm_rails rails = { 0 };
	struct ibfm_lfts lfts = { 0 };
	struct ibfm_sharp *trees = NULL;
	struct ibfm_sharp_opts so = { 0 };
	struct nodes all = { 0 }, g = { 0 };
	struct evaluation e;
	struct ibfm_err err;
	struct fix fx[8];
	uint32_t *sel = NULL;
	unsigned nsel, nfix = 0;
	int rc;

	rc = parse_plan(argc, argv, &a);
	if (rc)
		return rc;
	rc = cli_load_routes(a.topo, a.lfts, &f, &rails, &lfts);
	if (rc)
		return rc;
	rc = CLI_INPUT;
	so.rails = &rails;
	if (!a.no_sharp && ibfm_sharp_build(f, &lfts, &so, &trees, &err))
		goto err;
	if (!a.job.hcas_per_node && rails.nrails >= 2)
		a.job.hcas_per_node = rails.nrails;
	if (all_nodes(f, &rails, &all) ||
	    !(sel = malloc((all.n + 1) * sizeof(*sel)))) {
		cli_error("out of memory");
		rc = CLI_FAIL;
		goto out;
	}
	rc = select_nodes(f, &all, a.hosts, 0, sel, &nsel);
	if (!rc && pick_nodes(&all, sel, nsel, &g))
		rc = CLI_FAIL;
	if (!rc)
		rc = evaluate(f, &lfts, &rails, trees, &g, &a.job, &e);
	if (rc)
		goto out;
	cli_progress_begin("looking for fixes");
	nfix = find_fixes(&a, &e, f, &lfts, &rails, &all, fx);
	cli_progress_end();
	if (a.json)
		print_json(&a, &e, f, fx, nfix);
	else
		print_text(&a, &e, f, fx, nfix);
	rc = e.s.ring_s <= a.job.step_s && !e.s.unrouted ? CLI_OK : CLI_FOUND;
	goto out;
err:
	cli_error("%s", err.msg);
out:
	free(sel);
	nodes_free(&all);
	nodes_free(&g);
	ibfm_sharp_destroy(trees);
	ibfm_lfts_free(&lfts);
	ibfm_rails_free(&rails);
	ibfm_fabric_destroy(f);
	return rc;
}

const struct cli_cmd cli_plan_cmds[] = {
	{ "plan", NULL, "--topo FILE --params P --step S [--hosts H] [--json]",
	  "will this fabric carry this training job?", cmd_plan },
	{ 0 },
};
