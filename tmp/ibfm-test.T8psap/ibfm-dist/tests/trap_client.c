// SPDX-License-Identifier: MIT
/*
 * trap_client: sends the subnet manager a switch's trap 129 (local link
 * integrity threshold reached) COUNT times, as a port whose link keeps
 * erroring does. OpenSM marks a port that traps ten times within its
 * aging window unhealthy and sweeps. Debian's infiniband-diags has no
 * ibsendtrap, hence this.
 *   trap_client SWITCH_LID PORT [COUNT]
 * Runs under umad2sim; does not wait for the SM's TrapRepress (ibsim
 * does not bring it back to this client).
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/umad.h>

#define SMP_CLASS_LID 0x01
#define METHOD_TRAP 0x05
#define ATTR_NOTICE 0x0002
#define SMP_DATA 64 /* offset of the SMP's data in the MAD */

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* A LID-routed SMP Trap(Notice 129) about LID/port. */
static void build_trap(uint8_t *mad, unsigned lid, unsigned port, unsigned tid)
{
	uint8_t *notice = mad + SMP_DATA;

	memset(mad, 0, 256);
	mad[0] = 1; /* BaseVersion */
	mad[1] = SMP_CLASS_LID;
	mad[2] = 1; /* ClassVersion */
	mad[3] = METHOD_TRAP;
	put16(mad + 12, tid >> 16);
	put16(mad + 14, tid);
	put16(mad + 16, ATTR_NOTICE);
	notice[0] = 0x80 | 1; /* generic, urgent */
	notice[3] = 2;	      /* producer: switch */
	put16(notice + 4, 129);
	put16(notice + 6, lid); /* issuer */
	put16(notice + 12, lid);
	notice[14] = (uint8_t)port;
}

int main(int argc, char **argv)
{
	unsigned lid, port, count = 12, i;
	umad_port_t up;
	void *umad;
	int fd, agent;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: trap_client SWITCH_LID PORT [COUNT]\n");
		return 2;
	}
	lid = (unsigned)strtoul(argv[1], NULL, 0);
	port = (unsigned)strtoul(argv[2], NULL, 0);
	if (argc == 4)
		count = (unsigned)strtoul(argv[3], NULL, 0);
	if (umad_init() < 0 || umad_get_port(NULL, 0, &up) < 0) {
		fprintf(stderr, "trap_client: no umad port\n");
		return 1;
	}
	fd = umad_open_port(NULL, 0);
	agent = fd < 0 ? -1 : umad_register(fd, SMP_CLASS_LID, 1, 0, NULL);
	umad = calloc(1, umad_size() + 256);
	if (agent < 0 || !umad || !up.sm_lid) {
		fprintf(stderr,
			"trap_client: cannot register SMI (sm lid %u)\n",
			up.sm_lid);
		return 1;
	}
	for (i = 0; i < count; i++) {
		build_trap(umad_get_mad(umad), lid, port, 0x7100 + i);
		umad_set_addr(umad, up.sm_lid, 0, 0, 0);
		if (umad_send(fd, agent, umad, 256, 0, 0) < 0) {
			fprintf(stderr, "trap_client: send failed\n");
			return 1;
		}
		usleep(50000);
	}
	printf("%u traps sent\n", count);
	umad_release_port(&up);
	umad_close_port(fd);
	free(umad);
	return 0;
}
