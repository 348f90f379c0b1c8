// SPDX-License-Identifier: MIT
/*
 * DOC: jobs files, random placements and ring flow loads.
 *
 * What a job is and how its rings and figures are defined is in the DOC
 * of routing/jobs/jobs.h. Here: the fabric's HCAs sorted by server name, then
 * rail, then port GUID (struct hosts), so a server is a run of entries
 * found by binary search and an HCA's ring index is its rail or its
 * place in the run; one job is built at a time into growing arrays; the
 * evaluation keeps every flow's path from its first pass to take its
 * share in the second.
 */
#include "routing/jobs/jobs.h"
#include "routing/state/joblist.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/io/file.h"
#include "routing/base/grow.h"
#include "routing/base/rng.h"
#include "routing/checks/bound.h"
#include "routing/checks/verify.h"
#include "routing/state/statedir.h"

/* One HCA: a connected CA port and what sorts it. */
struct hca {
	const char *name; /* its server's name: the description ... */
	size_t len;	  /* ... up to its first space */
	unsigned rail;	  /* IBFM_RAIL_NONE without rails */
	uint64_t guid;
	uint32_t port;
};

/* The fabric's HCAs by server; what each job has taken. */
struct hosts {
	const struct ibfm_fabric *f;
	struct hca *hca;
	uint16_t *key;	  /* per HCA: its ring index */
	uint32_t *owner;  /* per HCA: the job holding it, IBFM_NONE */
	uint32_t *srv_at; /* nservers + 1: server s's HCAs srv_at[s].. */
	uint32_t *entry;  /* per fabric port: its HCA, IBFM_NONE */
	uint32_t n, nservers;
};

/* The growing arrays of the jobs being built, and the current job. */
struct build {
	struct hosts h;
	struct ibfm_jobs *j;
	size_t ids_cap, jr_cap, ra_cap, mem_cap, cur_cap;
	uint32_t *cur; /* the current job's HCAs, in member order */
	uint32_t ncur;
	bool skip_missing; /* J03, J05: leave the member out, count it */
};

static int name_cmp(const char *a, size_t al, const char *b, size_t bl)
{
	int c = memcmp(a, b, al < bl ? al : bl);

	return c ? c : (al > bl) - (al < bl);
}

static int hca_cmp(const void *pa, const void *pb)
{
	const struct hca *a = pa, *b = pb;
	int c = name_cmp(a->name, a->len, b->name, b->len);

	if (c)
		return c;
	if (a->rail != b->rail)
		return a->rail < b->rail ? -1 : 1;
	return (a->guid > b->guid) - (a->guid < b->guid);
}

static int hosts_init(struct hosts *h, const struct ibfm_fabric *f,
		      const struct ibfm_rails *rails)
{
	bool railed = rails && rails->nrails;
	uint32_t n, p, i, s;

	memset(h, 0, sizeof(*h));
	h->f = f;
	h->hca = calloc(f->nports + 1, sizeof(*h->hca));
	h->key = calloc(f->nports + 1, sizeof(*h->key));
	h->owner = malloc((f->nports + 1) * sizeof(*h->owner));
	h->srv_at = calloc(f->nports + 2, sizeof(*h->srv_at));
	h->entry = malloc((f->nports + 1) * sizeof(*h->entry));
	if (!h->hca || !h->key || !h->owner || !h->srv_at || !h->entry)
		return -ENOMEM;
	for (n = 0; n < f->nnodes; n++) {
		const struct ibfm_node *nd = &f->nodes[n];
		const char *d = f->strs + nd->desc;

		for (p = 1; nd->type == IBFM_NODE_CA && p <= nd->nports; p++) {
			struct hca *c = &h->hca[h->n];

			if (f->ports[nd->port0 + p].peer == IBFM_NONE)
				continue;
			c->name = d;
			c->len = strcspn(d, " ");
			c->port = nd->port0 + p;
			c->guid = f->ports[c->port].guid;
			c->rail = railed ? rails->port_rail[c->port]
					 : IBFM_RAIL_NONE;
			h->n++;
		}
	}
	qsort(h->hca, h->n, sizeof(*h->hca), hca_cmp);
	for (p = 0; p <= f->nports; p++)
		h->entry[p] = IBFM_NONE;
	for (i = 0, s = 0; i < h->n; i++) {
		const struct hca *c = &h->hca[i];

		if (i && name_cmp(c[-1].name, c[-1].len, c->name, c->len))
			h->srv_at[++s] = i;
		h->key[i] = (uint16_t)(c->rail != IBFM_RAIL_NONE
					       ? c->rail
					       : i - h->srv_at[s]);
		h->owner[i] = IBFM_NONE;
		h->entry[c->port] = i;
	}
	h->nservers = h->n ? s + 1 : 0;
	h->srv_at[h->nservers] = h->n;
	return 0;
}

