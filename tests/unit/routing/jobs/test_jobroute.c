// SPDX-License-Identifier: MIT
/*
 * Tests of routing/jobs/jobroute.c on every fabric of the zoo: job rings on
 * links of their own, tables still whole and free of credit loops, only
 * the jobs' members' entries changed, the rest's loads kept, a job start
 * or end touching only its own members, revert exact.
 */
#include "test_common.h"

#include "routing/jobs/jobroute.h"
#include "routing/jobs/jobs.h"
#include "routing/pass/route.h"
#include "routing/checks/verify.h"
#include "zoo.h"

/* Fabrics where the leaves have fewer up-links than hosts. */
static bool oversubscribed(const struct zoo_fabric *z)
{
	return z->preset && !strcmp(z->preset, "oversub-2to1");
}

static struct ibfm_route *zroute(const struct zoo_fabric *z)
{
	struct ibfm_route_opts o = { 0 };
	struct ibfm_route *pass;
	struct ibfm_fabric *f;
	struct ibfm_err err;

	if (zoo_build(z, &f, &err) || ibfm_fabric_assign_lids(f, 0, &err) ||
	    ibfm_route_build(f, NULL, &o, &pass, &err))
		fail_msg("%s: %s", z->name, err.msg);
	return pass;
}

/* The first 'n' jobs of 'j' (its arrays hold jobs in order). */
static struct ibfm_jobs first_jobs(const struct ibfm_jobs *j, uint32_t n)
{
	struct ibfm_jobs v = *j;

	v.njobs = n;
	v.nrings = j->job_ring[n];
	v.nmembers = j->ring_at[v.nrings];
	return v;
}

/* Marks the LIDs of the members of jobs [from, to) of 'j'. */
static void mark_members(const struct ibfm_fabric *f, const struct ibfm_jobs *j,
			 uint32_t from, uint32_t to, bool *lid)
{
	uint32_t m;

	for (m = j->ring_at[j->job_ring[from]]; m < j->ring_at[j->job_ring[to]];
	     m++)
		lid[f->ports[j->members[m]].lid] = true;
}

/* How many LIDs differ between 'a' and 'b' outside 'allowed'. */
static uint32_t changed_outside(const struct ibfm_lfts *a,
				const struct ibfm_lfts *b, const bool *allowed)
{
	uint32_t sw, lid, n = 0;

	for (lid = 0; lid <= a->top_lid; lid++)
		for (sw = 0; !allowed[lid] && sw < a->nsw; sw++)
			if (ibfm_lfts_row(a, sw)[lid] !=
			    ibfm_lfts_row(b, sw)[lid]) {
				n++;
				break;
			}
	return n;
}

/* A pattern's most flows on a link, and (if 'lower') its lower bound. */
static double pattern_bound(const struct ibfm_route *p, enum ibfm_pattern pat,
			    double *lower)
{
	struct ibfm_pattern_opts o = { .rails = &p->rails, .count = 64 };
	struct ibfm_load_result r;

	assert_int_equal(
		ibfm_verify_pattern(p->fabric, &p->lfts, pat, &o, &r, NULL), 0);
	assert_int_equal(r.unrouted, 0);
	if (lower)
		*lower = r.lower_bound;
	return r.max_load;
}

static double pattern_load(const struct ibfm_route *p, enum ibfm_pattern pat)
{
	return pattern_bound(p, pat, NULL);
}

/* Every pair reachable, no loop, no credit loop. */
static void assert_sound(const struct zoo_fabric *z, const struct ibfm_route *p)
{
	struct ibfm_verify_opts sw = { .switch_sources = true };
	struct ibfm_reach_result rr;
	struct ibfm_loop_result cr;

	assert_int_equal(ibfm_verify_reach(p->fabric, &p->lfts, &sw, &rr, NULL),
			 0);
	if (rr.unreachable || rr.loops)
		fail_msg("%s: %llu unreachable, %llu loops", z->name,
			 (unsigned long long)rr.unreachable,
			 (unsigned long long)rr.loops);
	assert_int_equal(
		ibfm_verify_credit_loops(p->fabric, &p->lfts, &sw, &cr, NULL),
		0);
	if (cr.loops)
		fail_msg("%s: %u credit loops", z->name, cr.loops);
}

/*
 * How much worse a pattern may get: one flow, and for all-to-all one
 * destination more on a link from one leaf (its hosts' flows). A job
 * flow's leaf sends its destination up the link the colouring gives,
 * whose other destinations stay: a link without a job destination before
 * gains one, whatever the scheme, unless entries of LIDs outside the
 * jobs move too.
 */
