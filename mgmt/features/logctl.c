// SPDX-License-Identifier: MIT
/*
 * The log feature: the log's control commands, log-list (every module
 * and its level) and log-level MODULE LEVEL ("all" for every module),
 * which answers with the list as it is after the change. Its state is
 * the log's own (mgmt/base/log.c).
 */
#include "mgmt/core/feature.h"
#include "mgmt/base/log.h"

IBFMD_LOG_MODULE_EXTERN(ctl);

static void list_modules(struct ibfm_json *j)
{
	const struct ibfmd_log_module *m;

	ibfm_json_arr_begin(j, "modules");
	for (m = ibfmd_log_modules(); m; m = m->next) {
		ibfm_json_obj_begin(j, NULL);
		ibfm_json_str(j, "module", m->name);
		ibfm_json_str(
			j, "level",
			ibfmd_log_level_name((enum ibfmd_log_level)m->level));
		ibfm_json_obj_end(j);
	}
	ibfm_json_arr_end(j);
}

static void cmd_list(void *ctx, const struct ibfm_req *req, struct ibfm_json *j)
{
	(void)ctx;
	(void)req;
	list_modules(j);
}

static void cmd_level(void *ctx, const struct ibfm_req *req,
		      struct ibfm_json *j)
{
	const char *module = ibfm_req_str(req, "module");
	const char *level = ibfm_req_str(req, "level");
	struct ibfm_err err;

	(void)ctx;
	if (ibfmd_log_set(module, level, &err)) {
		ibfm_ctl_error(j, NULL, "%s", err.msg);
		return;
	}
	IBFMD_INFO("log level of %s set to %s", module, level);
	list_modules(j);
}

/* Their arguments and help: ctl/commands.c. */
static const struct ibfm_ctl_handler cmds[] = {
	{ "log-list", cmd_list },
	{ "log-level", cmd_level },
};

const struct ibfmd_feature ibfmd_feature_log = {
	.name = "log",
	.cmds = cmds,
	.ncmds = sizeof(cmds) / sizeof(*cmds),
};
