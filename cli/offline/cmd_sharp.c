// SPDX-License-Identifier: MIT
/*
 * ibfm sharp trees|tree|job: SHARP aggregation trees over ibfm's routes
 * (or OpenSM's, with --lfts), and job trees carved from them.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/util/cli.h"
#include "cli/util/names.h"
#include "routing/engine/ftree.h"
#include "routing/io/json.h"
#include "routing/model/lft.h"
#include "routing/model/rail.h"
#include "routing/sharp/sharp.h"
#include "routing/topo/topo.h"
#include "routing/checks/trace.h"

struct sharp_args {
	const char *topo, *lfts, *hosts, *jobs_file, *verify;
	struct ibfm_sharp_opts o;
	unsigned quota, id;
	bool json, no_rails;
};

/* Everything a sharp command works on. */
struct sharp_ctx {
	struct ibfm_fabric *f;
	struct ibfm_rails rails;
	struct ibfm_lfts lfts;
	struct ibfm_sharp *s;
};

static void ctx_free(struct sharp_ctx *c)
{
	ibfm_sharp_destroy(c->s);
	ibfm_lfts_free(&c->lfts);
	ibfm_rails_free(&c->rails);
	ibfm_fabric_destroy(c->f);
}

enum {
	OPT_LFTS = 256,
	OPT_RADIX,
	OPT_TREES,
	OPT_DEPTH,
	OPT_JSON,
	OPT_HOSTS,
	OPT_QUOTA,
	OPT_JOBS,
	OPT_NO_RAILS,
	OPT_VERIFY
};

static const struct option sharp_opts[] = {
	{ "topo", required_argument, NULL, 't' },
	{ "lfts", required_argument, NULL, OPT_LFTS },
	{ "verify-lfts", required_argument, NULL, OPT_VERIFY },
	{ "radix", required_argument, NULL, OPT_RADIX },
	{ "trees", required_argument, NULL, OPT_TREES },
	{ "max-depth", required_argument, NULL, OPT_DEPTH },
	{ "hosts", required_argument, NULL, OPT_HOSTS },
	{ "jobs-per-an", required_argument, NULL, OPT_QUOTA },
	{ "jobs-file", required_argument, NULL, OPT_JOBS },
	{ "no-rails", no_argument, NULL, OPT_NO_RAILS },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "help", no_argument, NULL, 'h' },
	CLI_NAMES_OPTION,
	{ 0 },
};

static const char sharp_usage[] =
	"Usage: ibfm sharp trees --topo FILE [options]\n"
	"       ibfm sharp tree ID --topo FILE [options]\n"
	"       ibfm sharp job carve --hosts H1,H2,... --jobs-file F --topo FILE\n"
	"       ibfm sharp job show|release [ID] --jobs-file F --topo FILE\n"
	"SHARP aggregation trees: one per top-level switch (per rail on rail\n"
	"fabrics), every edge on the LFT path between its two switches.\n"
	"\n"
	"  -t, --topo FILE       topology (ibnetdiscover format)\n"
	"      --lfts DUMP       OpenSM's opensm-lfts.dump instead of ibfm's routes\n"
	"      --verify-lfts D   also check every edge against other tables (e.g.\n"
	"                        read back from the switches with ibroute)\n"
	"      --radix N         at most N children per aggregation node (0: any)\n"
	"      --max-depth N     at most N switch levels (default: the fabric's)\n"
	"      --trees N         build N trees, roots spread (default: one per root)\n"
	"      --no-rails        trees over all hosts even on rail fabrics\n"
	"      --hosts LIST      job hosts: GUIDs, LIDs or node descriptions, comma\n"
	"                        separated (\"node001 mlx5_0,node002 mlx5_0\")\n"
	"      --jobs-file F     the jobs carved so far (one \"ID HOSTS\" per line)\n"
	"      --jobs-per-an N   job trees one aggregation node may serve (default 4)\n" CLI_NAMES_HELP
	"                        (hosts are still named as above)\n"
	"      --json            one JSON object\n"
	"  -h, --help            this text\n";