static double slack(const struct ibfm_route *p, enum ibfm_pattern pat)
{
	const struct ibfm_fabric *f = p->fabric;
	uint32_t n, q, most = 0;

	if (pat != IBFM_PATTERN_ALL2ALL)
		return 1;
	for (n = 0; n < f->nnodes; n++) {
		uint32_t cas = 0;

		for (q = f->nodes[n].port0 + 1;
		     ibfm_node_is_switch(&f->nodes[n]) &&
		     q <= f->nodes[n].port0 + f->nodes[n].nports;
		     q++)
			cas += f->ports[q].peer != IBFM_NONE &&
			       !ibfm_node_is_switch(
				       &f->nodes[f->ports[f->ports[q].peer]
							 .node]);
		if (cas > most)
			most = cas;
	}
	return most;
}

/*
 * How many flows a pattern may put on a link with the jobs routed:
 * 'before' (the static tables') plus slack. Where the balance by load
 * lowered the static all-to-all (a degraded tree, ftree_load.c), the jobs' colouring, which does not weigh loads, gives
 * part of that gain back (B200 less 2 switches: 736 balanced, 992 with
 * jobs, the positional route's 960 plus one leaf's flows): there, up to
 * twice the pattern's lower bound.
 */
static double job_bound(const struct ibfm_route *p, enum ibfm_pattern pat,
			double before)
{
	double lower;

	if (pat != IBFM_PATTERN_ALL2ALL || !p->stats.load_entries)
		return before + slack(p, pat);
	pattern_bound(p, pat, &lower);
	return 2 * lower > before + slack(p, pat) ? 2 * lower
						  : before + slack(p, pat);
}

/*
 * Random placements on every zoo fabric: load 1 and ring speed 1.0 where
 * the fabric has the links; only members' entries change; the whole
 * fabric's patterns no worse by more than 1; revert gives the static
 * tables back.
 */
static void test_zoo_placements(void **state)
{
	static const enum ibfm_pattern pats[] = { IBFM_PATTERN_SHIFT,
						  IBFM_PATTERN_RING,
						  IBFM_PATTERN_ALL2ALL };
	const struct zoo_fabric *z;

	(void)state;
	for (z = zoo; z->name; z++) {
		struct ibfm_route *p = zroute(z);
		struct ibfm_lfts base;
		double before[3];
		uint32_t seed, k;
		struct ibfm_err err;

		assert_int_equal(
			ibfm_lfts_copy(&base, p->fabric, &p->lfts, &err), 0);
		for (k = 0; k < 3; k++)
			before[k] = pattern_load(p, pats[k]);
		for (seed = 0; seed < 3; seed++) {
			struct ibfm_jobroute jr = { 0 };
			struct ibfm_jobroute_stats st;
			struct ibfm_jobs_result r;
			struct ibfm_jobs j;
			bool *members = calloc(p->lfts.top_lid + 1, 1);
			uint32_t njobs = seed == 2 ? 4 : 16;

			assert_non_null(members);
			assert_int_equal(ibfm_jobs_random(p->fabric, &p->rails,
							  njobs, seed, &j,
							  &err),
					 0);
			assert_int_equal(ibfm_jobroute_apply(&jr, p->fabric,
							     &p->lfts, &j, &st,
							     &err),
					 0);
			assert_int_equal(ibfm_jobs_eval(p->fabric, &p->lfts, &j,
							&r, &err),
					 0);
			assert_int_equal(r.unrouted, 0);
			assert_int_equal(st.kept, 0);
			assert_int_equal(st.local + st.own + st.shared,
					 st.flows);
			if (!oversubscribed(z)) {
				if (r.max_load != 1 || r.job_speed != 1.0 ||
				    st.shared)
					fail_msg("%s seed %u: load %u speed "
						 "%.3f shared %llu",
						 z->name, seed, r.max_load,
						 r.job_speed,
						 (unsigned long long)st.shared);
			}
			mark_members(p->fabric, &j, 0, j.njobs, members);
			assert_int_equal(
				changed_outside(&base, &p->lfts, members), 0);
			assert_int_equal(st.changed, st.entries);
			if (seed == 0) {
				assert_sound(z, p);
				for (k = 0; k < 3; k++)
					if (pattern_load(p, pats[k]) >
					    job_bound(p, pats[k], before[k]))
						fail_msg("%s: pattern %u load "
							 "%.0f, static %.0f",
							 z->name, k,
							 pattern_load(p,
								      pats[k]),
							 before[k]);
			}
			ibfm_jobroute_revert(&jr, &p->lfts);
			assert_memory_equal(base.ports, p->lfts.ports,
					    (size_t)base.nsw * base.stride);
			ibfm_jobroute_free(&jr);
			ibfm_jobs_free(&j);
			free(members);
		}
		ibfm_lfts_free(&base);
		ibfm_route_destroy(p);
	}
}

