/* SPDX-License-Identifier: MIT */
#ifndef IBFM_CCPROFILE_H
#define IBFM_CCPROFILE_H

/*
 * DOC: congestion-control profiles (IBA Congestion Control, class 0x21):
 * the parameters ibfmd sets on switches (SwitchCongestionSetting), on CA
 * ports (CACongestionSetting, per SL) and in every CA's
 * CongestionControlTable. Every field is range-checked against its IBA
 * width when a profile is read; a profile with one bad line is refused
 * whole, with FILE:LINE, the field and its range. No MAD here: this is
 * what to set, not how (docs/cc.md).
 */

#include <stdbool.h>
#include <stdint.h>

#include "routing/base/err.h"

#define IBFM_CCPROFILE_SLS 16
#define IBFM_CCPROFILE_CCT_MAX 128 /* table entries a profile may give */

struct ibfm_ccprofile_switch {
	uint32_t control_map;	 /* 32 bits: which fields a Set applies */
	uint8_t victim_mask[32]; /* one bit per port 0..255 */
	uint8_t credit_mask[32];
	uint8_t threshold;	  /* 4 bits: 0 off, 15 most eager */
	uint8_t packet_size;	  /* 8 bits, in 64-byte credits */
	uint8_t cs_threshold;	  /* 4 bits */
	uint16_t cs_return_delay; /* 16 bits */
	uint16_t marking_rate;	  /* 16 bits: packets between marks */
};

struct ibfm_ccprofile_sl {
	uint16_t ccti_timer;	   /* 16 bits, 1.024 us units */
	uint8_t ccti_increase;	   /* 8 bits */
	uint8_t trigger_threshold; /* 8 bits */
	uint8_t ccti_min;	   /* 8 bits */
};

struct ibfm_ccprofile_ca {
	uint16_t port_control;
	uint16_t control_map; /* SLs with CC on (after exclude_sls) */
	struct ibfm_ccprofile_sl sl[IBFM_CCPROFILE_SLS];
};

struct ibfm_ccprofile_cct_entry {
	uint8_t shift;	     /* 2 bits */
	uint16_t multiplier; /* 14 bits */
};

struct ibfm_ccprofile {
	char name[32];
	struct ibfm_ccprofile_switch sw;
	struct ibfm_ccprofile_ca ca;
	uint16_t exclude_sls; /* never enabled (SHARP's SL): cleared from
			       * ca.control_map */
	uint16_t cct_limit;   /* CCTI_Limit: highest index used */
	uint16_t cct_n;
	struct ibfm_ccprofile_cct_entry cct[IBFM_CCPROFILE_CCT_MAX];
};

/*
 * A built-in profile: "reference" (the values NVIDIA documents for its
 * ccmgr, the starting point) or "ai" (docs/cc.md says why). 0, or
 * -ENOENT for another name.
 */
int ibfm_ccprofile_builtin(const char *name, struct ibfm_ccprofile *p);

/*
 * Reads a profile file: "base NAME" first (default "reference"), then
 * "[switch]", "[ca]" and "[cct]" sections of "key value" lines, '#'
 * comments (docs/cc.md lists the keys). 0, or -EINVAL/-errno with
 * 'err' naming FILE:LINE, the field and what it takes; 'p' is only
 * written on success.
 */
int ibfm_ccprofile_read(const char *path, struct ibfm_ccprofile *p,
			struct ibfm_err *err);

/* A built-in profile by its name, else the profile file 'name'. */
int ibfm_ccprofile_load(const char *name, struct ibfm_ccprofile *p,
			struct ibfm_err *err);

/* A whole text file, malloc'ed; NULL with 'err' set. */
char *ibfm_ccprofile_read_text(const char *path, struct ibfm_err *err);

/* The same on text ('name' for messages). */
int ibfm_ccprofile_parse(const char *text, const char *name,
			 struct ibfm_ccprofile *p, struct ibfm_err *err);

/* Whether two profiles set the same values. */
bool ibfm_ccprofile_equal(const struct ibfm_ccprofile *a,
			  const struct ibfm_ccprofile *b);

#endif /* IBFM_CCPROFILE_H */
