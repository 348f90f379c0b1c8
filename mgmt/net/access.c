// SPDX-License-Identifier: MIT
/* Who may use the control socket, from ibfmd.conf (mgmt/net/access.h). */
#include "mgmt/net/access.h"

#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mgmt/base/log.h"

IBFMD_LOG_MODULE_EXTERN(ctl);

/* Group 'name' (a name or a number) into '*gid'; -1 (logged) if none. */
static int group_gid(const char *conf_path, const char *key, const char *name,
		     gid_t *gid)
{
	const struct group *g;
	char *end;
	unsigned long n = strtoul(name, &end, 10);

	if (*name >= '0' && *name <= '9' && !*end && n < (gid_t)-1) {
		*gid = (gid_t)n;
		return 0;
	}
	g = getgrnam(name);
	if (!g) {
		IBFMD_ERR("%s: %s %s: no such group", conf_path, key, name);
		return -1;
	}
	*gid = g->gr_gid;
	return 0;
}

/* Group key 'key' = 'name' ("": none) into 'set', 'gid' and 'label'. */
static int one_group(const char *conf_path, const char *key, const char *name,
		     bool *set, gid_t *gid, char *label, size_t len)
{
	if (!name[0])
		return 0;
	if (group_gid(conf_path, key, name, gid))
		return -1;
	*set = true;
	snprintf(label, len, "%s", name);
	return 0;
}

int ibfmd_access_resolve(const struct ibfmd_conf *c, const char *conf_path,
			 struct ibfm_ctl_access *a)
{
	memset(a, 0, sizeof(*a));
	a->self = geteuid();
	if (one_group(conf_path, "read_group", c->read_group, &a->read_set,
		      &a->read_gid, a->read_name, sizeof(a->read_name)) ||
	    one_group(conf_path, "admin_group", c->admin_group, &a->admin_set,
		      &a->admin_gid, a->admin_name, sizeof(a->admin_name)))
		return -1;
	return 0;
}

/* The group the socket and its directory get; -1: left as it is. */
static gid_t socket_gid(const struct ibfm_ctl_access *a)
{
	return a->read_set    ? a->read_gid
	       : a->admin_set ? a->admin_gid
			      : (gid_t)-1;
}

int ibfmd_access_socket_dir(const char *socket, const struct ibfm_ctl_access *a)
{
	const char *slash = strrchr(socket, '/');
	char dir[108];
	struct stat st;

	if (!slash || slash == socket)
		return 0; /* the working directory, or / */
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - socket), socket);
	if (!stat(dir, &st)) {
		if (!S_ISDIR(st.st_mode)) {
			IBFMD_ERR(
				"%s: not a directory: the socket cannot go there",
				dir);
			return -1;
		}
		if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))
			IBFMD_WARN(
				"%s: anyone may write there and replace the socket: give the socket a directory of its own",
				dir);
		return 0;
	}
	if (errno != ENOENT || mkdir(dir, 0750)) {
		IBFMD_ERR("%s: cannot create the socket's directory: %s", dir,
			  strerror(errno));
		return -1;
	}
	/* Not the umask's: members of the group must get through. */
	if (chown(dir, (uid_t)-1, socket_gid(a)) || chmod(dir, 0750))
		IBFMD_WARN("%s: cannot set its group and mode: %s", dir,
			   strerror(errno));
	return 0;
}

void ibfmd_access_socket_file(const char *socket,
			      const struct ibfm_ctl_access *a)
{
	if (chown(socket, (uid_t)-1, socket_gid(a)))
		IBFMD_WARN("%s: cannot set its group: %s", socket,
			   strerror(errno));
}
