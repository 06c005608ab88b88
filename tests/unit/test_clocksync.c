// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_clocksync.c - the offset fit's guarantee (the truth is always inside
 * its interval while the model holds), its refusal when the model breaks,
 * and the fixed-point maps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include <hvtrace/clock_math.h>

#include "clocksync/clocksync.h"
#include "clocksync/host_clock.h"
#include "clocksync/realtime_tsc.h"
#include "clocksync/sim.h"

/* Deterministic pseudo-random delays, heavy-tailed enough to matter. */
static struct hvt_sim_rng rng = { 88172645463325252ull };

static uint64_t next_rand(void)
{
	return hvt_sim_rand(&rng);
}

static uint64_t delay(void)
{
	uint64_t r = next_rand();

	return 2000 + r % 20000 + ((r >> 40) % 64 == 0 ? 500000 : 0);
}

/* Exchanges against a guest whose TSC = host TSC + offset (+ drift_ppm). */
static void simulate(struct hvt_offset_fit *fit, int64_t offset, double drift_ppm, int n)
{
	uint64_t t = 1000000000ull;
	int i;

	for (i = 0; i < n; i++) {
		struct hvt_exchange ex;
		uint64_t recv, send;

		t += 10000000;
		ex.host_send = t;
		recv = t + delay();
		send = recv + 3000;
		ex.guest_recv = (uint64_t)((int64_t)recv + offset + (int64_t)(recv * drift_ppm / 1e6));
		ex.guest_send = (uint64_t)((int64_t)send + offset + (int64_t)(send * drift_ppm / 1e6));
		ex.host_recv = send + delay();
		hvt_offset_fit_exchange(fit, &ex);
	}
}

static void test_truth_inside_interval(void **state)
{
	const int64_t offsets[] = { 0, 1, -1, 123456789, -5126008982723ll, INT64_MAX / 4 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(offsets) / sizeof(offsets[0]); i++) {
		struct hvt_offset_fit fit;
		struct hvt_offset_estimate est;
		int64_t err;

		hvt_offset_fit_init(&fit);
		simulate(&fit, offsets[i], 0, 500);
		assert_int_equal(hvt_offset_fit_result(&fit, &est), 0);
		assert_true(est.consistent && est.bounded);
		assert_true(est.lo <= offsets[i] && offsets[i] <= est.hi);
		err = est.offset - offsets[i];
		assert_true((uint64_t)llabs(err) <= est.bound);
		/* min delay is 2000 ticks each way: the bound gets close to it */
		assert_true(est.bound < 10000);
	}
}

static void test_drift_is_detected(void **state)
{
	struct hvt_offset_fit fit;
	struct hvt_offset_estimate est;

	(void)state;
	hvt_offset_fit_init(&fit);
	simulate(&fit, 1000, 100.0, 500);	/* 100 ppm over 5 s: 500 us apart */
	assert_int_equal(hvt_offset_fit_result(&fit, &est), 0);
	assert_false(est.consistent);
	assert_int_equal(est.bound, UINT64_MAX);
}

static void test_one_sided(void **state)
{
	struct hvt_offset_fit fit;
	struct hvt_offset_estimate est;

	(void)state;
	hvt_offset_fit_init(&fit);
	assert_int_equal(hvt_offset_fit_result(&fit, &est), -1);
	hvt_offset_fit_host_to_guest(&fit, 100, 1100);	/* offset <= 1000 */
	assert_int_equal(hvt_offset_fit_result(&fit, &est), 0);
	assert_false(est.bounded);
	assert_int_equal(est.hi, 1000);
	assert_int_equal(est.bound, UINT64_MAX);
	hvt_offset_fit_guest_to_host(&fit, 1500, 600);	/* offset >= 900 */
	assert_int_equal(hvt_offset_fit_result(&fit, &est), 0);
	assert_true(est.bounded && est.consistent);
	assert_int_equal(est.offset, 950);
	assert_int_equal(est.bound, 50);
}

static void test_mult_shift_precision(void **state)
{
	const uint64_t freqs[] = { 1000000, 999999937, 2000000000, 2445432000, 5000000000ull };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(freqs) / sizeof(freqs[0]); i++) {
		struct hvt_linear_map m = { .base = 0, .base_ns = 0 };
		uint64_t hour = freqs[i] * 3600;
		int64_t ns;

		assert_int_equal(hvt_mult_shift(1000000000, freqs[i], &m.mult, &m.shift), 0);
		assert_true(m.mult < (1ull << 63));
		ns = hvt_linear_map_apply(&m, hour);
		/* one hour of ticks is 3600 s to the nanosecond */
		assert_true(llabs(ns - 3600000000000ll) <= 1);
		assert_int_equal(hvt_linear_map_freq_hz(&m), freqs[i]);
	}
	assert_int_equal(hvt_mult_shift(1, 0, &(uint64_t){ 0 }, &(uint32_t){ 0 }), -1);
}

