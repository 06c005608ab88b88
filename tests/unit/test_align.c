// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_align.c - alignment arithmetic (tools/align/align.c, the host
 * clock): host TSC -> ns since the start and realtime, a guest clock fitted
 * from clock exchanges and sync points with its guaranteed interval, its
 * quality, and a clock that jumps back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/fileio.h"
#include "tests/unit/archive_fixture.h"
#include "tools/align/align.h"

static void test_host_clock(void **state)
{
	const struct hvt_clock_pair pairs[] = {
		{ FX_T0, FX_MONO0, FX_REAL0, 100 },
		{ FX_T0 + 2000000000ull, FX_MONO0 + 1000000000ll, FX_REAL0 + 1000000000ll, 100 },
	};
	struct hvt_host_clock c;

	(void)state;
	assert_int_equal(hvt_host_clock_init(&c, pairs, 2, 0), 0);
	assert_int_equal(hvt_host_clock_since_start(&c, FX_HOST_TSC(0)), 0);
	assert_int_equal(hvt_host_clock_since_start(&c, FX_HOST_TSC(1234567)), 1234567);
	assert_int_equal(hvt_host_clock_since_start(&c, FX_T0 - 2000), -1000);
	assert_int_equal(hvt_host_clock_realtime(&c, FX_HOST_TSC(1234567)), FX_REAL0 + 1234567);
	hvt_host_clock_free(&c);
	/* A single pair: the nominal frequency around it. */
	assert_int_equal(hvt_host_clock_init(&c, pairs, 1, 2000000000ull), 0);
	assert_int_equal(hvt_host_clock_since_start(&c, FX_HOST_TSC(5000000)), 5000000);
	hvt_host_clock_free(&c);
	assert_int_equal(hvt_host_clock_init(&c, pairs, 0, 0), -1);
}

static void fill_sync(struct hvt_sync_rec *recs, unsigned int n)
{
	unsigned int k;

	for (k = 0; k < n; k++) {
		uint64_t hs = FX_T0 + k * 1000000ull;

		recs[k].seq = k;
		recs[k].ex.host_send = hs;
		recs[k].ex.guest_recv = hs + 100 + (uint64_t)FX_OFFSET;
		recs[k].ex.guest_send = recs[k].ex.guest_recv + 10;
		recs[k].ex.host_recv = hs + 210;
	}
}

static void test_vm_clock_and_causality(void **state)
{
	struct hvt_sync_rec recs[8];
	struct hvt_vm_clock c;
	struct hvt_tsc_cursor cur = { 0, 0, 0 };
	uint64_t h;
	size_t exempt;

	(void)state;
	fill_sync(recs, 8);
	assert_int_equal(hvt_vm_clock_build(&c, recs, 8, NULL, 0), 0);
	assert_int_equal(hvt_vm_clock_segments(&c), 1);
	assert_false(c.glitch);
	assert_null(hvt_vm_clock_first_violation(&c, recs, 8, &exempt));
	assert_int_equal(exempt, 0);
	/* guest = host + FX_OFFSET within the exchanges' +/-100 ticks */
	h = hvt_vm_clock_to_host(&c, &cur, FX_GUEST_TSC(1240000));
	assert_true(h + 100 >= FX_HOST_TSC(1240000) && h <= FX_HOST_TSC(1240000) + 100);
	hvt_vm_clock_free(&c);
	/* one guest that received before the host sent: a glitch, not a clock change */
	recs[3].ex.guest_recv = recs[3].ex.host_send + (uint64_t)FX_OFFSET - 500;
	assert_int_equal(hvt_vm_clock_build(&c, recs, 8, NULL, 0), 0);
	assert_true(c.glitch);
	assert_int_equal(c.glitch_seq, 3);
	hvt_vm_clock_free(&c);
	assert_int_equal(hvt_vm_clock_build(&c, recs, 0, NULL, 0), -1);
}

/*
 * A glitch's exchanges are left out before the clock is built: the rest
 * make one segment again, every one of them causal. Exchanges that agree
 * leave nothing out.
 */
