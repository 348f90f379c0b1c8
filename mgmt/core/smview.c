// SPDX-License-Identifier: MIT
/* The SM view (mgmt/core/smview.h): choosing the master, noticing a change. */
#include "mgmt/core/smview.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define SM_MASTER 3 /* SMInfo:SMState */

const char *ibfmd_sm_state_name(unsigned state)
{
	static const char *const names[] = { "not-active", "discovering",
					     "standby", "master" };

	return state < 4 ? names[state] : "unknown";
}

/* The master among the SMs held: see the DOC block for two masters. */
static void choose_master(struct ibfmd_sms *s, uint16_t master_lid)
{
	size_t i;

	s->has_master = false;
	for (i = 0; i < s->n; i++) {
		if (s->v[i].info.state != SM_MASTER)
			continue;
		if (!s->has_master ||
		    (master_lid && s->v[i].info.lid == master_lid))
			s->master = i;
		s->has_master = true;
	}
}

/* The "sm-master" event: the new master's port, and the one before. */
static void master_event(const struct ibfmd_sms *s, uint64_t was,
			 const struct ibfm_fabric *f, struct ibfmd_events *ev,
			 const struct ibfm_nodemap *names)
{
	const struct ibfm_madport_sm *m = &s->v[s->master].info;
	struct ibfmd_event e = { .severity = "warning", .kind = "sm-master" };
	uint32_t p = f ? ibfm_fabric_port_by_guid(f, m->guid) : IBFM_NONE;

	if (p != IBFM_NONE)
		ibfmd_event_port_text(names, f, p, e.ports[0],
				      sizeof(e.ports[0]));
	else
		snprintf(e.ports[0], sizeof(e.ports[0]), "0x%016" PRIx64,
			 m->guid);
	snprintf(e.detail, sizeof(e.detail),
		 "master SM now 0x%016" PRIx64
		 " lid %u priority %u, was 0x%016" PRIx64,
		 m->guid, m->lid, m->priority, was);
	ibfmd_events_add(ev, &e);
}

bool ibfmd_sms_take(struct ibfmd_sms *s, const struct ibfm_madport_sm *sm,
		    size_t n, uint16_t master_lid, const struct ibfm_fabric *f,
		    struct ibfmd_events *ev, const struct ibfm_nodemap *names)
{
	uint64_t was = s->last_master;
	size_t i;

	s->n = n < IBFM_MADPORT_MAX_SMS ? n : IBFM_MADPORT_MAX_SMS;
	for (i = 0; i < s->n; i++) {
		uint32_t p =
			f ? ibfm_fabric_port_by_guid(f, sm[i].guid) : IBFM_NONE;

		s->v[i].info = sm[i];
		snprintf(s->v[i].desc, sizeof(s->v[i].desc), "%s",
			 p == IBFM_NONE
				 ? ""
				 : ibfm_fabric_str(
					   f, f->nodes[f->ports[p].node].desc));
	}
	choose_master(s, master_lid);
	if (!s->has_master || s->v[s->master].info.guid == was)
		return false;
	s->last_master = s->v[s->master].info.guid;
	if (!was)
		return false; /* the first master seen: no change */
	s->master_changes++;
	master_event(s, was, f, ev, names);
	return true;
}

/* The members of one SM that sm_master and sms share. */
static void sm_port_json(const struct ibfmd_sm *sm, struct ibfm_json *j)
{
	char guid[19];

	snprintf(guid, sizeof(guid), "0x%016" PRIx64, sm->info.guid);
	ibfm_json_str(j, "guid", guid);
	ibfm_json_uint(j, "lid", sm->info.lid);
	ibfm_json_str(j, "desc", sm->desc);
}

void ibfmd_sms_json(const struct ibfmd_sms *s, struct ibfm_json *j)
{
	size_t i;

	if (s->has_master) {
		ibfm_json_obj_begin(j, "sm_master");
		sm_port_json(&s->v[s->master], j);
		ibfm_json_obj_end(j);
	} else {
		ibfm_json_null(j, "sm_master");
	}
	ibfm_json_arr_begin(j, "sms");
	for (i = 0; i < s->n; i++) {
		ibfm_json_obj_begin(j, NULL);
		sm_port_json(&s->v[i], j);
		ibfm_json_uint(j, "priority", s->v[i].info.priority);
		ibfm_json_str(j, "state",
			      ibfmd_sm_state_name(s->v[i].info.state));
		ibfm_json_uint(j, "act_count", s->v[i].info.act_count);
		ibfm_json_obj_end(j);
	}
	ibfm_json_arr_end(j);
	ibfm_json_uint(j, "sm_master_changes", s->master_changes);
}
