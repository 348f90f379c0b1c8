/* SPDX-License-Identifier: MIT */
#ifndef IBFMD_PEERS_H
#define IBFMD_PEERS_H

/*
 * DOC: ibfmd peers: the drain list and the job registry the same on
 * every management node that can become master (docs/ha.md).
 *
 * Why peers and not shared storage: OpenSM's own handover is by SMInfo
 * between SMs on the fabric, with no shared disk; a management node
 * must keep working when the other's disk or network share is gone, and
 * a shared file needs fencing ibfm cannot do. So each ibfmd keeps the
 * files in its own state directory (where its plugin reads them) and
 * replicates every change to the configured peers over TCP on the
 * management network, as UFM's HA pair replicates its configuration.
 *
 * A change is published two-phase: every peer is sent the new file
 * (PREPARE: kept aside, not in force) and must acknowledge it; then
 * every peer is told to put it in force (COMMIT), and only then is it
 * written here. A peer that cannot be reached or refuses makes the
 * change fail before any node has it in force (ABORT to the prepared
 * ones): a drain is done only when every configured peer has it, and a
 * peer down refuses drains rather than half-applying them. A peer that
 * fails between its PREPARE and COMMIT, or was down, catches up: every
 * ibfmd asks each peer for its files' versions at start and every
 * IBFMD_PEERS_SYNC_S seconds and fetches newer ones (pull
 * anti-entropy). Each file carries a version (state_dir/peers.versions);
 * a change takes the next one, so the newest wins.
 *
 * The routing generation continues across nodes: each ibfmd answers its
 * plugin's last generation with its versions, and writes the highest a
 * peer has into state_dir/generation.floor; the plugin numbers its next
 * pass above it (docs/plugin.md).
 *
 * Messages: one request per TCP connection. The server greets with a
 * random nonce ("IBFMPEER1 NONCE"); the request ("OP NAME VERSION LEN
 * MAC", then LEN bytes) carries HMAC-SHA-256 under the shared key
 * (peer_key) of the nonce and itself; the answer ("OK VERSION LEN MAC"
 * then LEN bytes, or "ERR MAC TEXT") carries one of the nonce, the
 * request's MAC and itself. So neither side acts on a message made
 * without the key, and a recorded one does not replay. Only the files
 * named here are ever read or written, never a path a peer gives.
 *
 * Writes (publish) run on the loop with short timeouts (IBFMD_PEERS_
 * TIMEOUT_MS per step): an admin change may wait a few seconds on a
 * dead peer. The periodic sync runs on a thread of its own.
 */

#include <stdbool.h>
#include <stddef.h>

#include <event2/event.h>

#include "mgmt/base/conf.h"
#include "routing/base/err.h"
#include "routing/base/file.h"

#define IBFMD_PEERS_SYNC_S 5
#define IBFMD_PEERS_TIMEOUT_MS 2000
#define IBFMD_PEERS_MAX_FILE (16u << 20) /* bytes of a replicated file */

struct ibfmd_peers;

/*
 * Starts peering as 'conf' says (peer, peer_listen, peer_key): reads the
 * key, listens, starts the sync thread. With no peer configured '*out'
 * is a peers object that publishes locally only. 0, or -EINVAL with
 * 'err' (a key file missing, too short or readable by others; a bad
 * address), -errno.
 */
int ibfmd_peers_open(struct event_base *base, const struct ibfmd_conf *conf,
		     struct ibfmd_peers **out, struct ibfm_err *err);

/* Stops the thread and the listener, frees. NULL is fine. */
void ibfmd_peers_close(struct ibfmd_peers *p);

/* How many peers are configured. */
unsigned ibfmd_peers_count(const struct ibfmd_peers *p);

/*
 * Replaces state file 'name' (IBFM_STATE_DRAINS or IBFM_STATE_JOBS) with
 * what fn(out, ctx) writes, on every peer first (PREPARE on all, then
 * COMMIT on all), then here. 0; or -EAGAIN / -EIO with 'err' naming the
 * peer and why, and the file unchanged here and not in force on any
 * peer.
 */
int ibfmd_peers_publish(struct ibfmd_peers *p, const char *name,
			ibfm_file_write_fn fn, const void *ctx,
			struct ibfm_err *err);

/*
 * The peers as JSON members of the object open in 'j' ("peers": a list
 * of {peer, state ("ok", "unreachable", "refused"), last_sync}).
 */
struct ibfm_json;
void ibfmd_peers_json(struct ibfmd_peers *p, struct ibfm_json *j);

/*
 * The ibfm_peer_up{peer="HOST:PORT"} family of /metrics, appended to
 * 'b': 1 when the last exchange with the peer succeeded, else 0. The
 * family's HELP and TYPE alone when no peer is configured (or 'p' is
 * NULL), so dashboards and rules find it.
 */
struct evbuffer;
void ibfmd_peers_metrics(struct ibfmd_peers *p, struct evbuffer *b);

#endif /* IBFMD_PEERS_H */