static void test_vm_clock_drop_glitches(void **state)
{
	struct hvt_sync_rec recs[20];
	struct hvt_vm_clock c;
	size_t n = 20, exempt, i;

	(void)state;
	fill_sync(recs, 20);
	assert_int_equal(hvt_vm_clock_drop_glitches("demo", recs, &n), 0);
	assert_int_equal(n, 20);
	/* a damaged row: its guest stamps a second of ticks back */
	recs[10].ex.guest_recv -= 2000000000ull;
	recs[10].ex.guest_send -= 2000000000ull;
	assert_int_equal(hvt_vm_clock_build(&c, recs, n, NULL, 0), 0);
	assert_true(c.glitch);
	hvt_vm_clock_free(&c);
	assert_int_equal(hvt_vm_clock_drop_glitches("demo", recs, &n), 1);
	assert_true(n >= 18 && n < 20);
	for (i = 0; i < n; i++)
		assert_int_not_equal(recs[i].seq, 10);
	assert_int_equal(hvt_vm_clock_build(&c, recs, n, NULL, 0), 0);
	assert_false(c.glitch);
	assert_int_equal(hvt_vm_clock_segments(&c), 1);
	assert_null(hvt_vm_clock_first_violation(&c, recs, n, &exempt));
	hvt_vm_clock_free(&c);
}

/* Sync points 5 ticks either side of the host's instant, every 1 ms like the exchanges. */
static void fill_points(struct hvt_sync_point *p, unsigned int n)
{
	unsigned int k;

	for (k = 0; k < n; k++) {
		uint64_t host = FX_T0 + k * 1000000ull + 500000;

		p[k] = (struct hvt_sync_point){ host, host + (uint64_t)FX_OFFSET - 5,
						host + (uint64_t)FX_OFFSET + 5, 1000 + k };
	}
}

/*
 * Sync points narrow what the exchanges (+/-100 ticks) allow to +/-5 ticks,
 * and fit a clock on their own.
 */
static void test_vm_clock_sync_points(void **state)
{
	struct hvt_sync_rec recs[40];
	struct hvt_sync_point points[40];
	struct hvt_vm_clock_quality q;
	struct hvt_vm_clock c;
	struct hvt_tsc_cursor cur = { 0, 0, 0 };
	uint64_t h;

	(void)state;
	fill_sync(recs, 40);
	fill_points(points, 40);
	assert_int_equal(hvt_vm_clock_build(&c, recs, 40, points, 40), 0);
	assert_int_equal(c.nr_points, 40);
	assert_int_equal(hvt_vm_clock_segments(&c), 1);
	assert_false(c.glitch);
	hvt_vm_clock_quality(&c, recs, 40, &q);
	assert_int_equal(q.in_window + q.unbounded, 0);
	assert_true(q.half_max <= 6);
	h = hvt_vm_clock_to_host(&c, &cur, FX_GUEST_TSC(1240000));
	assert_true(h + 5 >= FX_HOST_TSC(1240000) && h <= FX_HOST_TSC(1240000) + 5);
	hvt_vm_clock_free(&c);
	/* sync points alone */
	assert_int_equal(hvt_vm_clock_build(&c, recs, 0, points, 40), 0);
	cur = (struct hvt_tsc_cursor){ 0, 0, 0 };
	h = hvt_vm_clock_to_host(&c, &cur, FX_GUEST_TSC(1240000));
	assert_true(h + 5 >= FX_HOST_TSC(1240000) && h <= FX_HOST_TSC(1240000) + 5);
	hvt_vm_clock_free(&c);
}

/*
 * Exchanges 100 ticks each way on a clock that neither drifts nor jumps: every
 * line shifted by at most 100 ticks from the truth fits them, so the interval
 * is +/-100 ticks wherever the exchanges reach.
 */
