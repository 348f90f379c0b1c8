/* SPDX-License-Identifier: MIT */
#ifndef IBFM_SMPWIRE_H
#define IBFM_SMPWIRE_H

/*
 * DOC: what the plugin and its SMP helper (ibfm-smp-helper) say to each
 * other over one socket pair (the helper's standard input and output):
 * fixed-size records in host byte order (both ends run on the same
 * machine, from the same build).
 *
 * The plugin first writes one struct ibfm_smpwire_conf (the port, the
 * window, the SM's M_Key: never on the helper's command line, where
 * every local user could read them). The helper answers with one reply
 * with id IBFM_SMPWIRE_READY: status 0 when its port is open, else
 * -errno (and it exits). Then the plugin writes requests, the helper
 * answers each with one reply carrying the request's id, in the order
 * the switches answer.
 */

#include <stddef.h>
#include <stdint.h>

#define IBFM_SMPWIRE_READY UINT32_MAX
#define IBFM_SMPWIRE_GET 0x01 /* SubnGet */
#define IBFM_SMPWIRE_SET 0x02 /* SubnSet */

#define IBFM_SMPWIRE_MAGIC 0x69626d31u /* "ibm1": this build's records */

/* What the helper needs to open its port; the first record sent. */
struct ibfm_smpwire_conf {
	uint32_t magic;	     /* IBFM_SMPWIRE_MAGIC */
	uint32_t window;     /* SMPs in flight */
	uint32_t timeout_ms; /* per try */
	uint32_t retries;    /* tries after the first */
	uint64_t port_guid;  /* the SM's port */
	uint64_t mkey;	     /* the SM's M_Key (0: none) */
};

/* One directed-route SMP to send. */
struct ibfm_smpwire_req {
	uint32_t id;	  /* echoed in the reply */
	uint8_t method;	  /* IBFM_SMPWIRE_GET or _SET */
	uint8_t hops;	  /* 1..63 */
	uint16_t attr;	  /* attribute ID, e.g. 0x19 LinearForwardingTable */
	uint32_t mod;	  /* attribute modifier, e.g. the block number */
	uint8_t path[64]; /* initial path: path[1..hops] */
	uint8_t data[64]; /* SMP data (a Set's payload) */
};

/* Its answer. */
struct ibfm_smpwire_reply {
	uint32_t id;
	/* 0: answered, status 0; > 0: the SMP's status (MAD status bits);
	 * -ETIMEDOUT: no answer after every retry; other -errno: not sent */
	int32_t status;
	uint8_t data[64]; /* the response's data (the attribute now) */
};

/*
 * Reads exactly 'len' bytes of 'fd', each wait at most 'ms' (-1: no
 * bound). 0, -ETIMEDOUT, or -EIO (closed or failed).
 */
int ibfm_smpwire_read(int fd, void *buf, size_t len, int ms);

/*
 * Writes all of 'buf' to 'fd'. 0 or -EIO. On a socket, a closed peer is
 * an error, never SIGPIPE (MSG_NOSIGNAL).
 */
int ibfm_smpwire_write(int fd, const void *buf, size_t len);

#endif /* IBFM_SMPWIRE_H */
