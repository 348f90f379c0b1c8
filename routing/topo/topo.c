// SPDX-License-Identifier: MIT
/*
 * DOC: reading topology files (ibnetdiscover format, see routing/topo/topo.h).
 *
 * A cursor over one line at a time (struct cur), no copies of the text:
 * the first pass makes a node per record header and remembers each port
 * line's peer by name (struct pend); the second resolves the names,
 * requires every link declared by both ends with matching GUIDs, and
 * finishes the fabric. ibsim's GUID numbering for records without
 * GUIDs is kept per node type. Every error is FILE:LINE, an id and what
 * was expected, and leaves nothing behind. GUID list files (root and
 * I/O GUIDs) use the same cursor. Writing is routing/topo/topo_write.c.
 * Cost: O(file size) and one name lookup per port line.
 */
#include "routing/topo/topo.h"
#include "routing/io/file.h"
#include "routing/base/grow.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_LEN 255

/* A port line whose peer is resolved once every record is read. */
struct pend {
	uint32_t port;	   /* local port index */
	uint32_t line;	   /* where it was declared */
	const char *rname; /* remote record name, in the text */
	uint32_t rlen;
	uint32_t rport; /* remote port number */
	uint64_t rguid; /* remote port GUID in "(...)", 0 if none */
};

struct parser {
	const char *fname;
	struct ibfm_fabric *f;
	struct ibfm_err *err;
	uint32_t line;	       /* current line number, from 1 */
	bool last_line;	       /* the current line has no newline after it */
	uint32_t node;	       /* current record, IBFM_NONE outside one */
	uint64_t next_guid[4]; /* ibsim's GUID counters, by node type */
	uint64_t sysguid;      /* from "sysimgguid=", for the next node */
	uint32_t vendid, devid;
	struct pend *pend;
	size_t npend, pend_cap;
	uint32_t *node_line; /* header line of each node */
	size_t node_line_cap;
};

/* A cursor over one line: [s, e). */
struct cur {
	const char *s, *e;
};

static void skip_ws(struct cur *c)
{
	while (c->s < c->e && (*c->s == ' ' || *c->s == '\t' || *c->s == '\r'))
		c->s++;
}

static bool at(struct cur *c, char ch)
{
	return c->s < c->e && *c->s == ch;
}

static bool eat(struct cur *c, char ch)
{
	if (!at(c, ch))
		return false;
	c->s++;
	return true;
}

static bool get_u64(struct cur *c, int base, uint64_t *v)
{
	uint64_t x = 0;
	const char *s = c->s;

	if (base == 0) {
		base = 10;
		if (c->e - s > 2 && s[0] == '0' &&
		    (s[1] == 'x' || s[1] == 'X')) {
			base = 16;
			s += 2;
		}
	}
	if (s >= c->e || !isxdigit((unsigned char)*s))
		return false;
	for (; s < c->e && isxdigit((unsigned char)*s); s++) {
		unsigned d = isdigit((unsigned char)*s)
				     ? (unsigned)(*s - '0')
				     : (unsigned)(tolower((unsigned char)*s) -
						  'a' + 10);

		if (d >= (unsigned)base || x > (UINT64_MAX - d) / base)
			return false;
		x = x * base + d;
	}
	c->s = s;
	*v = x;
	return true;
}

static bool get_uint(struct cur *c, uint32_t max, uint32_t *v)
{
	uint64_t x;
	struct cur t = *c;

	if (!get_u64(&t, 10, &x) || x > max)
		return false;
	*c = t;
	*v = (uint32_t)x;
	return true;
}

/* Takes a "quoted" string; the cursor must be on the opening quote. */
static bool get_quoted(struct cur *c, const char **str, uint32_t *len)
{
	const char *q;

	if (!at(c, '"'))
		return false;
	q = memchr(c->s + 1, '"', c->e - c->s - 1);
	if (!q)
		return false;
	*str = c->s + 1;
	*len = (uint32_t)(q - c->s - 1);
	c->s = q + 1;
	return true;
}

