/* SPDX-License-Identifier: MIT */
#ifndef IBFM_TEST_CTL_ANSWER_H
#define IBFM_TEST_CTL_ANSWER_H

/*
 * DOC: the dispatcher's reply to one line, for the tests of ctl/
 * (test_ctl.c, test_req.c).
 */

#include "test_common.h"

#include "ctl/ctl.h"

/* The reply to 'line', without its newline, in a static buffer. */
static inline const char *ctl_answer(struct ibfm_ctl *c, const char *line,
				     size_t len)
{
	static char out[4096];
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	ibfm_ctl_handle(c, line, len, f);
	fclose(f);
	assert_true(n > 0 && buf[n - 1] == '\n');
	snprintf(out, sizeof(out), "%.*s", (int)n - 1, buf);
	free(buf);
	return out;
}

#endif /* IBFM_TEST_CTL_ANSWER_H */
