/* SPDX-License-Identifier: MIT */
#ifndef IBFM_TEST_JSON_ESCAPES_H
#define IBFM_TEST_JSON_ESCAPES_H

/*
 * JSON string escapes and what they read as, for test_ctl (requests, as
 * ibfmd reads them) and test_jsonview (replies, as the CLI reads them):
 * both read each body to the same bytes, and both refuse the same ones.
 */

struct json_escape {
	const char *body; /* between the quotes, as sent */
	const char *text; /* as read; NULL: refused */
};

static const struct json_escape json_escapes[] = {
	{ "plain", "plain" },
	{ "\\\"q\\\" \\\\ \\/", "\"q\" \\ /" },
	{ "\\b\\f\\n\\r\\t", "\b\f\n\r\t" },
	{ "\\u0041\\u00e9\\u20AC", "A\xc3\xa9\xe2\x82\xac" },
	/* A surrogate pair is one code point (U+1F600), four bytes. */
	{ "\\ud83d\\ude00", "\xf0\x9f\x98\x80" },
	/* Half a pair is U+FFFD, as the writer makes a byte not UTF-8. */
	{ "\\ud83dx", "\xef\xbf\xbdx" },
	{ "\\ude00", "\xef\xbf\xbd" },
	{ "\\ud83d\\u0041", "\xef\xbf\xbd\x41" },
	{ "raw \xc3\xa9", "raw \xc3\xa9" },
	{ "\\u0000", NULL }, /* would end the string early */
	{ "\\q", NULL },
	{ "\\u00g1", NULL },
	{ "\\u12", NULL },
	{ "\\", NULL },
};

#endif /* IBFM_TEST_JSON_ESCAPES_H */
