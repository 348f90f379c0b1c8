/* SPDX-License-Identifier: MIT */
#ifndef IBFM_DRAIN_H
#define IBFM_DRAIN_H

/*
 * DOC: the drain list: switches, hosts and links taken out of the routes
 * for maintenance.
 *
 * ibfmd writes it (ibfm drain / undrain), the plugin reads it before
 * every routing pass and routes as if those links were unplugged. One
 * element per line, by GUID so that it means the same to both:
 *
 *   0x0002c9020000000a        a node: every link it has
 *   0x0002c90200000001 9      one link: a node and its port
 *   rebalance 3               rebalances asked for (ibfm rebalance)
 *
 * A drain is a repair of the tables: it moves only what crossed the
 * element, so after a long drain the tables are not those a full route
 * of the drained fabric would make. The rebalance count changes only
 * when the operator asks for it, and a pass whose count differs from
 * its previous pass's routes from scratch (routing/pass/route.h).
 *
 * '#' starts a comment. Errors name FILE:LINE (ids X01...); a list with
 * an error is refused whole, as is anything but a regular file of at
 * most IBFM_DRAIN_MAX_BYTES. Reading is O(n log n) in the entries.
 */

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "routing/base/err.h"
#include "routing/model/fabric.h"
#include "routing/state/statedir.h"

#define IBFM_DRAIN_MAX_BYTES (16 << 20)

struct ibfm_drain_entry {
	uint64_t guid; /* node GUID */
	uint8_t port;  /* 0: every link of the node */
};

struct ibfm_drain {
	struct ibfm_drain_entry *v;
	size_t n, cap;
	uint64_t rebalance; /* "rebalance N" (0 when the line is absent) */
};

/* Reads 'path' into an empty 'd'; a missing file is an empty list. */
int ibfm_drain_read(const char *path, struct ibfm_drain *d,
		    struct ibfm_err *err);

/* A drain list and the fabric naming its entries, for ibfm_drain_print. */
struct ibfm_drain_out {
	const struct ibfm_drain *d;
	const struct ibfm_fabric *f;
};

/*
 * Writes the list 'ctx' (a struct ibfm_drain_out) to 'out' as
 * ibfm_drain_write does (an ibfm_file_write_fn). 0 or a negative errno.
 */
int ibfm_drain_print(FILE *out, const void *ctx);

/*
 * Writes 'd' to 'path' (aside, then renamed: a reader sees the old list
 * or the new), with node descriptions from 'f' as comments (f may be
 * NULL).
 */
int ibfm_drain_write(const char *path, const struct ibfm_drain *d,
		     const struct ibfm_fabric *f, struct ibfm_err *err);

/*
 * The last list that read is kept beside the list, in PATH followed by
 * IBFM_DRAIN_GOOD_SUFFIX (routing/state/statedir.h), so that a list that
 * does not read (a typo, garbage, a directory in its place) falls back
 * to it, even after a restart.
 */

/*
 * The list to route with, into '*d' (holding the last list loaded, or
 * empty at the start; replaced): 'path' when it reads, saved as the
 * last good copy when it differs from it. When 'path' does not read:
 * '*d' as it is when '*had' says it holds a list loaded before, else
 * the last good copy on disk, else empty; the error is returned all the
 * same, for the caller to say which list it routes with. '*had' is true
 * on return when '*d' holds a list that read (now or before).
 */
int ibfm_drain_load(const char *path, struct ibfm_drain *d, bool *had,
		    struct ibfm_err *err);

/* Whether two lists hold the same entries in the same order and the
 * same rebalance count. */
bool ibfm_drain_equal(const struct ibfm_drain *a, const struct ibfm_drain *b);

/* Makes the empty 'dst' a copy of 'src'. 0 or -ENOMEM. */
int ibfm_drain_copy(struct ibfm_drain *dst, const struct ibfm_drain *src);

/* Whether 'd' lists the entry 'e' (its GUID and port). */
bool ibfm_drain_has(const struct ibfm_drain *d,
		    const struct ibfm_drain_entry *e);

/* Adds 'e' (0, or -EEXIST) / removes it (0, or -ENOENT); -ENOMEM. */
int ibfm_drain_add(struct ibfm_drain *d, const struct ibfm_drain_entry *e);
int ibfm_drain_remove(struct ibfm_drain *d, const struct ibfm_drain_entry *e);

void ibfm_drain_free(struct ibfm_drain *d);

/*
 * The element an operator names: a switch or host (as ibfm path takes
 * endpoints), or one link as NODE[PORT] ("leaf-01[19]"). Says what it is
 * in 'what' ("link \"leaf-01\"[19]"; the name alone when unknown).
 * -ENOENT for an unknown node, -EINVAL for a port without a link.
 */
int ibfm_drain_element(const struct ibfm_fabric *f, const char *spec,
		       struct ibfm_drain_entry *e, char *what, size_t len);

/*
 * The linked ports of 'f' that 'e' takes out (at most the node's port
 * count) into 'ports'; returns how many.
 */
uint32_t ibfm_drain_ports(const struct ibfm_fabric *f,
			  const struct ibfm_drain_entry *e, uint32_t *ports);

/*
 * Unlinks every link of 'f' the list takes out (elements not in 'f' are
 * skipped) and re-finishes nothing: LIDs and GUIDs stay. Returns the
 * number of links removed.
 */
uint32_t ibfm_drain_apply(struct ibfm_fabric *f, const struct ibfm_drain *d);

/*
 * What the list does to min-hop counts (routing/model/hops.h: OpenSM's LID
 * matrices, which its multicast trees follow), as per-port marks in
 * 'cut' and 'last_hop' (f->nports + 1 flags each, owned by the caller;
 * set here, never cleared, so 'last_hop' may already hold the unhealthy
 * links). A drained link carries nothing either way (cut at both ends),
 * but the in-service end of a link into a switch drained whole reaches
 * that switch and goes no further (last hop only): its own LID stays
 * reachable, so a member behind it ends a multicast branch there
 * instead of being reported unroutable, while its own ports, all cut,
 * let nothing through it and keep it from rooting a tree. 0 or -ENOMEM.
 */
int ibfm_drain_mark_hops(const struct ibfm_fabric *f,
			 const struct ibfm_drain *d, bool *cut, bool *last_hop);

#endif /* IBFM_DRAIN_H */