static void test_scale_both_sides_of_base(void **state)
{
	(void)state;
	/* 0.5 ns per tick */
	assert_int_equal(hvt_clock_scale(1000, 1000, 500, 1ull << 31, 32), 500);
	assert_int_equal(hvt_clock_scale(1010, 1000, 500, 1ull << 31, 32), 505);
	assert_int_equal(hvt_clock_scale(990, 1000, 500, 1ull << 31, 32), 495);
	assert_int_equal(hvt_clock_scale(1001, 1000, 500, 1ull << 31, 32), 500);
	assert_int_equal(hvt_clock_scale(999, 1000, 500, 1ull << 31, 32), 500);
	/* far from the base, no overflow */
	assert_int_equal(hvt_clock_scale(UINT64_MAX, 0, 0, 1ull << 62, 63),
			 (int64_t)(UINT64_MAX / 2));
	/* beyond the s64 range: saturated, never wrapped */
	assert_int_equal(hvt_clock_scale(UINT64_MAX, 0, INT64_MAX - 5, 1ull << 62, 62), INT64_MAX);
	assert_int_equal(hvt_clock_scale(0, UINT64_MAX, INT64_MIN + 5, 1ull << 62, 62), INT64_MIN);
	assert_int_equal(hvt_clock_scale(0, UINT64_MAX, -1, 1ull << 62, 62), INT64_MIN);
}

static void test_linear_map_fit(void **state)
{
	struct hvt_clock_pair pairs[3] = {
		{ 1000000, 5000000000ll, 0, 10 },
		{ 2000000, 5000500000ll, 0, 10 },
		{ 3001000000ull, 6500000000ll, 0, 10 },	/* 2 GHz */
	};
	struct hvt_linear_map m;

	(void)state;
	assert_int_equal(hvt_linear_map_fit(pairs, 3, &m), 0);
	assert_int_equal(hvt_linear_map_apply(&m, 1000000), 5000000000ll);
	/* fixed point: within a nanosecond at the far end */
	assert_true(llabs(hvt_linear_map_apply(&m, 3001000000ull) - 6500000000ll) <= 1);
	assert_int_equal(hvt_linear_map_freq_hz(&m), 2000000000ull);
	assert_int_equal(hvt_linear_map_fit(pairs, 1, &m), -1);
	pairs[2].tsc = 10;	/* backwards */
	assert_int_equal(hvt_linear_map_fit(pairs, 3, &m), -1);
}

/* NTP slews CLOCK_MONOTONIC between two pairs: the map follows each interval. */
static void test_host_clock_piecewise(void **state)
{
	const struct hvt_clock_pair pairs[] = {
		{ 1000000000ull, 500000000ll, 1700000000000000000ll, 5 },
		{ 3000000000ull, 1500000000ll, 1700000001000000000ll, 5 },	/* 2 GHz */
		{ 5000000000ull, 2500500000ll, 1700000002000500000ll, 5 },	/* +500 ppm */
	};
	struct hvt_host_clock c;
	int64_t in_order[41];
	uint64_t t;
	int i;

	(void)state;
	assert_int_equal(hvt_host_clock_init(&c, pairs, 3, 0), 0);
	assert_int_equal(hvt_host_clock_mono(&c, 1000000000ull), 500000000ll);
	assert_int_equal(hvt_host_clock_mono(&c, 3000000000ull), 1500000000ll);
	assert_int_equal(hvt_host_clock_mono(&c, 5000000000ull), 2500500000ll);
	assert_int_equal(hvt_host_clock_mono(&c, 2000000000ull), 1000000000ll);
	assert_true(llabs(hvt_host_clock_mono(&c, 4000000000ull) - 2000250000ll) <= 1);
	assert_int_equal(hvt_host_clock_since_start(&c, 3000000000ull), 1000000000ll);
	assert_int_equal(hvt_host_clock_realtime(&c, 3000000000ull), 1700000001000000000ll);
	/* extrapolation uses the nearest interval */
	assert_int_equal(hvt_host_clock_mono(&c, 0), 0);
	/* in order (the hint), then backwards (a search each time): same answers */
	for (i = 0, t = 1000000000ull; i < 41; i++, t += 123456789) {
		in_order[i] = hvt_host_clock_mono(&c, t);
		assert_true(i == 0 || in_order[i] > in_order[i - 1]);
	}
	for (i = 40; i >= 0; i--)
		assert_int_equal(hvt_host_clock_mono(&c, 1000000000ull + (uint64_t)i * 123456789),
				 in_order[i]);
	assert_int_equal(hvt_host_clock_mono(&c, 1000000000ull), 500000000ll);
	hvt_host_clock_free(&c);
}

