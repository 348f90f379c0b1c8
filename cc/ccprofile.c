// SPDX-License-Identifier: MIT
#include "cc/ccprofile.h"
#include "mgmt/base/lines.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum section { TOP, SWITCH, CA, CCT };
static const char *const section_names[] = { "top", "switch", "ca", "cct" };

enum id {
	BASE,
	SW_CONTROL_MAP,
	SW_VICTIM_MASK,
	SW_CREDIT_MASK,
	SW_THRESHOLD,
	SW_PACKET_SIZE,
	SW_CS_THRESHOLD,
	SW_CS_RETURN_DELAY,
	SW_MARKING_RATE,
	CA_PORT_CONTROL,
	CA_CONTROL_MAP,
	CA_CCTI_TIMER,
	CA_CCTI_INCREASE,
	CA_TRIGGER_THRESHOLD,
	CA_CCTI_MIN,
	CA_EXCLUDE_SL,
	CCT_LIMIT,
	CCT_ENTRIES,
};

/* Every key: where it may stand and its IBA width (0: not a number). */
static const struct field {
	enum section sec;
	const char *key;
	unsigned bits;
	enum id id;
} fields[] = {
	{ TOP, "base", 0, BASE },
	{ SWITCH, "control_map", 32, SW_CONTROL_MAP },
	{ SWITCH, "victim_mask", 0, SW_VICTIM_MASK },
	{ SWITCH, "credit_mask", 0, SW_CREDIT_MASK },
	{ SWITCH, "threshold", 4, SW_THRESHOLD },
	{ SWITCH, "packet_size", 8, SW_PACKET_SIZE },
	{ SWITCH, "cs_threshold", 4, SW_CS_THRESHOLD },
	{ SWITCH, "cs_return_delay", 16, SW_CS_RETURN_DELAY },
	{ SWITCH, "marking_rate", 16, SW_MARKING_RATE },
	{ CA, "port_control", 16, CA_PORT_CONTROL },
	{ CA, "control_map", 16, CA_CONTROL_MAP },
	{ CA, "ccti_timer", 16, CA_CCTI_TIMER },
	{ CA, "ccti_increase", 8, CA_CCTI_INCREASE },
	{ CA, "trigger_threshold", 8, CA_TRIGGER_THRESHOLD },
	{ CA, "ccti_min", 8, CA_CCTI_MIN },
	{ CA, "exclude_sl", 0, CA_EXCLUDE_SL },
	{ CCT, "limit", 14, CCT_LIMIT },
	{ CCT, "entries", 0, CCT_ENTRIES },
};

#define NFIELDS (sizeof(fields) / sizeof(*fields))

/* CA settings for every SL. */
static void all_sls(struct ibfm_ccprofile *p, uint16_t timer, uint8_t increase,
		    uint8_t trigger, uint8_t min)
{
	unsigned i;

	for (i = 0; i < IBFM_CCPROFILE_SLS; i++)
		p->ca.sl[i] = (struct ibfm_ccprofile_sl){ timer, increase,
							  trigger, min };
}

/* A ramp of 'n' entries: delay grows by 'step' per index, shift 0. */
static void ramp(struct ibfm_ccprofile *p, unsigned n, unsigned step)
{
	unsigned i;

	p->cct_n = (uint16_t)n;
	p->cct_limit = (uint16_t)(n - 1);
	for (i = 0; i < n; i++)
		p->cct[i] = (struct ibfm_ccprofile_cct_entry){
			0, (uint16_t)(i * step)
		};
}

