/* SPDX-License-Identifier: MIT */
#ifndef IBFM_CLI_NAMES_H
#define IBFM_CLI_NAMES_H

/*
 * DOC: node names in what ibfm prints (--node-name-map).
 *
 * The map is infiniband-diags' node name map file (routing/model/nodemap.h):
 * NodeGUID and the name operators know the node by. As infiniband-diags
 * does, with no --node-name-map ibfm reads the system's map,
 * /etc/rdma/ib-node-name-map, when it exists; IBFM_NODE_NAME_MAP names
 * another file instead (empty: none). A map asked for (the option or the
 * variable) that does not read is bad input; the system's map that does
 * not read is warned about and left out, as infiniband-diags leaves it
 * out, so that a broken file in /etc does not stop every command.
 *
 * Names change what is printed only: endpoints, elements and hosts on
 * the command line and in files are still found by LID, GUID or node
 * description, before the names are applied. Offline commands rename
 * the fabric they loaded (cli_names_fabric); commands that ask ibfmd
 * rename its reply (cli_names_reply): every object with a "guid" and a
 * "name" or "desc", and every port written as ibfm writes one,
 * "desc"[N] (0xGUID). The GUIDs stay, so JSON keeps both.
 */

#include <getopt.h>

#include "routing/model/fabric.h"

struct cli_jv;
struct ibfm_nodemap;

/* --node-name-map FILE as every command that prints names takes it. */
enum { CLI_NAMES_OPT = 0x4e4d };
#define CLI_NAMES_OPTION                                                       \
	{                                                                      \
		"node-name-map", required_argument, NULL, CLI_NAMES_OPT        \
	}
#define CLI_NAMES_HELP                                                          \
	"      --node-name-map FILE  names for node GUIDs in the output\n"      \
	"                    (infiniband-diags' file: 0xGUID \"name\" lines;\n" \
	"                    default IBFM_NODE_NAME_MAP or\n"                   \
	"                    /etc/rdma/ib-node-name-map if it exists)\n"

extern const char *cli_names_path;   /* --node-name-map; NULL: default */
extern const char *cli_names_system; /* the system's map, for tests */

/*
 * The map in force, read once: --node-name-map, else IBFM_NODE_NAME_MAP,
 * else the system's map if it exists. Stores it (NULL: none) in '*m';
 * returns CLI_OK, or CLI_INPUT when a map asked for does not read
 * (said, FILE:LINE).
 */
int cli_names_map(const struct ibfm_nodemap **m);

/*
 * Renames the nodes of 'f' that the map names (lookups by description
 * then find them by that name: call it after the command line's names
 * are resolved). CLI_OK, CLI_INPUT as cli_names_map(), CLI_FAIL (out of
 * memory: destroy 'f').
 */
int cli_names_fabric(struct ibfm_fabric *f);

/*
 * Renames the nodes in ibfmd's reply 'v' that 'm' names: in objects
 * with a "guid" and a "name" or "desc", and in strings that are a port
 * as ibfm writes one. 'm' NULL: nothing changes.
 */
void cli_names_reply(struct cli_jv *v, const struct ibfm_nodemap *m);

/* Forgets the map read (for tests, and at exit). */
void cli_names_reset(void);

#endif /* IBFM_CLI_NAMES_H */
