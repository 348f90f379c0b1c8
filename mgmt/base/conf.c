// SPDX-License-Identifier: MIT
#include "mgmt/base/conf.h"
#include "mgmt/base/lines.h"
#include "mgmt/mad/madwin.h"
#include "mgmt/base/log.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define METRICS_DEFAULT "127.0.0.1:9105"

enum kind {
	STR,	  /* a path or a name */
	UINT,	  /* a whole number in [min, max] */
	ONOFF,	  /* on or off */
	HOSTPORT, /* HOST:PORT, or off */
	KEY64,	  /* a 64-bit number, 0x hex or decimal */
	LEVEL,	  /* a log level: err, warn, info or debug */
	ADDR,	  /* HOST:PORT */
	PEER,	  /* HOST:PORT, one more each time */
};

static const struct key {
	const char *name;
	enum kind kind;
	size_t off, len; /* where in struct ibfmd_conf, how big */
	unsigned min, max;
} keys[] = {
#define F(f) offsetof(struct ibfmd_conf, f), sizeof(((struct ibfmd_conf *)0)->f)
	{ "socket", STR, F(socket), 0, 0 },
	{ "expected", STR, F(expected), 0, 0 },
	{ "node_name_map", STR, F(node_name_map), 0, 0 },
	{ "state_dir", STR, F(state_dir), 0, 0 },
	{ "fabric_file", STR, F(fabric_file), 0, 0 },
	{ "ca", STR, F(ca), 0, 0 },
	{ "ca_port", UINT, F(ca_port), 0, 254 },
	{ "mad_window", UINT, F(mad_window), 1, IBFM_MADWIN_MAX_WINDOW },
	{ "sweep_interval", UINT, F(sweep_s), 1, 86400 },
	{ "light_interval", UINT, F(light_s), 0, 86400 },
	{ "metrics", HOSTPORT, F(metrics), 0, 0 },
	{ "counters", ONOFF, F(counters), 0, 0 },
	{ "log_level", LEVEL, F(log_level), 0, 0 },
	{ "read_group", STR, F(read_group), 0, 0 },
	{ "admin_group", STR, F(admin_group), 0, 0 },
	{ "drain_grace", UINT, F(drain_grace_s), 1, 86400 },
	{ "cc_profile", STR, F(cc_profile), 0, 0 },
	{ "cc_policy", STR, F(cc_policy), 0, 0 },
	{ "cc_auto", ONOFF, F(cc_auto), 0, 0 },
	{ "cc_key", KEY64, F(cc_key), 0, 0 },
	{ "cc_tries", UINT, F(cc_tries), 1, 10 },
	{ "cc_backoff_ms", UINT, F(cc_backoff_ms), 0, 10000 },
	{ "cc_timeout_ms", UINT, F(cc_timeout_ms), 1, 60000 },
	{ "peer", PEER, F(peers), 0, 0 },
	{ "peer_listen", ADDR, F(peer_listen), 0, 0 },
	{ "peer_key", STR, F(peer_key), 0, 0 },
#undef F
};

#define NKEYS (sizeof(keys) / sizeof(*keys))

static void defaults(struct ibfmd_conf *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->socket, sizeof(c->socket), "/run/ibfm/ibfmd.sock");
	c->sweep_s = 60;
	c->light_s = 10;
	c->mad_window = IBFM_MADWIN_WINDOW;
	c->counters = true;
	c->log_level = IBFMD_LOG_DEFAULT;
	c->drain_grace_s = 120;
	snprintf(c->metrics, sizeof(c->metrics), "%s", METRICS_DEFAULT);
	snprintf(c->cc_profile, sizeof(c->cc_profile), "reference");
	c->cc_tries = 2;
	c->cc_backoff_ms = 200;
	c->cc_timeout_ms = 500;
}

/* Whether 'v' is HOST:PORT with a port up to 65535. */
static bool host_port(const char *v)
{
	const char *colon = strrchr(v, ':');
	char *end;

	return colon && colon > v && colon[1] &&
	       strtoul(colon + 1, &end, 10) <= 65535 && !*end &&
	       colon[1] != '-' && colon[1] != '+';
}

