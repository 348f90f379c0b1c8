// SPDX-License-Identifier: MIT
/*
 * The commands of ibfmd's control socket: the one place they are
 * declared (ctl/cmd.h). ibfmd answers those its features register;
 * ibfm encodes its requests from here. Arguments are in positional
 * order; docs/man/ibfmd.8 describes each command's reply.
 *
 * ADMIN marks what only root and the admin group may ask, each request
 * audited (docs/security.md): what changes the fabric (drain, undrain,
 * job-start, job-end, cc-apply) or the daemon (log-level), and what loads the fabric on
 * demand (sweep; cc-diff, a job of MADs to every node holding the one
 * CC job slot that cc-apply needs).
 */
#include "ctl/cmd.h"

/* Designated, so that a command without arguments needs no empty list. */
/* One line each: clang-format would make each a block of four. */
/* clang-format off */
#define CMD(n, h) .name = (n), .help = (h)
#define ADMIN(n, h) CMD(n, h), .cls = IBFM_CMD_ADMIN
#define REQ(n, t) { .name = (n), .type = IBFM_ARG_##t, .required = true }
#define OPT(n, t) { .name = (n), .type = IBFM_ARG_##t }
/* clang-format on */

const struct ibfm_cmd ibfm_cmds[] = {
	/* Built into the dispatcher (ctl/ctl.c). */
	{ CMD("version", "the daemon's version") },
	{ CMD("list-commands", "the commands, their arguments and help") },
	/* mgmt/features/queries.c (status: mgmt/features/status.c) */
	{ CMD("status", "fabric, sweep and SM status") },
	{ CMD("events", "events after number \"since\", oldest first"),
	  .args = { OPT("since", INT) } },
	{ ADMIN("sweep", "start a sweep now") },
	{ CMD("summary", "the last sweep: counts, levels, links by rate") },
	{ CMD("diff", "the last sweep against the expected topology") },
	{ CMD("counters",
	      "hot ports and ports with errors, \"top\" of each (errors above \"threshold\" NAME=N,..., \"suppress\" NAME,...)"),
	  .args = { OPT("top", INT), OPT("threshold", STR),
		    OPT("suppress", STR) } },
	{ CMD("path",
	      "hops from \"src\" to \"dst\" on the plugin's LFTs (all_lids: every LID of dst)"),
	  .args = { REQ("src", STR), REQ("dst", STR), OPT("all_lids", BOOL) } },
	/* mgmt/features/links.c */
	{ CMD("links",
	      "every port of the last sweep as iblinkinfo lists it (only those \"down\" or \"degraded\")"),
	  .args = { OPT("down", BOOL), OPT("degraded", BOOL) } },
	/* mgmt/features/drains.c */
	{ ADMIN("drain",
		"route around \"element\" and confirm the switches' tables"),
	  .args = { REQ("element", STR) } },
	{ ADMIN("undrain",
		"put \"element\" back and confirm the switches' tables"),
	  .args = { REQ("element", STR) } },
	{ ADMIN("rebalance",
		"route the fabric as drained from scratch (a drain repairs only what crossed the element) and confirm the switches' tables") },
	/* mgmt/features/draincheck.c: changes nothing; one at a time */
	{ CMD("drain-check",
	      "the dry run of draining \"element\": safety, tables and loads (\"pattern\": shift, ring, all2all, random)"),
	  .late = true, .args = { REQ("element", STR), OPT("pattern", STR) } },
	{ CMD("rebalance-check",
	      "the dry run of a rebalance: the plugin's tables against a full route of the fabric as drained (\"pattern\" as drain-check's)"),
	  .late = true, .args = { OPT("pattern", STR) } },
	{ CMD("drain-status",
	      "the drain in progress or the last, and the list") },
	/* mgmt/features/jobs.c */
	{ ADMIN("job-start",
		"register job \"id\" on \"hosts\" (comma-separated; ring order \"order\", else as listed) and confirm the switches' tables"),
	  .args = { REQ("id", STR), REQ("hosts", STR), OPT("order", STR) } },
	{ ADMIN("job-end", "end job \"id\" and confirm the switches' tables"),
	  .args = { REQ("id", STR) } },
	{ CMD("job-list", "the running jobs: id, hosts in ring order, start") },
	{ CMD("job-status",
	      "the confirmation of change \"change\" (job-start's), else the last"),
	  .args = { OPT("change", INT) } },
	/* cc/congestion.c */
	{ ADMIN("cc-diff",
		"compare every node's CC settings with its profile (a job: see cc-status)") },
	{ ADMIN("cc-apply",
		"set what differs from the profiles and read it back (a job: see cc-status)") },
	{ CMD("cc-status",
	      "the CC job in progress, or the last one's results") },
	{ CMD("cc-show", "the CC profiles in effect and what each node is") },
	/* mgmt/features/logctl.c */
	{ CMD("log-list", "every log module and its level") },
	{ ADMIN("log-level",
		"set the log level of \"module\" (or all): err, warn, info or debug"),
	  .args = { REQ("module", STR), REQ("level", STR) } },
	{ 0 },
};
