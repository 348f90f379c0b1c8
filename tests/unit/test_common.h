/* SPDX-License-Identifier: MIT */
#ifndef IBFM_TEST_COMMON_H
#define IBFM_TEST_COMMON_H

/* What every cmocka test file includes, in the order cmocka needs. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <unistd.h>

/* A temporary file holding 'text'; its path in a static buffer (the
 * next call reuses it), for the caller to unlink. */
static inline const char *tmpfile_with(const char *text)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/ibfm-test-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

#endif
