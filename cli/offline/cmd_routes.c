// SPDX-License-Identifier: MIT
/*
 * ibfm routes summary|diff: how routes spread over up-ports (OpenSM's
 * console "switchbalance"), and what changed between two sets of tables.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/util/cli.h"
#include "cli/util/names.h"
#include "routing/io/json.h"
#include "routing/model/lft.h"
#include "routing/state/snapshot.h"
#include "routing/model/rail.h"
#include "routing/model/rank.h"

static const char routes_usage[] =
	"Usage: ibfm routes summary --topo FILE [--lfts DUMP] [--state DIR]\n"
	"                           [--node-name-map FILE] [--json]\n"
	"       ibfm routes diff A B --topo FILE [--json]\n"
	"summary: per switch, the CA destinations each up-port carries, and the\n"
	"spread (max - min); with --state, the plugin's engine and generation.\n"
	"diff: LFT entries and 64-entry blocks that differ between two dumps of\n"
	"the same fabric (opensm-lfts.dump or ibroute output), and the LIDs that\n"
	"moved. Exit 1 when they differ.\n"
	"\n" CLI_NAMES_HELP
	"                    (summary: diff prints no node names)\n";

struct routes_args {
	const char *topo, *lfts, *state;
	bool json, names;
};

static int parse_routes(int argc, char **argv, struct routes_args *a)
{
	static const struct option opts[] = {
		{ "topo", required_argument, NULL, 't' },
		{ "lfts", required_argument, NULL, 'l' },
		{ "state", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		CLI_NAMES_OPTION,
		{ 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "t:h", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			a->topo = optarg;
			break;
		case 'l':
			a->lfts = optarg;
			break;
		case 's':
			a->state = optarg;
			break;
		case 'j':
			a->json = true;
			break;
		case CLI_NAMES_OPT:
			cli_names_path = optarg;
			a->names = true;
			break;
		case 'h':
			fputs(routes_usage, stdout);
			exit(CLI_OK);
		default:
			fputs(routes_usage, stderr);
			return CLI_USAGE;
		}
	}
	if (!a->topo) {
		fputs(routes_usage, stderr);
		return CLI_USAGE;
	}
	return CLI_OK;
}

/* "engine" and "generation" of DIR/snapshot.json (routing/state/snapshot.h). */
static void read_snapshot(const char *dir, char *engine, size_t elen,
			  uint64_t *gen)
{
	struct ibfm_statedir sd;
	struct ibfm_snapshot snap;

	if (ibfm_statedir_init(&sd, dir, NULL) ||
	    ibfm_snapshot_read(sd.snapshot, &snap, NULL))
		return;
	*gen = snap.generation;
	snprintf(engine, elen, "%s", snap.engine);
}