static int parse_sharp(int argc, char **argv, struct sharp_args *a)
{
	unsigned v;
	int c;

	a->quota = 4;
	while ((c = getopt_long(argc, argv, "t:h", sharp_opts, NULL)) != -1) {
		switch (c) {
		case 't':
			a->topo = optarg;
			break;
		case OPT_LFTS:
			a->lfts = optarg;
			break;
		case OPT_VERIFY:
			a->verify = optarg;
			break;
		case OPT_RADIX:
		case OPT_TREES:
		case OPT_DEPTH:
		case OPT_QUOTA:
			if (!cli_parse_uint(optarg, 0, 1U << 20, &v))
				goto bad;
			if (c == OPT_RADIX)
				a->o.radix = v;
			else if (c == OPT_TREES)
				a->o.trees = v;
			else if (c == OPT_DEPTH)
				a->o.max_depth = v;
			else
				a->quota = v;
			break;
		case OPT_HOSTS:
			a->hosts = optarg;
			break;
		case OPT_JOBS:
			a->jobs_file = optarg;
			break;
		case OPT_NO_RAILS:
			a->no_rails = true;
			break;
		case OPT_JSON:
			a->json = true;
			break;
		case CLI_NAMES_OPT:
			cli_names_path = optarg;
			break;
		case 'h':
			fputs(sharp_usage, stdout);
			exit(CLI_OK);
		default:
			fputs(sharp_usage, stderr);
			return CLI_USAGE;
		}
	}
	if (!a->topo) {
		fputs(sharp_usage, stderr);
		return CLI_USAGE;
	}
	return CLI_OK;
bad:
	cli_error("bad value for --%s: '%s'", cli_opt_name(sharp_opts, c),
		  optarg);
	return CLI_USAGE;
}

/* Loads the fabric, its tables (ibfm's or a dump) and builds the trees. */
static int load_trees(struct sharp_args *a, struct sharp_ctx *c)
{
	struct ibfm_err err;
	int rc;

	memset(c, 0, sizeof(*c));
	rc = cli_load_routes(a->topo, a->lfts, &c->f, &c->rails, &c->lfts);
	if (rc)
		return rc;
	a->o.rails = a->no_rails ? NULL : &c->rails;
	cli_progress_begin("building SHARP trees");
	rc = ibfm_sharp_build(c->f, &c->lfts, &a->o, &c->s, &err);
	cli_progress_end();
	if (rc)
		goto input;
	if (a->verify) {
		struct ibfm_lfts other;

		if (ibfm_lfts_read_dump(c->f, a->verify, &other, &err))
			goto input;
		c->s->path_violations = ibfm_sharp_check_lfts(c->s, &other);
		ibfm_lfts_free(&other);
	}
	return CLI_OK;
input:
	cli_error("%s", err.msg);
	return CLI_INPUT;
}

static const char *node_desc(const struct ibfm_fabric *f, uint32_t n)
{
	return ibfm_fabric_str(f, f->nodes[n].desc);
}

static int cmd_trees(struct sharp_args *a, struct sharp_ctx *c)
{
	const struct ibfm_sharp *s = c->s;

	if (a->json) {
		ibfm_sharp_write_json(s, NULL, 0, false, true, stdout);
	} else {
		printf("%-6s %-24s %-5s %-6s %-7s %s\n", "tree", "root", "rail",
		       "depth", "hosts", "ANs");
		for (uint32_t i = 0; i < s->ntrees; i++) {
			const struct ibfm_sharp_tree *tr = &s->trees[i];
			char rail[8] = "-";

			if (tr->rail != IBFM_RAIL_NONE)
				snprintf(rail, sizeof(rail), "%u", tr->rail);
			printf("%-6u %-24s %-5s %-6u %-7u %u\n", tr->id,
			       node_desc(c->f, tr->root), rail, tr->depth,
			       tr->hosts, tr->nans);
		}
		printf("violations %u (radix %u, depth %u, off-LFT edges %u, uncovered %u); max tree edges on a link %u\n",
		       ibfm_sharp_violations(s), s->radix_violations,
		       s->depth_violations, s->path_violations, s->uncovered,
		       s->max_link_edges);
	}
	return ibfm_sharp_violations(s) ? CLI_FOUND : CLI_OK;
}

