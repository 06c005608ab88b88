// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_estimator.c - clocksync/estimator.c's interface, case by case
 * (the statistics are test_drift.c's business).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "clocksync/estimator.h"
#include "clocksync/sim.h"

/* guest = host + 1000, each message 100 ticks in flight, replies 50 later */
static struct hvt_exchange ex_at(uint64_t h, int64_t offset)
{
	struct hvt_exchange ex = { h, h + 100 + (uint64_t)offset, h + 150 + (uint64_t)offset, h + 250 };

	return ex;
}

static void test_empty_and_single(void **state)
{
	struct hvt_estimator *e = hvt_est_new();
	struct hvt_est_value v;
	struct hvt_exchange ex = ex_at(1000000, 1000);

	(void)state;
	assert_int_equal(hvt_est_eval(e, 5, &v), -1);
	assert_int_equal(hvt_est_now(e, 5, &v), -1);
	assert_int_equal(hvt_est_exchange(e, &ex), HVT_EST_USED);
	assert_int_equal(hvt_est_eval(e, 1000000, &v), 0);
	assert_false(v.bounded);	/* one exchange cannot fix a slope */
	hvt_est_free(e);
	hvt_est_free(NULL);
}

static void test_constant_offset_bounds(void **state)
{
	struct hvt_estimator *e = hvt_est_new();
	struct hvt_est_segment_info info;
	struct hvt_est_value v;
	uint64_t h;

	(void)state;
	for (h = 1000000; h < 2000000; h += 10000) {
		struct hvt_exchange ex = ex_at(h, 1000);

		assert_int_not_equal(hvt_est_exchange(e, &ex), HVT_EST_SPLIT);
	}
	hvt_est_segment_info(e, 0, &info);
	assert_int_equal(info.samples, 200);
	assert_true(info.amin <= 1.0 && 1.0 <= info.amax);
	assert_int_equal(hvt_est_now(e, 1500000, &v), 0);
	assert_true(v.bounded && v.lo <= 1501000 && 1501000 <= v.hi);
	assert_int_equal(hvt_est_eval(e, 1500000, &v), 0);
	assert_true(v.bounded && v.lo <= 1501000 && 1501000 <= v.hi);
	/* 100 ticks each way: the offset is known within +/-100 */
	assert_true(v.hi - v.lo <= 200);
	assert_int_equal(hvt_est_nr_segments(e), 1);
	hvt_est_free(e);
}

static void test_jump_splits(void **state)
{
	struct hvt_estimator *e = hvt_est_new();
	struct hvt_est_segment_info info;
	struct hvt_est_value v;
	uint64_t h;
	int split = 0;

	(void)state;
	for (h = 1000000; h < 3000000; h += 10000) {
		struct hvt_exchange ex = ex_at(h, h < 2000000 ? 1000 : 500000);

		split += hvt_est_exchange(e, &ex) == HVT_EST_SPLIT;
	}
	assert_int_equal(split, 1);
	assert_int_equal(hvt_est_nr_segments(e), 2);
	hvt_est_segment_info(e, 1, &info);
	assert_true(info.host_first >= 2000000 && info.samples > 100);
	/* far from the jump each side is exact to its delays */
	assert_int_equal(hvt_est_eval(e, 1500000, &v), 0);
	assert_true(v.lo <= 1501000 && 1501000 <= v.hi && !v.in_window);
	assert_int_equal(hvt_est_eval(e, 2500000, &v), 0);
	assert_true(v.lo <= 3000000 && 3000000 <= v.hi && !v.in_window);
	/* just before the jump: either side, the union holds the truth */
	assert_int_equal(hvt_est_eval(e, 1999990, &v), 0);
	assert_true(v.lo <= 1999990 + 1000 && 1999990 + 1000 <= v.hi);
	hvt_est_free(e);
}

static void test_out_of_order_and_range(void **state)
{
	struct hvt_estimator *e = hvt_est_new();
	struct hvt_est_value v;
	struct hvt_exchange late = ex_at(1500000, 1000);
	uint64_t h;

	(void)state;
	for (h = 1000000; h < 2000000; h += 100000) {
		struct hvt_exchange ex = ex_at(h + 50000, 1000);

		hvt_est_exchange(e, &ex);
	}
	/* an older but tighter exchange (10 ticks each hop) still counts */
	late.guest_recv = 1500000 + 10 + 1000;
	late.guest_send = 1500000 + 20 + 1000;
	late.host_recv = 1500000 + 30;
	assert_int_equal(hvt_est_exchange(e, &late), HVT_EST_USED);
	assert_int_equal(hvt_est_eval(e, 1500000, &v), 0);
	assert_true(v.lo <= 1501000 && 1501000 <= v.hi && v.hi - v.lo <= 40);
	/* more than 2^61 ticks away from the first sample: refused */
	assert_int_equal(hvt_est_h2g(e, 1ull << 62, 5), HVT_EST_REJECTED);
	hvt_est_free(e);
}

/* guest = host + 1000000, jumping back 60000 ticks at host 5000000 */
static uint64_t one_way_truth(uint64_t h)
{
	return h + 1000000 - (h >= 5000000 ? 60000 : 0);
}

/*
 * Only one-way messages (hypercall-like sync points), delays up to 20000
 * ticks, a message every 3000: with no round trip to learn the delay from,
 * the boundary after a backwards jump is settled with the bound given by
 * hvt_est_set_max_delay(), and no instant may exclude the truth. (Without the
 * bound, samples still in flight across the jump end up on the wrong side.)
 */
static void test_one_way_with_delay_bound(void **state)
{
	unsigned long violations = 0, splits = 0;
	int seed;

	(void)state;
	for (seed = 1; seed <= 50; seed++) {
		struct hvt_sim_rng r = { (uint64_t)seed * 7919 };
		struct hvt_estimator *e = hvt_est_new();
		struct hvt_est_value v;
		uint64_t h;

		hvt_est_set_max_delay(e, 20000);
		for (h = 1000000; h < 9000000; h += 3000) {
			uint64_t d = hvt_sim_rand(&r) % 20000;

			if (hvt_sim_rand(&r) & 1)
				hvt_est_h2g(e, h, one_way_truth(h + d));
			else
				hvt_est_g2h(e, one_way_truth(h), h + d);
		}
		assert_int_equal(hvt_est_finish(e), 0);
		splits += hvt_est_nr_segments(e) > 1;
		for (h = 1100000; h < 8900000; h += 1000) {
			uint64_t t = one_way_truth(h);

			assert_int_equal(hvt_est_eval(e, h, &v), 0);
			violations += v.bounded && (t < v.lo || t > v.hi);
		}
		hvt_est_free(e);
	}
	assert_int_equal(splits, 50);
	assert_int_equal(violations, 0);
}

/* guest = host + 1000000, jumping back 500000 ticks at host 2000000 (a paused VM) */
static uint64_t jump_truth(uint64_t h)
{
	return h + (h >= 2000000 ? 500000 : 1000000);
}

/*
 * Before the jump at 2000000: loose exchanges every 100000 ticks (20000 in
 * flight), tight one-way messages every 3000 (delays up to 100), as run
 * edges are; after it the same, and maybe one exchange answered 3000000
 * ticks late (a guest that stalled). The one-way messages given their own
 * delay (@within) or not. The width of the slopes that the samples
 * certainly of the first segment allow, after hvt_est_finish(); every
 * instant's interval must hold the truth. INFINITY: no slope is bounded.
 */
static double first_slopes_with(bool slow, bool within)
{
	struct hvt_sim_rng r = { 4243 };
	struct hvt_estimator *e = hvt_est_new();
	struct hvt_est_segment_info first;
	struct hvt_est_value v;
	uint64_t h, next_ex = 1000000;

	for (h = 1000000; h < 6000000; h += 3000) {
		uint64_t d = hvt_sim_rand(&r) % 100;

		if (h >= next_ex) {
			struct hvt_exchange ex = { next_ex, jump_truth(next_ex + 10000),
						   jump_truth(next_ex + 10000), next_ex + 20000 };

			if (slow && next_ex == 2500000) {	/* read at its end */
				ex.guest_recv = jump_truth(next_ex + 2999800);
				ex.guest_send = jump_truth(next_ex + 2999900);
				ex.host_recv = next_ex + 3000000;
			}
			hvt_est_exchange(e, &ex);
			next_ex += 100000;
		}
		if (hvt_sim_rand(&r) & 1) {
			if (within)
				hvt_est_h2g_within(e, h, jump_truth(h + d), 100);
			else
				hvt_est_h2g(e, h, jump_truth(h + d));
		} else if (within) {
			hvt_est_g2h_within(e, jump_truth(h), h + d, 100);
		} else {
			hvt_est_g2h(e, jump_truth(h), h + d);
		}
	}
	assert_int_equal(hvt_est_finish(e), 0);
	assert_int_equal(hvt_est_nr_segments(e), 2);
	for (h = 1050000; h < 5950000; h += 1000) {
		assert_int_equal(hvt_est_eval(e, h, &v), 0);
		assert_true(!v.bounded || (v.lo <= jump_truth(h) && jump_truth(h) <= v.hi));
	}
	hvt_est_segment_info(e, 0, &first);
	hvt_est_free(e);
	if (first.certain_amax <= 0)
		return INFINITY;	/* no slope bounded */
	return first.certain_amax - first.certain_amin;
}

/*
 * A one-way message given its own delay is judged by it at a clock change,
 * not by the longest round trip: one exchange answered late (a guest that
 * stalled for seconds) must not leave the segment before the change with
 * only its loose exchanges as certain (a vCPU run edge's bound is such a
 * message).
 */
static void test_one_way_own_delay(void **state)
{
	double quick = first_slopes_with(false, true), slow = first_slopes_with(true, true);
	double unowned = first_slopes_with(true, false);

	(void)state;
	print_message("first segment's certain slopes: %.3g wide, %.3g with a slow exchange, "
		      "%.3g without own delays\n", quick, slow, unowned);
	assert_true(slow <= quick * 1.01);
	/* without their own delay the slow exchange's round trip widens them */
	assert_true(unowned > 10 * quick);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_and_single),
		cmocka_unit_test(test_constant_offset_bounds),
		cmocka_unit_test(test_jump_splits),
		cmocka_unit_test(test_out_of_order_and_range),
		cmocka_unit_test(test_one_way_with_delay_bound),
		cmocka_unit_test(test_one_way_own_delay),
	};

	return cmocka_run_group_tests_name("estimator", tests, NULL, NULL);
}
