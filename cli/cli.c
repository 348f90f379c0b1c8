// SPDX-License-Identifier: MIT
#include "cli/cli.h"

#include <ctype.h>
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

#define SUGGEST_MAX 3
#define SUGGEST_LEN 64

/* Edit distance between a and b (lengths below SUGGEST_LEN), case ignored. */
static unsigned edit_distance(const char *a, size_t la, const char *b,
			      size_t lb)
{
	unsigned row[SUGGEST_LEN + 1], diag, up, i, j;

	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		diag = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			up = row[j];
			row[j] = diag + (tolower((unsigned char)a[i - 1]) !=
					 tolower((unsigned char)b[j - 1]));
			if (up + 1 < row[j])
				row[j] = up + 1;
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			diag = up;
		}
	}
	return row[lb];
}

void cli_suggest_node(const struct ibfm_fabric *f, const char *s)
{
	uint32_t best[SUGGEST_MAX], n, k, nbest = 0;
	unsigned dist[SUGGEST_MAX], d, limit;
	size_t ls = strlen(s), ld;
	const char *desc;

	if (ls >= SUGGEST_LEN)
		return;
	/* Beyond a third of the name it is another name, not a typo. */
	limit = ls / 3 > 1 ? (unsigned)(ls / 3) : 1;
	for (n = 0; n < f->nnodes; n++) {
		desc = ibfm_fabric_str(f, f->nodes[n].desc);
		ld = strlen(desc);
		if (ld >= SUGGEST_LEN || (ld > ls ? ld - ls : ls - ld) > limit)
			continue;
		d = edit_distance(s, ls, desc, ld);
		if (d > limit || (nbest == SUGGEST_MAX && d >= dist[nbest - 1]))
			continue;
		/* Keep the closest few, first found first among equals. */
		k = nbest < SUGGEST_MAX ? nbest++ : nbest - 1;
		for (; k > 0 && dist[k - 1] > d; k--) {
			best[k] = best[k - 1];
			dist[k] = dist[k - 1];
		}
		best[k] = n;
		dist[k] = d;
	}
	if (!nbest)
		return;
	fputs("ibfm: did you mean", stderr);
	/* Only the closest: "spine-1" means spine-01, not spine-02. */
	for (k = 0; k < nbest && dist[k] == dist[0]; k++)
		fprintf(stderr, "%s \"%s\"", k ? "," : "",
			ibfm_fabric_str(f, f->nodes[best[k]].desc));
	fputs("?\n", stderr);
}
