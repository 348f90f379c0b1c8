// SPDX-License-Identifier: MIT
/*
 * ibfm topo slurm: Slurm's topology.conf (topology/tree) written from the
 * fabric, or an installed one checked against it
 * (routing/topo/slurm.h). The fabric is a topology file, or ibfmd's last
 * sweep with its drain list when no file is given.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/util/cli.h"
#include "cli/util/names.h"
#include "routing/io/file.h"
#include "routing/io/json.h"
#include "routing/state/drain.h"
#include "routing/topo/slurm.h"

static const char slurm_usage[] =
	"Usage: ibfm topo slurm [--topo FILE] [--drain-list FILE] [--node-name-map FILE]\n"
	"                       [-o FILE | --check FILE] [--json]\n"
	"Writes Slurm's topology.conf for TopologyPlugin=topology/tree from the\n"
	"fabric: a line per leaf with the hosts cabled to it (a host is a node\n"
	"description up to its first space; a server's HCAs on several leaves\n"
	"list it under each), a line per switch above with the switches below it.\n"
	"Drained leaves stay (so that Slurm can place their hosts), drained\n"
	"switches above them are left out. With --check, compares an installed\n"
	"topology.conf with the fabric instead: one line per host missing, under\n"
	"other leaves or unknown, per switch missing, unknown or with other\n"
	"switches below it. Exit 0: written, or the file agrees; 1: it does not;\n"
	"3: bad input; 4/5: ibfmd answered an error / cannot be reached.\n"
	"\n"
	"  -t, --topo FILE    the fabric: ibnetdiscover output or an ibsim net\n"
	"                     file (default: ibfmd's last sweep, --socket PATH)\n"
	"      --drain-list FILE  drained switches (ibfmd's drain.list format;\n"
	"                     default: ibfmd's list with no --topo, none with\n"
	"                     --topo; a missing file is an empty list)\n" CLI_NAMES_HELP
	"  -o, --output FILE  write to FILE (replaced whole), not standard output\n"
	"  -c, --check FILE   compare the topology.conf FILE with the fabric\n"
	"      --json         one JSON object: the switches, or the findings\n"
	"  -h, --help         this text\n"
	"\n"
	"Example:\n"
	"  ibfm topo slurm -o /etc/slurm/topology.conf && scontrol reconfigure\n"
	"  ibfm topo slurm --check /etc/slurm/topology.conf\n";

enum { OPT_DRAINS = 0x100, OPT_JSON };

struct slurm_opts {
	const char *topo, *drains, *output, *check;
	bool json;
};

static int slurm_options(int argc, char **argv, struct slurm_opts *o)
{
	static const struct option opts[] = {
		{ "topo", required_argument, NULL, 't' },
		{ "drain-list", required_argument, NULL, OPT_DRAINS },
		{ "output", required_argument, NULL, 'o' },
		{ "check", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "socket", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		CLI_NAMES_OPTION,
		{ 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "t:o:c:h", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			o->topo = optarg;
			break;
		case OPT_DRAINS:
			o->drains = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'c':
			o->check = optarg;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case 's':
			cli_socket_path = optarg;
			break;
		case CLI_NAMES_OPT:
			cli_names_path = optarg;
			break;
		case 'h':
			fputs(slurm_usage, stdout);
			exit(CLI_OK);
		default:
			goto usage;
		}
	}
	if (optind == argc && !(o->output && o->check))
		return CLI_OK;
usage:
	fputs(slurm_usage, stderr);
	return CLI_USAGE;
}

/* The fabric and its drains, as the options say; named by the map. */
static int load(const struct slurm_opts *o, struct ibfm_fabric **f,
		struct ibfm_drain *d)
{
	struct ibfm_err err;
	int rc = CLI_OK;

	memset(d, 0, sizeof(*d));
	if (o->topo) {
		*f = cli_load_topo(o->topo);
		rc = *f ? CLI_OK : CLI_INPUT;
	} else {
		rc = cli_swept_fabric(f);
	}
	if (!rc && o->drains && ibfm_drain_read(o->drains, d, &err)) {
		cli_error("%s", err.msg);
		rc = CLI_INPUT;
	} else if (!rc && !o->drains && !o->topo) {
		rc = cli_swept_drains(d);
	}
	if (!rc)
		rc = cli_names_fabric(*f);
	if (rc) {
		ibfm_fabric_destroy(*f);
		*f = NULL;
	}
	return rc;
}

/* A switch as JSON: its name, level, and what is below it. */
static int switch_json(struct ibfm_json *j, const struct ibfm_slurm_switch *s)
{
	char *list;

	if (ibfm_slurm_below_list(s, &list))
		return -ENOMEM;
	ibfm_json_obj_begin(j, NULL);
	ibfm_json_str(j, "name", s->name);
	ibfm_json_uint(j, "level", s->level);
	ibfm_json_bool(j, "drained", s->drained);
	ibfm_json_str(j, s->leaf ? "nodes" : "switches", list);
	ibfm_json_uint(j, "count", s->nbelow);
	ibfm_json_obj_end(j);
	free(list);
	return 0;
}

