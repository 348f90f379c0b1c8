// SPDX-License-Identifier: MIT
/*
 * The full route's threads (routing/engine/ftree_span.c, routing/base/par.h): the
 * same tables for every thread count, on every fabric of the test zoo,
 * with LIDs in node order and dealt out in random orders (as an SM
 * numbers them), with one LID per port and with LMC 2. The route with
 * one thread is the reference; no count may differ from it by a byte.
 */
#include "test_common.h"

#include "routing/base/clock.h"
#include "routing/engine/ftree.h"
#include "routing/topo/gen.h"
#include "routing/base/par.h"
#include "routing/model/rail.h"
#include "zoo.h"

static const unsigned counts[] = { 2, 3, 5, 16 };

/* The tables of 'f' routed on 'threads' threads. */
static void route_on(struct ibfm_fabric *f, const struct ibfm_rails *rails,
		     unsigned threads, struct ibfm_lfts *out)
{
	struct ibfm_ftree_opts o = { .rails = rails, .threads = threads };
	struct ibfm_ftree *t;
	struct ibfm_err err;

	memset(out, 0, sizeof(*out));
	if (ibfm_ftree_create(f, &o, &t, &err) ||
	    ibfm_ftree_route(t, out, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(ibfm_ftree_stats(t)->threads, threads);
	ibfm_ftree_destroy(t);
}

static void same_for_every_count(const char *name, struct ibfm_fabric *f)
{
	struct ibfm_rails rails;
	struct ibfm_lfts ref, l;
	struct ibfm_err err;
	size_t k;

	if (ibfm_rail_detect(f, NULL, NULL, &rails, &err))
		fail_msg("%s: %s", name, err.msg);
	route_on(f, &rails, 1, &ref);
	for (k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		route_on(f, &rails, counts[k], &l);
		assert_int_equal(l.stride, ref.stride);
		if (memcmp(l.ports, ref.ports, (size_t)ref.nsw * ref.stride))
			fail_msg("%s: %u threads route otherwise than one",
				 name, counts[k]);
		ibfm_lfts_free(&l);
	}
	ibfm_lfts_free(&ref);
	ibfm_rails_free(&rails);
}

static void each_zoo_fabric(unsigned lmc, uint64_t shuffle)
{
	const struct zoo_fabric *z;

	for (z = zoo; z->name; z++) {
		struct ibfm_fabric *f;
		struct ibfm_err err;

		if (zoo_build(z, &f, &err) ||
		    ibfm_fabric_assign_lids(f, lmc, &err) ||
		    (shuffle && ibfm_fabric_shuffle_lids(f, shuffle, &err)))
			fail_msg("%s: %s", z->name, err.msg);
		same_for_every_count(z->name, f);
		ibfm_fabric_destroy(f);
	}
}

static void test_threads_lids_in_order(void **state)
{
	(void)state;
	each_zoo_fabric(0, 0);
}

static void test_threads_lids_shuffled(void **state)
{
	(void)state;
	each_zoo_fabric(0, 7);
	each_zoo_fabric(0, 1234567);
}

static void test_threads_lmc(void **state)
{
	(void)state;
	each_zoo_fabric(2, 0);
}

/*
 * The engine's tables faulted in while it is built are the route's only
 * when the destinations' top LID gives their row length: a CA with the
 * fabric's highest LID but no link (no destination) lengthens the
 * fabric's rows by a block, and the tables keep the row length of the
 * destinations', as one thread (which faults nothing in) gives them.
 * A second route on the same engine has no fresh tables: the same.
 */
static void test_threads_fresh_tables_row_length(void **state)
{
	const struct ibfm_gen_params p = { .levels = 2, .radix = 8 };
	struct ibfm_fabric *f;
	struct ibfm_ftree_opts o = { .threads = 2 };
	struct ibfm_ftree *t;
	struct ibfm_lfts ref, l = { 0 };
	struct ibfm_err err;
	uint32_t n, ca = IBFM_NONE;

	(void)state;
	if (ibfm_gen_build(&p, &f, &err) || ibfm_fabric_assign_lids(f, 0, &err))
		fail_msg("%s", err.msg);
	for (n = 0; n < f->nnodes && ca == IBFM_NONE; n++)
		if (!ibfm_node_is_switch(&f->nodes[n]))
			ca = ibfm_fabric_port(f, n, 1);
	ibfm_fabric_unlink(f, ca);
	f->ports[ca].lid = (uint16_t)(f->max_lid + 100);
	if (ibfm_fabric_finish(f, &err))
		fail_msg("%s", err.msg);
	route_on(f, NULL, 1, &ref);
	assert_true(ref.stride < f->max_lid);
	if (ibfm_ftree_create(f, &o, &t, &err))
		fail_msg("%s", err.msg);
	for (int pass = 0; pass < 2; pass++) {
		if (ibfm_ftree_route(t, &l, &err))
			fail_msg("%s", err.msg);
		assert_int_equal(l.stride, ref.stride);
		assert_int_equal(l.top_lid, ref.top_lid);
		assert_memory_equal(l.ports, ref.ports,
				    (size_t)ref.nsw * ref.stride);
	}
	ibfm_ftree_destroy(t);
	ibfm_lfts_free(&l);
	ibfm_lfts_free(&ref);
	ibfm_fabric_destroy(f);
}

/* Every task runs once, whatever the pool's size and the task count. */
static void count_task(void *ctx, uint32_t task, unsigned thread)
{
	uint32_t *hits = ctx;

	(void)thread;
	__atomic_fetch_add(&hits[task], 1, __ATOMIC_RELAXED);
}

static void test_par_runs_each_task_once(void **state)
{
	static const uint32_t ntasks[] = { 0, 1, 2, 3, 5, 17, 1000 };
	uint32_t hits[1000], k;
	unsigned n, i;

	(void)state;
	for (n = 1; n <= 5; n++) {
		struct ibfm_par *p = ibfm_par_new(n);
		int run;

		assert_non_null(p);
		assert_int_equal(ibfm_par_threads(p), n);
		for (run = 0; run < 20; run++)
			for (i = 0; i < sizeof(ntasks) / sizeof(*ntasks); i++) {
				memset(hits, 0, sizeof(hits));
				ibfm_par_run(p, ntasks[i], count_task, hits);
				for (k = 0; k < 1000; k++)
					assert_int_equal(hits[k],
							 k < ntasks[i]);
			}
		ibfm_par_free(p);
	}
	assert_true(ibfm_par_default_threads() >= 1 &&
		    ibfm_par_default_threads() <= 16);
}

/*
 * A run started, the caller away: the workers take its tasks without it
 * (with workers: bounded, 10 s), join takes the rest and waits, each
 * task once; freeing a pool joins a run started and not joined.
 */
static void test_par_start_join(void **state)
{
	static uint32_t hits[1000];
	unsigned n;
	uint32_t k;

	(void)state;
	for (n = 1; n <= 4; n++) {
		struct ibfm_par *p = ibfm_par_new(n);
		double end = ibfm_clock_ms() + 10e3;
		uint32_t some = 0;

		assert_non_null(p);
		memset(hits, 0, sizeof(hits));
		ibfm_par_start(p, 1000, count_task, hits);
		while (n > 1 && !some && ibfm_clock_ms() < end)
			for (k = 0; k < 1000; k++)
				some += __atomic_load_n(&hits[k],
							__ATOMIC_RELAXED);
		assert_true(n == 1 || some);
		ibfm_par_join(p);
		for (k = 0; k < 1000; k++)
			assert_int_equal(hits[k], 1);
		memset(hits, 0, sizeof(hits));
		ibfm_par_start(p, 1000, count_task, hits);
		ibfm_par_free(p);
		for (k = 0; k < 1000; k++)
			assert_int_equal(hits[k], 1);
	}
}

/*
 * Task 0 waits until every other task has run: its thread's other
 * tasks (the first of the pool's blocks) must be taken by the others.
 * Bounded: a pool that leaves them waiting fails, after 10 s.
 */
struct held {
	uint32_t ntasks, done;
	bool all_done;
};

static void held_task(void *ctx, uint32_t task, unsigned thread)
{
	struct held *h = ctx;
	double end = ibfm_clock_ms() + 10e3;

	(void)thread;
	if (task) {
		__atomic_fetch_add(&h->done, 1, __ATOMIC_RELEASE);
		return;
	}
	while (__atomic_load_n(&h->done, __ATOMIC_ACQUIRE) < h->ntasks - 1 &&
	       ibfm_clock_ms() < end)
		;
	h->all_done =
		__atomic_load_n(&h->done, __ATOMIC_ACQUIRE) == h->ntasks - 1;
}

static void test_par_held_thread_tasks_taken_by_others(void **state)
{
	unsigned n;

	(void)state;
	for (n = 2; n <= 4; n++) {
		struct ibfm_par *p = ibfm_par_new(n);
		struct held h = { .ntasks = 64 };

		assert_non_null(p);
		ibfm_par_run(p, h.ntasks, held_task, &h);
		assert_true(h.all_done);
		ibfm_par_free(p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_par_runs_each_task_once),
		cmocka_unit_test(test_par_held_thread_tasks_taken_by_others),
		cmocka_unit_test(test_par_start_join),
		cmocka_unit_test(test_threads_fresh_tables_row_length),
		cmocka_unit_test(test_threads_lids_in_order),
		cmocka_unit_test(test_threads_lids_shuffled),
		cmocka_unit_test(test_threads_lmc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