static void test_vm_clock_quality(void **state)
{
	struct hvt_sync_rec recs[40];
	struct hvt_vm_clock_quality q;
	struct hvt_vm_clock c;
	unsigned int k;

	(void)state;
	fill_sync(recs, 40);
	assert_int_equal(hvt_vm_clock_build(&c, recs, 40, NULL, 0), 0);
	hvt_vm_clock_quality(&c, recs, 40, &q);
	assert_int_equal(q.measured, HVT_QUALITY_POINTS);
	assert_int_equal(q.in_window + q.unbounded, 0);
	assert_int_equal(q.half_p50, 100);
	/* between exchanges the bounds are rounded outwards to whole ticks */
	assert_true(q.half_max == 100 || q.half_max == 101);
	/* from host_send 0 to host_recv 39 ms + 210 ticks after FX_T0: the middle */
	assert_int_equal(q.host_mid, FX_T0 + 19500105);
	hvt_vm_clock_free(&c);

	/* a jump: the instants around it are in the change window, the rest still +/-100 */
	for (k = 20; k < 40; k++) {
		recs[k].ex.guest_recv += 5000000;
		recs[k].ex.guest_send += 5000000;
	}
	assert_int_equal(hvt_vm_clock_build(&c, recs, 40, NULL, 0), 0);
	hvt_vm_clock_quality(&c, recs, 40, &q);
	assert_true(q.in_window > 0 && q.in_window < HVT_QUALITY_POINTS / 4);
	assert_int_equal(q.measured + q.in_window + q.unbounded, HVT_QUALITY_POINTS);
	assert_int_equal(q.half_p50, 100);
	hvt_vm_clock_free(&c);

	/*
	 * A guest TSC at twice the host's rate, same 100-tick delays: the interval
	 * is 400 guest ticks wide, and still +/-100 on the host's time line.
	 */
	for (k = 0; k < 40; k++) {
		uint64_t hs = recs[k].ex.host_send;

		recs[k].ex.guest_recv = 2 * (hs + 100) + (uint64_t)FX_OFFSET;
		recs[k].ex.guest_send = 2 * (hs + 110) + (uint64_t)FX_OFFSET;
	}
	assert_int_equal(hvt_vm_clock_build(&c, recs, 40, NULL, 0), 0);
	hvt_vm_clock_quality(&c, recs, 40, &q);
	assert_int_equal(q.measured, HVT_QUALITY_POINTS);
	assert_true(q.half_p50 >= 99 && q.half_p50 <= 101);
	hvt_vm_clock_free(&c);

	/* one exchange bounds the offset but not the rate: nothing to measure */
	assert_int_equal(hvt_vm_clock_build(&c, recs, 1, NULL, 0), 0);
	hvt_vm_clock_quality(&c, recs, 1, &q);
	assert_int_equal(q.measured, 0);
	hvt_vm_clock_free(&c);
}

/* A real offset jump: two segments, no glitch, every exchange causal or exempt. */
static void test_vm_clock_jump(void **state)
{
	struct hvt_sync_rec recs[40];
	struct hvt_vm_clock c;
	struct hvt_tsc_cursor cur = { 0, 0, 0 };
	size_t exempt;
	unsigned int k;
	uint64_t h;

	(void)state;
	fill_sync(recs, 40);
	for (k = 20; k < 40; k++) {
		recs[k].ex.guest_recv += 5000000;	/* the guest TSC jumped 5 M ticks */
		recs[k].ex.guest_send += 5000000;
	}
	assert_int_equal(hvt_vm_clock_build(&c, recs, 40, NULL, 0), 0);
	assert_int_equal(hvt_vm_clock_segments(&c), 2);
	assert_false(c.glitch);
	assert_null(hvt_vm_clock_first_violation(&c, recs, 40, &exempt));
	assert_true(exempt <= 2);
	/* before and after the jump, in stream order */
	h = hvt_vm_clock_to_host(&c, &cur, FX_GUEST_TSC(5000000));
	assert_true(h + 100 >= FX_HOST_TSC(5000000) && h <= FX_HOST_TSC(5000000) + 100);
	h = hvt_vm_clock_to_host(&c, &cur, FX_GUEST_TSC(30000000) + 5000000);
	assert_true(h + 100 >= FX_HOST_TSC(30000000) && h <= FX_HOST_TSC(30000000) + 100);
	hvt_vm_clock_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_clock),
		cmocka_unit_test(test_vm_clock_and_causality),
		cmocka_unit_test(test_vm_clock_drop_glitches),
		cmocka_unit_test(test_vm_clock_sync_points),
		cmocka_unit_test(test_vm_clock_jump),
		cmocka_unit_test(test_vm_clock_quality),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