static int cmd_summary(struct routes_args *a)
{
	struct ibfm_fabric *f = NULL;
	struct ibfm_lfts t = { 0 };
	struct ibfm_rails rails;
	struct ibfm_json j;
	char engine[64] = "ibfm-ftree (offline)";
	uint64_t gen = 0;
	uint8_t *rank;
	uint32_t s, worst = 0, lid;
	unsigned levels, p;
	int rc;

	if (a->lfts)
		snprintf(engine, sizeof(engine), "from %s", a->lfts);
	if (a->state)
		read_snapshot(a->state, engine, sizeof(engine), &gen);
	rc = cli_load_routes(a->topo, a->lfts, &f, &rails, &t);
	if (rc)
		return rc;
	ibfm_rails_free(&rails);
	rc = cli_names_fabric(f);
	if (rc) {
		ibfm_lfts_free(&t);
		ibfm_fabric_destroy(f);
		return rc;
	}
	rank = malloc(f->nnodes + 1);
	if (!rank || ibfm_rank_detect(f, rank, &levels)) {
		free(rank);
		ibfm_lfts_free(&t);
		ibfm_fabric_destroy(f);
		return CLI_FAIL;
	}
	if (a->json) {
		ibfm_json_init(&j, stdout, true);
		ibfm_json_obj_begin(&j, NULL);
		ibfm_json_str(&j, "engine", engine);
		ibfm_json_uint(&j, "generation", gen);
		ibfm_json_arr_begin(&j, "switches");
	} else {
		printf("engine %s, generation %" PRIu64 "\n", engine, gen);
		printf("%-20s %-9s %s\n", "switch", "spread",
		       "CA destinations per up-port");
	}
	for (s = 0; s < t.nsw; s++) {
		const struct ibfm_node *sw = &f->nodes[t.sw_node[s]];
		const uint8_t *row = ibfm_lfts_row(&t, s);
		uint32_t count[IBFM_MAX_PORTS + 1] = { 0 }, lo = UINT32_MAX,
						hi = 0;
		bool any = false;

		for (lid = 1; lid <= t.top_lid; lid++) {
			uint32_t dp = ibfm_fabric_port_by_lid(f, lid);

			if (dp != IBFM_NONE && f->ports[dp].num &&
			    row[lid] <= sw->nports)
				count[row[lid]]++;
		}
		for (p = 1; p <= sw->nports; p++) {
			uint32_t q = f->ports[sw->port0 + p].peer;

			if (q == IBFM_NONE ||
			    rank[f->ports[q].node] != rank[t.sw_node[s]] + 1)
				continue;
			any = true;
			lo = count[p] < lo ? count[p] : lo;
			hi = count[p] > hi ? count[p] : hi;
		}
		if (!any)
			continue; /* a top switch: nothing goes up */
		if (hi - lo > worst)
			worst = hi - lo;
		if (a->json) {
			ibfm_json_obj_begin(&j, NULL);
			ibfm_json_str(&j, "name", ibfm_fabric_str(f, sw->desc));
			ibfm_json_uint(&j, "min", lo);
			ibfm_json_uint(&j, "max", hi);
			ibfm_json_obj_begin(&j, "up_ports");
			for (p = 1; p <= sw->nports; p++) {
				uint32_t q = f->ports[sw->port0 + p].peer;
				char key[8];

				if (q == IBFM_NONE ||
				    rank[f->ports[q].node] !=
					    rank[t.sw_node[s]] + 1)
					continue;
				snprintf(key, sizeof(key), "%u", p);
				ibfm_json_uint(&j, key, count[p]);
			}
			ibfm_json_obj_end(&j);
			ibfm_json_obj_end(&j);
		} else {
			printf("%-20s %-9u", ibfm_fabric_str(f, sw->desc),
			       hi - lo);
			for (p = 1; p <= sw->nports; p++) {
				uint32_t q = f->ports[sw->port0 + p].peer;

				if (q != IBFM_NONE &&
				    rank[f->ports[q].node] ==
					    rank[t.sw_node[s]] + 1)
					printf(" %u:%u", p, count[p]);
			}
			putchar('\n');
		}
	}
	if (a->json) {
		ibfm_json_arr_end(&j);
		ibfm_json_uint(&j, "worst_spread", worst);
		ibfm_json_obj_end(&j);
		ibfm_json_finish(&j);
	} else {
		printf("worst spread over a switch's up-ports: %u destinations\n",
		       worst);
	}
	free(rank);
	ibfm_lfts_free(&t);
	ibfm_fabric_destroy(f);
	return CLI_OK;
}