static void hosts_free(struct hosts *h)
{
	free(h->hca);
	free(h->key);
	free(h->owner);
	free(h->srv_at);
	free(h->entry);
}

/* The server named 'name' ('len' bytes), or IBFM_NONE. */
static uint32_t server_find(const struct hosts *h, const char *name, size_t len)
{
	uint32_t lo = 0, hi = h->nservers;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct hca *c = &h->hca[h->srv_at[mid]];
		int cmp = name_cmp(c->name, c->len, name, len);

		if (!cmp)
			return mid;
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return IBFM_NONE;
}

/* Appends HCA 'e' to the current job. 0 or -ENOMEM. */
static int cur_add(struct build *b, uint32_t e)
{
	if (ibfm_grow((void **)&b->cur, &b->cur_cap, b->ncur + 1,
		      sizeof(*b->cur)))
		return -ENOMEM;
	b->cur[b->ncur++] = e;
	return 0;
}

/* Closes the current job as 'id': one ring per ring index. 0 or -ENOMEM. */
static int job_close(struct build *b, const char *id)
{
	struct ibfm_jobs *j = b->j;
	uint32_t i, k, nkeys = 0;

	for (i = 0; i < b->ncur; i++)
		if (b->h.key[b->cur[i]] + 1U > nkeys)
			nkeys = b->h.key[b->cur[i]] + 1U;
	if (ibfm_grow((void **)&j->ids, &b->ids_cap, j->njobs + 1,
		      sizeof(*j->ids)) ||
	    ibfm_grow((void **)&j->job_ring, &b->jr_cap, j->njobs + 2,
		      sizeof(*j->job_ring)) ||
	    ibfm_grow((void **)&j->ring_at, &b->ra_cap, j->nrings + nkeys + 1,
		      sizeof(*j->ring_at)) ||
	    ibfm_grow((void **)&j->members, &b->mem_cap, j->nmembers + b->ncur,
		      sizeof(*j->members)))
		return -ENOMEM;
	j->ids[j->njobs] = strdup(id);
	if (!j->ids[j->njobs])
		return -ENOMEM;
	j->job_ring[j->njobs] = j->nrings;
	for (k = 0; k < nkeys; k++) {
		uint32_t at = j->nmembers;

		for (i = 0; i < b->ncur; i++)
			if (b->h.key[b->cur[i]] == k)
				j->members[j->nmembers++] =
					b->h.hca[b->cur[i]].port;
		if (j->nmembers - at < 2) {
			j->nmembers = at; /* no flow in a ring of one */
			continue;
		}
		j->ring_at[j->nrings++] = at;
	}
	j->ring_at[j->nrings] = j->nmembers;
	j->job_ring[++j->njobs] = j->nrings;
	b->ncur = 0;
	return 0;
}

