// SPDX-License-Identifier: MIT
#include "cc/ccpolicy.h"
#include "mgmt/base/lines.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ibfm_ccpolicy_free(struct ibfm_ccpolicy *p)
{
	for (size_t i = 0; i < p->nrules; i++)
		free(p->rules[i].guids);
	free(p->rules);
	free(p->profiles);
	memset(p, 0, sizeof(*p));
}

/* The index of profile 'name', loaded on first use; -errno. */
static int profile_index(struct ibfm_ccpolicy *p, const char *name,
			 struct ibfm_err *err)
{
	struct ibfm_ccprofile got, *v;
	int rc;

	for (size_t i = 0; i < p->nprofiles; i++)
		if (!strcmp(p->profiles[i].name, name))
			return (int)i;
	rc = ibfm_ccprofile_load(name, &got, err);
	if (rc)
		return rc;
	/* Files are known by the name the policy gives them. */
	snprintf(got.name, sizeof(got.name), "%.31s", name);
	v = realloc(p->profiles, (p->nprofiles + 1) * sizeof(*v));
	if (!v)
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	p->profiles = v;
	v[p->nprofiles] = got;
	return (int)p->nprofiles++;
}

/* "G[,G...]" into r->guids; false when one is not a GUID. */
static bool guid_list(char *s, struct ibfm_ccpolicy_rule *r)
{
	size_t n = 1;
	char *save = NULL, *g;

	for (const char *q = s; *q; q++)
		n += *q == ',';
	r->guids = calloc(n, sizeof(*r->guids));
	if (!r->guids)
		return false;
	for (g = strtok_r(s, ",", &save); g; g = strtok_r(NULL, ",", &save)) {
		char *end;

		errno = 0;
		r->guids[r->nguids] = strtoull(g, &end, 0);
		if (*end || end == g || errno || !r->guids[r->nguids] ||
		    *g == '-')
			return false;
		r->nguids++;
	}
	return r->nguids > 0;
}

/* One rule line (words split); 0 or -EINVAL with 'err'. */
static int rule(struct ibfm_ccpolicy *p, char **w, unsigned nw,
		const char *name, unsigned no, struct ibfm_err *err)
{
	struct ibfm_ccpolicy_rule r = { 0 }, *v;
	unsigned want = 2;
	int prof;
	char *end;

	if (!strcmp(w[0], "switch"))
		r.kind = IBFM_CCPOLICY_SWITCH;
	else if (!strcmp(w[0], "ca"))
		r.kind = IBFM_CCPOLICY_CA;
	else if (!strcmp(w[0], "rail"))
		r.kind = IBFM_CCPOLICY_RAIL, want = 3;
	else if (!strcmp(w[0], "guid"))
		r.kind = IBFM_CCPOLICY_GUID, want = 3;
	else
		return ibfm_err_set(err, -EINVAL,
				    "%s:%u: \"%.32s\": expected switch, ca, "
				    "rail or guid",
				    name, no, w[0]);
	if (nw != want)
		return ibfm_err_set(err, -EINVAL,
				    "%s:%u: %s: expected \"%s%sPROFILE\"", name,
				    no, w[0], w[0],
				    want == 3 ? (r.kind == IBFM_CCPOLICY_RAIL
							 ? " N "
							 : " G[,G...] ")
					      : " ");
	if (r.kind == IBFM_CCPOLICY_RAIL) {
		unsigned long n = strtoul(w[1], &end, 10);

		if (*end || end == w[1] || *w[1] == '-' || n > 65535)
			return ibfm_err_set(err, -EINVAL,
					    "%s:%u: rail: expected a number "
					    "0..65535",
					    name, no);
		r.rail = (unsigned)n;
	}
	if (r.kind == IBFM_CCPOLICY_GUID && !guid_list(w[1], &r)) {
		free(r.guids);
		return ibfm_err_set(err, -EINVAL,
				    "%s:%u: guid: expected GUIDs (0x hex, "
				    "non-zero) separated by commas",
				    name, no);
	}
	prof = profile_index(p, w[want - 1], err);
	v = prof < 0 ? NULL : realloc(p->rules, (p->nrules + 1) * sizeof(*v));
	if (!v) {
		free(r.guids);
		if (prof >= 0)
			return ibfm_err_set(err, -ENOMEM, "out of memory");
		/* Name the policy line that asked for the bad profile. */
		char why[IBFM_ERR_MSG_MAX];

		snprintf(why, sizeof(why), "%s", err->msg);
		return ibfm_err_set(err, prof, "%s:%u: profile %s", name, no,
				    why);
	}
	r.profile = (unsigned)prof;
	p->rules = v;
	p->rules[p->nrules++] = r;
	return 0;
}

struct parse_ctx {
	struct ibfm_ccpolicy *p;
	const char *name;
	struct ibfm_err *err;
};

static int one_line(char *line, unsigned no, void *ctx)
{
	struct parse_ctx *x = ctx;
	char *w[4], *tok, *save = NULL;
	unsigned nw = 0;

	line[strcspn(line, "#")] = '\0';
	for (tok = strtok_r(line, " \t\r", &save); tok && nw < 4;
	     tok = strtok_r(NULL, " \t\r", &save))
		w[nw++] = tok;
	return nw ? rule(x->p, w, nw, x->name, no, x->err) : 0;
}

int ibfm_ccpolicy_parse(const char *profile, const char *text, const char *name,
			struct ibfm_ccpolicy *p, struct ibfm_err *err)
{
	struct ibfm_ccpolicy got = { 0 };
	struct parse_ctx x = { &got, name, err };
	int rc = profile_index(&got, profile, err);

	if (rc >= 0)
		rc = ibfm_lines(text ? text : "", name, 4096, one_line, &x,
				err);
	if (rc < 0) {
		ibfm_ccpolicy_free(&got);
		return rc;
	}
	*p = got;
	return 0;
}

int ibfm_ccpolicy_load(const char *profile, const char *path,
		       struct ibfm_ccpolicy *p, struct ibfm_err *err)
{
	char *text = NULL;
	int rc;

	if (path && *path && !(text = ibfm_ccprofile_read_text(path, err)))
		return err->code;
	rc = ibfm_ccpolicy_parse(profile, text, path, p, err);
	free(text);
	return rc;
}

static bool has_guid(const struct ibfm_ccpolicy_rule *r, uint64_t guid)
{
	for (size_t i = 0; i < r->nguids; i++)
		if (r->guids[i] == guid)
			return true;
	return false;
}

const struct ibfm_ccprofile *ibfm_ccpolicy_pick(const struct ibfm_ccpolicy *p,
						bool sw, uint64_t guid,
						uint32_t rail)
{
	for (size_t i = 0; i < p->nrules; i++) {
		const struct ibfm_ccpolicy_rule *r = &p->rules[i];
		bool hit = (r->kind == IBFM_CCPOLICY_SWITCH && sw) ||
			   (r->kind == IBFM_CCPOLICY_CA && !sw) ||
			   (r->kind == IBFM_CCPOLICY_RAIL && !sw &&
			    rail == r->rail) ||
			   (r->kind == IBFM_CCPOLICY_GUID && has_guid(r, guid));

		if (hit)
			return &p->profiles[r->profile];
	}
	return &p->profiles[0];
}
