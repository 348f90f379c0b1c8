// SPDX-License-Identifier: MIT
#include "mgmt/ctl.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void ibfm_ctl_init(struct ibfm_ctl *c, void *ctx, const char *version)
{
	memset(c, 0, sizeof(*c));
	c->ctx = ctx;
	c->version = version;
}

int ibfm_ctl_register(struct ibfm_ctl *c, const char *name, const char *help,
		      ibfm_ctl_fn fn)
{
	if (c->ncmds == IBFM_CTL_MAX_CMDS)
		return -ENOSPC;
	c->cmds[c->ncmds].name = name;
	c->cmds[c->ncmds].help = help;
	c->cmds[c->ncmds++].fn = fn;
	return 0;
}

static const char *skip(const char *s, const char *e)
{
	while (s < e && isspace((unsigned char)*s))
		s++;
	return s;
}

/* A "string" without escapes beyond \" and \\; NULL when malformed. */
static const char *get_string(const char *s, const char *e, char *out,
			      size_t len)
{
	size_t n = 0;

	if (s >= e || *s != '"')
		return NULL;
	for (s++; s < e && *s != '"'; s++) {
		if (*s == '\\' && s + 1 < e)
			s++;
		if (n + 1 >= len)
			return NULL;
		out[n++] = *s;
	}
	if (s >= e)
		return NULL;
	out[n] = '\0';
	return s + 1;
}

/*
 * An integer of up to 18 digits within [s, e) (the line need not end in
 * a NUL); the text after it, or NULL.
 */
static const char *get_int(const char *s, const char *e, long long *v)
{
	const char *digits;
	bool neg = s < e && *s == '-';
	long long n = 0;

	s += neg;
	digits = s;
	while (s < e && isdigit((unsigned char)*s) && s - digits < 18)
		n = n * 10 + (*s++ - '0');
	if (s == digits || (s < e && isdigit((unsigned char)*s)))
		return NULL;
	*v = neg ? -n : n;
	return s;
}

int ibfm_ctl_parse(const char *line, size_t len, struct ibfm_ctl_req *req,
		   const char **why)
{
	const char *s = line, *e = line + len;
	char key[32], val[IBFM_CTL_MAX_ARG];

	memset(req, 0, sizeof(*req));
	req->since = -1;
	req->top = -1;
	req->all_lids = -1;
	s = skip(s, e);
	if (s >= e || *s++ != '{') {
		*why = "expected a JSON object such as {\"cmd\": \"status\"}";
		return -EINVAL;
	}
	for (;;) {
		s = skip(s, e);
		if (s < e && *s == '}')
			break;
		s = get_string(s, e, key, sizeof(key));
		if (!s || (s = skip(s, e)) >= e || *s++ != ':') {
			*why = "expected \"key\": value";
			return -EINVAL;
		}
		s = skip(s, e);
		if (s < e && *s == '"') {
			s = get_string(s, e, val, sizeof(val));
			if (!s) {
				*why = "unterminated or too long string";
				return -EINVAL;
			}
			if (!strcmp(key, "cmd")) {
				if (strlen(val) >= sizeof(req->cmd)) {
					*why = "unknown command (see list-commands)";
					return -EINVAL;
				}
				memcpy(req->cmd, val, strlen(val) + 1);
			} else if (!strcmp(key, "src"))
				memcpy(req->src, val, sizeof(val));
			else if (!strcmp(key, "dst"))
				memcpy(req->dst, val, sizeof(val));
			else if (!strcmp(key, "element"))
				memcpy(req->element, val, sizeof(val));
		} else {
			long long v;

			s = get_int(s, e, &v);
			if (!s) {
				*why = "expected a string or an integer value";
				return -EINVAL;
			}
			if (!strcmp(key, "since"))
				req->since = v;
			else if (!strcmp(key, "top"))
				req->top = v;
			else if (!strcmp(key, "all_lids"))
				req->all_lids = v;
		}
		s = skip(s, e);
		if (s < e && *s == ',') {
			s++;
			continue;
		}
		if (s < e && *s == '}')
			break;
		*why = "expected ',' or '}'";
		return -EINVAL;
	}
	if (skip(s + 1, e) != e) {
		*why = "text after the object";
		return -EINVAL;
	}
	if (!req->cmd[0]) {
		*why = "no \"cmd\"";
		return -EINVAL;
	}
	return 0;
}

static void reply_error(FILE *out, const char *why)
{
	struct ibfm_json j;

	ibfm_json_init(&j, out, false);
	ibfm_json_obj_begin(&j, NULL);
	ibfm_json_str(&j, "error", why);
	ibfm_json_obj_end(&j);
	ibfm_json_finish(&j);
}

void ibfm_ctl_handle(struct ibfm_ctl *c, const char *line, size_t len,
		     FILE *out)
{
	struct ibfm_ctl_req req;
	struct ibfm_json j;
	const char *why;
	unsigned i;

	if (len > IBFM_CTL_MAX_LINE) {
		reply_error(out, "request longer than 65536 bytes");
		return;
	}
	if (ibfm_ctl_parse(line, len, &req, &why)) {
		reply_error(out, why);
		return;
	}
	ibfm_json_init(&j, out, false);
	if (!strcmp(req.cmd, "version")) {
		ibfm_json_obj_begin(&j, NULL);
		ibfm_json_str(&j, "version", c->version);
		ibfm_json_obj_end(&j);
		ibfm_json_finish(&j);
		return;
	}
	if (!strcmp(req.cmd, "list-commands")) {
		ibfm_json_obj_begin(&j, NULL);
		ibfm_json_arr_begin(&j, "commands");
		ibfm_json_str(&j, NULL, "version");
		ibfm_json_str(&j, NULL, "list-commands");
		for (i = 0; i < c->ncmds; i++)
			ibfm_json_str(&j, NULL, c->cmds[i].name);
		ibfm_json_arr_end(&j);
		ibfm_json_obj_end(&j);
		ibfm_json_finish(&j);
		return;
	}
	for (i = 0; i < c->ncmds; i++)
		if (!strcmp(req.cmd, c->cmds[i].name))
			break;
	if (i == c->ncmds) {
		reply_error(out, "unknown command (see list-commands)");
		return;
	}
	ibfm_json_obj_begin(&j, NULL);
	c->cmds[i].fn(c->ctx, &req, &j);
	ibfm_json_obj_end(&j);
	ibfm_json_finish(&j);
}