static int build_init(struct build *b, const struct ibfm_fabric *f,
		      const struct ibfm_rails *rails, struct ibfm_jobs *j)
{
	memset(j, 0, sizeof(*j));
	memset(b, 0, sizeof(*b));
	b->j = j;
	if (hosts_init(&b->h, f, rails))
		return -ENOMEM;
	/* job_ring and ring_at always hold their closing entry. */
	if (ibfm_grow((void **)&j->job_ring, &b->jr_cap, 1,
		      sizeof(*j->job_ring)) ||
	    ibfm_grow((void **)&j->ring_at, &b->ra_cap, 1, sizeof(*j->ring_at)))
		return -ENOMEM;
	j->job_ring[0] = j->ring_at[0] = 0;
	return 0;
}

static void build_free(struct build *b)
{
	hosts_free(&b->h);
	free(b->cur);
}

/* Leading and trailing blanks off 's', in place. */
/* Takes member 'name' into the current job, 'id'. */
static int member_add(struct build *b, const char *name, const char *id,
		      const char *where, struct ibfm_err *err)
{
	uint32_t job = b->j->njobs;
	const struct hosts *h = &b->h;
	bool hca = strchr(name, ' ') != NULL;
	uint32_t first = 0, last = 0, p, got = 0;

	if (hca) {
		/* Its ports, through the per-port HCA index. */
		uint32_t node = ibfm_fabric_node_by_desc(h->f, name);

		if (node != IBFM_NONE &&
		    h->f->nodes[node].type == IBFM_NODE_CA) {
			first = h->f->nodes[node].port0 + 1;
			last = first + h->f->nodes[node].nports;
		}
	} else {
		uint32_t s = server_find(h, name, strlen(name));

		if (s != IBFM_NONE) {
			first = h->srv_at[s];
			last = h->srv_at[s + 1];
		}
	}
	if (first == last && b->skip_missing) {
		b->j->missing++;
		return 0;
	}
	if (first == last)
		return ibfm_err_set(err, -EINVAL, "%s: J03 unknown host '%s'",
				    where, name);
	for (p = first; p < last; p++) {
		uint32_t e = hca ? h->entry[p] : p;

		if (e == IBFM_NONE)
			continue;
		if (h->owner[e] != IBFM_NONE)
			return ibfm_err_set(
				err, -EINVAL,
				"%s: J04 host '%s' is already in job %s", where,
				name,
				h->owner[e] == job ? id
						   : b->j->ids[h->owner[e]]);
		h->owner[e] = job;
		if (cur_add(b, e))
			return ibfm_err_set(err, -ENOMEM, "out of memory");
		got++;
	}
	if (!got && b->skip_missing) {
		b->j->missing++;
		return 0;
	}
	if (!got)
		return ibfm_err_set(
			err, -EINVAL,
			"%s: J05 host '%s' has no connected HCA port", where,
			name);
	return 0;
}

/* One line of a jobs file, its comment cut off. 0 or -EINVAL/-ENOMEM. */
static int parse_line(struct build *b, char *line, const char *where,
		      struct ibfm_err *err)
{
	struct ibfm_jobs *j = b->j;
	char *id, *rest, **hosts = NULL;
	size_t n = 0, k;
	uint32_t i;
	int rc = ibfm_joblist_split_id(line, where, &id, &rest, err);

	for (i = 0; !rc && id && i < j->njobs; i++)
		if (!strcmp(j->ids[i], id))
			rc = ibfm_err_set(err, -EINVAL,
					  "%s: J02 job %s is already defined",
					  where, id);
	if (!rc && id)
		rc = ibfm_joblist_split_hosts(rest, where, id, &hosts, &n, err);
	for (k = 0; !rc && id && k < n; k++)
		rc = member_add(b, hosts[k], id, where, err);
	if (!rc && id && job_close(b, id))
		rc = ibfm_err_set(err, -ENOMEM, "out of memory");
	free(hosts);
	return rc;
}

/*
 * Reads the jobs file 'path' (opened by ibfm_file_open with 'flags':
 * never blocking, as the plugin reads it under OpenSM's lock) into '*j',
 * as ibfm_jobs_load says.
 */
