/* SPDX-License-Identifier: MIT */
#ifndef IBFM_TOPO_H
#define IBFM_TOPO_H

/*
 * DOC: topology files in the ibnetdiscover text format.
 *
 * The format ibnetdiscover prints and ibsim takes as its net file: a
 * record per node, a header line ("Switch 36 "S-..." # "desc" ...") and
 * one line per connected port ("[3] "H-..."[1](guid) # "desc" lid 7
 * 4xHDR"), with "switchguid=", "caguid=", "sysimgguid=", "vendid=" and
 * "devid=" lines before it. ibsim's own spellings ("Hca", bare GUID-less
 * records) are accepted, with GUIDs assigned the way ibsim assigns them,
 * so a net file means the same fabric to ibsim and to ibfm.
 *
 * Reading is two passes over the file held in memory: the first builds
 * nodes and remembers each port's declared peer by name, the second
 * resolves names and requires every link to be declared by both ends.
 * Any error leaves nothing behind and says FILE:LINE, an id (T01...,
 * listed in docs/topology-format.md) and what was expected.
 */

#include <stdio.h>

#include "routing/base/err.h"
#include "routing/model/fabric.h"

/*
 * Parses 'len' bytes of 'text' ('fname' names it in messages). On
 * success stores a finished fabric in '*out', which the caller destroys.
 */
int ibfm_topo_parse(const char *text, size_t len, const char *fname,
		    struct ibfm_fabric **out, struct ibfm_err *err);

/* Reads and parses the file at 'path'; as ibfm_topo_parse(). */
int ibfm_topo_read(const char *path, struct ibfm_fabric **out,
		   struct ibfm_err *err);

/*
 * Writes 'f' to 'out' in the ibnetdiscover format, connected ports only.
 * Returns 0 or -EIO.
 */
int ibfm_topo_write(const struct ibfm_fabric *f, FILE *out);

/* Writes 'f' to the file 'path' (replaced); as ibfm_topo_write(). */
int ibfm_topo_write_file(const struct ibfm_fabric *f, const char *path,
			 struct ibfm_err *err);

/*
 * Reads a GUID list file, as OpenSM's root_guid_file and io_guid_file:
 * one GUID per line (0x-prefixed or bare hex), '#' comments, blank
 * lines. On success '*guids' (malloc'ed, the caller frees) holds '*n'.
 * Errors name FILE:LINE (ids G01, G02).
 */
int ibfm_topo_read_guids(const char *path, uint64_t **guids, size_t *n,
			 struct ibfm_err *err);

#endif /* IBFM_TOPO_H */
