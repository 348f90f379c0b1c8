/* SPDX-License-Identifier: MIT */
#ifndef IBFM_FABRIC_H
#define IBFM_FABRIC_H

/*
 * DOC: the fabric model.
 *
 * An InfiniBand subnet as plain arrays indexed by small integers, with no
 * OpenSM, umad or libevent type in sight: nodes (switches, CAs, routers)
 * in one array, all their ports in another. A node owns the nports + 1
 * consecutive ports starting at 'port0' (port 0 is a switch's management
 * port; for CAs and routers it is an unused slot, which keeps port
 * arithmetic uniform). A link is two ports naming each other in 'peer'.
 * Strings (record names, node descriptions) live in one pool and are
 * referred to by offset. Lookups by GUID, name and LID go through
 * indexes, so a 70,000-port fabric costs a few MB and loads in
 * milliseconds.
 *
 * Building: create, add nodes, link ports, then ibfm_fabric_finish()
 * builds the port-GUID and LID indexes and checks that they are unique.
 * A fabric that failed to build is destroyed, never used half-built.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "routing/base/err.h"
#include "routing/base/idx.h"

#define IBFM_NONE UINT32_MAX
#define IBFM_MAX_PORTS 254 /* largest NumPorts the fabric accepts */
#define IBFM_LID_UNICAST_MAX 0xBFFF

/* The values of NodeInfo:NodeType. */
enum ibfm_node_type {
	IBFM_NODE_CA = 1,
	IBFM_NODE_SWITCH = 2,
	IBFM_NODE_ROUTER = 3,
};

/* Link speeds per lane, in the order of their rates. */
enum ibfm_speed {
	IBFM_SPEED_UNKNOWN = 0,
	IBFM_SPEED_SDR,
	IBFM_SPEED_DDR,
	IBFM_SPEED_QDR,
	IBFM_SPEED_FDR10,
	IBFM_SPEED_FDR,
	IBFM_SPEED_EDR,
	IBFM_SPEED_HDR,
	IBFM_SPEED_NDR,
	IBFM_SPEED_XDR,
	IBFM_SPEED_COUNT
};

/* The values of PortInfo:PortState. */
enum ibfm_port_state {
	IBFM_PORT_UNKNOWN = 0,
	IBFM_PORT_DOWN = 1,
	IBFM_PORT_INIT = 2,
	IBFM_PORT_ARMED = 3,
	IBFM_PORT_ACTIVE = 4,
};

struct ibfm_node {
	uint64_t guid;	  /* NodeGUID */
	uint64_t sysguid; /* SystemImageGUID */
	uint32_t port0;	  /* index of this node's port 0 in ports[] */
	uint32_t name;	  /* string offset: the record's id, unique */
	uint32_t desc;	  /* string offset: NodeDescription */
	uint32_t vendid;  /* NodeInfo:VendorID */
	uint16_t devid;	  /* NodeInfo:DeviceID */
	uint8_t type;	  /* enum ibfm_node_type */
	uint8_t nports;	  /* NumPorts, not counting port 0 */
	uint8_t esp0;	  /* switch: enhanced port 0 */
};

struct ibfm_port {
	uint64_t guid; /* PortGUID (a switch's ports share port 0's) */
	uint32_t node; /* owning node */
	uint32_t peer; /* port at the other end, or IBFM_NONE */
	uint16_t lid;  /* base LID, 0 when not assigned */
	uint8_t num;   /* port number on its node */
	uint8_t lmc;   /* LID mask control */
	uint8_t width; /* active lanes: 1, 2, 4, 8, 12; 0 unknown */
	uint8_t speed; /* enum ibfm_speed */
	uint8_t state; /* enum ibfm_port_state */
	/* What a sweep read (0: unknown, as in topology files). */
	uint8_t phys;	   /* PortInfo:PortPhysicalState, 5 LinkUp */
	uint8_t width_en;  /* widest LinkWidthEnabled, in lanes */
	uint8_t width_sup; /* widest LinkWidthSupported, in lanes */
	uint8_t speed_en;  /* fastest LinkSpeed(Ext)Enabled, enum ibfm_speed */
	uint8_t speed_sup; /* fastest LinkSpeed(Ext)Supported */
};

