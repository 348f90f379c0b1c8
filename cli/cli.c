// SPDX-License-Identifier: MIT
#include "cli/cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "routing/topo.h"

static struct timespec progress_start;
static bool progress_on;

void cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("ibfm: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static bool progress_wanted(void)
{
	const char *env = getenv("IBFM_PROGRESS");

	if (env)
		return !strcmp(env, "1");
	return isatty(STDERR_FILENO);
}

void cli_progress_begin(const char *fmt, ...)
{
	va_list ap;

	progress_on = progress_wanted();
	if (!progress_on)
		return;
	clock_gettime(CLOCK_MONOTONIC, &progress_start);
	fputs("ibfm: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" ...", stderr);
	fflush(stderr);
}

void cli_progress_end(void)
{
	struct timespec now;

	if (!progress_on)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	fprintf(stderr, " done (%.2f s)\n",
		(double)(now.tv_sec - progress_start.tv_sec) +
			(now.tv_nsec - progress_start.tv_nsec) / 1e9);
	progress_on = false;
}

struct ibfm_fabric *cli_load_topo(const char *path)
{
	struct ibfm_fabric *f = NULL;
	struct ibfm_err err;

	cli_progress_begin("reading %s", path);
	if (ibfm_topo_read(path, &f, &err)) {
		if (progress_on)
			fputc('\n', stderr);
		progress_on = false;
		cli_error("%s", err.msg);
		return NULL;
	}
	cli_progress_end();
	return f;
}

bool cli_parse_uint(const char *s, unsigned min, unsigned max, unsigned *v)
{
	unsigned long x;
	char *end;

	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	x = strtoul(s, &end, 0);
	if (errno || *end || x < min || x > max)
		return false;
	*v = (unsigned)x;
	return true;
}

const char *cli_port_str(const struct ibfm_fabric *f, uint32_t port, char *buf,
			 size_t len)
{
	const struct ibfm_port *p = &f->ports[port];
	const struct ibfm_node *n = &f->nodes[p->node];

	snprintf(buf, len, "\"%s\"[%u] (0x%016" PRIx64 ")",
		 ibfm_fabric_str(f, n->desc), p->num, n->guid);
	return buf;
}

uint32_t cli_find_port(const struct ibfm_fabric *f, const char *s)
{
	uint32_t n = IBFM_NONE, p;
	char *end;

	if (!strncmp(s, "0x", 2)) {
		uint64_t guid = strtoull(s, &end, 16);

		if (*end)
			return IBFM_NONE;
		p = ibfm_fabric_port_by_guid(f, guid);
		if (p != IBFM_NONE)
			return p;
		n = ibfm_fabric_node_by_guid(f, guid);
	} else if (*s >= '0' && *s <= '9') {
		unsigned long lid = strtoul(s, &end, 10);

		if (!*end)
			return ibfm_fabric_port_by_lid(f, (uint32_t)lid);
	}
	if (n == IBFM_NONE)
		n = ibfm_fabric_node_by_desc(f, s);
	if (n == IBFM_NONE)
		n = ibfm_fabric_node_by_name(f, s);
	if (n == IBFM_NONE)
		return IBFM_NONE;
	return ibfm_fabric_port(f, n,
				ibfm_node_is_switch(&f->nodes[n]) ? 0 : 1);
}