/*
 * CLOCK_REALTIME -> TSC is the inverse of host_clock.h's TSC -> CLOCK_REALTIME
 * (within a tick), follows each interval's own rate, extends the nearest
 * line outside the pairs, and never uses an interval where CLOCK_REALTIME
 * stepped back; its bound is the pairs' uncertainty plus the bend of the
 * line at the inner pairs.
 */
static void test_realtime_to_tsc(void **state)
{
	const struct hvt_clock_pair pairs[] = {
		{ 1000000000ull, 500000000ll, 1700000000000000000ll, 20 },
		{ 3000000000ull, 1500000000ll, 1700000001000000000ll, 20 },	/* 2 GHz */
		{ 5000000000ull, 2500000000ll, 1700000002000500000ll, 20 },	/* +500 ppm */
	};
	const struct hvt_clock_pair stepped[] = {
		{ 1000000000ull, 500000000ll, 1700000000000000000ll, 0 },
		{ 3000000000ull, 1500000000ll, 1700000001000000000ll, 0 },
		{ 5000000000ull, 2500000000ll, 1700000000500000000ll, 0 },	/* back 1.5 s */
		{ 7000000000ull, 3500000000ll, 1700000001500000000ll, 0 },
	};
	struct hvt_host_clock c;
	struct hvt_realtime_tsc m;
	uint64_t t;

	(void)state;
	assert_int_equal(hvt_host_clock_init(&c, pairs, 3, 0), 0);
	assert_int_equal(hvt_realtime_tsc_init(&m, pairs, 3, 0), 0);
	for (t = 1000000000ull; t <= 5000000000ull; t += 77777777) {
		uint64_t back = hvt_realtime_tsc(&m, hvt_host_clock_realtime(&c, t));

		assert_true(back + 2 >= t && back <= t + 2);
	}
	assert_int_equal(hvt_realtime_tsc(&m, 1700000000500000000ll), 2000000000ull);
	/* after the last pair: the last interval's rate, 2 GHz less 500 ppm */
	assert_true(llabs((long long)hvt_realtime_tsc(&m, 1700000003000500000ll) -
			  (long long)(5000000000ull + 1999000500ull)) <= 1);
	assert_int_equal(hvt_realtime_tsc(&m, 1699999999000000000ll), 0);
	/* 20 ticks of uncertainty at the mean rate (2 GHz) are 10 ns; the line of
	 * the first interval, extended, misses the third pair by 500 us of ticks */
	assert_true(m.bound_ns >= 500009 && m.bound_ns <= 500011);
	hvt_host_clock_free(&c);

	assert_int_equal(hvt_realtime_tsc_init(&m, stepped, 4, 0), 0);
	/* realtime 1700000000.75 s: in the first interval, not in the stepped one */
	assert_int_equal(hvt_realtime_tsc(&m, 1700000000750000000ll), 2500000000ull);
	assert_int_equal(hvt_realtime_tsc(&m, 1700000001250000000ll), 6500000000ull);
	/* the same answer after a conversion in the later interval */
	assert_int_equal(hvt_realtime_tsc(&m, 1700000000750000000ll), 2500000000ull);
	assert_int_equal(hvt_realtime_tsc_init(&m, stepped, 0, 1000), -1);
	assert_int_equal(hvt_realtime_tsc_init(&m, stepped, 1, 0), -1);
	assert_int_equal(hvt_realtime_tsc_init(&m, stepped, 1, 2000000000ull), 0);
	assert_int_equal(hvt_realtime_tsc(&m, 1700000001000000000ll), 3000000000ull);
}

static void test_host_clock_refuses_bad_pairs(void **state)
{
	struct hvt_clock_pair pairs[] = {
		{ 1000, 500, 0, 1 }, { 2000, 400, 0, 1 },	/* monotonic went back */
	};
	struct hvt_host_clock c;

	(void)state;
	assert_int_equal(hvt_host_clock_init(&c, pairs, 2, 0), -1);
	pairs[1].mono_ns = 900;
	pairs[1].tsc = 1000;					/* TSC did not advance */
	assert_int_equal(hvt_host_clock_init(&c, pairs, 2, 0), -1);
	assert_int_equal(hvt_host_clock_init(&c, pairs, 1, 0), -1);	/* no frequency */
	assert_int_equal(hvt_host_clock_init(&c, pairs, 0, 1000), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_truth_inside_interval),
		cmocka_unit_test(test_drift_is_detected),
		cmocka_unit_test(test_one_sided),
		cmocka_unit_test(test_mult_shift_precision),
		cmocka_unit_test(test_scale_both_sides_of_base),
		cmocka_unit_test(test_linear_map_fit),
		cmocka_unit_test(test_host_clock_piecewise),
		cmocka_unit_test(test_host_clock_refuses_bad_pairs),
		cmocka_unit_test(test_realtime_to_tsc),
	};

	return cmocka_run_group_tests_name("clocksync", tests, NULL, NULL);
}