struct ibfm_fabric {
	struct ibfm_node *nodes;
	struct ibfm_port *ports;
	uint32_t nnodes, nports;
	size_t nodes_cap, ports_cap;
	uint32_t nswitches; /* nodes of type switch */
	uint32_t ncas;	    /* nodes of type CA */
	char *strs;	    /* string pool; offset 0 is "" */
	size_t strs_len, strs_cap;
	struct ibfm_idx by_guid;  /* node GUID -> node */
	struct ibfm_idx by_name;  /* record name -> node */
	struct ibfm_idx by_desc;  /* NodeDescription -> node (not unique) */
	struct ibfm_idx by_pguid; /* port GUID -> port (after finish) */
	uint32_t *lid_port;	  /* LID -> port, IBFM_NONE (after finish) */
	uint32_t max_lid;	  /* highest LID in lid_port */
};

/* What a new node is; strings are copied. */
struct ibfm_node_info {
	enum ibfm_node_type type;
	unsigned nports;  /* 1..IBFM_MAX_PORTS */
	uint64_t guid;	  /* must be unique and non-zero */
	uint64_t sysguid; /* 0: same as guid */
	const char *name; /* unique record id; NULL: made from the GUID */
	const char *desc; /* NodeDescription; NULL: the name */
};

/* Returns an empty fabric, or NULL when out of memory. */
struct ibfm_fabric *ibfm_fabric_create(void);

/*
 * A copy of the finished fabric 'f' that shares nothing with it (so one
 * thread may change the copy while others read 'f'); NULL when out of
 * memory.
 */
struct ibfm_fabric *ibfm_fabric_clone(const struct ibfm_fabric *f);

/* Frees 'f' and all it owns. NULL is fine. */
void ibfm_fabric_destroy(struct ibfm_fabric *f);

/* Pre-sizes the arrays for 'nodes' nodes and 'ports' ports in all. */
int ibfm_fabric_reserve(struct ibfm_fabric *f, uint32_t nodes, uint32_t ports);

/*
 * Adds a node with nports + 1 unconnected ports whose GUIDs follow
 * ibsim's rule (switch: the node GUID; CA port p: GUID + p). On success
 * stores the node's index in '*node'. Fails with -EEXIST on a duplicate
 * GUID or name, -EINVAL on a bad type or port count; 'err' says which.
 */
int ibfm_fabric_add_node(struct ibfm_fabric *f,
			 const struct ibfm_node_info *info, uint32_t *node,
			 struct ibfm_err *err);

/*
 * Connects ports 'a' and 'b' (port indexes) with an active link of the
 * given width and speed. -EBUSY if either is linked already, -EINVAL
 * for port 0, a port linked to itself or an index out of range.
 */
int ibfm_fabric_link(struct ibfm_fabric *f, uint32_t a, uint32_t b,
		     uint8_t width, uint8_t speed);

/* Disconnects port 'p' and its peer, if any. */
void ibfm_fabric_unlink(struct ibfm_fabric *f, uint32_t p);

/*
 * Builds the port-GUID and LID indexes. -EEXIST when two ports share a
 * GUID or a LID range, -ERANGE for a LID beyond the unicast space;
 * 'err' names them. Call again after changing GUIDs or LIDs.
 */
int ibfm_fabric_finish(struct ibfm_fabric *f, struct ibfm_err *err);

/*
 * Deals the assigned LIDs of 'f' out again in a random order given by
 * 'seed' (the same seed, the same order), as an SM's discovery order
 * scatters them; base LIDs keep their 2^LMC alignment only when LMC is
 * 0. Finishes 'f'. For benchmarks and tests.
 */
int ibfm_fabric_shuffle_lids(struct ibfm_fabric *f, uint64_t seed,
			     struct ibfm_err *err);

/*
 * Gives every switch (port 0) and CA port a LID, in node order, CA base
 * LIDs aligned to 2^lmc, unless every such port has one already (as in
 * ibnetdiscover output taken under a running SM). Finishes 'f'.
 * -ERANGE when the LIDs would pass the unicast space (0xBFFF): they are
 * never wrapped, and 'f' keeps its LIDs.
 */
int ibfm_fabric_assign_lids(struct ibfm_fabric *f, unsigned lmc,
			    struct ibfm_err *err);

/* A node's new description, or NULL to keep it (see below). */
typedef const char *(*ibfm_fabric_desc_fn)(void *ctx,
					   const struct ibfm_node *n);

/*
 * Gives each node the description 'fn' returns for it (copied; NULL
 * keeps the old one), and lookups by description follow. 0, or -ENOMEM
 * after which lookups by description may miss: destroy the fabric.
 */
