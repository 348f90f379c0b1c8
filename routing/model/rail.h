/* SPDX-License-Identifier: MIT */
#ifndef IBFM_RAIL_H
#define IBFM_RAIL_H

/*
 * DOC: rail detection.
 *
 * A rail-optimized cluster gives every server R HCAs and puts HCA r of
 * every server of a scalable unit on the leaf (or leaves) of rail r.
 * ibfm finds the rails from what operators already have:
 *
 *  - node descriptions: "<host> mlx5_<r>" or "<host> HCA-<r>", or any
 *    POSIX extended regex with two groups (host, rail number);
 *  - or an explicit map file: "PORTGUID SERVER RAIL" per line.
 *
 * Rail numbers are made dense in their sorted order (mlx5_0..mlx5_7 ->
 * rails 0..7). Each leaf gets the rail most of its HCAs have. An HCA on
 * a leaf of another rail is miswired (a common cabling fault); a server
 * with fewer HCAs than the others is incomplete. There is a rail
 * structure when at least two rails are found and at least 90% of the
 * HCAs that carry a rail sit on a leaf of their rail; otherwise
 * 'nrails' is 0 and routing stays plain fat-tree.
 */

#include <stdint.h>

#include "routing/base/err.h"
#include "routing/model/fabric.h"

#define IBFM_RAIL_NONE 0xFFFF
#define IBFM_RAIL_MAX 64

struct ibfm_rails {
	unsigned nrails;       /* 0: no rail structure */
	uint16_t *port_rail;   /* per fabric port: rail of a CA port, or
				 * of a leaf's port 0; IBFM_RAIL_NONE */
	uint32_t *port_server; /* per CA port: server id, IBFM_NONE */
	uint32_t nservers;
	uint32_t *miswired; /* CA ports on a leaf of another rail */
	uint32_t nmiswired;
	uint32_t *incomplete; /* one CA port of each server that lacks HCAs */
	uint32_t nincomplete;
	uint32_t rail_value[IBFM_RAIL_MAX]; /* rail index -> number in the name */
};

/*
 * Finds the rails of 'f'. 'pattern' (NULL: the mlx5_/HCA- forms) or
 * 'map_file' (NULL: none; it wins over descriptions) say where rails
 * come from. Fills '*r' (free with ibfm_rails_free) even when no rail
 * structure is found. -EINVAL for a bad pattern or map file ('err' says
 * which line), -ENOMEM.
 */
int ibfm_rail_detect(const struct ibfm_fabric *f, const char *pattern,
		     const char *map_file, struct ibfm_rails *r,
		     struct ibfm_err *err);

/*
 * A copy of 'src', the rails of 'f' (or of a clone of it), into 'dst'.
 * 0 or -ENOMEM ('dst' then empty).
 */
int ibfm_rails_copy(struct ibfm_rails *dst, const struct ibfm_rails *src,
		    const struct ibfm_fabric *f);

void ibfm_rails_free(struct ibfm_rails *r);

/* The rail of CA port or leaf node 'n' (its port 0), IBFM_RAIL_NONE. */
static inline unsigned ibfm_rail_of_leaf(const struct ibfm_fabric *f,
					 const struct ibfm_rails *r, uint32_t n)
{
	return r && r->nrails ? r->port_rail[f->nodes[n].port0]
			      : IBFM_RAIL_NONE;
}

#endif /* IBFM_RAIL_H */