/*
 * The jobs' routes redone for the first 'n' jobs of 'j' (a start or an
 * end of job 'which'), figures in '*st'. Returns how many LIDs changed
 * outside job 'which''s members ('lids': scratch of top_lid + 1).
 */
static uint32_t reroute_first(struct ibfm_route *p, struct ibfm_jobroute *jr,
			      const struct ibfm_jobs *j, uint32_t n,
			      uint32_t which, bool *lids,
			      struct ibfm_jobroute_stats *st)
{
	struct ibfm_jobs v = first_jobs(j, n);
	struct ibfm_lfts before;
	struct ibfm_err err;
	uint32_t out;

	assert_int_equal(ibfm_lfts_copy(&before, p->fabric, &p->lfts, &err), 0);
	ibfm_jobroute_revert(jr, &p->lfts);
	assert_int_equal(
		ibfm_jobroute_apply(jr, p->fabric, &p->lfts, &v, st, &err), 0);
	memset(lids, 0, p->lfts.top_lid + 1);
	mark_members(p->fabric, j, which, which + 1, lids);
	out = changed_outside(&before, &p->lfts, lids);
	ibfm_lfts_free(&before);
	return out;
}

/*
 * A job start (the jobs so far plus one) changes entries of its own
 * members only, unless it says it moved others; a job end changes only
 * the ended job's members' entries, back to static, and moves nothing.
 */
static void test_start_end(void **state)
{
	const struct zoo_fabric *z;
	uint64_t moved = 0, starts = 0;

	(void)state;
	for (z = zoo; z->name; z++) {
		struct ibfm_route *p = zroute(z);
		struct ibfm_jobroute jr = { 0 };
		struct ibfm_jobroute_stats st;
		struct ibfm_jobs j;
		struct ibfm_err err;
		bool *lids = calloc(p->lfts.top_lid + 1, 1);
		uint32_t n, out;

		assert_non_null(lids);
		assert_int_equal(
			ibfm_jobs_random(p->fabric, &p->rails, 8, 7, &j, &err),
			0);
		for (n = 1; n <= j.njobs; n++) {
			out = reroute_first(p, &jr, &j, n, n - 1, lids, &st);
			if (!st.moved)
				assert_int_equal(out, 0);
			assert_true(out <= st.moved);
			moved += st.moved;
			starts++;
		}
		for (n = j.njobs; n-- > 1;) {
			out = reroute_first(p, &jr, &j, n, n, lids, &st);
			if (st.moved || out)
				fail_msg("%s: ending job %u moved %llu flows",
					 z->name, n + 1,
					 (unsigned long long)st.moved);
		}
		ibfm_jobroute_free(&jr);
		ibfm_jobs_free(&j);
		free(lids);
		ibfm_route_destroy(p);
	}
	print_message("job starts: %llu, flows of running jobs moved: %llu\n",
		      (unsigned long long)starts, (unsigned long long)moved);
}

/* Keeps the pass's last note. */
static void keep_note(void *ctx, enum ibfm_log_level level, const char *msg)
{
	(void)level;
	snprintf(ctx, 512, "%s", msg);
}

/* The port of the CA described 'desc'. */
static uint32_t ca_port(const struct ibfm_fabric *f, const char *desc)
{
	uint32_t n = ibfm_fabric_node_by_desc(f, desc);

	assert_int_not_equal(n, IBFM_NONE);
	return f->nodes[n].port0 + 1;
}

/*
 * The routing pass reads the jobs file: job routes in the tables, kept
 * through a repair after a lost link, a member that is not in the fabric
 * left out, a list changed on the same fabric touching only the members
 * of the job it adds, a list that does not read noted (P12) with static
 * tables.
 */
