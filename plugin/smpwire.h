/* SPDX-License-Identifier: MIT */
#ifndef IBFM_SMPWIRE_H
#define IBFM_SMPWIRE_H

/*
 * DOC: what the plugin and its SMP helper (ibfm-smp-helper) say to each
 * other over two pipes: fixed-size records in host byte order (both
 * ends run on the same machine, from the same build).
 *
 * The plugin writes requests, the helper answers each with one reply
 * carrying the request's id, in the order the switches answer. Before
 * any request the helper sends one reply with id IBFM_SMPWIRE_READY:
 * status 0 when its port is open, else -errno (and it exits).
 */

#include <stddef.h>
#include <stdint.h>

#define IBFM_SMPWIRE_READY UINT32_MAX
#define IBFM_SMPWIRE_GET 0x01 /* SubnGet */
#define IBFM_SMPWIRE_SET 0x02 /* SubnSet */

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

/* Writes all of 'buf' to 'fd'. 0 or -EIO. */
int ibfm_smpwire_write(int fd, const void *buf, size_t len);

#endif /* IBFM_SMPWIRE_H */
