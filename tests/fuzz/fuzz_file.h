/* SPDX-License-Identifier: MIT */
#ifndef IBFM_FUZZ_FILE_H
#define IBFM_FUZZ_FILE_H

/* The parsers that take a path get the input through a file in /dev/shm. */

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
	static char path[64];
	FILE *out;

	if (!path[0])
		snprintf(path, sizeof(path), "/dev/shm/ibfm-fuzz-%ld",
			 (long)getpid());
	out = fopen(path, "w");
	if (!out)
		abort();
	if (size)
		fwrite(data, 1, size, out);
	fclose(out);
	return path;
}

#endif /* IBFM_FUZZ_FILE_H */