static int cmd_diff(struct routes_args *a, const char *fa, const char *fb)
{
	struct ibfm_fabric *f = NULL, *g = NULL;
	struct ibfm_lfts ta = { 0 }, tb = { 0 };
	struct ibfm_rails ra;
	uint64_t entries = 0, blocks = 0, moved = 0;
	uint8_t *lid_moved;
	uint32_t s, l, top;
	struct ibfm_json j;
	int rc;

	rc = cli_load_routes(a->topo, fa, &f, &ra, &ta);
	if (!rc) {
		ibfm_rails_free(&ra);
		rc = cli_load_routes(a->topo, fb, &g, &ra, &tb);
		if (!rc)
			ibfm_rails_free(&ra);
	}
	if (rc)
		goto out;
	top = ta.top_lid > tb.top_lid ? ta.top_lid : tb.top_lid;
	lid_moved = calloc(top + 1, 1);
	if (!lid_moved) {
		rc = CLI_FAIL;
		goto out;
	}
	for (s = 0; s < ta.nsw; s++) {
		uint32_t sb = tb.node_sw[ibfm_fabric_node_by_guid(
			g, f->nodes[ta.sw_node[s]].guid)];
		bool dirty = false;

		for (l = 0; l <= top; l++) {
			uint8_t x = l <= ta.top_lid ? ibfm_lfts_row(&ta, s)[l]
						    : IBFM_LFT_NONE;
			uint8_t y = sb != IBFM_NONE && l <= tb.top_lid
					    ? ibfm_lfts_row(&tb, sb)[l]
					    : IBFM_LFT_NONE;

			if (l % IBFM_LFT_BLOCK == 0) {
				blocks += dirty;
				dirty = false;
			}
			if (x == y)
				continue;
			entries++;
			dirty = true;
			moved += !lid_moved[l];
			lid_moved[l] = 1;
		}
		blocks += dirty;
	}
	if (a->json) {
		ibfm_json_init(&j, stdout, true);
		ibfm_json_obj_begin(&j, NULL);
		ibfm_json_uint(&j, "changed_entries", entries);
		ibfm_json_uint(&j, "changed_blocks", blocks);
		ibfm_json_uint(&j, "moved_lids", moved);
		ibfm_json_arr_begin(&j, "lids");
		for (l = 0; l <= top; l++)
			if (lid_moved[l])
				ibfm_json_uint(&j, NULL, l);
		ibfm_json_arr_end(&j);
		ibfm_json_obj_end(&j);
		ibfm_json_finish(&j);
	} else {
		printf("%" PRIu64 " LFT entries in %" PRIu64
		       " blocks differ; %" PRIu64 " destination LIDs moved",
		       entries, blocks, moved);
		for (l = 0, s = 0; l <= top && s < 16; l++)
			if (lid_moved[l])
				printf("%s%u", s++ ? " " : ": ", l);
		printf("%s\n", moved > 16 ? " ..." : "");
	}
	free(lid_moved);
	rc = entries ? CLI_FOUND : CLI_OK;
out:
	ibfm_lfts_free(&ta);
	ibfm_lfts_free(&tb);
	ibfm_fabric_destroy(f);
	ibfm_fabric_destroy(g);
	return rc;
}

static int cmd_routes(int argc, char **argv)
{
	struct routes_args a = { 0 };
	const char *sub = argc > 1 ? argv[1] : "";
	int rc;

	if (!strcmp(sub, "summary")) {
		rc = parse_routes(argc - 1, argv + 1, &a);
		return rc ? rc : cmd_summary(&a);
	}
	if (!strcmp(sub, "diff") && argc > 3) {
		rc = parse_routes(argc - 3, argv + 3, &a);
		if (!rc && a.names) {
			cli_error(
				"routes diff prints no node names (--node-name-map: routes summary)");
			rc = CLI_USAGE;
		}
		return rc ? rc : cmd_diff(&a, argv[2], argv[3]);
	}
	if (!strcmp(sub, "--help") || !strcmp(sub, "-h")) {
		fputs(routes_usage, stdout);
		return CLI_OK;
	}
	fputs(routes_usage, stderr);
	return CLI_USAGE;
}

const struct cli_cmd cli_routes_cmds[] = {
	{ "routes", NULL, "summary|diff A B --topo FILE [--json]",
	  "route balance per switch; what changed between two dumps",
	  cmd_routes },
	{ 0 },
};