static int load_file(const struct ibfm_fabric *f,
		     const struct ibfm_rails *rails, const char *path,
		     bool skip_missing, int flags, struct ibfm_jobs *j,
		     struct ibfm_err *err)
{
	struct build b;
	char *line = NULL, where[512];
	size_t cap = 0;
	unsigned lineno = 0;
	FILE *in;
	int rc;

	rc = build_init(&b, f, rails, j);
	if (rc) {
		build_free(&b);
		return ibfm_err_set(err, rc, "out of memory");
	}
	b.skip_missing = skip_missing;
	rc = ibfm_file_fopen(path, flags, IBFM_STATE_MAX_JOBS, NULL, &in, err);
	if (rc) {
		build_free(&b);
		return rc;
	}
	while (!rc && getline(&line, &cap, in) != -1) {
		lineno++;
		line[strcspn(line, "#")] = '\0';
		snprintf(where, sizeof(where), "%s:%u", path, lineno);
		rc = parse_line(&b, line, where, err);
	}
	free(line);
	fclose(in);
	build_free(&b);
	return rc;
}

int ibfm_jobs_read(const struct ibfm_fabric *f, const struct ibfm_rails *rails,
		   const char *path, struct ibfm_jobs *j, struct ibfm_err *err)
{
	return load_file(f, rails, path, false, 0, j, err);
}

int ibfm_jobs_load(const struct ibfm_fabric *f, const struct ibfm_rails *rails,
		   const char *path, bool skip_missing, struct ibfm_jobs *j,
		   struct ibfm_err *err)
{
	/* ibfmd's registry: a symlink in its place is refused too. */
	return load_file(f, rails, path, skip_missing, O_NOFOLLOW, j, err);
}

int ibfm_jobs_servers(const struct ibfm_fabric *f,
		      const struct ibfm_rails *rails, uint32_t *n)
{
	struct hosts h;
	int rc = hosts_init(&h, f, rails) ? -ENOMEM : 0;

	*n = rc ? 0 : h.nservers;
	hosts_free(&h);
	return rc;
}

int ibfm_jobs_random(const struct ibfm_fabric *f,
		     const struct ibfm_rails *rails, uint32_t njobs,
		     uint64_t seed, struct ibfm_jobs *j, struct ibfm_err *err)
{
	struct build b;
	uint32_t *order = NULL, size, i, x, e;
	uint64_t rng = seed;
	char id[32];
	int rc;

	rc = build_init(&b, f, rails, j);
	if (!rc && (!njobs || njobs > b.h.nservers))
		rc = ibfm_err_set(err, -EINVAL,
				  "%u jobs on %u servers: need 1 to %u", njobs,
				  b.h.nservers, b.h.nservers);
	if (!rc && !(order = malloc(b.h.nservers * sizeof(*order))))
		rc = -ENOMEM;
	if (rc)
		goto out;
	for (i = 0; i < b.h.nservers; i++)
		order[i] = i;
	ibfm_rng_shuffle(order, b.h.nservers, &rng);
	size = b.h.nservers / njobs;
	for (x = 0; !rc && x < njobs; x++) {
		uint32_t *mine = order + (size_t)x * size;

		/* In server order, as a scheduler's host list is. */
		for (i = 1; i < size; i++) {
			uint32_t v = mine[i], k = i;

			for (; k && mine[k - 1] > v; k--)
				mine[k] = mine[k - 1];
			mine[k] = v;
		}
		for (i = 0; !rc && i < size; i++)
			for (e = b.h.srv_at[mine[i]];
			     !rc && e < b.h.srv_at[mine[i] + 1]; e++)
				rc = cur_add(&b, e);
		snprintf(id, sizeof(id), "job%u", x + 1);
		if (!rc)
			rc = job_close(&b, id);
	}
out:
	if (rc == -ENOMEM)
		ibfm_err_set(err, rc, "out of memory");
	free(order);
	build_free(&b);
	return rc;
}

