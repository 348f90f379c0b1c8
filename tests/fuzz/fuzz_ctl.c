// SPDX-License-Identifier: MIT
/* libFuzzer: ibfmd's control protocol, one request line. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mgmt/ctl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void echo(void *ctx, const struct ibfm_ctl_req *req, struct ibfm_json *j)
{
	(void)ctx;
	ibfm_json_str(j, "src", req->src);
	ibfm_json_str(j, "dst", req->dst);
	ibfm_json_str(j, "element", req->element);
	ibfm_json_int(j, "since", req->since);
	ibfm_json_int(j, "top", req->top);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ibfm_ctl c;
	static FILE *null;

	if (!null) {
		null = fopen("/dev/null", "w");
		ibfm_ctl_init(&c, NULL, "fuzz");
		ibfm_ctl_register(&c, "status", "echo", echo);
		ibfm_ctl_register(&c, "path", "echo", echo);
	}
	ibfm_ctl_handle(&c, (const char *)data, size, null);
	return 0;
}
