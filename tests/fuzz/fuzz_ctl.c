// SPDX-License-Identifier: MIT
/* libFuzzer: ibfmd's control protocol, one request line. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ctl/ctl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads every argument "path" and "events" declare. */
static void echo(void *ctx, const struct ibfm_req *req, struct ibfm_json *j)
{
	(void)ctx;
	if (!strcmp(req->cmd->name, "events")) {
		ibfm_json_int(j, "since", ibfm_req_int(req, "since", -1));
		return;
	}
	ibfm_json_str(j, "src", ibfm_req_str(req, "src"));
	ibfm_json_str(j, "dst", ibfm_req_str(req, "dst"));
	ibfm_json_bool(j, "all_lids", ibfm_req_bool(req, "all_lids", false));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ibfm_ctl c;
	static FILE *null;

	if (!null) {
		null = fopen("/dev/null", "w");
		ibfm_ctl_init(&c, ibfm_cmds, "fuzz");
		ibfm_ctl_register(&c, "events", echo, NULL);
		ibfm_ctl_register(&c, "path", echo, NULL);
	}
	ibfm_ctl_handle(&c, (const char *)data, size, null);
	return 0;
}