int ibfm_ccprofile_builtin(const char *name, struct ibfm_ccprofile *p)
{
	bool ai = !strcmp(name, "ai");

	if (!ai && strcmp(name, "reference"))
		return -ENOENT;
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	/* Threshold 0xF, marking rate 0xA, CA map 0xFFFF, increase 1,
	 * trigger 2, min 0: NVIDIA's documented ccmgr values. */
	/* Threshold and packet size, credit starvation, marking rate:
	 * the masks stay as the switch has them. */
	p->sw.control_map = 0x1C;
	memset(p->sw.victim_mask, 0, sizeof(p->sw.victim_mask));
	memset(p->sw.credit_mask, 0, sizeof(p->sw.credit_mask));
	p->sw.threshold = 0xF;
	p->sw.packet_size = 8;
	p->sw.marking_rate = 0xA;
	p->ca.control_map = 0xFFFF;
	all_sls(p, 10, 1, 2, 0);
	ramp(p, 128, 1);
	if (ai) {
		/* Synchronised bursts: mark earlier and every few packets,
		 * back off in bigger steps, recover within tens of us. */
		p->sw.threshold = 0xF;
		p->sw.marking_rate = 4;
		all_sls(p, 4, 2, 1, 0);
		ramp(p, 128, 2);
	}
	return 0;
}

/* A number of at most 'bits' bits (decimal or 0x hex); false if not. */
static bool number(const char *s, unsigned bits, unsigned long *v)
{
	char *end;

	if (*s == '-' || *s == '+')
		return false;
	errno = 0;
	*v = strtoul(s, &end, 0);
	return end != s && !*end && !errno &&
	       (bits >= 32 || *v < (1UL << bits));
}

/* "all", "none" or "1,3,5-8": bits of 'mask' (of 'max' + 1). */
static bool list(const char *s, unsigned max, uint8_t *mask)
{
	unsigned long lo, hi;
	char *end;

	memset(mask, 0, (max + 8) / 8);
	if (!strcmp(s, "none"))
		return true;
	if (!strcmp(s, "all")) {
		memset(mask, 0xFF, (max + 8) / 8);
		return true;
	}
	for (;;) {
		lo = strtoul(s, &end, 10);
		if (end == s || lo > max)
			return false;
		hi = lo;
		if (*end == '-') {
			s = end + 1;
			hi = strtoul(s, &end, 10);
			if (end == s || hi > max || hi < lo)
				return false;
		}
		for (; lo <= hi; lo++)
			mask[lo / 8] |= (uint8_t)(1U << (lo % 8));
		if (!*end)
			return true;
		if (*end != ',')
			return false;
		s = end + 1;
	}
}

