// SPDX-License-Identifier: MIT
/* Lookups in the command table and its descriptions (ctl/cmd.h). */
#include "ctl/cmd.h"

#include <stdio.h>
#include <string.h>

#include "routing/io/json.h"

const struct ibfm_cmd *ibfm_cmd_find(const struct ibfm_cmd *table,
				     const char *name)
{
	for (; table->name; table++)
		if (!strcmp(table->name, name))
			return table;
	return NULL;
}

unsigned ibfm_cmd_nargs(const struct ibfm_cmd *cmd)
{
	unsigned n = 0;

	while (n < IBFM_CMD_MAX_ARGS && cmd->args[n].name)
		n++;
	return n;
}

int ibfm_cmd_arg(const struct ibfm_cmd *cmd, const char *name)
{
	unsigned i, n = ibfm_cmd_nargs(cmd);

	for (i = 0; i < n; i++)
		if (!strcmp(cmd->args[i].name, name))
			return (int)i;
	return -1;
}

const char *ibfm_cmd_type_name(enum ibfm_arg_type type)
{
	return type == IBFM_ARG_INT    ? "integer"
	       : type == IBFM_ARG_BOOL ? "boolean"
				       : "string";
}

/* Appends 's' to 'buf' as far as it fits; 'buf' stays NUL-terminated. */
static void add(char *buf, size_t len, size_t *at, const char *s)
{
	size_t n = strlen(s);

	if (*at + 1 >= len)
		return;
	if (n > len - *at - 1)
		n = len - *at - 1;
	memcpy(buf + *at, s, n);
	*at += n;
	buf[*at] = '\0';
}

const char *ibfm_cmd_arg_names(const struct ibfm_cmd *cmd, char *buf,
			       size_t len)
{
	unsigned i, n = ibfm_cmd_nargs(cmd);
	size_t at = 0;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		add(buf, len, &at, i ? ", " : "");
		add(buf, len, &at, cmd->args[i].name);
	}
	return buf;
}

const char *ibfm_cmd_synopsis(const struct ibfm_cmd *cmd, char *buf, size_t len)
{
	static const char *const tag[] = {
		[IBFM_ARG_STR] = "=STR",
		[IBFM_ARG_INT] = "=INT",
		[IBFM_ARG_BOOL] = "=BOOL",
	};
	unsigned i, n = ibfm_cmd_nargs(cmd);
	size_t at = 0;

	buf[0] = '\0';
	add(buf, len, &at, cmd->name);
	for (i = 0; i < n; i++) {
		const struct ibfm_arg *a = &cmd->args[i];

		add(buf, len, &at, a->required ? " " : " [");
		add(buf, len, &at, a->name);
		add(buf, len, &at, tag[a->type]);
		add(buf, len, &at, a->required ? "" : "]");
	}
	return buf;
}

void ibfm_cmd_json(struct ibfm_json *j, const struct ibfm_cmd *cmd)
{
	unsigned i, n = ibfm_cmd_nargs(cmd);

	ibfm_json_obj_begin(j, NULL);
	ibfm_json_str(j, "name", cmd->name);
	ibfm_json_str(j, "help", cmd->help);
	ibfm_json_arr_begin(j, "args");
	for (i = 0; i < n; i++) {
		ibfm_json_obj_begin(j, NULL);
		ibfm_json_str(j, "name", cmd->args[i].name);
		ibfm_json_str(j, "type", ibfm_cmd_type_name(cmd->args[i].type));
		ibfm_json_bool(j, "required", cmd->args[i].required);
		ibfm_json_obj_end(j);
	}
	ibfm_json_arr_end(j);
	if (cmd->cls != IBFM_CMD_READ)
		ibfm_json_str(j, "class", ibfm_cmd_class_name(cmd->cls));
	ibfm_json_obj_end(j);
}

const char *ibfm_cmd_class_name(enum ibfm_cmd_class cls)
{
	return cls == IBFM_CMD_ADMIN ? "admin" : "read";
}