void ibfm_jobs_free(struct ibfm_jobs *j)
{
	uint32_t i;

	for (i = 0; j->ids && i < j->njobs; i++)
		free(j->ids[i]);
	free(j->ids);
	free(j->job_ring);
	free(j->ring_at);
	free(j->members);
	memset(j, 0, sizeof(*j));
}

/* The cut bound of the rings' flows (a member sends and receives one). */
static int ring_bound(const struct ibfm_fabric *f, const struct ibfm_jobs *j,
		      uint32_t *bound)
{
	struct ibfm_bound *b;
	uint32_t ri, i;

	if (ibfm_bound_create(f, j->members, j->nmembers, &b))
		return -ENOMEM;
	for (ri = 0; ri < j->nrings; ri++)
		for (i = j->ring_at[ri]; i < j->ring_at[ri + 1]; i++)
			if (ibfm_jobs_next(j, ri, i) != j->members[i])
				ibfm_bound_flow(b, j->members[i],
						ibfm_jobs_next(j, ri, i));
	*bound = ibfm_bound_close(b);
	ibfm_bound_destroy(b);
	return 0;
}

int ibfm_jobs_eval(const struct ibfm_fabric *f, const struct ibfm_lfts *t,
		   const struct ibfm_jobs *j, struct ibfm_jobs_result *r,
		   struct ibfm_err *err)
{
	const uint32_t H = IBFM_VERIFY_MAX_HOPS + 1;
	uint32_t *load = calloc(f->nports + 1, sizeof(*load));
	uint32_t *path = malloc(((size_t)j->nmembers * H + 1) * sizeof(*path));
	int *len = malloc(((size_t)j->nmembers + 1) * sizeof(*len));
	uint32_t x, ri, i, p;
	double sum = 0, speed = 0;

	memset(r, 0, sizeof(*r));
	if (!load || !path || !len || ring_bound(f, j, &r->lower_bound)) {
		free(load);
		free(path);
		free(len);
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	}
	for (ri = 0; ri < j->nrings; ri++)
		for (i = j->ring_at[ri]; i < j->ring_at[ri + 1]; i++) {
			uint32_t dst = ibfm_jobs_next(j, ri, i),
				 *pp = path + i * H;

			len[i] = ibfm_verify_path(f, t, j->members[i],
						  f->ports[dst].lid, pp, H);
			r->flows++;
			if (len[i] < 0)
				r->unrouted++;
			for (p = 0; len[i] > 0 && p < (uint32_t)len[i]; p++)
				load[pp[p]]++;
		}
	for (p = 0; p <= f->nports; p++) {
		if (load[p] > r->max_load) {
			r->max_load = load[p];
			r->max_port = p;
			r->links_at_max = 0;
		}
		r->links_at_max += load[p] && load[p] == r->max_load;
	}
	for (x = 0; x < j->njobs; x++) {
		double slowest = 1;

		if (j->job_ring[x] == j->job_ring[x + 1])
			continue;
		for (ri = j->job_ring[x]; ri < j->job_ring[x + 1]; ri++)
			for (i = j->ring_at[ri]; i < j->ring_at[ri + 1]; i++) {
				uint32_t most = 0;
				double share;

				for (p = 0; len[i] > 0 && p < (uint32_t)len[i];
				     p++)
					if (load[path[i * H + p]] > most)
						most = load[path[i * H + p]];
				share = most ? 1.0 / most : 0;
				sum += share;
				if (share < slowest)
					slowest = share;
			}
		speed += slowest;
		r->jobs++;
	}
	r->mean_flow_bw = r->flows ? sum / r->flows : 0;
	r->job_speed = r->jobs ? speed / r->jobs : 0;
	free(load);
	free(path);
	free(len);
	return 0;
}