/* The tree as JSON to 'out'; an ibfm_file_write_fn. */
static int write_json(FILE *out, const void *ctx)
{
	const struct ibfm_slurm *t = ctx;
	struct ibfm_json j;
	size_t i;
	int rc = 0;

	ibfm_json_init(&j, out, true);
	ibfm_json_obj_begin(&j, NULL);
	ibfm_json_uint(&j, "hosts", t->hosts);
	ibfm_json_uint(&j, "unnamed", t->unnamed);
	ibfm_json_arr_begin(&j, "switches");
	for (i = 0; i < t->nsw && !rc; i++)
		rc = switch_json(&j, &t->sw[i]);
	ibfm_json_arr_end(&j);
	ibfm_json_arr_begin(&j, "dropped");
	for (i = 0; i < t->ndropped; i++)
		ibfm_json_str(&j, NULL, t->dropped[i]);
	ibfm_json_arr_end(&j);
	ibfm_json_obj_end(&j);
	return rc ? rc : ibfm_json_finish(&j);
}

/* What the text is written from: the tree and where the fabric came from. */
struct text_ctx {
	const struct ibfm_slurm *t;
	const char *source;
};

static int write_text(FILE *out, const void *ctx)
{
	const struct text_ctx *c = ctx;

	return ibfm_slurm_write(c->t, c->source, out);
}

/* Writes the tree to the output the options name. */
static int generate(const struct slurm_opts *o, const struct ibfm_slurm *t)
{
	struct text_ctx c = { t, o->topo ? o->topo : "ibfmd's last sweep" };
	ibfm_file_write_fn fn = o->json ? write_json : write_text;
	const void *ctx = o->json ? (const void *)t : (const void *)&c;

	return cli_write_out(o->output, fn, ctx);
}

/* One finding: a line of text, or an object of the "findings" array. */
static void finding(void *ctx, const struct ibfm_slurm_finding *x)
{
	struct ibfm_json *j = ctx;
	bool host = x->kind <= IBFM_SLURM_HOST_EXTRA;

	if (j) {
		ibfm_json_obj_begin(j, NULL);
		ibfm_json_str(j, "kind", ibfm_slurm_kind_name(x->kind));
		ibfm_json_str(j, "name", x->name);
		ibfm_json_str(j, "file", x->file ? x->file : "");
		ibfm_json_str(j, "fabric", x->fabric ? x->fabric : "");
		ibfm_json_uint(j, "line", x->line);
		ibfm_json_bool(j, "drained", x->drained);
		ibfm_json_obj_end(j);
		return;
	}
	printf("%-15s %s:", ibfm_slurm_kind_name(x->kind), x->name);
	if (x->file)
		printf(host ? " under %s in the file (line %u),"
			    : " %s below it in the file (line %u),",
		       x->file, x->line);
	else
		printf(" not in the file,");
	if (x->fabric)
		printf(host ? " under %s in the fabric\n"
			    : " %s below it in the fabric\n",
		       x->fabric);
	else
		printf(" %s\n", x->drained ? "drained in ibfm, left out"
					   : "not in the fabric");
}

/* Compares the file --check names with the tree; CLI_FOUND when not alike. */
static int check(const struct slurm_opts *o, const struct ibfm_slurm *t)
{
	struct ibfm_slurm file;
	struct ibfm_err err;
	struct ibfm_json j;
	int count;

	if (ibfm_slurm_read(o->check, &file, &err)) {
		cli_error("%s", err.msg);
		ibfm_slurm_free(&file);
		return CLI_INPUT;
	}
	if (o->json) {
		ibfm_json_init(&j, stdout, true);
		ibfm_json_obj_begin(&j, NULL);
		ibfm_json_arr_begin(&j, "findings");
	}
	count = ibfm_slurm_check(&file, t, finding, o->json ? &j : NULL);
	if (o->json) {
		ibfm_json_arr_end(&j);
		ibfm_json_uint(&j, "count", count < 0 ? 0 : (unsigned)count);
		ibfm_json_bool(&j, "agrees", count == 0);
		ibfm_json_obj_end(&j);
		ibfm_json_finish(&j);
	} else if (count >= 0) {
		printf("%d finding%s: %s %s the fabric\n", count,
		       count == 1 ? "" : "s", o->check,
		       count ? "disagrees with" : "agrees with");
	}
	ibfm_slurm_free(&file);
	if (count < 0) {
		cli_error("out of memory");
		return CLI_FAIL;
	}
	return count ? CLI_FOUND : CLI_OK;
}

static int topo_slurm(int argc, char **argv)
{
	struct slurm_opts o = { 0 };
	struct ibfm_fabric *f = NULL;
	struct ibfm_slurm t = { 0 };
	struct ibfm_drain d;
	int rc = slurm_options(argc, argv, &o);

	if (rc)
		return rc;
	rc = load(&o, &f, &d);
	if (!rc && ibfm_slurm_build(f, &d, &t)) {
		cli_error("out of memory");
		rc = CLI_FAIL;
	}
	if (!rc)
		rc = o.check ? check(&o, &t) : generate(&o, &t);
	ibfm_slurm_free(&t);
	ibfm_drain_free(&d);
	ibfm_fabric_destroy(f);
	return rc;
}

const struct cli_cmd cli_slurm_cmds[] = {
	{ "topo", "slurm", "[--topo FILE] [-o FILE | --check FILE]",
	  "Slurm's topology.conf from the fabric, or checked", topo_slurm },
	{ 0 },
};
