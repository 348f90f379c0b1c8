/* SPDX-License-Identifier: MIT */
#ifndef IBFMD_ACCESS_H
#define IBFMD_ACCESS_H

/*
 * DOC: who may use ibfmd's control socket (docs/security.md), as
 * ibfmd.conf says: read_group and admin_group (a name or a number
 * each) resolved to the dispatcher's rules (ctl/ctl.h), and the
 * socket's file made to match. The kernel's file permissions are the
 * first gate, the peer's credentials the second: the socket's
 * directory is created 0750 when missing, the socket is 0660, and
 * both belong to the read group (or the admin group when only that is
 * set) so that its members can connect; the daemon's own group
 * otherwise.
 */

#include "ctl/ctl.h"
#include "mgmt/base/conf.h"

/*
 * The rules of 'c' into 'a' (the daemon's own user counts as root).
 * 0, or -1 when a group is unknown (logged, naming 'conf_path').
 */
int ibfmd_access_resolve(const struct ibfmd_conf *c, const char *conf_path,
			 struct ibfm_ctl_access *a);

/*
 * Before listening on 'socket': its directory made if missing (0750,
 * of the socket's group); a directory others may write to is warned
 * about. 0, or -1 (logged).
 */
int ibfmd_access_socket_dir(const char *socket,
			    const struct ibfm_ctl_access *a);

/* After listening (mode 0660, mgmt/net/ctlsock.h): the socket given the
 * read group, or the admin group. */
void ibfmd_access_socket_file(const char *socket,
			      const struct ibfm_ctl_access *a);

#endif /* IBFMD_ACCESS_H */