static int cmd_tree(struct sharp_args *a, struct sharp_ctx *c)
{
	const struct ibfm_sharp *s = c->s;
	const struct ibfm_sharp_tree *tr;
	struct ibfm_sharp tmp;
	uint32_t i;

	if (a->id >= s->ntrees) {
		cli_error("no tree %u: there are %u (see ibfm sharp trees)",
			  a->id, s->ntrees);
		return CLI_INPUT;
	}
	tr = &s->trees[a->id];
	if (a->json) {
		/* The one tree, as the state directory's file writes it. */
		tmp = *s;
		tmp.trees = (struct ibfm_sharp_tree *)tr;
		tmp.ntrees = 1;
		return ibfm_sharp_write_json(&tmp, NULL, 0, true, true, stdout)
			       ? CLI_FAIL
			       : CLI_OK;
	}
	printf("tree %u: root %s, depth %u, %u hosts, %u ANs\n", tr->id,
	       node_desc(c->f, tr->root), tr->depth, tr->hosts, tr->nans);
	for (i = tr->first; i < tr->first + tr->nans; i++) {
		const struct ibfm_sharp_an *an = &s->ans[i];

		if (an->parent == IBFM_NONE)
			continue;
		printf("  level %u %-20s [%u] -> [%u] %s (%u children)\n",
		       an->level, node_desc(c->f, an->node), an->up_port,
		       an->down_port, node_desc(c->f, s->ans[an->parent].node),
		       an->children);
	}
	return CLI_OK;
}

/* Resolves "h1,h2,..." into CA ports; prints the first unknown one. */
static int resolve_hosts(const struct ibfm_fabric *f, const char *list,
			 uint32_t **ports, uint32_t *n)
{
	char *copy = strdup(list), *save = NULL, *tok;
	uint32_t cap = 16;

	*n = 0;
	*ports = malloc(cap * sizeof(**ports));
	if (!copy || !*ports) {
		free(copy);
		return CLI_FAIL;
	}
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		uint32_t p = ibfm_trace_endpoint(f, tok);

		if (p == IBFM_NONE || !f->ports[p].num) {
			cli_error(
				"unknown host \"%s\": expected a CA port GUID, a LID or a node description",
				tok);
			free(copy);
			return CLI_INPUT;
		}
		if (*n == cap) {
			uint32_t *bigger =
				realloc(*ports, 2 * cap * sizeof(**ports));

			if (!bigger) {
				free(copy);
				return CLI_FAIL;
			}
			*ports = bigger;
			cap *= 2;
		}
		(*ports)[(*n)++] = p;
	}
	free(copy);
	return *n ? CLI_OK : CLI_INPUT;
}

struct jobs {
	struct ibfm_sharp_job *job;
	char **hosts; /* each job's host list, as given */
	char **sig;   /* each job's tree now (job_signature) */
	bool *moved;  /* re-carved onto other ANs than saved */
	uint32_t n;
	uint32_t *usage; /* per node: job trees an AN serves */
};

static void jobs_free(struct jobs *js, const struct ibfm_sharp *s)
{
	uint32_t i;

	for (i = 0; i < js->n; i++) {
		ibfm_sharp_release(&js->job[i], s, js->usage);
		free(js->hosts[i]);
		free(js->sig[i]);
	}
	free(js->job);
	free(js->hosts);
	free(js->sig);
	free(js->moved);
	free(js->usage);
}

/* "tree=T ans=GUID,GUID,...": what a job's tree is, to see it move. */
static void job_signature(const struct sharp_ctx *c,
			  const struct ibfm_sharp_job *j, char *buf, size_t len)
{
	size_t at = (size_t)snprintf(buf, len, "tree=%u ans=", j->tree);
	uint32_t k;

	for (k = 0; k < j->nans && at < len; k++)
		at += (size_t)snprintf(
			buf + at, len - at, "%s0x%" PRIx64, k ? "," : "",
			c->f->nodes[c->s->ans[j->ans[k]].node].guid);
}

/*
 * Carves 'list' as job 'id' after the jobs already in 'js'; 'was' is
 * the tree it had when saved (NULL for a new job).
 */
