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

#define IBFM_CCWIRE_DATA 192	 /* data area of a CC MAD */
#define IBFM_CCWIRE_CCT_BLOCK 64 /* CCT entries per block (attribute mod) */

enum ibfm_ccwire_attr {
	IBFM_CCWIRE_CLASS_PORT_INFO = 0x0001,
	IBFM_CCWIRE_INFO = 0x0011,
	IBFM_CCWIRE_KEY_INFO = 0x0012,
	IBFM_CCWIRE_SWITCH = 0x0014,
	IBFM_CCWIRE_CA = 0x0016,
	IBFM_CCWIRE_CCT = 0x0017,
};

#define IBFM_CCWIRE_CLASS_VERSION 2 /* of the CC class, in ClassPortInfo */

struct ibfm_ccwire_cpi {
	uint8_t base_version, class_version;
	uint16_t cap_mask;
};

struct ibfm_ccwire_info {
	uint16_t info;	 /* CongestionInfo bits */
	uint8_t cct_cap; /* ControlTableCap: CCT blocks of 64 entries */
};

struct ibfm_ccwire_key {
	uint64_t key;
	uint8_t protect; /* 1 bit */
	uint16_t lease_period, violations;
};

struct ibfm_ccwire_cct {
	uint16_t limit; /* CCTI_Limit: highest index in use */
	struct ibfm_ccprofile_cct_entry e[IBFM_CCWIRE_CCT_BLOCK];
};

/* An attribute's name for messages ("SwitchCongestionSetting"). */
const char *ibfm_ccwire_attr_name(uint16_t attr);

void ibfm_ccwire_get_cpi(const uint8_t *d, struct ibfm_ccwire_cpi *c);
void ibfm_ccwire_put_cpi(uint8_t *d, const struct ibfm_ccwire_cpi *c);
void ibfm_ccwire_get_info(const uint8_t *d, struct ibfm_ccwire_info *i);
void ibfm_ccwire_put_info(uint8_t *d, const struct ibfm_ccwire_info *i);
void ibfm_ccwire_get_key(const uint8_t *d, struct ibfm_ccwire_key *k);
void ibfm_ccwire_put_key(uint8_t *d, const struct ibfm_ccwire_key *k);
void ibfm_ccwire_get_switch(const uint8_t *d, struct ibfm_ccprofile_switch *s);
void ibfm_ccwire_put_switch(uint8_t *d, const struct ibfm_ccprofile_switch *s);
void ibfm_ccwire_get_ca(const uint8_t *d, struct ibfm_ccprofile_ca *c);
void ibfm_ccwire_put_ca(uint8_t *d, const struct ibfm_ccprofile_ca *c);
void ibfm_ccwire_get_cct(const uint8_t *d, struct ibfm_ccwire_cct *t);
void ibfm_ccwire_put_cct(uint8_t *d, const struct ibfm_ccwire_cct *t);

#endif /* IBFM_CCWIRE_H */