/* "SHIFT:MULT ..." appended to the table; NULL or what is wrong. */
static const char *entries(struct ibfm_ccprofile *p, char *s)
{
	char *tok, *save = NULL, *end;
	unsigned long shift, mult;

	for (tok = strtok_r(s, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		shift = strtoul(tok, &end, 10);
		if (end == tok || *end != ':' || shift > 3)
			return "SHIFT:MULTIPLIER pairs, SHIFT 0..3";
		tok = end + 1;
		mult = strtoul(tok, &end, 10);
		if (end == tok || *end || mult > 16383)
			return "SHIFT:MULTIPLIER pairs, MULTIPLIER 0..16383";
		if (p->cct_n == IBFM_CCPROFILE_CCT_MAX)
			return "at most 128 entries";
		p->cct[p->cct_n++] =
			(struct ibfm_ccprofile_cct_entry){ (uint8_t)shift,
							   (uint16_t)mult };
	}
	return NULL;
}

/* Sets field 'f' to 'v' (which may be changed); NULL or the expected. */
static const char *set(struct ibfm_ccprofile *p, const struct field *f, char *v,
		       bool *cct_started)
{
	unsigned long n = 0;
	unsigned i;
	uint8_t sls[2];

	if (f->bits && !number(v, f->bits, &n))
		return "a number";
	switch (f->id) {
	case BASE:
		return ibfm_ccprofile_builtin(v, p) ? "reference or ai" : NULL;
	case SW_CONTROL_MAP:
		p->sw.control_map = (uint32_t)n;
		break;
	case SW_VICTIM_MASK:
	case SW_CREDIT_MASK:
		if (!list(v, 255,
			  f->id == SW_VICTIM_MASK ? p->sw.victim_mask
						  : p->sw.credit_mask))
			return "all, none or ports 0..255 (1,3,5-8)";
		break;
	case SW_THRESHOLD:
		p->sw.threshold = (uint8_t)n;
		break;
	case SW_PACKET_SIZE:
		p->sw.packet_size = (uint8_t)n;
		break;
	case SW_CS_THRESHOLD:
		p->sw.cs_threshold = (uint8_t)n;
		break;
	case SW_CS_RETURN_DELAY:
		p->sw.cs_return_delay = (uint16_t)n;
		break;
	case SW_MARKING_RATE:
		p->sw.marking_rate = (uint16_t)n;
		break;
	case CA_PORT_CONTROL:
		p->ca.port_control = (uint16_t)n;
		break;
	case CA_CONTROL_MAP:
		p->ca.control_map = (uint16_t)n;
		break;
	case CA_CCTI_TIMER:
	case CA_CCTI_INCREASE:
	case CA_TRIGGER_THRESHOLD:
	case CA_CCTI_MIN:
		for (i = 0; i < IBFM_CCPROFILE_SLS; i++) {
			struct ibfm_ccprofile_sl *sl = &p->ca.sl[i];

			if (f->id == CA_CCTI_TIMER)
				sl->ccti_timer = (uint16_t)n;
			else if (f->id == CA_CCTI_INCREASE)
				sl->ccti_increase = (uint8_t)n;
			else if (f->id == CA_TRIGGER_THRESHOLD)
				sl->trigger_threshold = (uint8_t)n;
			else
				sl->ccti_min = (uint8_t)n;
		}
		break;
	case CA_EXCLUDE_SL:
		if (!list(v, 15, sls))
			return "none or SLs 0..15 (1,3,5-8)";
		p->exclude_sls = (uint16_t)(sls[0] | sls[1] << 8);
		break;
	case CCT_LIMIT:
		p->cct_limit = (uint16_t)n;
		break;
	case CCT_ENTRIES:
		if (!*cct_started)
			p->cct_n = 0; /* the file's table replaces the base's */
		*cct_started = true;
		return entries(p, v);
	}
	return NULL;
}

static int bad(struct ibfm_err *err, const char *name, unsigned no,
	       enum section sec, const char *key, const char *why)
{
	return ibfm_err_set(err, -EINVAL, "%s:%u: [%s] %s: expected %s", name,
			    no, section_names[sec], key, why);
}

/* One line, in section '*sec'; 0 or the error. */
static int line(char *s, const char *name, unsigned no, enum section *sec,
		struct ibfm_ccprofile *p, bool *cct_started,
		struct ibfm_err *err)
{
	char *key, *val;
	const char *why;
	size_t i, n;

	s[strcspn(s, "#\r")] = '\0';
	s += strspn(s, " \t");
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	if (!*s)
		return 0;
	if (*s == '[') {
		for (i = 1; i < 4; i++)
			if (n == strlen(section_names[i]) + 2 &&
			    !strncmp(s + 1, section_names[i], n - 2) &&
			    s[n - 1] == ']')
				break;
		if (i == 4)
			return ibfm_err_set(
				err, -EINVAL,
				"%s:%u: unknown section %s: expected [switch], [ca] or [cct]",
				name, no, s);
		*sec = (enum section)i;
		return 0;
	}
	key = s;
	val = key + strcspn(key, " \t");
	if (*val)
		*val++ = '\0';
	val += strspn(val, " \t");
	for (i = 0; i < NFIELDS; i++)
		if (fields[i].sec == *sec && !strcmp(fields[i].key, key))
			break;
	if (i == NFIELDS)
		return ibfm_err_set(err, -EINVAL,
				    "%s:%u: [%s] unknown key \"%.40s\"", name,
				    no, section_names[*sec], key);
	if (!*val)
		return bad(err, name, no, *sec, key, "a value");
	why = set(p, &fields[i], val, cct_started);
	if (why && fields[i].bits && strcmp(why, "a number") == 0) {
		char range[48];

		snprintf(range, sizeof(range), "0..%lu (%u bits)",
			 fields[i].bits >= 32 ? 0xFFFFFFFFUL
					      : (1UL << fields[i].bits) - 1,
			 fields[i].bits);
		return bad(err, name, no, *sec, key, range);
	}
	return why ? bad(err, name, no, *sec, key, why) : 0;
}

struct parse_ctx {
	const char *name;
	enum section sec;
	struct ibfm_ccprofile *p;
	bool cct_started;
	struct ibfm_err *err;
};

static int one_line(char *buf, unsigned no, void *ctx)
{
	struct parse_ctx *x = ctx;

	return line(buf, x->name, no, &x->sec, x->p, &x->cct_started, x->err);
}

int ibfm_ccprofile_parse(const char *text, const char *name,
			 struct ibfm_ccprofile *p, struct ibfm_err *err)
{
	struct ibfm_ccprofile got;
	struct parse_ctx x = { name, TOP, &got, false, err };

	ibfm_ccprofile_builtin("reference", &got);
	if (ibfm_lines(text, name, 4096, one_line, &x, err))
		return -EINVAL;
	if (!got.cct_n || got.cct_limit >= got.cct_n)
		return ibfm_err_set(
			err, -EINVAL,
			"%s: [cct] limit: expected below the number of entries (%u)",
			name, got.cct_n);
	got.ca.control_map &= (uint16_t)~got.exclude_sls;
	snprintf(got.name, sizeof(got.name), "%.31s", name);
	*p = got;
	return 0;
}

char *ibfm_ccprofile_read_text(const char *path, struct ibfm_err *err)
{
	FILE *in = fopen(path, "r");
	char *text = NULL;
	size_t len = 0;
	ssize_t n;

	if (!in) {
		ibfm_err_set(err, -errno, "%s: cannot open: %s", path,
			     strerror(errno));
		return NULL;
	}
	n = getdelim(&text, &len, '\0', in);
	fclose(in);
	if (n < 0) {
		free(text);
		text = strdup("");
	}
	if (!text)
		ibfm_err_set(err, -ENOMEM, "out of memory");
	return text;
}

int ibfm_ccprofile_read(const char *path, struct ibfm_ccprofile *p,
			struct ibfm_err *err)
{
	char *text = ibfm_ccprofile_read_text(path, err);
	int rc;

	if (!text)
		return err->code;
	rc = ibfm_ccprofile_parse(text, path, p, err);
	free(text);
	return rc;
}

int ibfm_ccprofile_load(const char *name, struct ibfm_ccprofile *p,
			struct ibfm_err *err)
{
	if (!ibfm_ccprofile_builtin(name, p))
		return 0;
	return ibfm_ccprofile_read(name, p, err);
}

bool ibfm_ccprofile_equal(const struct ibfm_ccprofile *a,
			  const struct ibfm_ccprofile *b)
{
	const struct ibfm_ccprofile_switch *x = &a->sw, *y = &b->sw;
	unsigned i;

	if (x->control_map != y->control_map || x->threshold != y->threshold ||
	    x->packet_size != y->packet_size ||
	    x->cs_threshold != y->cs_threshold ||
	    x->cs_return_delay != y->cs_return_delay ||
	    x->marking_rate != y->marking_rate ||
	    memcmp(x->victim_mask, y->victim_mask, sizeof(x->victim_mask)) ||
	    memcmp(x->credit_mask, y->credit_mask, sizeof(x->credit_mask)) ||
	    a->ca.port_control != b->ca.port_control ||
	    a->ca.control_map != b->ca.control_map ||
	    a->exclude_sls != b->exclude_sls || a->cct_limit != b->cct_limit ||
	    a->cct_n != b->cct_n)
		return false;
	for (i = 0; i < IBFM_CCPROFILE_SLS; i++) {
		const struct ibfm_ccprofile_sl *p = &a->ca.sl[i],
					       *q = &b->ca.sl[i];

		if (p->ccti_timer != q->ccti_timer ||
		    p->ccti_increase != q->ccti_increase ||
		    p->trigger_threshold != q->trigger_threshold ||
		    p->ccti_min != q->ccti_min)
			return false;
	}
	for (i = 0; i < a->cct_n; i++)
		if (a->cct[i].shift != b->cct[i].shift ||
		    a->cct[i].multiplier != b->cct[i].multiplier)
			return false;
	return true;
}