static int carve_one(struct sharp_args *a, struct sharp_ctx *c, struct jobs *js,
		     uint32_t id, const char *list, const char *was)
{
	struct ibfm_err err;
	uint32_t *ports, n;
	int rc = resolve_hosts(c->f, list, &ports, &n);
	void *bj, *bh, *bw, *bm;
	char sig[4096];

	if (rc)
		return rc;
	bj = realloc(js->job, (js->n + 1) * sizeof(*js->job));
	if (bj)
		js->job = bj;
	bh = bj ? realloc(js->hosts, (js->n + 1) * sizeof(*js->hosts)) : NULL;
	if (bh)
		js->hosts = bh;
	bw = bh ? realloc(js->sig, (js->n + 1) * sizeof(*js->sig)) : NULL;
	if (bw)
		js->sig = bw;
	bm = bw ? realloc(js->moved, (js->n + 1) * sizeof(*js->moved)) : NULL;
	if (bm)
		js->moved = bm;
	if (!bm) {
		free(ports);
		return CLI_FAIL;
	}
	if (ibfm_sharp_carve(c->s, ports, n, a->quota, js->usage,
			     &js->job[js->n], &err)) {
		cli_error("job %u: %s", id, err.msg);
		free(ports);
		return CLI_INPUT;
	}
	free(ports);
	js->job[js->n].id = id;
	js->hosts[js->n] = strdup(list);
	job_signature(c, &js->job[js->n], sig, sizeof(sig));
	js->sig[js->n] = strdup(sig);
	js->moved[js->n] = was && strcmp(was, sig);
	js->job[js->n].recarved = js->moved[js->n];
	js->n++;
	return CLI_OK;
}

/* Re-carves the jobs of the file in order, as they were carved. */
static int load_jobs(struct sharp_args *a, struct sharp_ctx *c, struct jobs *js)
{
	char line[65536];
	FILE *in;
	int rc = CLI_OK;

	memset(js, 0, sizeof(*js));
	js->usage = calloc(c->f->nnodes + 1, sizeof(*js->usage));
	if (!js->usage)
		return CLI_FAIL;
	in = fopen(a->jobs_file, "r");
	if (!in)
		return errno == ENOENT ? CLI_OK : CLI_FAIL;
	while (!rc && fgets(line, sizeof(line), in)) {
		unsigned id;
		int used = 0;

		line[strcspn(line, "\n")] = '\0';
		if (!*line || *line == '#')
			continue;
		if (sscanf(line, "%u %n", &id, &used) != 1 || !line[used]) {
			cli_error("%s: expected \"ID HOST,HOST,...\" lines",
				  a->jobs_file);
			rc = CLI_INPUT;
			break;
		}
		{
			char *tab = strchr(line + used, '\t');

			if (tab)
				*tab++ = '\0';
			rc = carve_one(a, c, js, id, line + used, tab);
		}
	}
	fclose(in);
	return rc;
}

static int save_jobs(const char *path, const struct jobs *js)
{
	FILE *out = fopen(path, "w");
	uint32_t i;

	if (!out) {
		cli_error("%s: %s", path, strerror(errno));
		return CLI_FAIL;
	}
	fprintf(out,
		"# ibfm SHARP jobs: ID HOSTS (ibfm sharp job carve|release)\n");
	for (i = 0; i < js->n; i++) {
		fprintf(out, "%u %s\t%s\n", js->job[i].id, js->hosts[i],
			js->sig[i]);
	}
	return fclose(out) ? CLI_FAIL : CLI_OK;
}

static void print_jobs(const struct sharp_args *a, const struct sharp_ctx *c,
		       const struct jobs *js)
{
	uint32_t i, k;

	if (a->json) {
		ibfm_sharp_write_json(c->s, js->job, js->n, false, false,
				      stdout);
		return;
	}
	for (i = 0; i < js->n; i++) {
		const struct ibfm_sharp_job *j = &js->job[i];

		printf("job %u%s: tree %u, %u hosts, root %s, %u ANs:", j->id,
		       js->moved[i] ? " (re-carved: its tree changed)" : "",
		       j->tree, j->hosts,
		       node_desc(c->f, c->s->ans[j->root].node), j->nans);
		for (k = 0; k < j->nans; k++)
			printf(" %s",
			       node_desc(c->f, c->s->ans[j->ans[k]].node));
		putchar('\n');
	}
}

