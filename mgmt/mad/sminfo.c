// SPDX-License-Identifier: MIT
/*
 * The subnet managers over the MAD port (mgmt/mad/madport.h): the master
 * SM LID the local port knows, and SMInfo of the SMs discovery found.
 */
#include "mgmt/mad/madport_int.h"

#include <string.h>

#include <infiniband/mad.h>

uint16_t ibfm_madport_sm_lid(struct ibfm_madport *s)
{
	uint8_t ni[IB_SMP_DATA_SIZE], pi[IB_SMP_DATA_SIZE];
	const struct dr self = { .n = 0 };

	if (ibfm_madport_query_dr(s->mp, &self, IB_ATTR_NODE_INFO, 0, ni) ||
	    ibfm_madport_query_dr(s->mp, &self, IB_ATTR_PORT_INFO,
				  mad_get_field(ni, 0, IB_NODE_LOCAL_PORT_F),
				  pi))
		return 0;
	return (uint16_t)mad_get_field(pi, 0, IB_PORT_SMLID_F);
}

/* Adds what 'id' answers to SMInfo to 'sm' (n so far), once per GUID;
 * returns the new count. */
static size_t add_sm(struct ibmad_port *mp, ib_portid_t *id, uint16_t lid,
		     struct ibfm_madport_sm *sm, size_t n)
{
	uint8_t buf[IB_SMP_DATA_SIZE] = { 0 };
	uint64_t guid;
	size_t i;

	if (n >= IBFM_MADPORT_MAX_SMS ||
	    !smp_query_via(buf, id, IB_ATTR_SMINFO, 0, 0, mp))
		return n;
	guid = get64(buf, IB_SMINFO_GUID_F);
	for (i = 0; i < n; i++)
		if (sm[i].guid == guid)
			return n;
	sm[n] = (struct ibfm_madport_sm){
		.guid = guid,
		.act_count = get(buf, IB_SMINFO_ACT_F),
		.lid = lid,
		.priority = (uint8_t)get(buf, IB_SMINFO_PRIO_F),
		.state = (uint8_t)get(buf, IB_SMINFO_STATE_F),
	};
	return n + 1;
}

size_t ibfm_madport_sms(struct ibfm_madport *s, struct ibfm_madport_sm *sm,
			uint16_t *master_lid)
{
	ib_portid_t id;
	size_t i, n = 0;

	for (i = 0; i < s->nsm; i++) {
		dr_portid(&s->sm[i], &id);
		n = add_sm(s->mp, &id, s->sm_lid[i], sm, n);
	}
	/* The master may be where no IsSM was seen (set after the sweep). */
	*master_lid = ibfm_madport_sm_lid(s);
	for (i = 0; i < n && sm[i].lid != *master_lid; i++)
		;
	if (*master_lid && i == n) {
		memset(&id, 0, sizeof(id));
		ib_portid_set(&id, *master_lid, 0, 0);
		n = add_sm(s->mp, &id, *master_lid, sm, n);
	}
	return n;
}
