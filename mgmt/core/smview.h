/* SPDX-License-Identifier: MIT */
#ifndef IBFMD_SMVIEW_H
#define IBFMD_SMVIEW_H

/*
 * DOC: the SM view: which subnet manager is master and which stand by,
 * as the SMs themselves answer SMInfo after every full sweep and light
 * check (ibfm_madport_sms()).
 *
 * The master is the SM whose SMInfo says master. Two can say so for a
 * moment (a handover under way, or two subnets just joined): then the
 * one whose LID the local port's PortInfo:MasterSMLID names wins, as it
 * is the one the port obeys. A master GUID other than the last one seen
 * is a change: counted, and raised as an "sm-master" event. The first
 * master seen is no change, and a time with no master (the master died,
 * a standby has not taken over yet) is none either: the change is
 * raised when the next master answers, and not at all when the same SM
 * comes back. An SM that does not answer is not listed: on a real HCA
 * its port loses IsSM when the SM process ends, but a port can keep it
 * a while (ibsim: until a MAD to the killed client fails), and that
 * must not look like a live SM.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mgmt/base/events.h"
#include "mgmt/mad/madport.h"
#include "routing/model/fabric.h"
#include "routing/io/json.h"

#define IBFMD_SM_DESC_MAX 65 /* NodeDescription: 64 bytes and a NUL */

/* One SM as the view holds it. */
struct ibfmd_sm {
	struct ibfm_madport_sm info;
	char desc[IBFMD_SM_DESC_MAX]; /* its node's description, "" unknown */
};

/* All zero: no SM, no master seen. */
struct ibfmd_sms {
	struct ibfmd_sm v[IBFM_MADPORT_MAX_SMS]; /* in the order they answered */
	size_t n;
	bool has_master;	 /* false: no master answers */
	size_t master;		 /* index into v of the master */
	uint64_t last_master;	 /* GUID of the last master seen; 0: none yet */
	uint64_t master_changes; /* times the master GUID changed */
};

/*
 * Takes the 'n' SMs 'sm' that answered (ibfm_madport_sms()) and the master
 * SM LID 'master_lid' the local port names (0 unknown) in place of those
 * held. 'f' (the last sweep, or NULL) gives the description of each SM's
 * node; a change of master adds an "sm-master" event to 'ev', its node
 * named by 'names' (NULL: by description). Returns whether the master
 * changed.
 */
bool ibfmd_sms_take(struct ibfmd_sms *s, const struct ibfm_madport_sm *sm,
		    size_t n, uint16_t master_lid, const struct ibfm_fabric *f,
		    struct ibfmd_events *ev, const struct ibfm_nodemap *names);

/* "master", "standby", "discovering" or "not-active" for SMInfo:SMState
 * 'state'; "unknown" for what the spec does not define. */
const char *ibfmd_sm_state_name(unsigned state);

/*
 * Writes members "sm_master" ({guid, lid, desc} of the master's port,
 * or null), "sms" (a list of {guid, lid, desc, priority, state,
 * act_count}) and "sm_master_changes" into the open object of 'j'.
 */
void ibfmd_sms_json(const struct ibfmd_sms *s, struct ibfm_json *j);

#endif /* IBFMD_SMVIEW_H */