static int cmd_job(struct sharp_args *a, struct sharp_ctx *c, const char *verb,
		   const char *arg)
{
	struct jobs js;
	uint32_t i, next = 1;
	int rc;

	if (!a->jobs_file) {
		cli_error(
			"sharp job needs --jobs-file (the jobs carved so far)");
		return CLI_USAGE;
	}
	rc = load_jobs(a, c, &js);
	for (i = 0; !rc && i < js.n; i++)
		if (js.job[i].id >= next)
			next = js.job[i].id + 1;
	if (!rc && !strcmp(verb, "carve")) {
		if (!a->hosts) {
			cli_error("sharp job carve needs --hosts");
			rc = CLI_USAGE;
		} else {
			rc = carve_one(a, c, &js, next, a->hosts, NULL);
		}
		if (!rc)
			rc = save_jobs(a->jobs_file, &js);
	} else if (!rc && !strcmp(verb, "release")) {
		unsigned id;

		if (!arg || !cli_parse_uint(arg, 1, UINT32_MAX, &id)) {
			cli_error("sharp job release needs a job ID");
			rc = CLI_USAGE;
		}
		for (i = 0; !rc && i < js.n && js.job[i].id != id; i++)
			;
		if (!rc && i == js.n) {
			cli_error("no job %u in %s", id, a->jobs_file);
			rc = CLI_INPUT;
		}
		if (!rc) {
			ibfm_sharp_release(&js.job[i], c->s, js.usage);
			free(js.hosts[i]);
			free(js.sig[i]);
			memmove(&js.job[i], &js.job[i + 1],
				(js.n - i - 1) * sizeof(*js.job));
			memmove(&js.hosts[i], &js.hosts[i + 1],
				(js.n - i - 1) * sizeof(*js.hosts));
			memmove(&js.sig[i], &js.sig[i + 1],
				(js.n - i - 1) * sizeof(*js.sig));
			memmove(&js.moved[i], &js.moved[i + 1],
				(js.n - i - 1) * sizeof(*js.moved));
			js.n--;
			rc = save_jobs(a->jobs_file, &js);
		}
	} else if (!rc && strcmp(verb, "show")) {
		cli_error("sharp job: expected carve, show or release");
		rc = CLI_USAGE;
	}
	if (!rc) /* the jobs file is written: names for the output now */
		rc = cli_names_fabric(c->f);
	if (!rc)
		print_jobs(a, c, &js);
	jobs_free(&js, c->s);
	return rc;
}

static int cmd_sharp(int argc, char **argv)
{
	struct sharp_args a = { 0 };
	struct sharp_ctx c = { 0 };
	const char *sub = argc > 1 ? argv[1] : NULL, *verb = NULL, *arg = NULL;
	int rc;

	if (!sub || (strcmp(sub, "trees") && strcmp(sub, "tree") &&
		     strcmp(sub, "job"))) {
		if (sub && (!strcmp(sub, "--help") || !strcmp(sub, "-h"))) {
			fputs(sharp_usage, stdout);
			return CLI_OK;
		}
		fputs(sharp_usage, stderr);
		return CLI_USAGE;
	}
	if (!strcmp(sub, "tree") || !strcmp(sub, "job")) {
		if (argc < 3 || argv[2][0] == '-') {
			fputs(sharp_usage, stderr);
			return CLI_USAGE;
		}
		verb = argv[2];
		if (!strcmp(sub, "job") && argc > 3 && argv[3][0] != '-')
			arg = argv[3];
	}
	/* Options follow the words: "sharp tree 3 --topo F". */
	rc = parse_sharp(argc - 1 - (verb != NULL) - (arg != NULL),
			 argv + 1 + (verb != NULL) + (arg != NULL), &a);
	if (!rc && !strcmp(sub, "tree") &&
	    !cli_parse_uint(verb, 0, UINT32_MAX, &a.id)) {
		cli_error("sharp tree needs a tree ID, got \"%s\"", verb);
		rc = CLI_USAGE;
	}
	if (!rc)
		rc = load_trees(&a, &c);
	if (!rc && strcmp(sub, "job"))
		rc = cli_names_fabric(c.f);
	if (!rc) {
		if (!strcmp(sub, "trees"))
			rc = cmd_trees(&a, &c);
		else if (!strcmp(sub, "tree"))
			rc = cmd_tree(&a, &c);
		else
			rc = cmd_job(&a, &c, verb, arg);
	}
	ctx_free(&c);
	return rc;
}

const struct cli_cmd cli_sharp_cmds[] = {
	{ "sharp", NULL, "trees|tree ID|job carve|show|release --topo FILE",
	  "SHARP aggregation trees and job trees", cmd_sharp },
	{ 0 },
};
