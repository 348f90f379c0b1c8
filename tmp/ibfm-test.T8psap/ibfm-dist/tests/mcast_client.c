// SPDX-License-Identifier: MIT
/*
 * mcast_client: joins this host's port to a multicast group as a full
 * member, as IPoIB does when an interface comes up: an SA
 * MCMemberRecord Set (join) with the group's MGID, the port's GID and
 * JoinState 1. OpenSM then adds the port to the group's spanning tree
 * and sets the switches' multicast forwarding tables. The default MGID
 * is the IPoIB broadcast group of the default partition, which OpenSM
 * creates at start. Debian's infiniband-diags has no tool for it,
 * hence this.
 *   mcast_client [MGID]          (MGID as 32 hex digits)
 * Runs under umad2sim (SIM_HOST picks the host); prints the group's
 * MLID from the SA's answer and exits 0 when the join is granted.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/umad.h>

#define SA_CLASS 0x03
#define SA_CLASS_VERSION 2
#define METHOD_SET 0x02
#define METHOD_GET_RESP 0x81
#define ATTR_MCMEMBER 0x0038
#define SA_DATA 56 /* offset of the SA record in the MAD */
#define QP1_QKEY 0x80010000u
/* MCMemberRecord components: MGID, PortGID, JoinState. */
#define COMP_MASK ((1ULL << 0) | (1ULL << 1) | (1ULL << 16))

static const char ipoib_bcast[] = "ff12401bffff000000000000ffffffff";

/* 32 hex digits into a 16-byte GID; -1 when malformed. */
static int parse_gid(const char *s, uint8_t *gid)
{
	unsigned i, v;

	if (strlen(s) != 32)
		return -1;
	for (i = 0; i < 16; i++) {
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		gid[i] = (uint8_t)v;
	}
	return 0;
}

/* An SA Set(MCMemberRecord) joining 'port_gid' to 'mgid'. */
static void build_join(uint8_t *mad, const uint8_t *mgid,
		       const uint8_t *port_gid, uint32_t tid)
{
	uint8_t *rec = mad + SA_DATA;
	uint64_t mask = COMP_MASK;
	unsigned i;

	memset(mad, 0, 256);
	mad[0] = 1; /* BaseVersion */
	mad[1] = SA_CLASS;
	mad[2] = SA_CLASS_VERSION;
	mad[3] = METHOD_SET;
	for (i = 0; i < 4; i++)
		mad[12 + i] = (uint8_t)(tid >> (24 - 8 * i));
	mad[16] = ATTR_MCMEMBER >> 8;
	mad[17] = ATTR_MCMEMBER & 0xff;
	for (i = 0; i < 8; i++)
		mad[48 + i] = (uint8_t)(mask >> (56 - 8 * i));
	memcpy(rec, mgid, 16);
	memcpy(rec + 16, port_gid, 16);
	rec[48] = 0x01; /* JoinState: full member */
}

int main(int argc, char **argv)
{
	uint8_t mgid[16], port_gid[16], *mad;
	umad_port_t up;
	void *umad;
	int fd, agent, len = 256;

	if (argc > 2 || parse_gid(argc == 2 ? argv[1] : ipoib_bcast, mgid)) {
		fprintf(stderr,
			"usage: mcast_client [MGID as 32 hex digits]\n");
		return 2;
	}
	if (umad_init() < 0 || umad_get_port(NULL, 0, &up) < 0) {
		fprintf(stderr, "mcast_client: no umad port\n");
		return 1;
	}
	memcpy(port_gid, &up.gid_prefix, 8);
	memcpy(port_gid + 8, &up.port_guid, 8);
	fd = umad_open_port(NULL, 0);
	agent = fd < 0 ? -1
		       : umad_register(fd, SA_CLASS, SA_CLASS_VERSION, 0, NULL);
	umad = calloc(1, umad_size() + 256);
	if (agent < 0 || !umad || !up.sm_lid) {
		fprintf(stderr,
			"mcast_client: cannot register SA (sm lid %u)\n",
			up.sm_lid);
		return 1;
	}
	mad = umad_get_mad(umad);
	build_join(mad, mgid, port_gid, 0x1000u + (uint32_t)up.base_lid);
	umad_set_addr(umad, up.sm_lid, 1, up.sm_sl, QP1_QKEY);
	if (umad_send(fd, agent, umad, 256, 2000, 5) < 0 ||
	    umad_recv(fd, umad, &len, 10000) < 0 || umad_status(umad)) {
		fprintf(stderr, "mcast_client: no answer from the SA\n");
		return 1;
	}
	if (mad[3] != METHOD_GET_RESP || mad[4] || mad[5]) {
		fprintf(stderr,
			"mcast_client: join refused (method 0x%02x, status 0x%02x%02x)\n",
			mad[3], mad[4], mad[5]);
		return 1;
	}
	printf("joined, MLID 0x%04x\n",
	       (unsigned)(mad[SA_DATA + 36] << 8 | mad[SA_DATA + 37]));
	umad_close_port(fd);
	umad_done();
	free(umad);
	return 0;
}
