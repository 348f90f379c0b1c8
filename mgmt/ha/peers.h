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
 * Two nodes' versions of a file are ordered by (version, digest): the
 * SHA-256 of the content breaks a tie, so nodes that came to hold
 * different lists at one version (a change whose COMMIT was lost, two
 * changes at once) all converge on one of them. A COMMIT names the
 * digest of what was prepared, and nothing else goes in force. Versions
 * stop below 2^63 instead of wrapping.
 *
 * Messages: one request per TCP connection, inside TLS 1.3 with an
 * external PSK derived from the shared key file (peer_key; OpenSSL,
 * mgmt/ha/peers_tls.c says why), so both ends are authenticated before
 * a request is read, and the lists travel encrypted. The request is
 * "OP NAME VERSION LEN DIGEST" then LEN bytes; the answer "OK VERSION
 * LEN DIGEST" then LEN bytes, or "ERR TEXT". Only the files named here
 * are ever read or written, never a path a peer gives.
 *
 * Nothing of it runs on the loop: the server has a thread of its own
 * and bounds what a client without the key can hold
 * (mgmt/ha/peers_serve.c); the sync thread resolves the peers' names; a
 * publication runs on a publisher thread of its own and comes back to
 * the loop through an event, as the worker's work does. It has one
 * deadline (IBFMD_PEERS_DEADLINE_MS) for all its steps on all peers, so
 * a dead, black-holed or trickling peer costs a change at most that,
 * and status and /metrics never wait on the network. Not the worker's
 * queue: a publication waiting on a slow peer would hold back the
 * sweeps and the read-backs queued behind it.
 */

#include <stdbool.h>
#include <stddef.h>

#include "mgmt/base/conf.h"
#include "routing/base/err.h"
#include "routing/io/file.h"

#define IBFMD_PEERS_SYNC_S 5
#define IBFMD_PEERS_DEADLINE_MS 3000	 /* a change, or one exchange */
#define IBFMD_PEERS_PREPARE_MS 2000	 /* of which every PREPARE */
#define IBFMD_PEERS_HANDSHAKE_MS 1000	 /* a client's TLS handshake */
#define IBFMD_PEERS_MAX_CONNS 16	 /* connections served at once */
#define IBFMD_PEERS_MAX_PER_SOURCE 4	 /* of which from one address */
#define IBFMD_PEERS_MAX_FILE (16u << 20) /* bytes of a replicated file */

struct ibfmd_peers;

struct event_base;

/*
 * Starts peering as 'conf' says (peer, peer_listen, peer_key): reads the
 * key, listens, starts the sync and publisher threads; publications
 * come back to the loop of 'base'. With no peer configured '*out' is a
 * peers object that publishes locally only. 0, or -EINVAL with 'err' (a
 * key file missing, too short or too long, readable by others or not
 * ibfmd's; a bad address), -errno.
 */
int ibfmd_peers_open(const struct ibfmd_conf *conf, struct event_base *base,
		     struct ibfmd_peers **out, struct ibfm_err *err);

/*
 * SIGHUP: takes the peers and the key from 'conf' (the listening
 * address stays). 0; or -EINVAL with 'err' and nothing changed. Waits
 * for a publication in flight (at most IBFMD_PEERS_DEADLINE_MS).
 */
int ibfmd_peers_reload(struct ibfmd_peers *p, const struct ibfmd_conf *conf,
		       struct ibfm_err *err);

/*
 * Stops the threads (after the publication in flight) and the listener,
 * frees; publications not come back are dropped without their done
 * callback. NULL is fine.
 */
void ibfmd_peers_close(struct ibfmd_peers *p);

/* How many peers are configured. */
unsigned ibfmd_peers_count(const struct ibfmd_peers *p);

/*
 * How a publication ended, on the loop: 0; or -EAGAIN / -EIO with 'err'
 * naming the peer and why, and the file unchanged here and not in force
 * on any peer.
 */
typedef void (*ibfmd_peers_done_fn)(int rc, const struct ibfm_err *err,
				    void *arg);

/*
 * Replaces state file 'name' (IBFM_STATE_DRAINS or IBFM_STATE_JOBS) with
 * what fn(out, ctx) writes, on every peer first (PREPARE on all, then
 * COMMIT on all), then here, on the publisher thread, one publication
 * at a time in the order asked; then done(rc, err, arg) on the loop.
 * fn runs now, on the caller's thread: 'ctx' is not kept, the content
 * is the publication's until done. 0; or -EINVAL / -ENOMEM with 'err'
 * and done never called.
 */
int ibfmd_peers_publish(struct ibfmd_peers *p, const char *name,
			ibfm_file_write_fn fn, const void *ctx,
			ibfmd_peers_done_fn done, void *arg,
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