/* Finds 'word' in the cursor's range; returns a pointer after it or NULL. */
static const char *find(const struct cur *c, const char *word)
{
	size_t n = strlen(word);
	const char *s;

	for (s = c->s; s + n <= c->e; s++)
		if (*s == *word && !memcmp(s, word, n))
			return s + n;
	return NULL;
}

/* Reads the unsigned number after 'word' within 'c', if there is one. */
static bool find_uint(const struct cur *c, const char *word, uint32_t max,
		      uint32_t *v)
{
	struct cur t = { find(c, word), c->e };

	return t.s && get_uint(&t, max, v);
}

static int perr(struct parser *p, int code, const char *id, const char *fmt,
		...) __attribute__((format(printf, 4, 5)));

static int perr(struct parser *p, int code, const char *id, const char *fmt,
		...)
{
	char what[IBFM_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return ibfm_err_set(p->err, code, "%s:%u: %s %s", p->fname, p->line, id,
			    what);
}

/* Error for a line that does not have the expected shape. */
static int malformed(struct parser *p, const char *expected)
{
	if (p->last_line)
		return perr(
			p, -EINVAL, "T02",
			"truncated file: the last line ends early, expected %s",
			expected);
	return perr(p, -EINVAL, "T02", "malformed line: expected %s", expected);
}

static void copy_str(char *dst, const char *src, uint32_t len)
{
	memcpy(dst, src, len);
	dst[len] = '\0';
}

enum setting { SET_GUID, SET_SYSGUID, SET_VENDID, SET_DEVID };

static const struct {
	const char *kw;
	enum setting what;
	int type; /* node type, for SET_GUID */
} settings[] = {
	{ "switchguid", SET_GUID, IBFM_NODE_SWITCH },
	{ "caguid", SET_GUID, IBFM_NODE_CA },
	{ "hcaguids", SET_GUID, IBFM_NODE_CA },
	{ "rtguid", SET_GUID, IBFM_NODE_ROUTER },
	{ "sysimgguid", SET_SYSGUID, 0 },
	{ "vendid", SET_VENDID, 0 },
	{ "devid", SET_DEVID, 0 },
};

static bool kw_is(const char *kw, size_t kwlen, const char *word)
{
	return kwlen == strlen(word) && !memcmp(kw, word, kwlen);
}

/* Whether the rest of the line at 'c' starts with 'word'. */
static bool starts(const struct cur *c, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(c->e - c->s) >= n && !memcmp(c->s, word, n);
}

/* ibnetdiscover's option whose output the line is in: -p, -l, or NULL. */
static const char *other_format(const char *kw, size_t kwlen,
				const struct cur *c)
{
	struct cur r = *c;

	if (kw_is(kw, kwlen, "CA") || kw_is(kw, kwlen, "SW") ||
	    kw_is(kw, kwlen, "RT"))
		return "-p (ports)";
	skip_ws(&r);
	if ((kw_is(kw, kwlen, "Ca") || kw_is(kw, kwlen, "Switch") ||
	     kw_is(kw, kwlen, "Router")) &&
	    starts(&r, ": 0x"))
		return "-l (list)";
	return NULL;
}

/* "keyword=value" lines that set what the next node record gets. */
static int parse_assign(struct parser *p, const char *kw, size_t kwlen,
			struct cur *c)
{
	static const char *const unsupported[] = { "width", "speed", "extspeed",
						   "module", "pdebug" };
	uint64_t v;
	size_t i;

	for (i = 0; i < sizeof(unsupported) / sizeof(*unsupported); i++)
		if (kw_is(kw, kwlen, unsupported[i]))
			return perr(
				p, -EINVAL, "T13",
				"ibsim directive \"%.*s=\" is not supported: "
				"write the fabric out in full",
				(int)kwlen, kw);
	for (i = 0; i < sizeof(settings) / sizeof(*settings); i++)
		if (kw_is(kw, kwlen, settings[i].kw))
			break;
	if (i == sizeof(settings) / sizeof(*settings))
		return perr(p, -EINVAL, "T02",
			    "unknown setting \"%.*s\": expected switchguid, "
			    "caguid, rtguid, sysimgguid, vendid or devid",
			    (int)kwlen, kw);
	skip_ws(c);
	if (!get_u64(c, 0, &v))
		return malformed(p, "a number after '='");
	switch (settings[i].what) {
	case SET_GUID:
		p->next_guid[settings[i].type] = v;
		break;
	case SET_SYSGUID:
		p->sysguid = v;
		break;
	case SET_VENDID:
		p->vendid = (uint32_t)v;
		break;
	case SET_DEVID:
		p->devid = (uint32_t)v;
		break;
	}
	return 0;
}

static int node_type_of(const char *kw, size_t len)
{
	if (kw_is(kw, len, "Switch"))
		return IBFM_NODE_SWITCH;
	if (kw_is(kw, len, "Ca") || kw_is(kw, len, "Hca"))
		return IBFM_NODE_CA;
	if (kw_is(kw, len, "Rt"))
		return IBFM_NODE_ROUTER;
	return 0;
}

/*
 * The description after '#' on a header line: quoted as ibnetdiscover
 * writes it, or bare up to the first of ibsim's keywords.
 */
static void header_desc(struct cur *c, char *desc)
{
	static const char *const stops[] = { " enhanced port ", " base port ",
					     " lid ", " lmc " };
	const char *s, *e = c->e;
	uint32_t len;
	size_t i;

	desc[0] = '\0';
	skip_ws(c);
	if (at(c, '"')) {
		if (get_quoted(c, &s, &len) && len <= NAME_MAX_LEN)
			copy_str(desc, s, len);
		return;
	}
	for (i = 0; i < sizeof(stops) / sizeof(*stops); i++) {
		const char *hit = find(c, stops[i]);

		if (hit && hit - strlen(stops[i]) < e)
			e = hit - strlen(stops[i]);
	}
	while (e > c->s && isspace((unsigned char)e[-1]))
		e--;
	len = (uint32_t)(e - c->s);
	if (len <= NAME_MAX_LEN)
		copy_str(desc, c->s, len);
	c->s = e;
}

static int remember_line(struct parser *p, uint32_t node)
{
	if (ibfm_grow((void **)&p->node_line, &p->node_line_cap, node + 1,
		      sizeof(*p->node_line)))
		return -ENOMEM;
	p->node_line[node] = p->line;
	return 0;
}

static int parse_header(struct parser *p, int type, struct cur *c)
{
	char name[NAME_MAX_LEN + 1], desc[NAME_MAX_LEN + 1];
	struct ibfm_node_info info = { 0 };
	const char *s;
	uint32_t nports, len, id, v;
	int rc;

	skip_ws(c);
	if (!get_uint(c, 255, &nports))
		return malformed(p, "the port count after the node type");
	skip_ws(c);
	if (!at(c, '"'))
		return malformed(p, "a quoted node name after the port count");
	if (!get_quoted(c, &s, &len))
		return malformed(p, "a closing '\"' after the node name");
	if (!len || len > NAME_MAX_LEN)
		return perr(p, -EINVAL, "T02",
			    "node name must be 1 to %d characters",
			    NAME_MAX_LEN);
	copy_str(name, s, len);
	desc[0] = '\0';
	skip_ws(c);
	if (eat(c, '#'))
		header_desc(c, desc);

	if (nports < 1 || nports > IBFM_MAX_PORTS)
		return perr(p, -EINVAL, "T03",
			    "node \"%s\" has %u ports: expected 1 to %d", name,
			    nports, IBFM_MAX_PORTS);
	if (!p->next_guid[type])
		return perr(p, -EINVAL, "T02", "node \"%s\" has GUID 0", name);
	id = ibfm_fabric_node_by_guid(p->f, p->next_guid[type]);
	if (id != IBFM_NONE)
		return perr(p, -EEXIST, "T05",
			    "duplicate GUID 0x%016" PRIx64 ": node \"%s\" and "
			    "node \"%s\" (line %u)",
			    p->next_guid[type], name,
			    ibfm_fabric_str(p->f, p->f->nodes[id].name),
			    p->node_line[id]);
	id = ibfm_fabric_node_by_name(p->f, name);
	if (id != IBFM_NONE)
		return perr(p, -EEXIST, "T06",
			    "duplicate node name \"%s\" (first at line %u)",
			    name, p->node_line[id]);

	info.type = type;
	info.nports = nports;
	info.guid = p->next_guid[type];
	info.sysguid = p->sysguid;
	info.name = name;
	info.desc = desc[0] ? desc : NULL;
	rc = ibfm_fabric_add_node(p->f, &info, &id, p->err);
	if (rc)
		return rc;
	if (remember_line(p, id))
		return perr(p, -ENOMEM, "T01", "out of memory");

	p->f->nodes[id].vendid = p->vendid;
	p->f->nodes[id].devid = (uint16_t)p->devid;
	if (type == IBFM_NODE_SWITCH) {
		struct ibfm_port *p0 = &p->f->ports[p->f->nodes[id].port0];

		p->f->nodes[id].esp0 = find(c, "enhanced port 0") != NULL;
		if (find_uint(c, " lid ", 0xFFFF, &v))
			p0->lid = (uint16_t)v;
		if (find_uint(c, " lmc ", 7, &v))
			p0->lmc = (uint8_t)v;
		p->next_guid[type]++;
	} else {
		p->next_guid[type] += nports + 1;
	}
	p->sysguid = 0;
	p->vendid = 0;
	p->node = id;
	return 0;
}

/* An optional "[ext N]" after a port number (ibnetdiscover -g). */
static bool skip_ext(struct cur *c)
{
	uint32_t v;
	struct cur t = *c;

	if (!eat(&t, '['))
		return true;
	if (t.e - t.s < 4 || memcmp(t.s, "ext ", 4))
		return true;
	t.s += 4;
	if (!get_uint(&t, 255, &v) || !eat(&t, ']'))
		return false;
	*c = t;
	return true;
}

/* An optional "(hexguid)". */
static bool get_paren_guid(struct cur *c, uint64_t *guid)
{
	*guid = 0;
	if (!eat(c, '('))
		return true;
	return get_u64(c, 16, guid) && eat(c, ')');
}

/*
 * The comment of a port line: for CA ports "lid L lmc M" of the local
 * port before the remote's quoted description, then "lid RL 4xHDR".
 */
static void port_comment(struct parser *p, struct ibfm_port *port,
			 const struct cur *c)
{
	const char *q1 = memchr(c->s, '"', c->e - c->s);
	const char *q2 = q1 ? memchr(q1 + 1, '"', c->e - q1 - 1) : NULL;
	struct cur pre = { c->s, q2 ? q1 : c->e };
	struct cur post = { q2 ? q2 + 1 : c->s, c->e };
	struct cur rate;
	const char *name;
	uint32_t v, width;

	if (!ibfm_node_is_switch(&p->f->nodes[port->node])) {
		if (find_uint(&pre, "lid ", 0xFFFF, &v))
			port->lid = (uint16_t)v;
		if (find_uint(&pre, "lmc ", 7, &v))
			port->lmc = (uint8_t)v;
	}
	rate.s = find(&post, "lid ");
	rate.e = c->e;
	if (!rate.s || !get_uint(&rate, 0xFFFF, &v))
		return;
	skip_ws(&rate);
	if (!get_uint(&rate, 12, &width) || !eat(&rate, 'x') ||
	    !ibfm_width_valid(width))
		return;
	for (name = rate.s; rate.s < rate.e && isalnum((unsigned char)*rate.s);)
		rate.s++;
	port->width = (uint8_t)width;
	port->speed = (uint8_t)ibfm_speed_parse(name, rate.s - name);
}

static int add_pend(struct parser *p, const struct pend *pd)
{
	if (ibfm_grow((void **)&p->pend, &p->pend_cap, p->npend + 1,
		      sizeof(*p->pend)))
		return -ENOMEM;
	p->pend[p->npend++] = *pd;
	return 0;
}

static int parse_port_line(struct parser *p, struct cur *c)
{
	const struct ibfm_node *n;
	struct ibfm_port *port;
	struct pend pd = { 0 };
	uint64_t lguid;
	uint32_t num;

	if (p->node == IBFM_NONE)
		return perr(p, -EINVAL, "T10",
			    "port line outside a node record: expected a "
			    "\"Switch\", \"Ca\" or \"Rt\" line first");
	n = &p->f->nodes[p->node];
	c->s++;
	if (!get_uint(c, 0xFFFF, &num) || !eat(c, ']'))
		return malformed(p, "\"[port]\" at the start of a port line");
	if (num < 1 || num > n->nports)
		return perr(
			p, -EINVAL, "T03",
			"port %u out of range: node \"%s\" has ports 1 to %u",
			num, ibfm_fabric_str(p->f, n->name), n->nports);
	if (!get_paren_guid(c, &lguid) || !skip_ext(c))
		return malformed(
			p, "\"(portguid)\" or \"[ext N]\" after the port");
	skip_ws(c);
	if (!at(c, '"'))
		return malformed(p, "a quoted remote node name");
	if (!get_quoted(c, &pd.rname, &pd.rlen))
		return malformed(p,
				 "a closing '\"' after the remote node name");
	if (!pd.rlen || pd.rlen > NAME_MAX_LEN)
		return perr(p, -EINVAL, "T02",
			    "remote node name must be 1 to %d characters",
			    NAME_MAX_LEN);
	if (!eat(c, '[') || !get_uint(c, 0xFFFF, &pd.rport) || !eat(c, ']'))
		return malformed(p, "\"[port]\" after the remote node name");
	skip_ws(c);
	if (!skip_ext(c) || !get_paren_guid(c, &pd.rguid))
		return malformed(p, "\"(portguid)\" after the remote port");
	skip_ws(c);
	if (c->s < c->e && *c->s != '#' && !memchr(c->s, '=', c->e - c->s))
		return malformed(p, "a '#' comment or the end of the line");

	pd.port = n->port0 + num;
	pd.line = p->line;
	port = &p->f->ports[pd.port];
	if (port->state == IBFM_PORT_ACTIVE)
		return perr(p, -EINVAL, "T09", "port %u of \"%s\" listed twice",
			    num, ibfm_fabric_str(p->f, n->name));
	port->state = IBFM_PORT_ACTIVE;
	if (lguid && !ibfm_node_is_switch(n))
		port->guid = lguid;
	if (eat(c, '#'))
		port_comment(p, port, c);
	if (add_pend(p, &pd))
		return perr(p, -ENOMEM, "T01", "out of memory");
	return 0;
}

static int parse_line(struct parser *p, struct cur *c)
{
	const char *kw;
	size_t kwlen;
	int type;

	skip_ws(c);
	if (c->s == c->e) {
		p->node = IBFM_NONE; /* a blank line ends a record */
		return 0;
	}
	if (*c->s == '#')
		return 0;
	if (*c->s == '[')
		return parse_port_line(p, c);
	kw = c->s;
	while (c->s < c->e && isalpha((unsigned char)*c->s))
		c->s++;
	kwlen = c->s - kw;
	p->node = IBFM_NONE;
	if (kw_is(kw, kwlen, "Chassis") ||
	    (kw_is(kw, kwlen, "Non") && starts(c, "-Chassis Nodes")))
		return 0; /* ibnetdiscover -g grouping: no fabric data */
	if (other_format(kw, kwlen, c))
		return perr(p, -EINVAL, "T15",
			    "this is ibnetdiscover %s output: give its default "
			    "output (ibnetdiscover > FILE), or -g",
			    other_format(kw, kwlen, c));
	if (kw_is(kw, kwlen, "include") || kw_is(kw, kwlen, "do"))
		return perr(p, -EINVAL, "T13",
			    "ibsim directive \"%.*s\" is not supported: write "
			    "the fabric out in full",
			    (int)kwlen, kw);
	skip_ws(c);
	if (kwlen && eat(c, '='))
		return parse_assign(p, kw, kwlen, c);
	if (!kwlen || c->s == c->e || !isdigit((unsigned char)*c->s))
		return malformed(p,
				 "a node record (\"Switch N \\\"name\\\"\"), "
				 "a port line \"[N] ...\" or \"key=value\"");
	type = node_type_of(kw, kwlen);
	if (!type)
		return perr(p, -EINVAL, "T04",
			    "unknown node type \"%.*s\": expected Switch, Ca, "
			    "Hca or Rt",
			    (int)kwlen, kw);
	return parse_header(p, type, c);
}

static const char *pend_local_name(const struct parser *p,
				   const struct pend *pd)
{
	const struct ibfm_fabric *f = p->f;

	return ibfm_fabric_str(f, f->nodes[f->ports[pd->port].node].name);
}

/* Second pass: every declared peer must exist and declare us back. */
static int resolve_links(struct parser *p)
{
	struct ibfm_fabric *f = p->f;
	char rname[NAME_MAX_LEN + 1];
	size_t i;

	for (i = 0; i < p->npend; i++) {
		const struct pend *pd = &p->pend[i];
		uint32_t rn;

		p->line = pd->line;
		copy_str(rname, pd->rname, pd->rlen);
		rn = ibfm_fabric_node_by_name(f, rname);
		if (rn == IBFM_NONE)
			return perr(p, -EINVAL, "T07",
				    "missing peer: node \"%s\" is not defined "
				    "in the file",
				    rname);
		if (pd->rport < 1 || pd->rport > f->nodes[rn].nports)
			return perr(p, -EINVAL, "T03",
				    "remote port %u out of range: node \"%s\" "
				    "has ports 1 to %u",
				    pd->rport, rname, f->nodes[rn].nports);
		f->ports[pd->port].peer = ibfm_fabric_port(f, rn, pd->rport);
	}
	for (i = 0; i < p->npend; i++) {
		const struct pend *pd = &p->pend[i];
		const struct ibfm_port *lp = &f->ports[pd->port];
		const struct ibfm_port *rp = &f->ports[lp->peer];

		p->line = pd->line;
		if (rp->peer == IBFM_NONE)
			return perr(
				p, -EINVAL, "T08",
				"asymmetric link: \"%s\"[%u] names \"%s\"[%u], "
				"which lists no link on that port",
				pend_local_name(p, pd), lp->num,
				ibfm_fabric_str(f, f->nodes[rp->node].name),
				rp->num);
		if (rp->peer != pd->port)
			return perr(
				p, -EINVAL, "T08",
				"asymmetric link: \"%s\"[%u] names \"%s\"[%u], "
				"which names \"%s\"[%u]",
				pend_local_name(p, pd), lp->num,
				ibfm_fabric_str(f, f->nodes[rp->node].name),
				rp->num,
				ibfm_fabric_str(
					f,
					f->nodes[f->ports[rp->peer].node].name),
				f->ports[rp->peer].num);
		if (pd->rguid && rp->guid != pd->rguid)
			return perr(
				p, -EINVAL, "T14",
				"port GUID mismatch: \"%s\"[%u] is 0x%016" PRIx64
				" but this line says 0x%016" PRIx64,
				ibfm_fabric_str(f, f->nodes[rp->node].name),
				rp->num, rp->guid, pd->rguid);
	}
	return 0;
}

static int parse_all(struct parser *p, const char *text, size_t len)
{
	const char *s = text, *end = text + len;
	int rc;

	while (s < end) {
		const char *nl = memchr(s, '\n', end - s);
		struct cur c = { s, nl ? nl : end };

		p->line++;
		p->last_line = !nl;
		rc = parse_line(p, &c);
		if (rc)
			return rc;
		s = nl ? nl + 1 : end;
	}
	if (!p->f->nnodes)
		return ibfm_err_set(p->err, -EINVAL,
				    "%s: T12 no node records: expected "
				    "ibnetdiscover output or an ibsim net file",
				    p->fname);
	rc = resolve_links(p);
	if (rc)
		return rc;
	rc = ibfm_fabric_finish(p->f, p->err);
	if (rc) {
		char msg[IBFM_ERR_MSG_MAX];

		snprintf(msg, sizeof(msg), "%s", p->err ? p->err->msg : "");
		return ibfm_err_set(p->err, rc, "%s: T11 %s", p->fname, msg);
	}
	return 0;
}

int ibfm_topo_parse(const char *text, size_t len, const char *fname,
		    struct ibfm_fabric **out, struct ibfm_err *err)
{
	struct parser p = {
		.fname = fname,
		.err = err,
		.node = IBFM_NONE,
		.next_guid = { 0, 0x100000, 0x200000, 0x300000 },
	};
	int rc;

	p.f = ibfm_fabric_create();
	if (!p.f)
		return ibfm_err_set(err, -ENOMEM, "%s: out of memory", fname);
	/* A record line per ~60 bytes; sizing up front avoids regrowth. */
	ibfm_fabric_reserve(p.f, (uint32_t)(len / 2048) + 16,
			    (uint32_t)(len / 60) + 64);
	rc = parse_all(&p, text, len);
	free(p.pend);
	free(p.node_line);
	if (rc) {
		ibfm_fabric_destroy(p.f);
		return rc;
	}
	*out = p.f;
	return 0;
}

int ibfm_topo_read(const char *path, struct ibfm_fabric **out,
		   struct ibfm_err *err)
{
	size_t got;
	char *buf;
	int rc = ibfm_file_read(path, SIZE_MAX, &buf, &got);

	if (rc == -EINVAL)
		return ibfm_err_set(err, rc, "%s: T01 not a regular file",
				    path);
	if (rc == -ENOMEM)
		return ibfm_err_set(err, rc, "%s: out of memory", path);
	if (rc)
		return ibfm_err_set(err, rc, "%s: T01 cannot open: %s", path,
				    strerror(-rc));
	rc = ibfm_topo_parse(buf, got, path, out, err);
	free(buf);
	return rc;
}

int ibfm_topo_read_guids(const char *path, uint64_t **guids, size_t *n,
			 struct ibfm_err *err)
{
	FILE *in = fopen(path, "r");
	uint64_t *list = NULL, v;
	size_t count = 0, cap = 0;
	char line[256];
	uint32_t no = 0;

	if (!in)
		return ibfm_err_set(err, -errno, "%s: G01 cannot open: %s",
				    path, strerror(errno));
	while (fgets(line, sizeof(line), in)) {
		struct cur c = { line, line + strcspn(line, "#\n") };

		no++;
		skip_ws(&c);
		if (c.s == c.e)
			continue;
		if (c.e - c.s > 2 && c.s[0] == '0' &&
		    (c.s[1] == 'x' || c.s[1] == 'X'))
			c.s += 2;
		if (!get_u64(&c, 16, &v) || (skip_ws(&c), c.s != c.e) || !v) {
			free(list);
			fclose(in);
			return ibfm_err_set(
				err, -EINVAL,
				"%s:%u: G02 expected one non-zero GUID such as 0x0002c90200000001",
				path, no);
		}
		if (ibfm_grow((void **)&list, &cap, count + 1, sizeof(*list))) {
			free(list);
			fclose(in);
			return ibfm_err_set(err, -ENOMEM, "out of memory");
		}
		list[count++] = v;
	}
	fclose(in);
	*guids = list;
	*n = count;
	return 0;
}