int ibfm_fabric_redescribe(struct ibfm_fabric *f, ibfm_fabric_desc_fn fn,
			   void *ctx);

/* Lookups; each returns an index or IBFM_NONE. */
uint32_t ibfm_fabric_node_by_guid(const struct ibfm_fabric *f, uint64_t guid);
uint32_t ibfm_fabric_node_by_name(const struct ibfm_fabric *f,
				  const char *name);
uint32_t ibfm_fabric_node_by_desc(const struct ibfm_fabric *f,
				  const char *desc);
uint32_t ibfm_fabric_port_by_guid(const struct ibfm_fabric *f, uint64_t guid);
uint32_t ibfm_fabric_port_by_lid(const struct ibfm_fabric *f, uint32_t lid);

/*
 * Port 'p' for people: "DESC"[NUM] (0xNODEGUID), into 'buf' (always
 * NUL-terminated; "" for IBFM_NONE). Returns 'buf'.
 */
const char *ibfm_fabric_port_text(const struct ibfm_fabric *f, uint32_t p,
				  char *buf, size_t len);

/* The string at pool offset 'off'. */
static inline const char *ibfm_fabric_str(const struct ibfm_fabric *f,
					  uint32_t off)
{
	return f->strs + off;
}

/* Port 'num' of node 'node', as an index into ports[]. */
static inline uint32_t ibfm_fabric_port(const struct ibfm_fabric *f,
					uint32_t node, unsigned num)
{
	return f->nodes[node].port0 + num;
}

static inline bool ibfm_node_is_switch(const struct ibfm_node *n)
{
	return n->type == IBFM_NODE_SWITCH;
}

/*
 * A shortest path from node 'a' to node 'b' over any links, through
 * switches only: stores up to 'max' node indexes in 'path' ('a' first,
 * 'b' last) and returns how many, 0 when there is none or it is longer.
 */
uint32_t ibfm_fabric_path(const struct ibfm_fabric *f, uint32_t a, uint32_t b,
			  uint32_t *path, uint32_t max);

/* Number of links (each counted once). */
uint32_t ibfm_fabric_count_links(const struct ibfm_fabric *f);

/*
 * Numbers the switches in node order: 'sw_node' (f->nswitches entries)
 * gets each switch's node, 'node_sw' (f->nnodes) each node's switch
 * number or IBFM_NONE. Returns the number of switches.
 */
uint32_t ibfm_fabric_number_switches(const struct ibfm_fabric *f,
				     uint32_t *sw_node, uint32_t *node_sw);

/*
 * Connected components of the switches over switch-to-switch links:
 * 'sw_node'/'node_sw' as ibfm_fabric_number_switches gives them, 'comp'
 * (nsw entries) gets each switch's component (the index of its first
 * switch), 'queue' (nsw entries) is scratch. Returns how many.
 */
uint32_t ibfm_fabric_switch_components(const struct ibfm_fabric *f,
				       uint32_t nsw, const uint32_t *sw_node,
				       const uint32_t *node_sw, uint32_t *comp,
				       uint32_t *queue);

/*
 * Stores in 'out' the indexes 0..n-1 of the nodes 'nodes' (n of them)
 * sorted by node GUID: an order that does not depend on how the fabric
 * was read or discovered, for choices between equals. -ENOMEM.
 */
int ibfm_fabric_sort_by_guid(const struct ibfm_fabric *f, const uint32_t *nodes,
			     uint32_t n, uint32_t *out);

/* Name of a speed ("HDR"), "?" when unknown. */
const char *ibfm_speed_name(unsigned speed);

/* Parses a speed name ("NDR", case-sensitive); IBFM_SPEED_UNKNOWN if not one. */
enum ibfm_speed ibfm_speed_parse(const char *s, size_t len);

/* Lanes of a PortInfo:LinkWidthActive value (1, 2, 4, 8, 16); 0 if not one. */
uint8_t ibfm_width_lanes(unsigned link_width_active);

/* Whether 'width' is a lane count a port can have. */
bool ibfm_width_valid(unsigned width);

/* Data rate of a link in Gb/s (4xHDR: 200), 0 when unknown. */
double ibfm_link_gbps(unsigned width, unsigned speed);

/* Name of a node type ("Switch", "Ca", "Rt"), as ibnetdiscover writes it. */
const char *ibfm_node_type_name(unsigned type);

#endif /* IBFM_FABRIC_H */
