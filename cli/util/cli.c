// SPDX-License-Identifier: MIT
#include "cli/util/cli.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/util/jsonview.h"
#include "routing/base/clock.h"
#include "routing/topo/topo.h"
#include "routing/checks/trace.h"

static double progress_start; /* ibfm_clock_ms() */
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
	progress_start = ibfm_clock_ms();
	fputs("ibfm: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" ...", stderr);
	fflush(stderr);
}

void cli_progress_end(void)
{
	if (!progress_on)
		return;
	fprintf(stderr, " done (%.2f s)\n",
		(ibfm_clock_ms() - progress_start) / 1e3);
	progress_on = false;
}

int cli_write_out(const char *path, ibfm_file_write_fn fn, const void *ctx)
{
	struct ibfm_err err;

	if (!path)
		return fn(stdout, ctx) ? CLI_FAIL : CLI_OK;
	if (!ibfm_file_replace(path, fn, ctx, &err))
		return CLI_OK;
	cli_error("%s", err.msg);
	return CLI_FAIL;
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

const char *cli_opt_name(const struct option *opts, int val)
{
	for (; opts->name; opts++)
		if (opts->val == val)
			return opts->name;
	return "?";
}

bool cli_parse_timeout(const char *s, unsigned *timeout)
{
	if (cli_parse_uint(s, 1, 86400, timeout))
		return true;
	cli_error("--timeout %s: expected seconds", s);
	return false;
}

const char *cli_port_str(const struct ibfm_fabric *f, uint32_t port, char *buf,
			 size_t len)
{
	return ibfm_fabric_port_text(f, port, buf, len);
}

void cli_suggest_node(const struct ibfm_fabric *f, const char *s)
{
	uint32_t best[3];
	unsigned n = ibfm_trace_suggest(f, s, best, 3), k;

	if (!n)
		return;
	fputs("ibfm: did you mean", stderr);
	for (k = 0; k < n; k++)
		fprintf(stderr, "%s \"%s\"", k ? "," : "",
			ibfm_fabric_str(f, f->nodes[best[k]].desc));
	fputs("?\n", stderr);
}
