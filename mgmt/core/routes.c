// SPDX-License-Identifier: MIT
/* The plugin's routes as ibfmd reads them (mgmt/core/routes.h). */
#include "mgmt/core/routes.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "mgmt/base/log.h"
#include "mgmt/core/view.h"
#include "routing/state/snapshot.h"

IBFMD_LOG_MODULE(routing);

uint64_t ibfmd_routing_generation(const char *state_dir)
{
	return state_dir[0] ? ibfm_snapshot_last_generation(state_dir) : 0;
}

void ibfmd_routes_free(struct ibfmd_routes *r)
{
	ibfm_lfts_free(&r->t);
	ibfm_fabric_destroy(r->f);
	memset(r, 0, sizeof(*r));
}

const struct ibfmd_routes *ibfmd_routes_get(struct ibfmd_routes *r,
					    const struct ibfmd_view *v,
					    const char *state_dir, char *why,
					    size_t len)
{
	char path[4200];
	struct ibfm_err err;
	struct stat st;

	if (!v->fabric) {
		snprintf(why, len, "no sweep yet");
		return NULL;
	}
	if (!state_dir[0]) {
		snprintf(
			why, len,
			"no LFTs: set state_dir in ibfmd.conf to the plugin's state_dir");
		return NULL;
	}
	if (ibfm_snapshot_lfts_path(state_dir, path, sizeof(path)) ||
	    stat(path, &st)) {
		snprintf(why, len, "%.400s: %s", path, strerror(errno));
		return NULL;
	}
	if (r->f && r->sweep == v->sweeps &&
	    r->mtime.tv_sec == st.st_mtim.tv_sec &&
	    r->mtime.tv_nsec == st.st_mtim.tv_nsec)
		return r;
	ibfmd_routes_free(r);
	r->f = ibfm_fabric_clone(v->fabric);
	if (!r->f) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	if (ibfm_lfts_read_dump(r->f, path, &r->t, &err)) {
		snprintf(why, len, "%s", err.msg);
		IBFMD_DBG("%s", err.msg);
		ibfmd_routes_free(r);
		return NULL;
	}
	r->sweep = v->sweeps;
	r->mtime = st.st_mtim;
	r->generation = ibfm_lfts_bin_generation(path);
	IBFMD_DBG("%s read on sweep %" PRIu64 ": %" PRIu32 " switches", path,
		  r->sweep, r->t.nsw);
	return r;
}
