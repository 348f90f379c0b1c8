// SPDX-License-Identifier: MIT
/* The head of an HTTP request (mgmt/net/httpreq.h). */
#include "mgmt/net/httpreq.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

/* Whether 's' ('n' bytes) is an HTTP token (RFC 9110: tchar). */
static bool is_token(const char *s, size_t n)
{
	static const char extra[] = "!#$%&'*+-.^_`|~";
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') ||
		      (s[i] && strchr(extra, s[i]))))
			return false;
	return n > 0;
}

/* The request line 'line' ('n' bytes, no line end) into 'r'; 0 or -EINVAL. */
static int request_line(const char *line, size_t n, struct ibfmd_httpreq *r)
{
	const char *sp1 = memchr(line, ' ', n), *sp2, *target, *query;
	size_t tlen, plen;

	if (!sp1 || !is_token(line, (size_t)(sp1 - line)))
		return -EINVAL;
	target = sp1 + 1;
	sp2 = memchr(target, ' ', n - (size_t)(target - line));
	if (!sp2 || sp2 == target)
		return -EINVAL;
	/* "HTTP/1.x" and nothing after it. */
	if (line + n - (sp2 + 1) != 8 || memcmp(sp2 + 1, "HTTP/1.", 7) ||
	    sp2[8] < '0' || sp2[8] > '9')
		return -EINVAL;
	r->minor = (unsigned)(sp2[8] - '0');
	if ((size_t)(sp1 - line) == 3 && !memcmp(line, "GET", 3))
		r->method = IBFMD_HTTP_GET;
	else if ((size_t)(sp1 - line) == 4 && !memcmp(line, "HEAD", 4))
		r->method = IBFMD_HTTP_HEAD;
	else
		r->method = IBFMD_HTTP_OTHER;
	tlen = (size_t)(sp2 - target);
	query = memchr(target, '?', tlen);
	plen = query ? (size_t)(query - target) : tlen;
	r->path[0] = '\0';
	if (plen < sizeof(r->path)) {
		memcpy(r->path, target, plen);
		r->path[plen] = '\0';
	}
	return 0;
}

/* Whether 'a' ('n' bytes) is 'lower', letters in either case. */
static bool same_word(const char *a, size_t n, const char *lower)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!lower[i] || (a[i] | 0x20) != lower[i])
			return false;
	return !lower[n];
}

/* Whether a coding's parameters (";q=0.5") leave it wanted (q > 0). */
static bool wanted(const char *p, size_t n)
{
	size_t i;

	while (n && (*p == ' ' || *p == '\t' || *p == ';')) {
		p++;
		n--;
	}
	if (n < 2 || (p[0] | 0x20) != 'q' || p[1] != '=')
		return true;
	for (i = 2; i < n; i++)
		if (p[i] >= '1' && p[i] <= '9')
			return true;
	return false;
}

/*
 * Whether the header value 'v' ('n' bytes) of Accept-Encoding takes
 * gzip: "gzip", "x-gzip" or "*", with a q above 0.
 */
static bool takes_gzip(const char *v, size_t n)
{
	while (n) {
		const char *comma = memchr(v, ',', n);
		size_t len = comma ? (size_t)(comma - v) : n, w;

		while (len && (*v == ' ' || *v == '\t')) {
			v++;
			n--;
			len--;
		}
		for (w = 0; w < len && v[w] != ';' && v[w] != ' '; w++)
			;
		if ((same_word(v, w, "gzip") || same_word(v, w, "x-gzip") ||
		     same_word(v, w, "*")) &&
		    wanted(v + w, len - w))
			return true;
		if (!comma)
			break;
		n -= len + 1;
		v += len + 1;
	}
	return false;
}

/* The header lines after the request line (up to 'end') into 'r'. */
static void headers(const char *buf, size_t end, struct ibfmd_httpreq *r)
{
	const char *line = memchr(buf, '\n', end);

	r->gzip = false;
	while (line && (size_t)(line - buf) + 1 < end) {
		const char *start = line + 1, *colon;
		size_t n;

		line = memchr(start, '\n', end - (size_t)(start - buf));
		n = line ? (size_t)(line - start) : end - (size_t)(start - buf);
		if (n && start[n - 1] == '\r')
			n--;
		colon = memchr(start, ':', n);
		if (colon && same_word(start, (size_t)(colon - start),
				       "accept-encoding"))
			r->gzip = r->gzip ||
				  takes_gzip(colon + 1,
					     n - (size_t)(colon + 1 - start));
	}
}

long ibfmd_httpreq_parse(const char *buf, size_t len, size_t max, size_t *seen,
			 struct ibfmd_httpreq *r)
{
	size_t from = *seen, p;

	/* The end is the first "\n\n" or "\n\r\n"; '*seen': where to look on. */
	for (;;) {
		const char *nl = from < len
					 ? memchr(buf + from, '\n', len - from)
					 : NULL;
		if (!nl) {
			*seen = len;
			return len > max ? -E2BIG : 0;
		}
		p = (size_t)(nl - buf);
		if (p + 1 < len && buf[p + 1] == '\n') {
			from = p + 2;
			break;
		}
		if (p + 2 < len && buf[p + 1] == '\r' && buf[p + 2] == '\n') {
			from = p + 3;
			break;
		}
		if (p + 1 >= len || (buf[p + 1] == '\r' && p + 2 >= len)) {
			/* Maybe the end, cut: this '\n' is looked at again. */
			*seen = p;
			return len > max ? -E2BIG : 0;
		}
		from = p + 1;
	}
	*seen = from;
	if (from > max)
		return -E2BIG;
	/* The request line: up to the first '\n', without its '\r'. */
	p = (size_t)((const char *)memchr(buf, '\n', len) - buf);
	if (memchr(buf, '\0', p) ||
	    request_line(buf, p && buf[p - 1] == '\r' ? p - 1 : p, r))
		return -EINVAL;
	headers(buf, from, r);
	return (long)from;
}