static void test_pass(void **state)
{
	const struct zoo_fabric *z = &zoo[1]; /* ftree2-k16: 128 hosts */
	/* d-mod-k sends 001->017 and 002->025 up one link of leaf 1. */
	static const char one[] = "a node001,node017,node002,node025\n";
	static const char two[] = "a node001,node017,node002,node025\n"
				  "b node003,node033,node004,node041,node999\n";
	char path[64], note[512] = "";
	struct ibfm_sharp_opts so = { 0 };
	struct ibfm_route_opts o = { .log = { keep_note, note }, .sharp = &so };
	struct ibfm_route *p = zroute(z);
	struct ibfm_jobs_result r;
	struct ibfm_lfts before;
	struct ibfm_jobs j;
	struct ibfm_fabric *f, *g;
	struct ibfm_err err;
	bool *lids;
	uint32_t n;
	FILE *out;

	(void)state;
	snprintf(path, sizeof(path), "%s", tmpfile_with(one));
	o.jobs_file = path;
	f = ibfm_fabric_clone(p->fabric);
	assert_non_null(f);
	ibfm_route_destroy(p);
	assert_int_equal(ibfm_route_build(f, NULL, &o, &p, &err), 0);
	assert_int_equal(p->njobs, 1);
	assert_int_equal(p->jobs.flows, 4);
	assert_int_equal(p->jobs.own, 4);
	assert_true(p->jobs.entries > 0);
	assert_non_null(strstr(note, "jobs: 1 running, 4 ring flows"));
	/* Its SHARP tree, carved from the pass's trees, named by its ID. */
	assert_non_null(p->trees);
	assert_int_equal(p->nsharp_jobs, 1);
	assert_string_equal(p->sharp_jobs[0].name, "a");
	assert_int_equal(p->sharp_jobs[0].hosts, 4);
	assert_int_equal(ibfm_jobs_read(p->fabric, NULL, path, &j, &err), 0);
	assert_int_equal(ibfm_jobs_eval(p->fabric, &p->lfts, &j, &r, &err), 0);
	assert_int_equal(r.max_load, 1);
	ibfm_jobs_free(&j);

	/* A spine up-link of the first leaf goes: repaired, jobs kept. */
	g = ibfm_fabric_clone(p->fabric);
	assert_non_null(g);
	n = ca_port(g, "node001 mlx5_0");
	n = g->ports[n].peer; /* the leaf's port */
	n = g->nodes[g->ports[n].node].port0 +
	    g->nodes[g->ports[n].node].nports;
	ibfm_fabric_unlink(g, n);
	assert_int_equal(ibfm_route_update(&p, g, NULL, &o, &err), 0);
	assert_true(p->incremental);
	assert_int_equal(p->jobs.own, 4);
	assert_int_equal(ibfm_jobs_read(p->fabric, NULL, path, &j, &err), 0);
	assert_int_equal(ibfm_jobs_eval(p->fabric, &p->lfts, &j, &r, &err), 0);
	assert_int_equal(r.max_load, 1);
	assert_int_equal(r.unrouted, 0);
	ibfm_jobs_free(&j);

	/* Job b starts (node999 is not in the fabric): same fabric. */
	out = fopen(path, "w");
	assert_non_null(out);
	fputs(two, out);
	fclose(out);
	assert_int_equal(ibfm_lfts_copy(&before, p->fabric, &p->lfts, &err), 0);
	g = ibfm_fabric_clone(p->fabric);
	assert_int_equal(ibfm_route_update(&p, g, NULL, &o, &err), 0);
	assert_true(p->incremental);
	assert_int_equal(p->delta.entries, 0);
	assert_int_equal(p->njobs, 2);
	assert_int_equal(p->jobs_missing, 1);
	assert_int_equal(p->jobs.moved, 0);
	assert_true(p->jobs.changed > 0);
	lids = calloc(p->lfts.top_lid + 1, 1);
	assert_non_null(lids);
	assert_int_equal(ibfm_jobs_load(p->fabric, NULL, path, true, &j, &err),
			 0);
	mark_members(p->fabric, &j, 1, 2, lids);
	assert_int_equal(changed_outside(&before, &p->lfts, lids), 0);
	ibfm_jobs_free(&j);
	ibfm_lfts_free(&before);
	free(lids);

	/* A list that does not read: P12, static tables. */
	out = fopen(path, "w");
	assert_non_null(out);
	fputs("a node001\na node002\n", out);
	fclose(out);
	assert_int_equal(ibfm_lfts_copy(&before, p->fabric, &p->lfts, &err), 0);
	ibfm_jobroute_revert(&p->jobroute, &before);
	g = ibfm_fabric_clone(p->fabric);
	assert_int_equal(ibfm_route_update(&p, g, NULL, &o, &err), 0);
	assert_non_null(strstr(note, "P12"));
	assert_int_equal(p->jobroute.n, 0);
	assert_memory_equal(before.ports, p->lfts.ports,
			    (size_t)before.nsw * before.stride);
	ibfm_lfts_free(&before);
	ibfm_route_destroy(p);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zoo_placements),
		cmocka_unit_test(test_start_end),
		cmocka_unit_test(test_pass),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