/* Sets key 'k' from 'v'; NULL, or what was expected. */
static const char *set(struct ibfmd_conf *c, const struct key *k, const char *v)
{
	char *field = (char *)c + k->off, *end;
	unsigned long n;

	switch (k->kind) {
	case STR:
		if (strlen(v) >= k->len)
			return "a shorter value";
		memcpy(field, v, strlen(v) + 1);
		return NULL;
	case UINT:
		n = strtoul(v, &end, 10);
		if (*end || end == v || *v == '-' || n < k->min || n > k->max)
			return "a whole number in range";
		*(unsigned *)(void *)field = (unsigned)n;
		return NULL;
	case ONOFF:
		if (strcmp(v, "on") && strcmp(v, "off"))
			return "on or off";
		*(bool *)(void *)field = !strcmp(v, "on");
		return NULL;
	case KEY64:
		errno = 0;
		if (*v == '-' || *v == '+')
			return "a number of up to 64 bits (0x hex or decimal)";
		*(unsigned long long *)(void *)field = strtoull(v, &end, 0);
		if (*end || end == v || errno)
			return "a number of up to 64 bits (0x hex or decimal)";
		return NULL;
	case LEVEL:
		if (ibfmd_log_level_parse(v) < 0)
			return "err, warn, info or debug";
		*(int *)(void *)field = ibfmd_log_level_parse(v);
		return NULL;
	case ADDR:
		if (strlen(v) >= k->len || !host_port(v))
			return "HOST:PORT";
		memcpy(field, v, strlen(v) + 1);
		return NULL;
	case PEER:
		if (c->npeers == IBFMD_CONF_MAX_PEERS)
			return "at most 8 peers";
		if (strlen(v) >= sizeof(c->peers[0]) || !host_port(v))
			return "HOST:PORT";
		memcpy(c->peers[c->npeers++], v, strlen(v) + 1);
		return NULL;
	case HOSTPORT:
		c->metrics_set = true;
		if (!strcmp(v, "off")) {
			field[0] = '\0';
			return NULL;
		}
		if (strlen(v) >= k->len || !host_port(v))
			return "HOST:PORT or off";
		memcpy(field, v, strlen(v) + 1);
		return NULL;
	}
	return "a value";
}

/* One line (NUL-terminated, no newline); 0 or an error in 'err'. */
static int parse_line(char *line, const char *name, unsigned no,
		      struct ibfmd_conf *c, struct ibfm_err *err)
{
	char *s = line + strspn(line, " \t"), *key, *val, *q;
	const char *why;
	size_t i;

	if (*s == '#' || !*s)
		return 0;
	for (q = s; *q; q++)
		if (*q == '=' || *q == '\t' || *q == '\r')
			*q = ' ';
	key = s;
	val = key + strcspn(key, " ");
	if (*val)
		*val++ = '\0';
	val += strspn(val, " ");
	q = val + strcspn(val, " ");
	if (!*val || q[strspn(q, " ")])
		return ibfm_err_set(err, -EINVAL,
				    "%s:%u: expected \"key value\"", name, no);
	*q = '\0';
	for (i = 0; i < NKEYS && strcmp(keys[i].name, key); i++)
		;
	if (i == NKEYS) {
		char all[512];
		size_t at = 0;

		for (i = 0; i < NKEYS; i++)
			at += (size_t)snprintf(all + at, sizeof(all) - at,
					       "%s%s", i ? ", " : "",
					       keys[i].name);
		return ibfm_err_set(err, -EINVAL,
				    "%s:%u: unknown key \"%.64s\": expected %s",
				    name, no, key, all);
	}
	why = set(c, &keys[i], val);
	if (!why)
		return 0;
	if (keys[i].kind == UINT)
		return ibfm_err_set(err, -EINVAL,
				    "%s:%u: %s: expected a whole number %u..%u",
				    name, no, key, keys[i].min, keys[i].max);
	return ibfm_err_set(err, -EINVAL, "%s:%u: %s: expected %s", name, no,
			    key, why);
}

struct parse_ctx {
	const char *name;
	struct ibfmd_conf *c;
	struct ibfm_err *err;
};

static int one_line(char *line, unsigned no, void *ctx)
{
	struct parse_ctx *x = ctx;

	return parse_line(line, x->name, no, x->c, x->err);
}

int ibfmd_conf_parse(const char *text, const char *name, struct ibfmd_conf *c,
		     struct ibfm_err *err)
{
	struct ibfmd_conf got;
	struct parse_ctx x = { name, &got, err };

	defaults(&got);
	if (ibfm_lines(text, name, 8192, one_line, &x, err))
		return -EINVAL;
	if (!got.fabric_file[0]) {
		/* Beside the socket: the daemon's own runtime directory. */
		const char *slash = strrchr(got.socket, '/');
		int dir = slash ? (int)(slash - got.socket) : 1;

		snprintf(got.fabric_file, sizeof(got.fabric_file),
			 "%.*s/fabric.topo", dir, slash ? got.socket : ".");
	}
	if (ibfm_statedir_init(&got.state, got.state_dir, err))
		return -EINVAL;
	*c = got;
	return 0;
}

int ibfmd_conf_read(const char *path, struct ibfmd_conf *c,
		    struct ibfm_err *err)
{
	FILE *in = fopen(path, "r");
	char *text;
	long len;
	int rc;

	if (!in)
		return ibfm_err_set(err, -errno, "%s: cannot open: %s", path,
				    strerror(errno));
	if (fseek(in, 0, SEEK_END) || (len = ftell(in)) < 0 ||
	    fseek(in, 0, SEEK_SET) || len > (1 << 20)) {
		fclose(in);
		return ibfm_err_set(err, -EINVAL,
				    "%s: not a configuration file (over 1 MB?)",
				    path);
	}
	text = malloc((size_t)len + 1);
	if (!text || fread(text, 1, (size_t)len, in) != (size_t)len) {
		fclose(in);
		free(text);
		return ibfm_err_set(err, -EIO, "%s: cannot read", path);
	}
	fclose(in);
	text[len] = '\0';
	if (strlen(text) != (size_t)len)
		rc = ibfm_err_set(err, -EINVAL, "%s: a NUL byte", path);
	else
		rc = ibfmd_conf_parse(text, path, c, err);
	free(text);
	return rc;
}
