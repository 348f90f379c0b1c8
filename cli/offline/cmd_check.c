// SPDX-License-Identifier: MIT
/*
 * ibfm check: reachability, routing loops and credit loops of the
 * forwarding tables, ibfm's or OpenSM's (--lfts).
 */
#include <inttypes.h>
#include <stdio.h>

#include "cli/offline/routed.h"
#include "cli/util/cli.h"
#include "cli/util/names.h"
#include "routing/io/json.h"

static const char check_usage[] =
	"Usage: ibfm check --topo FILE [--lfts DUMP] [options] [--json]\n"
	"Walks the forwarding tables: every CA port and every switch to every LID\n"
	"(reachability, routing loops, path lengths) and the channel dependency\n"
	"graph of those routes (credit loops).\n"
	"Checks ibfm's own routes, or OpenSM's with --lfts opensm-lfts.dump.\n"
	"\n"
	"  -t, --topo FILE     topology (ibnetdiscover format)\n"
	"      --lfts DUMP     OpenSM's opensm-lfts.dump (log flag 0x40)\n"
	"      --ca-sources-only  sources are CA ports only, not switches\n"
	"      --lmc, --root-guids, --io-guids, --no-rails   as for ibfm route\n" CLI_NAMES_HELP
	"      --json          one JSON object\n"
	"  -h, --help          this text\n"
	"\n"
	"Exit status:\n"
	"  0  pairs were checked; none unreachable, no routing or credit loop\n"
	"  1  unreachable pairs, routing loops or credit loops found\n"
	"  2  bad command line\n"
	"  3  bad input: a file that does not parse, or nothing to check\n"
	"     (no LID, or DUMP holds no forwarding entry)\n"
	"  4  out of memory\n";

static void port_desc(const struct ibfm_fabric *f, uint32_t p, char *buf,
		      size_t len)
{
	cli_port_str(f, p, buf, len);
}

static void print_check_json(const struct route_args *a, const struct routed *r,
			     const struct ibfm_reach_result *rr,
			     const struct ibfm_loop_result *cr)
{
	struct ibfm_json j;
	char buf[200];
	unsigned h;

	ibfm_json_init(&j, stdout, true);
	ibfm_json_obj_begin(&j, NULL);
	ibfm_json_str(&j, "lfts", a->lfts ? a->lfts : "ibfm-ftree");
	ibfm_json_bool(&j, "switch_sources", !a->ca_sources_only);
	ibfm_json_uint(&j, "pairs", rr->pairs);
	ibfm_json_uint(&j, "switch_source_pairs", rr->pairs_sw);
	ibfm_json_uint(&j, "unreachable_pairs", rr->unreachable);
	ibfm_json_uint(&j, "unreachable_ca_pairs", rr->unreachable_ca);
	ibfm_json_uint(&j, "unreachable_switch_source_pairs",
		       rr->unreachable_sw);
	ibfm_json_uint(&j, "routing_loops", rr->loops);
	ibfm_json_uint(&j, "credit_loops", cr->loops);
	ibfm_json_uint(&j, "channels", cr->channels);
	ibfm_json_uint(&j, "dependencies", cr->deps);
	ibfm_json_obj_begin(&j, "path_lengths");
	for (h = 1; h <= IBFM_VERIFY_MAX_HOPS; h++)
		if (rr->hops[h]) {
			snprintf(buf, sizeof(buf), "%u", h);
			ibfm_json_uint(&j, buf, rr->hops[h]);
		}
	ibfm_json_obj_end(&j);
	ibfm_json_arr_begin(&j, "credit_loop_links");
	for (h = 0; h < cr->cycle_len; h++) {
		port_desc(r->f, cr->cycle[h], buf, sizeof(buf));
		ibfm_json_str(&j, NULL, buf);
	}
	ibfm_json_arr_end(&j);
	ibfm_json_obj_end(&j);
	ibfm_json_finish(&j);
}

static void print_check_text(const struct routed *r,
			     const struct ibfm_reach_result *rr,
			     const struct ibfm_loop_result *cr)
{
	char buf[200];
	unsigned h;

	printf("pairs checked      %" PRIu64 " from CAs, %" PRIu64
	       " from switches\nunreachable pairs  %" PRIu64 " (%" PRIu64
	       " to CAs, %" PRIu64
	       " from switches)\nrouting loops      %" PRIu64
	       "\ncredit loops       %u\n",
	       rr->pairs, rr->pairs_sw, rr->unreachable, rr->unreachable_ca,
	       rr->unreachable_sw, rr->loops, cr->loops);
	printf("path lengths (links, from CAs):");
	for (h = 1; h <= IBFM_VERIFY_MAX_HOPS; h++)
		if (rr->hops[h])
			printf(" %u:%" PRIu64, h, rr->hops[h]);
	putchar('\n');
	if (rr->bad_lid) {
		port_desc(r->f, rr->bad_src, buf, sizeof(buf));
		printf("e.g. %s to LID %u is not delivered\n", buf,
		       rr->bad_lid);
	}
	for (h = 0; h < cr->cycle_len; h++) {
		port_desc(r->f, cr->cycle[h], buf, sizeof(buf));
		printf("%s %s\n", h ? "        " : "credit loop:", buf);
	}
}

static int cmd_check(int argc, char **argv)
{
	struct route_args a = { 0 };
	struct ibfm_verify_opts vo = { 0 };
	struct ibfm_reach_result rr;
	struct ibfm_loop_result cr;
	struct ibfm_err err;
	struct routed r = { 0 };
	int rc;

	rc = cli_routed_parse_args(argc, argv, check_usage, &a);
	if (!rc)
		rc = cli_routed_load(&a, &r);
	if (rc)
		goto out;
	rc = cli_routed_lfts_usable(&a, &r);
	if (rc)
		goto out;
	vo.switch_sources = !a.ca_sources_only;
	cli_progress_begin("walking every source to every LID");
	if (ibfm_verify_reach(r.f, &r.lfts, &vo, &rr, &err)) {
		cli_error("%s", err.msg);
		rc = CLI_FAIL;
		goto out;
	}
	cli_progress_end();
	cli_progress_begin("building the channel dependency graph");
	if (ibfm_verify_credit_loops(r.f, &r.lfts, &vo, &cr, &err)) {
		cli_error("%s", err.msg);
		rc = CLI_FAIL;
		goto out;
	}
	cli_progress_end();
	rc = cli_names_fabric(r.f);
	if (rc)
		goto out;
	if (a.json)
		print_check_json(&a, &r, &rr, &cr);
	else
		print_check_text(&r, &rr, &cr);
	fflush(stdout);
	if (!rr.pairs && !rr.pairs_sw) {
		cli_error(
			"V01 nothing was checked: the fabric has no LID (a generated topology takes its LIDs from --lfts DUMP)");
		rc = CLI_INPUT;
	} else {
		rc = rr.unreachable || rr.loops || cr.loops ? CLI_FOUND
							    : CLI_OK;
	}
out:
	cli_routed_free(&r);
	return rc;
}

const struct cli_cmd cli_check_cmds[] = {
	{ "check", NULL, "--topo FILE [--lfts DUMP] [--json]",
	  "reachability, routing loops and credit loops of the LFTs",
	  cmd_check },
	{ 0 },
};
