/* SPDX-License-Identifier: MIT */
#ifndef IBFM_CCWIRE_H
#define IBFM_CCWIRE_H

/*
 * DOC: the wire layout of the Congestion Control attributes (IBA annex
 * A10, class 0x21) that ibfmd reads and sets: the 192-byte data area of
 * a CC MAD (offset 64) to and from the profile's structures. Every
 * field is big-endian at the offset and width of the annex; the unit
 * test checks each one against libibmad's IB_CC_* field definitions in
 * both directions. Masks: port p is bit p of the 256-bit field read as
 * one big-endian number (the last byte holds ports 0..7).
 */

#include <stdint.h>

#include "cc/ccprofile.h"

#define IBFM_CCW_DATA 192     /* data area of a CC MAD */
#define IBFM_CCW_CCT_BLOCK 64 /* CCT entries per block (attribute mod) */

enum ibfm_ccw_attr {
	IBFM_CCW_CLASS_PORT_INFO = 0x0001,
	IBFM_CCW_INFO = 0x0011,
	IBFM_CCW_KEY_INFO = 0x0012,
	IBFM_CCW_SWITCH = 0x0014,
	IBFM_CCW_CA = 0x0016,
	IBFM_CCW_CCT = 0x0017,
};

#define IBFM_CCW_CLASS_VERSION 2 /* of the CC class, in ClassPortInfo */

struct ibfm_ccw_cpi {
	uint8_t base_version, class_version;
	uint16_t cap_mask;
};

struct ibfm_ccw_info {
	uint16_t info;	 /* CongestionInfo bits */
	uint8_t cct_cap; /* ControlTableCap: CCT blocks of 64 entries */
};

struct ibfm_ccw_key {
	uint64_t key;
	uint8_t protect; /* 1 bit */
	uint16_t lease_period, violations;
};

struct ibfm_ccw_cct {
	uint16_t limit; /* CCTI_Limit: highest index in use */
	struct ibfm_ccp_cct_entry e[IBFM_CCW_CCT_BLOCK];
};

/* An attribute's name for messages ("SwitchCongestionSetting"). */
const char *ibfm_ccw_attr_name(uint16_t attr);

void ibfm_ccw_get_cpi(const uint8_t *d, struct ibfm_ccw_cpi *c);
void ibfm_ccw_put_cpi(uint8_t *d, const struct ibfm_ccw_cpi *c);
void ibfm_ccw_get_info(const uint8_t *d, struct ibfm_ccw_info *i);
void ibfm_ccw_put_info(uint8_t *d, const struct ibfm_ccw_info *i);
void ibfm_ccw_get_key(const uint8_t *d, struct ibfm_ccw_key *k);
void ibfm_ccw_put_key(uint8_t *d, const struct ibfm_ccw_key *k);
void ibfm_ccw_get_switch(const uint8_t *d, struct ibfm_ccp_switch *s);
void ibfm_ccw_put_switch(uint8_t *d, const struct ibfm_ccp_switch *s);
void ibfm_ccw_get_ca(const uint8_t *d, struct ibfm_ccp_ca *c);
void ibfm_ccw_put_ca(uint8_t *d, const struct ibfm_ccp_ca *c);
void ibfm_ccw_get_cct(const uint8_t *d, struct ibfm_ccw_cct *t);
void ibfm_ccw_put_cct(uint8_t *d, const struct ibfm_ccw_cct *t);

#endif /* IBFM_CCWIRE_H */
